// WebSocketHandler: a route that speaks WebSocket (Tornado's tornado.websocket.WebSocketHandler).
//
//   struct Echo : WebSocketHandler {
//     Task<void> on_message(WsMessage m) override { co_await write_message(m.data, m.binary); }
//   };
//   Application app({{"/echo", handler<Echo>()}});
//
// A GET to the route is the opening handshake: a request that is no valid upgrade is answered
// 400 (or 426 with Sec-WebSocket-Version: 13 for another version), one whose Origin fails
// check_origin() 403. Then open() runs, then on_message() for each message in turn (each
// awaited before the next is read), and on_close() once the connection has ended, however it
// ended (close_code() says how). An exception from open() or on_message() is logged (Error,
// naming the route) and closes the connection with 1011, as Tornado does; a
// WebSocketClosedError (a write after the close had begun) only ends the message loop.
//
// write_message(), ping() and close() may be called from other tasks too (a chat's broadcast):
// write_message() queues its frame at the call and its task only waits for the connection to
// drain below the stream's high-water mark (websocket.h), so a sender need not await it. The
// handler object lives until on_close() has returned; before open() and once the close has
// begun, writes throw WebSocketClosedError (as Tornado's do).
//
// Tornado's defaults: check_origin() accepts a request without Origin and one whose Origin's
// host and port are the request's Host; select_subprotocol() picks none; compression is off
// unless compression_options() says otherwise; websocket_options() gives messages of at most
// 10 MiB, no pings, a 5 s close_timeout.
//
// A server's stop() (HttpServer, Application, HttpWorkers) closes every open WebSocket with
// 1001, Going Away, as RFC 6455 asks of a server going down, and waits for the closing
// handshakes as for requests in flight: each ends when the peer answers (on_close() then runs
// with close_code() 1001) or after close_timeout (1006). A handler still running when the grace
// ends is cancelled (on_close() runs too).
//
// Threads: the handler belongs to its connection's loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/http/web.h"
#include "squall/http/websocket.h"

namespace squall::http {

// permessage-deflate as a server agrees to it (Tornado's get_compression_options()).
struct WsCompressionOptions {
  // zlib's level, 1 to 9.
  int level = 6;
  // Start each message the server sends with an empty window: no zlib state kept between
  // messages (about 256 KiB less per idle connection), at some cost in ratio.
  bool no_context_takeover = false;
};

class WebSocketHandler : public RequestHandler {
 public:
  // The handshake and the message loop; not to be overridden.
  Task<void> get() final;

  // --- hooks -------------------------------------------------------------------------------
  // The connection is open (the 101 has been sent).
  virtual Task<void> open();
  virtual Task<void> on_message(WsMessage message);
  // The connection has ended; runs once, on the handler's task.
  virtual void on_close() {}
  // A ping or pong came in (pings are answered whatever this does); must not wait.
  virtual void on_ping(std::string_view data);
  virtual void on_pong(std::string_view data);
  // True to accept a request from `origin` (the Origin field's value).
  virtual bool check_origin(std::string_view origin);
  // The subprotocol to agree, among those the client offered; nullopt for none. One it did not
  // offer is an error (a 500).
  virtual std::optional<std::string> select_subprotocol(const std::vector<std::string>& offered);
  // nullopt (the default) refuses permessage-deflate; a value agrees to a client's offer.
  virtual std::optional<WsCompressionOptions> compression_options() const;
  // Limits and keepalive: max_message_size, ping_interval, ping_timeout, close_timeout.
  virtual WebSocketOptions websocket_options() const;

  // --- the connection ----------------------------------------------------------------------
  [[nodiscard]] Task<void> write_message(std::string_view data, bool binary = false);
  [[nodiscard]] Task<void> ping(std::string_view data = {});
  [[nodiscard]] Task<void> close(uint16_t code = ws_close::kNormal, std::string_view reason = {});
  // Once ended: the code and reason the connection ended with (WebSocket::close_code).
  std::optional<uint16_t> close_code() const noexcept;
  std::string_view close_reason() const noexcept;
  const std::string& selected_subprotocol() const noexcept;
  // The connection, from open() on (InvalidStateError before).
  WebSocket& websocket();

 private:
  // The opening handshake: true once the connection is open, false when it was refused.
  Task<bool> accept();
  // The server's stop() has begun: close with 1001.
  void going_away();
  Task<void> serve(WebSocket& ws);
  std::optional<WebSocket> ws_;
};

}  // namespace squall::http
