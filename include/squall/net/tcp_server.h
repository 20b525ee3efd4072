// TcpServer: listen on an address and run a coroutine per accepted connection (Tornado's
// TCPServer).
//
//   TcpServer server([](Stream& s) -> Task<void> { co_await s.write(co_await s.read_until("\n"));
//   }); server.listen(Address::parse("127.0.0.1:0"));
//   ... server.port() ...
//   co_await server.stop(5s);
//
// Each connection gets a task of its own, spawned on the server's loop, that owns the Stream
// and runs the handler; the stream closes when the handler returns or throws. An exception
// from a handler is logged (with the peer) and ends only that connection. With
// max_connections set, the server stops accepting while that many handlers run: further
// clients wait in the kernel's backlog until a handler ends.
//
// Threads: a server belongs to the loop it was made on. For several cores, run one server per
// loop on the same port with reuse_port.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "squall/core/loop.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/address.h"
#include "squall/net/stream.h"
#include "squall/net/tls.h"

namespace squall {

struct ServerOptions {
  int backlog = 128;
  bool reuse_address = true;   // SO_REUSEADDR: rebind at once after a restart
  bool reuse_port = false;     // SO_REUSEPORT: several listeners (loops) share the port
  size_t max_connections = 0;  // handlers running at once; 0 for no limit
  bool no_delay = true;        // TCP_NODELAY on accepted connections
  StreamOptions stream;
  // TLS (tls.h): each connection's task runs the handshake before the handler, which gets the
  // TLS stream. A failed handshake is logged (Info, with the peer and reason) and ends only that
  // connection. Set tls->handshake_timeout so a silent client cannot hold a slot for ever.
  std::optional<TlsServerOptions> tls;
};

namespace detail {
struct ServerState;
}

class TcpServer {
 public:
  // The handler runs once per connection, in its own task; the Stream lives until it returns.
  using Handler = std::function<Task<void>(Stream&)>;

  explicit TcpServer(Handler handler, ServerOptions options = {}, Loop& loop = Loop::current());
  TcpServer(const TcpServer&) = delete;
  TcpServer& operator=(const TcpServer&) = delete;
  // Stops accepting and kills the handlers still running (they unwind on the loop later).
  // Call stop() first for a graceful end.
  ~TcpServer();

  // Binds (port 0: an ephemeral port, see port()), listens and starts accepting. An IPv6
  // address listens on IPv6 only. Throws NetError (phase listen) if the system refuses, e.g.
  // EADDRINUSE; InvalidStateError if already listening.
  void listen(const Address& address);

  // The bound address, port included; valid after listen().
  const Address& address() const noexcept;
  uint16_t port() const noexcept { return address().port(); }
  // Handlers running now.
  size_t connection_count() const noexcept;

  // `co_await server.stop(grace)`: stops accepting and closes the listening socket at once,
  // waits up to `grace` (no limit if empty) for running handlers to return, then kills the
  // rest and waits for them to unwind. Returns when no handler runs. Idempotent.
  [[nodiscard]] Task<void> stop(Timeout grace = {});

 private:
  std::shared_ptr<detail::ServerState> state_;
};

}  // namespace squall
