// A WebSocket connection after its handshake: messages over a Stream (Tornado's
// WebSocketClientConnection, and what its WebSocketHandler does underneath).
//
//   while (auto message = co_await ws.read_message()) {      // nullopt once closed
//     co_await ws.write_message(message->data, message->binary);
//   }
//   // ws.close_code(), ws.close_reason(): how it ended
//
// Reading: read_message() answers pings with pongs, assembles fragments, inflates compressed
// messages (permessage-deflate, when the handshake agreed it) and checks what RFC 6455 asks a
// receiver to check (websocket_protocol.h). A peer that breaks the protocol gets a close frame
// with the code the RFC names (1002, 1007, 1009) and read_message() returns nullopt, as it does
// once the closing handshake is over or the connection ended without one (close_code()
// 1006). One reader at a time; messages are bounded by max_message_size, inflated ones too.
//
// Writing: write_message(), ping() and close() may be called from any task while another reads;
// each frame is queued whole, in call order, and the writer waits while more than the stream's
// write_high_water bytes are unsent, so a slow reader bounds the writer's memory. Writing after
// the close has begun throws WebSocketClosedError.
//
// Closing: close() sends a close frame and waits up to close_timeout for the peer's (reading and
// dropping messages meanwhile when no other task reads); then the connection is closed. A close
// frame from the peer is answered with the same code and ends the connection.
//
// Keepalive: with ping_interval, a ping goes out that often; when no pong (or any frame) has
// arrived within ping_timeout of a ping, the connection is closed (close_code() 1006), as
// Tornado's websocket_ping_timeout does.
//
// Threads: a WebSocket belongs to its stream's loop. Destroying it closes the connection.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "squall/core/error.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/http/websocket_handshake.h"
#include "squall/http/websocket_protocol.h"
#include "squall/net/stream.h"

namespace squall::http {

// Raised by writes on a WebSocket whose close has begun or that has ended (Tornado's
// WebSocketClosedError).
class WebSocketClosedError : public Error {
 public:
  explicit WebSocketClosedError(std::string_view detail) : Error(ErrorKind::Closed, detail) {}
};

struct WebSocketOptions {
  // The longest message accepted (after inflating); Tornado's default.
  uint64_t max_message_size = uint64_t{10} << 20;
  // Pings every ping_interval when set; a connection silent for ping_timeout after a ping is
  // closed (empty: max(3 × ping_interval, 30 s), Tornado's default).
  Duration ping_interval{};
  Duration ping_timeout{};
  // How long close() waits for the peer's close frame.
  Duration close_timeout = std::chrono::seconds(5);
  // Compression level for permessage-deflate (zlib's 1 to 9).
  int compression_level = 6;
};

struct WsMessage {
  std::string data;
  bool binary = false;
};

class WebSocket {
 public:
  enum class Role : uint8_t { Server, Client };

  // Takes over `stream`, whose handshake is done; bytes the peer sent after it may already be
  // buffered in it. `deflate`: permessage-deflate as agreed; `protocol`: the subprotocol agreed.
  WebSocket(Stream stream, Role role, WebSocketOptions options = {},
            std::optional<WsDeflateParams> deflate = std::nullopt, std::string protocol = {});
  WebSocket(WebSocket&&) noexcept;
  WebSocket& operator=(WebSocket&&) noexcept;
  ~WebSocket();

  // The next message, or nullopt once the connection has ended (close_code() says how).
  [[nodiscard]] Task<std::optional<WsMessage>> read_message();
  // Sends one message as one frame (compressed when agreed and worth it).
  [[nodiscard]] Task<void> write_message(std::string_view data, bool binary = false);
  // Sends a ping with up to 125 bytes of data (InvalidArgumentError for more).
  [[nodiscard]] Task<void> ping(std::string_view data = {});
  // Starts the closing handshake (see above) and returns once the connection has ended.
  // Idempotent. `code` must be sendable (is_sendable_close_code) or kNoStatus.
  [[nodiscard]] Task<void> close(uint16_t code = ws_close::kNormal, std::string_view reason = {});

  // Once ended: the peer's close code (kNoStatus when its close frame had none), the code this
  // side failed the connection with, or kAbnormal when it ended without a closing handshake.
  std::optional<uint16_t> close_code() const noexcept;
  std::string_view close_reason() const noexcept;
  bool closed() const noexcept;
  const std::string& selected_subprotocol() const noexcept;
  Stream& stream() noexcept;

  struct State;

 private:
  std::shared_ptr<State> state_;  // shared with the tasks that run on it (pings, reads)
};

}  // namespace squall::http
