// RedisClient: commands over one connection, a reader task matching replies in order, reconnects.
#include "squall/net/redis.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <deque>
#include <random>

#include "squall/core/event.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/core/timeout.h"
#include "squall/net/net_error.h"
#include "squall/net/stream.h"
#include "squall/net/tcp_client.h"

namespace squall {

namespace detail {

// One command, or one pipeline, waiting for its replies.
struct RedisPending {
  RedisPending(size_t n, std::string what) : expected(n), name(std::move(what)) {
    replies.reserve(std::min<size_t>(n, 4096));
  }
  size_t expected;
  std::string name;
  std::vector<RedisReply> replies;
  std::exception_ptr error;
  bool lost = false;  // the connection ended before every reply came
  bool done = false;
  Event event;
};

// One TCP connection and the commands sent on it, oldest first.
class RedisConnection {
 public:
  RedisConnection(Stream s, RespLimits limits, std::string peer)
      : stream(std::move(s)), parser(limits), peer_(std::move(peer)) {}

  // Whether a new command may go out on it now: open, and (when idle) not ended by the server
  // while nobody was looking, so that a command after CLIENT KILL or a restart goes to a new
  // connection instead of failing as "lost".
  bool usable() {
    if (dead || stream.closed()) return false;
    if (!pending.empty() || reading) return true;
    if (stream.check_idle()) return true;
    return !stream.closed() && !stream.at_eof();
  }

  // Takes the replies in the read buffer; false when the bytes broke the protocol.
  bool deliver_buffered() {
    std::string_view in = stream.buffered();
    size_t offset = 0;
    bool ok = true;
    while (offset < in.size()) {
      auto [event, used] = parser.next(in.substr(offset));
      offset += used;
      if (event == RespEvent::NeedMore) break;
      if (event == RespEvent::Fail) {
        cause_ = std::make_exception_ptr(
            NetError(parser.fail_kind(), NetPhase::Read, peer_, parser.fail_reason()));
        ok = false;
        break;
      }
      if (!deliver(parser.take())) {
        ok = false;
        break;
      }
    }
    stream.consume(offset);
    return ok;
  }

  // The connection ends: every command waiting fails, and the stream closes. `cause` is why
  // (an exception, or null with `why`); a parser failure recorded earlier wins.
  void lose(std::exception_ptr cause, std::string_view why) noexcept {
    if (dead) return;
    dead = true;
    if (cause_) cause = cause_;
    std::string reason = cause ? exception_message(cause) : std::string(why);
    ErrorKind kind = ErrorKind::Closed;
    if (cause_) {
      try {
        std::rethrow_exception(cause_);
      } catch (const Error& e) {
        kind = e.kind();
      } catch (...) {
      }
    }
    while (!pending.empty()) {
      std::shared_ptr<RedisPending> p = std::move(pending.front());
      pending.pop_front();
      p->error = std::make_exception_ptr(
          NetError(kind, NetPhase::Read, peer_,
                   "the connection ended before " + p->name + " was answered (" + reason +
                       "); the server may have run it, and it was not sent again"));
      p->lost = true;
      p->done = true;
      p->event.set();
    }
    stream.close(cause ? cause
                       : std::make_exception_ptr(
                             NetError(ErrorKind::Closed, NetPhase::Read, peer_, std::string(why))));
  }

  size_t in_flight() const noexcept {
    size_t n = 0;
    for (const auto& p : pending) n += p->expected - p->replies.size();
    return n;
  }

  Stream stream;
  RespParser parser;
  std::deque<std::shared_ptr<RedisPending>> pending;
  bool dead = false;
  bool reading = false;  // the reader is inside a read (check_idle must not run)

 private:
  bool deliver(RedisReply reply) {
    // Out-of-band RESP3 pushes answer no command.
    if (reply.type == RedisReply::Type::Push) return true;
    if (pending.empty()) {
      std::string shown = reply.to_string().substr(0, 80);
      cause_ =
          std::make_exception_ptr(NetError(ErrorKind::Protocol, NetPhase::Read, peer_,
                                           "a reply came that no command waits for: " + shown));
      return false;
    }
    RedisPending& p = *pending.front();
    p.replies.push_back(std::move(reply));
    if (p.replies.size() == p.expected) {
      p.done = true;
      p.event.set();
      pending.pop_front();
    }
    return true;
  }

  std::string peer_;
  std::exception_ptr cause_;
};

class RedisCore {
 public:
  RedisCore(RedisOptions o, Loop& l)
      : options(std::move(o)),
        loop(&l),
        peer(options.host.find(':') != std::string::npos
                 ? "[" + options.host + "]:" + std::to_string(options.port)
                 : options.host + ":" + std::to_string(options.port)),
        rng(std::random_device{}()) {}

  // The delay before the next attempt after `failures` failed ones in a row.
  Duration backoff() {
    Duration delay = options.backoff_initial;
    for (int i = 1; i < failures && delay < options.backoff_max; ++i) delay *= 2;
    delay = std::min(delay, options.backoff_max);
    auto full = std::chrono::duration_cast<std::chrono::microseconds>(delay).count();
    if (full <= 1) return delay;
    std::uniform_int_distribution<int64_t> pick(full / 2, full);
    return std::chrono::microseconds(pick(rng));
  }

  RedisOptions options;
  Loop* loop;
  std::string peer;
  std::shared_ptr<RedisConnection> conn;
  bool closed = false;
  // One connection is opened at a time; the others wait for connect_done. Rounds count the
  // openings; failed_round names the last one that gave up, with last_error.
  bool connecting = false;
  Event connect_done;
  uint64_t round = 0;
  uint64_t failed_round = 0;
  std::exception_ptr last_error;
  int failures = 0;
  TimePoint next_attempt{};
  uint64_t connections = 0;
  std::minstd_rand rng;
};

}  // namespace detail

namespace {

using detail::RedisConnection;
using detail::RedisCore;
using detail::RedisPending;

std::string ms_text(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

// A command's name as messages show it: its first argument, printable and short.
std::string command_name(std::string_view first) {
  std::string out;
  for (char c : first.substr(0, 32)) {
    auto u = static_cast<unsigned char>(c);
    out += (u > 0x20 && u < 0x7f) ? static_cast<char>(std::toupper(u)) : '?';
  }
  return out.empty() ? "(empty command)" : out;
}

// The reader: takes replies off the socket until the connection ends, then fails what waits.
Task<void> read_replies(std::shared_ptr<RedisConnection> c) {
  std::exception_ptr error;
  std::string why = "the server closed the connection";
  try {
    for (;;) {
      if (!c->deliver_buffered()) break;
      if (c->dead) break;
      // Idle, the reader never sits inside a read, so that a new command may check_idle()
      // whether the server ended the connection meanwhile; it looks without waiting instead.
      if (c->pending.empty()) {
        co_await c->stream.wait_readable();
        if (c->pending.empty()) {
          if (c->stream.check_idle()) continue;
          if (std::exception_ptr reason = c->stream.close_reason()) std::rethrow_exception(reason);
          if (c->stream.at_eof() && c->stream.buffered().empty()) break;
          continue;
        }
      }
      c->reading = true;
      size_t n = co_await c->stream.read_more();
      c->reading = false;
      if (n == 0) {
        if (c->parser.in_reply()) why = "the server closed the connection in the middle of a reply";
        break;
      }
    }
  } catch (...) {
    error = std::current_exception();
  }
  c->reading = false;
  c->lose(error, why);
}

// Waits for `event` until `deadline`: false when that deadline passed first. A kill, or the
// TimeoutError of an outer with_timeout, which arrives as a kill, goes through.
Task<bool> wait_until(Event& event, TimePoint deadline) {
  if (event.is_set()) co_return true;
  bool timed_out = false;
  try {
    co_await Event::Awaiter(event, deadline);
  } catch (const TimeoutError&) {
    if (Clock::now() < deadline) throw;
    timed_out = true;
  }
  co_return !timed_out;
}

bool retryable(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const RedisError& e) {
    // A server that restarts answers LOADING until its data set is in memory.
    return e.code() == "LOADING" || e.code() == "BUSY";
  } catch (const NetError& e) {
    return e.kind() != ErrorKind::Protocol && e.kind() != ErrorKind::TooLarge;
  } catch (...) {
    return false;
  }
}

// Closes a connection being opened unless the opening finished.
class OpeningGuard {
 public:
  explicit OpeningGuard(std::shared_ptr<RedisConnection>& c) : c_(c) {}
  ~OpeningGuard() {
    if (c_ && !released_) c_->lose(nullptr, "the connection's handshake did not finish");
  }
  void release() { released_ = true; }
  OpeningGuard(const OpeningGuard&) = delete;
  OpeningGuard& operator=(const OpeningGuard&) = delete;

 private:
  std::shared_ptr<RedisConnection>& c_;
  bool released_ = false;
};

// One attempt: connect, start the reader, and the handshake (HELLO or AUTH, SELECT, SETNAME).
Task<std::shared_ptr<RedisConnection>> open_connection(RedisCore& core, TimePoint deadline) {
  const RedisOptions& o = core.options;
  TimePoint attempt_deadline = std::min(deadline, deadline_after(o.connect_timeout));
  Duration limit = attempt_deadline - Clock::now();
  ConnectOptions connect;
  if (attempt_deadline != TimePoint::max()) {
    if (limit <= Duration::zero())
      throw NetError(ErrorKind::Timeout, NetPhase::Connect, core.peer, "no time left to connect");
    connect.timeout = limit;
  }
  Stream stream = co_await tcp_connect(o.host, o.port, connect);
  auto c = std::make_shared<RedisConnection>(std::move(stream), o.limits, core.peer);
  OpeningGuard guard(c);
  ++core.connections;
  spawn(read_replies(c), *core.loop);

  std::string wire;
  std::vector<std::string> names;
  std::string user = o.user.empty() ? "default" : o.user;
  if (o.protocol == 3) {
    std::vector<std::string_view> hello = {"HELLO", "3"};
    if (!o.password.empty()) hello.insert(hello.end(), {"AUTH", user, o.password});
    if (!o.client_name.empty()) hello.insert(hello.end(), {"SETNAME", o.client_name});
    append_command(wire, hello);
    names.push_back("HELLO");
  } else {
    if (!o.password.empty()) {
      if (o.user.empty()) {
        append_command(wire, {"AUTH", o.password});
      } else {
        append_command(wire, {"AUTH", o.user, o.password});
      }
      names.push_back("AUTH");
    }
    if (!o.client_name.empty()) {
      append_command(wire, {"CLIENT", "SETNAME", o.client_name});
      names.push_back("CLIENT SETNAME");
    }
  }
  std::string db = std::to_string(o.db);
  if (o.db != 0) {
    append_command(wire, {"SELECT", db});
    names.push_back("SELECT");
  }
  if (!names.empty()) {
    auto p = std::make_shared<RedisPending>(names.size(), "the connection's handshake");
    c->pending.push_back(p);
    co_await c->stream.write(std::move(wire));
    bool answered = co_await wait_until(p->event, attempt_deadline);
    if (!answered) {
      throw NetError(ErrorKind::Timeout, NetPhase::Connect, core.peer,
                     "no answer to the connection's handshake within " + ms_text(limit));
    }
    if (p->error) std::rethrow_exception(p->error);
    for (size_t i = 0; i < names.size(); ++i) {
      if (p->replies[i].is_error()) throw RedisError(core.peer, names[i], p->replies[i].str);
    }
  }
  guard.release();
  co_return c;
}

// Marks the end of an opening round, however it ends: the waiters wake and look again.
class RoundGuard {
 public:
  explicit RoundGuard(RedisCore& core) : core_(core) { core_.connecting = true; }
  ~RoundGuard() {
    core_.connecting = false;
    core_.connect_done.set();
    core_.connect_done.clear();
  }
  RoundGuard(const RoundGuard&) = delete;
  RoundGuard& operator=(const RoundGuard&) = delete;

 private:
  RedisCore& core_;
};

// Opens a connection with the retries and backoff of the options, or throws the last error.
Task<std::shared_ptr<RedisConnection>> open_with_retries(std::shared_ptr<RedisCore> core,
                                                         TimePoint deadline, std::string name) {
  RoundGuard round_guard(*core);
  uint64_t round = ++core->round;
  if (core->conn) {
    core->conn->lose(nullptr, "the connection was replaced");
    core->conn.reset();
  }
  int attempts = std::max(1, core->options.connect_attempts);
  for (int attempt = 1;; ++attempt) {
    if (core->next_attempt > Clock::now()) {
      if (core->next_attempt > deadline) {
        std::string last = core->last_error
                               ? "; the last attempt failed: " + exception_message(core->last_error)
                               : "";
        throw TimeoutError("redis " + core->peer + ": " + name +
                           " ran out of time waiting to reconnect" + last);
      }
      co_await sleep_until(core->next_attempt);
    }
    std::exception_ptr error;
    try {
      std::shared_ptr<RedisConnection> c = co_await open_connection(*core, deadline);
      if (core->closed) {
        c->lose(nullptr, "the client was closed");
        throw InvalidStateError("redis " + core->peer + ": the client was closed");
      }
      core->failures = 0;
      core->next_attempt = {};
      core->last_error = nullptr;
      core->conn = c;
      co_return c;
    } catch (const NetError&) {
      error = std::current_exception();
    } catch (const RedisError&) {
      error = std::current_exception();
    }
    ++core->failures;
    core->next_attempt = Clock::now() + core->backoff();
    core->last_error = error;
    if (attempt >= attempts || !retryable(error) || core->closed) {
      core->failed_round = round;
      std::rethrow_exception(error);
    }
  }
}

// A connection ready for a command: the current one, one another task is opening, or a new one.
Task<std::shared_ptr<RedisConnection>> acquire(std::shared_ptr<RedisCore> core, TimePoint deadline,
                                               std::string name, Duration limit) {
  for (;;) {
    if (core->closed) throw InvalidStateError("redis " + core->peer + ": the client was closed");
    if (core->conn && core->conn->usable()) co_return core->conn;
    if (!core->connecting) co_return co_await open_with_retries(core, deadline, std::move(name));
    uint64_t round = core->round;
    bool opened = co_await wait_until(core->connect_done, deadline);
    if (!opened) {
      throw TimeoutError("redis " + core->peer + ": " + name + " found no connection within " +
                         ms_text(limit));
    }
    if (core->failed_round == round && core->last_error) std::rethrow_exception(core->last_error);
  }
}

// Whether every reply is a LOADING error: the server ran none of the commands.
bool all_loading(const std::vector<RedisReply>& replies) {
  return !replies.empty() && std::all_of(replies.begin(), replies.end(), [](const RedisReply& r) {
    return r.is_error() && std::string_view(r.str).starts_with("LOADING");
  });
}

// The wait before sending again to a server that answered LOADING `times` times in a row.
Duration loading_backoff(const RedisOptions& o, int times) {
  Duration delay = o.backoff_initial;
  for (int i = 1; i < times && delay < o.backoff_max; ++i) delay *= 2;
  return std::min(delay, o.backoff_max);
}

Task<std::vector<RedisReply>> exchange(std::shared_ptr<RedisCore> core, std::string wire,
                                       size_t count, std::string name, Timeout timeout,
                                       bool idempotent) {
  if (!timeout) timeout = core->options.command_timeout;
  TimePoint deadline = deadline_after(timeout);
  Duration limit = timeout.value_or(Duration::max());
  int loading = 0;  // answers of a server still loading its data set, in a row
  for (int attempt = 0;; ++attempt) {
    std::shared_ptr<RedisConnection> c = co_await acquire(core, deadline, name, limit);
    auto p = std::make_shared<RedisPending>(count, name);
    c->pending.push_back(p);
    // Queued at the call, behind every command before it; a write that fails closes the stream
    // and the reader then fails `p` with the others. The bytes are copied: a send again (a lost
    // idempotent command, a server loading) needs them.
    bool last_try = !idempotent || attempt > 0;
    std::string bytes = wire;
    Task<void> sending = c->stream.write(std::move(bytes));
    if (deadline != TimePoint::max()) sending = with_deadline(deadline, std::move(sending));
    bool write_timed_out = false;
    try {
      co_await std::move(sending);
    } catch (const NetError&) {
    } catch (const TimeoutError&) {
      if (Clock::now() < deadline) throw;
      write_timed_out = true;
    }
    // A write that ran out of time leaves the command queued: it is handled as one whose reply
    // did not come in time.
    TimePoint wait_deadline = write_timed_out ? Clock::now() : deadline;
    bool answered = co_await wait_until(p->event, wait_deadline);
    if (!answered) {
      // Replies come in order: every command behind this one waits for it, perhaps forever (a
      // blocking command), so the connection is given up and the next command opens another.
      std::string what = name + " got no reply within " + ms_text(limit);
      c->lose(nullptr, what);
      throw TimeoutError("redis " + core->peer + ": " + what);
    }
    if (p->error) {
      if (p->lost && !last_try && !core->closed) continue;
      std::rethrow_exception(p->error);
    }
    // A server that restarted answers LOADING to every command until its data set is in
    // memory, and runs none of them: they are sent again after a wait, with the backoff and
    // the attempts of a connection. (When loading ends within a pipeline, its later commands
    // run: the replies are returned as they are.)
    if (all_loading(p->replies) && ++loading < core->options.connect_attempts && !core->closed) {
      TimePoint again = Clock::now() + loading_backoff(core->options, loading);
      if (again < deadline) {
        co_await sleep_until(again);
        --attempt;
        continue;
      }
    }
    co_return std::move(p->replies);
  }
}

Task<RedisReply> one_command(std::shared_ptr<RedisCore> core, std::string wire, std::string name,
                             Timeout timeout, bool idempotent) {
  std::vector<RedisReply> replies =
      co_await exchange(core, std::move(wire), 1, name, timeout, idempotent);
  throw_if_error(replies[0], name, core->peer);
  co_return std::move(replies[0]);
}

Task<void> connect_now(std::shared_ptr<RedisCore> core) {
  Timeout timeout = core->options.command_timeout;
  TimePoint deadline = deadline_after(timeout);
  co_await acquire(core, deadline, "connect", timeout.value_or(Duration::max()));
}

std::string percent_decode(std::string_view s, std::string_view url) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    int hi = i + 2 < s.size() ? hex(s[i + 1]) : -1;
    int lo = i + 2 < s.size() ? hex(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      throw InvalidArgumentError("redis URL " + std::string(url) +
                                 ": a bad percent-escape in its user or password");
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

}  // namespace

std::string detail::redis_command_name(std::string_view first) {
  return command_name(first);
}

// --- errors ------------------------------------------------------------------------------------

RedisError::RedisError(std::string_view peer, std::string_view command, std::string reply_text)
    : Error(ErrorKind::InvalidArgument,
            "redis " + std::string(peer) + ": " + std::string(command) + ": " + reply_text),
      text_(std::move(reply_text)) {}

std::string_view RedisError::code() const noexcept {
  std::string_view t = text_;
  return t.substr(0, t.find(' '));
}

void throw_if_error(const RedisReply& reply, std::string_view command, std::string_view peer) {
  if (reply.is_error()) throw RedisError(peer, command, reply.str);
}

// --- URLs --------------------------------------------------------------------------------------

RedisOptions parse_redis_url(std::string_view url) {
  auto bad = [&](const std::string& what) {
    return InvalidArgumentError("redis URL " + std::string(url) + ": " + what);
  };
  constexpr std::string_view scheme = "redis://";
  if (url.size() < scheme.size() ||
      !std::equal(scheme.begin(), scheme.end(), url.begin(),
                  [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); }))
    throw bad("not a redis:// URL (rediss:// and unix sockets are not supported)");
  RedisOptions o;
  std::string_view rest = url.substr(scheme.size());
  if (rest.find_first_of("?#") != std::string_view::npos)
    throw bad("queries and fragments are not supported");
  std::string_view authority = rest.substr(0, rest.find('/'));
  std::string_view path =
      rest.size() > authority.size() ? rest.substr(authority.size() + 1) : std::string_view();
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    size_t colon = userinfo.find(':');
    if (colon == std::string_view::npos) {
      // redis://secret@host: Redis' own tools read a lone userinfo as the password.
      o.password = percent_decode(userinfo, url);
    } else {
      o.user = percent_decode(userinfo.substr(0, colon), url);
      o.password = percent_decode(userinfo.substr(colon + 1), url);
    }
  }
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) throw bad("an IPv6 host without its ']'");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') throw bad("something after the IPv6 host that is not a port");
      port = after.substr(1);
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) throw bad("no host");
  o.host = std::string(host);
  if (!port.empty() || authority.ends_with(':')) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 ||
        value > 65535)
      throw bad("the port is not a number from 1 to 65535");
    o.port = static_cast<uint16_t>(value);
  }
  if (!path.empty()) {
    int db = 0;
    auto [end, ec] = std::from_chars(path.data(), path.data() + path.size(), db);
    if (ec != std::errc() || end != path.data() + path.size() || db < 0)
      throw bad("the path is not a database number (/0, /1, ...)");
    o.db = db;
  }
  return o;
}

// --- pipelines ---------------------------------------------------------------------------------

void RedisPipeline::note(std::string_view name) {
  if (count_++ == 0) first_ = command_name(name);
}

RedisPipeline& RedisPipeline::add(std::span<const std::string_view> args) {
  append_command(wire_, args);
  note(args.empty() ? std::string_view() : args[0]);
  return *this;
}

RedisPipeline& RedisPipeline::add(std::span<const std::string> args) {
  append_command(wire_, args);
  note(args.empty() ? std::string_view() : std::string_view(args[0]));
  return *this;
}

void RedisPipeline::clear() noexcept {
  wire_.clear();
  first_.clear();
  count_ = 0;
}

// --- the client --------------------------------------------------------------------------------

RedisClient::RedisClient(RedisOptions options, Loop& loop)
    : core_(std::make_shared<RedisCore>(std::move(options), loop)) {}

RedisClient::RedisClient(std::string_view url, Loop& loop)
    : RedisClient(parse_redis_url(url), loop) {}

RedisClient::RedisClient(RedisClient&&) noexcept = default;

RedisClient& RedisClient::operator=(RedisClient&& other) noexcept {
  if (this != &other) {
    close();
    core_ = std::move(other.core_);
  }
  return *this;
}

RedisClient::~RedisClient() {
  close();
}

Task<RedisReply> RedisClient::send(std::string wire, std::string name,
                                   const CommandOptions& options) {
  moved_check();
  return one_command(core_, std::move(wire), std::move(name), options.timeout, options.idempotent);
}

Task<RedisReply> RedisClient::command(std::span<const std::string_view> args,
                                      CommandOptions options) {
  moved_check();
  std::string wire;
  append_command(wire, args);
  return one_command(core_, std::move(wire), command_name(args.empty() ? "" : args[0]),
                     options.timeout, options.idempotent);
}

Task<RedisReply> RedisClient::command(std::span<const std::string> args, CommandOptions options) {
  moved_check();
  std::string wire;
  append_command(wire, args);
  return one_command(core_, std::move(wire),
                     command_name(args.empty() ? "" : std::string_view(args[0])), options.timeout,
                     options.idempotent);
}

Task<std::vector<RedisReply>> RedisClient::execute(const RedisPipeline& pipeline,
                                                   CommandOptions options) {
  moved_check();
  if (pipeline.empty())
    return []() -> Task<std::vector<RedisReply>> { co_return std::vector<RedisReply>{}; }();
  std::string name = pipeline.size() == 1 ? pipeline.first_name()
                                          : "a pipeline of " + std::to_string(pipeline.size()) +
                                                " commands (" + pipeline.first_name() + ", ...)";
  return exchange(core_, pipeline.wire(), pipeline.size(), std::move(name), options.timeout,
                  options.idempotent);
}

Task<void> RedisClient::connect() {
  moved_check();
  return connect_now(core_);
}

void RedisClient::close() noexcept {
  if (!core_) return;
  core_->closed = true;
  if (core_->conn) {
    core_->conn->lose(nullptr, "the client was closed");
    core_->conn.reset();
  }
}

const RedisOptions& RedisClient::options() const noexcept {
  return core_->options;
}

const std::string& RedisClient::peer() const noexcept {
  return core_->peer;
}

void RedisClient::moved_check() const {
  if (!core_) throw InvalidStateError("RedisClient: used after it was moved from");
}

bool RedisClient::connected() const noexcept {
  return core_ && core_->conn && !core_->conn->dead && !core_->conn->stream.closed();
}

size_t RedisClient::in_flight() const noexcept {
  return core_ && core_->conn ? core_->conn->in_flight() : 0;
}

uint64_t RedisClient::connections() const noexcept {
  return core_ ? core_->connections : 0;
}

}  // namespace squall
