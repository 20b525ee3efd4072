// A WebSocket connection after its handshake: messages over a Stream (Tornado's
// WebSocketClientConnection, and what its WebSocketHandler does underneath).
//
//   for (;;) {
//     std::optional<WsMessage> message = co_await ws.read_message();   // nullopt once closed
//     if (!message) break;
//     co_await ws.write_message(message->data, message->binary);
//   }
//   // ws.close_code(), ws.close_reason(): how it ended
//
// Reading: read_message() answers pings with pongs, assembles fragments, inflates compressed
// messages (permessage-deflate, when the handshake agreed it) and checks what RFC 6455 asks a
// receiver to check (websocket_protocol.h). A peer that breaks the protocol gets a close frame
// with the code the RFC names (1002, 1007, 1009) and read_message() returns nullopt, as it does
// once the closing handshake is over or the connection ended without one (close_code()
// 1006). Text is validated as it arrives, inflated text too, so invalid UTF-8 fails at the frame
// that holds it. One reader at a time (InvalidStateError for a second one, except while close()
// reads for the peer's close frame: such a read returns nullopt once the connection has
// ended); messages are bounded by max_message_size, inflated ones too, so a peer that sends an
// endless frame or message costs at most that much.
//
// Writing: write_message() and ping() frame their message and queue it on the stream when they
// are called, before the task they return runs, so frames leave in call order and a broadcast
// may queue on many connections without waiting for any; the task returns once the stream holds
// at most its write_high_water unsent bytes, so a writer that awaits each write is held back by
// a slow reader and its memory stays bounded (buffered_amount() is what waits). They may be
// called from any task while another reads. Writing after the close has begun throws
// WebSocketClosedError (at the call); a connection that fails while a task waits ends it with
// WebSocketClosedError.
//
// Closing: close() sends a close frame and waits up to close_timeout for the peer's (reading and
// dropping messages meanwhile when no other task reads); then the connection is closed. A close
// frame from the peer is answered with the same code. The server closes the TCP connection
// first (RFC 6455 7.1.1): a client whose closing handshake is done waits up to close_timeout
// for the server's end of stream before closing its own side. After a protocol failure the
// close frame is followed by the end of our direction, and what the peer still sends is read
// and dropped (at most 64 MiB, at most close_timeout) so that the close frame is not lost to a
// reset.
//
// Keepalive: with ping_interval, a ping goes out that often; when no pong (or any frame) has
// arrived within ping_timeout of a ping, the connection is closed (close_code() 1006), as
// Tornado's websocket_ping_timeout does.
//
// Threads: a WebSocket belongs to its stream's loop. Destroying it closes the connection; tasks
// its verbs returned hold the connection's state and end with WebSocketClosedError or nullopt.
#pragma once

#include <cstdint>
#include <functional>
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

// Trivially copyable, so that passing one by value to a coroutine is safe (see WsMessage).
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

// The pong (or ping) callback: the control frame's payload, valid during the call. It runs on
// the reader's task and must not wait.
using WsControlCallback = std::function<void(std::string_view payload)>;

// One message. Not an aggregate on purpose: GCC 12 copies an aggregate temporary with string
// members into a coroutine's frame bytewise, and on_message() hooks take a WsMessage by value.
struct WsMessage {
  WsMessage() = default;
  WsMessage(std::string d, bool b = false) : data(std::move(d)), binary(b) {}  // NOLINT: implicit
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
  // InvalidStateError while another read is in progress.
  [[nodiscard]] Task<std::optional<WsMessage>> read_message();
  // Queues one message as one frame (compressed when agreed) at the call; the task waits while
  // more than write_high_water bytes are unsent (see above). `data` is copied at the call.
  // WebSocketClosedError at the call once the close has begun.
  [[nodiscard]] Task<void> write_message(std::string_view data, bool binary = false);
  // Queues a ping with up to 125 bytes of data (InvalidArgumentError for more), as
  // write_message() does.
  [[nodiscard]] Task<void> ping(std::string_view data = {});
  // Starts the closing handshake (see above) and returns once the connection has ended.
  // Idempotent. `code` must be sendable (is_sendable_close_code) or kNoStatus
  // (InvalidArgumentError at the call).
  [[nodiscard]] Task<void> close(uint16_t code = ws_close::kNormal, std::string_view reason = {});

  // Called for each pong (ping) the reader sees; pings are answered whatever it does. Empty to
  // stop.
  void set_pong_callback(WsControlCallback callback);
  void set_ping_callback(WsControlCallback callback);

  // Once ended: the peer's close code (kNoStatus when its close frame had none), the code this
  // side failed the connection with, or kAbnormal when it ended without a closing handshake.
  std::optional<uint16_t> close_code() const noexcept;
  std::string_view close_reason() const noexcept;
  bool closed() const noexcept;
  const std::string& selected_subprotocol() const noexcept;
  // permessage-deflate was agreed.
  bool compressed() const noexcept;
  // Bytes queued on the connection and not yet handed to the system (the browser API's
  // bufferedAmount): what a writer waits on. 0 once ended.
  size_t buffered_amount() const noexcept;
  Stream& stream() noexcept;

  struct State;

 private:
  std::shared_ptr<State> state_;  // shared with the tasks that run on it (pings, reads)
};

}  // namespace squall::http
