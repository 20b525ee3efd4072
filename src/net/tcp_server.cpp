// TcpServer: the accept loop, one task per connection, the connection limit and graceful stop.
#include "squall/net/tcp_server.h"

#include <list>
#include <vector>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/event.h"
#include "squall/core/io.h"
#include "squall/core/log.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/net/net_error.h"
#include "squall/net/socket.h"
#include "squall/net/transport.h"

namespace squall {

namespace detail {

// Shared by the server object and its tasks, so a server destroyed while handlers still
// unwind leaves them something valid to finish with.
struct ServerState {
  ServerState(TcpServer::Handler h, ServerOptions o, Loop& l)
      : handler(std::move(h)), options(o), loop(&l) {}

  void wake_idle() noexcept {
    while (Waiter* w = idle_waiters.pop_front()) w->wake();
  }

  TcpServer::Handler handler;
  ServerOptions options;
  Loop* loop;
  Socket listener;
  Address bound;
  TaskHandle<void> acceptor;
  std::list<TaskHandle<void>> connections;
  Event slot_free;                     // set when a handler ends
  IntrusiveList<Waiter> idle_waiters;  // stop() waiting for the handlers to end
  bool stopping = false;
};

namespace {

// Waits until no handler runs or the deadline passes; co_await yields true if none runs.
class IdleWait final : public Waiter {
 public:
  IdleWait(ServerState& s, TimePoint deadline) noexcept : s_(s), deadline_(deadline) {}
  bool await_ready() const noexcept { return s_.connections.empty(); }
  bool await_suspend(std::coroutine_handle<> h) {
    return suspend_in(s_.idle_waiters, h, deadline_);
  }
  bool await_resume() {
    finish();
    return s_.connections.empty();
  }

 private:
  ServerState& s_;
  TimePoint deadline_;
};

// The peer comes as its name, not its Address: what a parameter holds stays in the coroutine
// frame for the connection's whole life, and a sockaddr_storage is 128 bytes of it.
Task<void> serve(std::shared_ptr<ServerState> s, std::list<TaskHandle<void>>::iterator self,
                 Socket socket, std::string name) {
  try {
    Stream stream(std::make_unique<TcpTransport>(std::move(socket), name), s->options.stream,
                  *s->loop);
    bool secured = true;
    if (s->options.tls) {
      try {
        stream = co_await start_tls_server(std::move(stream), *s->options.tls);
      } catch (const TlsError& e) {
        // Scanners and clients that give up are routine for a server: not a handler failure.
        log(LogLevel::Info, std::string("connection from ") + name + ": " + e.what());
        secured = false;
      }
    }
    if (secured) co_await s->handler(stream);
  } catch (const CancelledError&) {
    // stop() or the server's destruction: an expected end.
  } catch (const std::exception& e) {
    log(LogLevel::Warning, "connection from " + name + ": handler failed: " + e.what());
  }
  s->connections.erase(self);
  s->slot_free.set();
  if (s->connections.empty()) s->wake_idle();
}

bool transient_accept_error(int error) {
  return error == ECONNABORTED || error == EPROTO || error == EPERM || error == ENETDOWN ||
         error == ENOPROTOOPT || error == EHOSTDOWN || error == ENONET || error == EHOSTUNREACH ||
         error == EOPNOTSUPP || error == ENETUNREACH;
}

Task<void> accept_loop(std::shared_ptr<ServerState> s) {
  const size_t limit = s->options.max_connections;
  for (;;) {
    // At the limit, stop accepting: the kernel's backlog holds the next clients.
    while (limit != 0 && s->connections.size() >= limit) {
      s->slot_free.clear();
      co_await s->slot_free.wait();
    }
    int error = 0;
    Address peer;
    Socket socket = s->listener.accept(error, &peer);
    if (!socket) {
      if (error == EAGAIN) {
        co_await wait_readable(s->listener.fd());
      } else if (!transient_accept_error(error)) {
        // Out of descriptors or memory: say so and back off rather than spin.
        log(LogLevel::Error, NetError(ErrorKind::System, NetPhase::Accept, s->bound.to_string(),
                                      describe_errno(error) + "; retrying in 100 ms", error)
                                 .what());
        co_await sleep(std::chrono::milliseconds(100));
      }
      continue;
    }
    if (s->options.no_delay) socket.set_no_delay(true);
    auto self = s->connections.emplace(s->connections.end());
    *self = spawn(serve(s, self, std::move(socket), peer.to_string()), *s->loop);
  }
}

}  // namespace
}  // namespace detail

TcpServer::TcpServer(Handler handler, ServerOptions options, Loop& loop)
    : state_(std::make_shared<detail::ServerState>(std::move(handler), options, loop)) {}

TcpServer::~TcpServer() {
  auto& s = *state_;
  s.stopping = true;
  // A kill releases the acceptor's interest in the listener at once, so closing it is safe.
  if (s.listener) s.acceptor.kill();
  s.listener.close();
  for (auto& connection : s.connections) connection.kill();
}

void TcpServer::listen(const Address& address) {
  auto& s = *state_;
  if (s.listener || s.stopping)
    throw InvalidStateError("TcpServer.listen: the server is already listening or stopped");
  auto fail = [&](int error) {
    return NetError(ErrorKind::System, NetPhase::Listen, address.to_string(), describe_errno(error),
                    error);
  };
  Socket socket = Socket::tcp(address.family());
  if (s.options.reuse_address) {
    if (int error = socket.set_reuse_address(true)) throw fail(error);
  }
  if (s.options.reuse_port) {
    if (int error = socket.set_reuse_port(true)) throw fail(error);
  }
  if (address.is_v6()) {
    if (int error = socket.set_v6_only(true)) throw fail(error);
  }
  if (int error = socket.bind(address)) throw fail(error);
  if (int error = socket.listen(s.options.backlog)) throw fail(error);
  s.bound = socket.local_address().value_or(address);
  s.listener = std::move(socket);
  s.acceptor = spawn(detail::accept_loop(state_), *s.loop);
}

const Address& TcpServer::address() const noexcept {
  return state_->bound;
}

size_t TcpServer::connection_count() const noexcept {
  return state_->connections.size();
}

Task<void> TcpServer::stop(Timeout grace) {
  std::shared_ptr<detail::ServerState> s = state_;
  if (!s->stopping) {
    s->stopping = true;
    if (s->listener) {
      s->acceptor.kill();
      co_await s->acceptor.join();
      s->listener.close();
    }
  }
  if (!co_await detail::IdleWait(*s, deadline_after(grace))) {
    std::vector<TaskHandle<void>> rest(s->connections.begin(), s->connections.end());
    for (auto& connection : rest) connection.kill();
    for (auto& connection : rest) co_await connection.join();
    // A task killed before it first ran never reached its own cleanup.
    std::erase_if(s->connections, [](const TaskHandle<void>& h) { return h.done(); });
  }
}

}  // namespace squall
