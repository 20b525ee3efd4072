// websocket_connect: a WebSocket client connection (Tornado's websocket_connect).
//
//   WebSocket ws = co_await websocket_connect("ws://127.0.0.1:8888/echo");
//   co_await ws.write_message("hello");
//   std::optional<WsMessage> answer = co_await ws.read_message();   // nullopt once closed
//
// The connection is opened the way HttpClient opens one (resolve, connect, a CONNECT tunnel
// through the proxy if one applies, TLS for wss://), with the client's timeouts, defaults,
// resolver and hostname_mapping, but it is never pooled and takes none of the client's
// max_clients slots. The opening handshake is a GET with the client's fields (Host,
// User-Agent, the defaults' fields, the request's, basic credentials from the URL or
// auth_username), offering the subprotocols given and, with `compression`, permessage-deflate.
//
// Timeouts: connect_timeout bounds resolving, connecting, the tunnel and the TLS handshake;
// request_timeout bounds everything up to the handshake's answer, connecting included.
//
// Errors: InvalidArgumentError for a URL that is not ws://, wss://, http:// or https:// (the
// last two are taken as the first two) or an unusable proxy; the connection's NetError
// (resolve, connect, a refused tunnel, TLS; kind Timeout past connect_timeout); TimeoutError
// past request_timeout; HttpError with the status and the response's head when the server
// answers with something other than 101; a squall::Error of kind Protocol naming what was wrong
// with a 101 that does not answer this request (accept key, subprotocol, extensions);
// InvalidStateError on a closed client.
//
// Threads: the connection belongs to the client's loop.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "squall/core/task.h"
#include "squall/http/client.h"
#include "squall/http/websocket.h"

namespace squall::http {

// Not an aggregate on purpose (the constructor): GCC 12 copies an aggregate temporary with
// string members bytewise when it lives across a co_await, as `co_await websocket_connect(url)`'s
// default argument does, and the strings then point into a copy that is gone.
struct WebSocketConnectOptions {
  WebSocketConnectOptions() = default;

  // The connection's limits and keepalive (max_message_size, ping_interval, close_timeout...).
  WebSocketOptions websocket;
  // Subprotocols to offer, in order of preference (Tornado's subprotocols).
  std::vector<std::string> subprotocols;
  // Offer permessage-deflate (Tornado's compression_options; off by default there too), at
  // websocket.compression_level.
  bool compression = false;
  // The handshake as an HTTP request: its headers (Origin, Cookie, Authorization...),
  // connect_timeout, request_timeout, proxy and its credentials, validate_cert, ca_certs,
  // client_cert, client_key, user_agent, auth_username and auth_password, max_header_size.
  // Unset fields take the client's defaults, then HttpClient's built-in ones. Its url, method,
  // body and the fields about response bodies are not used.
  HttpRequest request;
  // The client whose defaults and resolver apply; HttpClient::shared() when null. Must outlive
  // the connect.
  HttpClient* client = nullptr;
};

// Connects to `url` (see above). A plain function, not a coroutine: `options` is moved into the
// task's own storage at the call.
[[nodiscard]] Task<WebSocket> websocket_connect(std::string_view url,
                                                WebSocketConnectOptions options = {});

}  // namespace squall::http
