// tcp_connect: open a TCP connection to a host and port, as a Stream (Tornado's TCPClient).
//
//   Stream s = co_await tcp_connect("127.0.0.1", port);
//   ConnectOptions options;
//   options.timeout = 2s;
//   Stream s = co_await tcp_connect("localhost", port, options);
//
// The host goes through a Resolver (resolver.h). Given several addresses, the attempts follow
// RFC 8305 in spirit: families interleaved, a new attempt started every attempt_delay while
// earlier ones are still pending (or at once when one fails), the first to connect wins and
// the others are closed.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/address.h"
#include "squall/net/resolver.h"
#include "squall/net/stream.h"
#include "squall/net/tls.h"

namespace squall {

struct ConnectOptions {
  // The limit for resolving, connecting and the TLS handshake together; none by default.
  Timeout timeout;
  // Bind to this local address (port 0 for any) before connecting; only addresses of its
  // family are tried.
  std::optional<Address> source;
  // TCP_NODELAY on the connected socket.
  bool no_delay = true;
  // RFC 8305's Connection Attempt Delay: how long an attempt runs alone before the next starts.
  Duration attempt_delay = std::chrono::milliseconds(250);
  // Who resolves the host; default_resolver() if null.
  Resolver* resolver = nullptr;
  StreamOptions stream;
  // TLS on the connection (tls.h): the host is the name verified and sent by SNI unless
  // tls->server_name says otherwise.
  std::optional<TlsClientOptions> tls;
};

// `co_await tcp_connect(host, port, options)`: a connected Stream on the current loop.
// Throws NetError: kind Resolve (no address), Connect (every attempt failed; the message names
// each address and its errno, e.g. ECONNREFUSED), Timeout (options.timeout passed before the
// connection), or a TlsError from the handshake (tls.h; Timeout failure when options.timeout
// or the handshake timeout passed during it). A kill or with_timeout expiry closes every
// socket the attempts opened.
[[nodiscard]] Task<Stream> tcp_connect(std::string host, uint16_t port,
                                       ConnectOptions options = {});
// The same, to one known address.
[[nodiscard]] Task<Stream> tcp_connect(Address address, ConnectOptions options = {});

}  // namespace squall
