// tcp_connect: resolution, then staggered connection attempts (RFC 8305 in spirit).
#include "squall/net/tcp_client.h"

#include <memory>
#include <vector>

#include "squall/core/detail/task_state.h"
#include "squall/core/loop.h"
#include "squall/core/timeout.h"
#include "squall/net/net_error.h"
#include "squall/net/socket.h"
#include "squall/net/transport.h"

namespace squall {

namespace detail {
namespace {

// The connection attempts in flight: each socket watched for writability until its connect
// finishes. Destroying the race (a kill, a timeout, a winner) closes every socket left.
class ConnectRace {
 public:
  struct Attempt {
    Address address;
    Socket socket;
    bool watched = false;
    bool finished = false;  // connect completed (either way); pending_error() says how
    bool resumed = false;
  };

  explicit ConnectRace(Loop& loop) noexcept : loop_(loop) {}
  ~ConnectRace() {
    for (auto& a : attempts_) unwatch(*a);
  }
  ConnectRace(const ConnectRace&) = delete;
  ConnectRace& operator=(const ConnectRace&) = delete;

  // Starts connecting to `address`; 0, or the errno of an immediate failure.
  int start(const Address& address, const std::optional<Address>& source) {
    auto a = std::make_unique<Attempt>();
    a->address = address;
    a->socket = Socket::tcp(address.family());
    if (source) {
      if (int error = a->socket.bind(*source)) return error;
    }
    int error = a->socket.connect(address);
    if (error != 0 && error != EINPROGRESS) return error;
    Attempt* raw = a.get();
    attempts_.push_back(std::move(a));
    if (error == 0) {
      raw->finished = true;
    } else {
      watch(*raw);
    }
    return 0;
  }

  // Puts back an attempt that take_finished() returned too early (a stale readiness event for
  // a reused descriptor number): it goes on waiting.
  void resume(std::unique_ptr<Attempt> a) {
    a->finished = false;
    a->resumed = true;
    watch(*a);
    attempts_.push_back(std::move(a));
  }

  // Attempts started and not yet looked at by take_finished().
  size_t in_flight() const noexcept { return attempts_.size(); }

  // The first finished attempt, removed from the race; null if none has finished.
  std::unique_ptr<Attempt> take_finished() {
    for (auto it = attempts_.begin(); it != attempts_.end(); ++it) {
      if ((*it)->finished) {
        auto a = std::move(*it);
        attempts_.erase(it);
        return a;
      }
    }
    return nullptr;
  }

  Waiter* waiter_ = nullptr;

 private:
  void watch(Attempt& a) {
    Attempt* raw = &a;
    loop_.add_handler(a.socket.fd(), IoEvents::Write, [this, raw](IoEvents) {
      unwatch(*raw);
      raw->finished = true;
      if (waiter_) waiter_->wake();
    });
    a.watched = true;
  }

  void unwatch(Attempt& a) noexcept {
    if (a.watched) loop_.remove_handler(a.socket.fd());
    a.watched = false;
  }

  Loop& loop_;
  std::vector<std::unique_ptr<Attempt>> attempts_;
};

// Waits until an attempt finishes or `deadline` passes; co_await yields true on the deadline.
class RaceWait final : public Waiter {
 public:
  RaceWait(ConnectRace& race, TimePoint deadline) noexcept : race_(race), deadline_(deadline) {}
  ~RaceWait() {
    if (race_.waiter_ == this) race_.waiter_ = nullptr;
  }
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    if (!suspend(h, deadline_)) return false;
    race_.waiter_ = this;
    return true;
  }
  bool await_resume() {
    race_.waiter_ = nullptr;
    return finish();
  }

 private:
  ConnectRace& race_;
  TimePoint deadline_;
};

// The handshake's limit: its own, or what is left of the connect timeout, whichever is less.
TlsClientOptions handshake_limit(TlsClientOptions tls, TimePoint deadline) {
  if (deadline == TimePoint::max()) return tls;
  Duration left = std::max(deadline - Clock::now(), Duration::zero());
  if (!tls.handshake_timeout || *tls.handshake_timeout > left) tls.handshake_timeout = left;
  return tls;
}

std::string milliseconds(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

Task<Stream> connect_to(std::vector<Address> addresses, std::string peer, bool named,
                        ConnectOptions options, TimePoint deadline) {
  Loop& loop = Loop::current();
  if (options.source) {
    std::erase_if(addresses,
                  [&](const Address& a) { return a.family() != options.source->family(); });
    if (addresses.empty()) {
      throw NetError(
          ErrorKind::Connect, NetPhase::Connect, peer,
          "no address of the source address's family (source " + options.source->to_string() + ")");
    }
  }
  ConnectRace race(loop);
  std::string failures;
  int last_error = 0;
  auto record = [&](const Address& a, int error) {
    if (!failures.empty()) failures += "; ";
    if (addresses.size() > 1) failures += a.to_string() + ": ";
    failures += describe_errno(error);
    last_error = error;
  };
  size_t next = 0;
  TimePoint next_start = Loop::time();
  for (;;) {
    while (auto a = race.take_finished()) {
      int error = a->socket.pending_error();
      if (error == 0 && !a->socket.peer_address()) {
        if (!a->resumed) {
          race.resume(std::move(a));  // not connected yet after all
          break;
        }
        error = ENOTCONN;  // connected and already gone: no spinning on it
      }
      if (error != 0) {
        record(a->address, error);
        continue;
      }
      if (options.no_delay) a->socket.set_no_delay(true);
      std::string name = named ? peer + " (" + a->address.to_string() + ")" : peer;
      co_return Stream(std::make_unique<TcpTransport>(std::move(a->socket), std::move(name)),
                       options.stream, loop);
    }
    // A new attempt when none is pending, or when the pending ones had their head start.
    if (next < addresses.size() && (race.in_flight() == 0 || Loop::time() >= next_start)) {
      const Address& a = addresses[next++];
      if (int error = race.start(a, options.source)) {
        record(a, error);
      } else {
        next_start = Loop::time() + options.attempt_delay;
      }
      continue;
    }
    if (race.in_flight() == 0) {
      throw NetError(ErrorKind::Connect, NetPhase::Connect, peer, failures, last_error);
    }
    TimePoint until = next < addresses.size() ? std::min(next_start, deadline) : deadline;
    // A named awaiter: GCC 12 mishandles a temporary awaiter with a destructor inside a condition.
    RaceWait wait(race, until);
    bool timed_out = co_await wait;
    if (timed_out && Loop::time() >= deadline) {
      throw NetError(ErrorKind::Timeout, NetPhase::Connect, peer,
                     "no connection within " + milliseconds(*options.timeout) +
                         (failures.empty() ? "" : " (" + failures + ")"));
    }
  }
}

}  // namespace
}  // namespace detail

Task<Stream> tcp_connect(std::string host, uint16_t port, ConnectOptions options) {
  TimePoint deadline = deadline_after(options.timeout);
  Resolver& resolver = options.resolver ? *options.resolver : default_resolver();
  std::string peer = host.find(':') != std::string::npos && host.front() != '['
                         ? "[" + host + "]:" + std::to_string(port)
                         : host + ":" + std::to_string(port);
  std::vector<Address> addresses;
  if (!options.timeout) {
    addresses = co_await resolver.resolve(host, port);
  } else {
    try {
      addresses = co_await with_deadline(deadline, resolver.resolve(host, port));
    } catch (const TimeoutError&) {
      if (Loop::time() < deadline) throw;  // an outer limit, not ours
      throw NetError(ErrorKind::Timeout, NetPhase::Resolve, peer,
                     "no answer within " + detail::milliseconds(*options.timeout));
    }
  }
  bool named = !Address::from_ip(host, port);
  if (!named) peer = addresses.front().to_string();
  std::optional<TlsClientOptions> tls = std::move(options.tls);
  Stream plain = co_await detail::connect_to(interleave_families(std::move(addresses)), peer, named,
                                             std::move(options), deadline);
  if (!tls) co_return plain;
  co_return co_await start_tls(std::move(plain), std::move(host),
                               detail::handshake_limit(std::move(*tls), deadline));
}

Task<Stream> tcp_connect(Address address, ConnectOptions options) {
  TimePoint deadline = deadline_after(options.timeout);
  std::string peer = address.to_string();
  std::vector<Address> addresses(1, address);
  std::optional<TlsClientOptions> tls = std::move(options.tls);
  Stream plain = co_await detail::connect_to(std::move(addresses), std::move(peer), false,
                                             std::move(options), deadline);
  if (!tls) co_return plain;
  co_return co_await start_tls(std::move(plain), address.host(),
                               detail::handshake_limit(std::move(*tls), deadline));
}

}  // namespace squall
