// A WebSocket connection over a Stream: the reader's loop over WebSocketReceiver's events, the
// writers' frames, the closing handshake and the keepalive pings.
//
// GCC 12.2 (Debian 12's) lays out a coroutine frame wrongly for some functions that co_await
// inside the condition of an if, while or for: the ramp writes the first resume point where the
// body does not read it, and the first resume jumps anywhere (a SIGILL, or a suspension no wake
// ever reaches, which is how a close once hung). Awaited results here are bound to a variable
// before they are tested.
#include "squall/http/websocket.h"

#include <openssl/rand.h>

#include <algorithm>

#include "squall/core/event.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/core/timeout.h"
#include "squall/http/websocket_deflate.h"
#include "squall/url/utf8.h"

namespace squall::http {

namespace {
// What a failing side still reads and drops after its close frame, so the frame is not lost to
// the reset a close with unread input would send: more than a peer can have in flight in the
// kernels' buffers when it stops at our close frame. Dropped as it comes, so it costs time, not
// memory.
constexpr size_t kLingerBytes = size_t{64} << 20;
}  // namespace

struct WebSocket::State : std::enable_shared_from_this<WebSocket::State> {
  State(Stream s, Role r, WebSocketOptions o, std::optional<WsDeflateParams> d, std::string p)
      : stream(std::move(s)),
        role(r),
        options(o),
        protocol(std::move(p)),
        rx({.expect_masked = r == Role::Server,
            .max_message_size = o.max_message_size,
            .allow_compressed = d.has_value()}) {
    if (d) {
      // Each side compresses with its own window and takeover setting, and inflates the other's.
      bool server = role == Role::Server;
      deflater.emplace(server ? d->server_max_window_bits : d->client_max_window_bits,
                       server ? d->server_no_context_takeover : d->client_no_context_takeover,
                       o.compression_level);
      inflater.emplace(server ? d->client_no_context_takeover : d->server_no_context_takeover,
                       o.max_message_size);
    }
  }

  Stream stream;
  Role role;
  WebSocketOptions options;
  std::string protocol;
  WebSocketReceiver rx;
  std::optional<WsDeflater> deflater;
  std::optional<WsInflater> inflater;

  std::string message;     // the message being read
  Utf8Validator inflated;  // the inflated text of a compressed text message, so far
  bool reading = false;
  bool close_sent = false;
  bool ended = false;
  std::optional<uint16_t> close_code;
  std::string close_reason;
  Event ended_event;
  TimePoint last_received = Clock::now();
  std::optional<TaskHandle<void>> pinger;
  WsControlCallback on_ping, on_pong;

  // Ends the connection: closes the stream and wakes whoever waits for the end.
  void end(uint16_t code, std::string_view reason) {
    if (ended) return;
    ended = true;
    close_code = code;
    close_reason = reason;
    stream.close();
    ended_event.set();
    if (pinger) pinger->kill();
  }

  // Frames `payload` and queues it on the stream now; the task waits for the stream to drain
  // below its high-water mark. A connection already ended is WebSocketClosedError at the call.
  Task<void> send(WsOpcode opcode, std::string_view payload, bool rsv1 = false);
  // Sends a close frame (once), waits a little for it to leave, and ends the connection.
  Task<void> fail(uint16_t code, std::string_view reason);
  // After our close frame: ends our direction and drops what the peer still sends, until its
  // end, kLingerBytes or close_timeout.
  Task<void> linger();
  // A client whose closing handshake is done: waits up to close_timeout for the server to end
  // the TCP connection first.
  Task<void> await_server_close();
  Task<std::optional<WsMessage>> read();
};

namespace {

using StateRef = std::shared_ptr<WebSocket::State>;

// Marks a read in progress for its lifetime.
struct ReadingGuard {
  explicit ReadingGuard(bool& flag) : flag_(flag) { flag_ = true; }
  ~ReadingGuard() { flag_ = false; }
  bool& flag_;
};

// The wait after a frame was queued: a failed connection ends the WebSocket. The task holds the
// state, so a write outlives the WebSocket object that made it.
Task<void> await_sent(StateRef s, Task<void> sending) {
  try {
    co_await std::move(sending);
  } catch (const NetError& e) {
    s->end(ws_close::kAbnormal, e.what());
    throw WebSocketClosedError(std::string("the connection ended: ") + e.what());
  }
}

Task<void> ping_loop(StateRef s) {
  const Duration interval = s->options.ping_interval;
  const Duration timeout = s->options.ping_timeout.count() > 0
                               ? s->options.ping_timeout
                               : std::max<Duration>(3 * interval, std::chrono::seconds(30));
  while (!s->ended) {
    co_await sleep(interval);
    if (s->ended) break;
    if (Clock::now() - s->last_received > timeout) {
      s->end(ws_close::kAbnormal, "no answer to pings within ping_timeout");
      break;
    }
    try {
      co_await s->send(WsOpcode::Ping, {});
    } catch (const WebSocketClosedError&) {
      break;
    }
  }
}

}  // namespace

Task<void> WebSocket::State::send(WsOpcode opcode, std::string_view payload, bool rsv1) {
  if (ended || stream.closed()) throw WebSocketClosedError("the connection has ended");
  std::array<uint8_t, kWsMaxHeader> header;
  std::optional<uint32_t> mask;
  if (role == Role::Client) {
    uint32_t key;
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&key), sizeof key) != 1) key = 0x5A5A5A5A;
    mask = key;
  }
  size_t n = ws_frame_header(header, opcode, true, payload.size(), mask, rsv1);
  std::string frame;
  frame.reserve(n + payload.size());
  frame.append(reinterpret_cast<const char*>(header.data()), n);
  frame.append(payload);
  if (mask) ws_mask({reinterpret_cast<uint8_t*>(frame.data() + n), payload.size()}, *mask);
  // Stream::write queues the bytes before it returns; what it returns only waits.
  Task<void> sending = stream.write(std::move(frame));
  if (!sending) return sending;  // taken at once and under the mark: no frame for the wait
  return await_sent(shared_from_this(), std::move(sending));
}

Task<void> WebSocket::State::fail(uint16_t code, std::string_view reason) {
  std::string why(reason);
  if (!close_sent && !ended) {
    close_sent = true;
    try {
      co_await send(WsOpcode::Close, ws_close_payload(code, why));
      co_await linger();
    } catch (const CancelledError&) {
      throw;
    } catch (const Error&) {
      // The peer is gone or does not read: ending is all that is left.
    }
  }
  end(code, why);
}

Task<void> WebSocket::State::linger() {
  try {
    co_await with_timeout(options.close_timeout, [](State& s) -> Task<void> {
      co_await s.stream.shutdown_write();
      size_t dropped = 0;
      for (;;) {
        s.stream.consume(s.stream.buffered().size());
        size_t n = co_await s.stream.read_more();
        dropped += n;
        if (n == 0 || dropped > kLingerBytes) break;
      }
    }(*this));
  } catch (const CancelledError&) {
    throw;
  } catch (const Error&) {
    // Out of time, or the peer reset: the close frame had its chance.
  }
}

Task<void> WebSocket::State::await_server_close() {
  try {
    co_await with_timeout(options.close_timeout, [](Stream& stream) -> Task<void> {
      for (;;) {
        stream.consume(stream.buffered().size());
        size_t n = co_await stream.read_more();
        if (n == 0) break;
      }
    }(stream));
  } catch (const CancelledError&) {
    throw;
  } catch (const Error&) {
    // The server kept its side open or reset it: ours closes now.
  }
}

Task<std::optional<WsMessage>> WebSocket::State::read() {
  if (reading) {
    if (!close_sent)
      throw InvalidStateError("WebSocket::read_message while another read is waiting");
    // close() reads for the peer's close frame on a task of its own (a server stopping, a
    // handler closing from another task): what comes until then is dropped, and this read
    // ends with the connection.
    co_await ended_event.wait();
    co_return std::nullopt;
  }
  ReadingGuard guard(reading);
  while (!ended) {
    std::span<char> buffered = stream.mutable_buffered();
    if (buffered.empty()) {
      size_t n = 0;
      try {
        // No frame for the read below while the peer is silent (Stream's wait_readable).
        co_await stream.wait_readable();
        n = co_await stream.read_more();
      } catch (const NetError& e) {
        end(ws_close::kAbnormal, e.what());
        break;
      }
      if (n == 0) {
        end(ws_close::kAbnormal, "the peer ended the connection without a close frame");
        break;
      }
      last_received = Clock::now();
      continue;
    }
    std::span<uint8_t> input(reinterpret_cast<uint8_t*>(buffered.data()), buffered.size());
    auto [event, used] = rx.next(input);
    switch (event) {
      case WsEvent::NeedMore:
        stream.consume(used);
        break;
      case WsEvent::Data: {
        bool compressed = rx.compressed(), end_of_message = rx.message_end();
        bool text = rx.message_is_text();
        if (compressed) {
          size_t before = message.size();
          bool inflated_ok = inflater->feed(rx.data(), end_of_message, message);
          stream.consume(used);
          if (!inflated_ok) {
            bool too_big = inflater->error() == WsInflater::Error::TooBig;
            co_await fail(too_big ? ws_close::kTooBig : ws_close::kInvalidPayload,
                          too_big ? "message longer than max_message_size"
                                  : "compressed message is no deflate stream");
            break;
          }
          // The receiver validates plain text; inflated text is validated here, piece by piece,
          // so it too fails at the frame that holds the invalid byte.
          bool valid = !text || inflated.feed(std::string_view(message).substr(before));
          if (valid && text && end_of_message) valid = inflated.complete();
          if (!valid) {
            co_await fail(ws_close::kInvalidPayload, "text message is not UTF-8");
            break;
          }
        } else {
          message.append(rx.text());
          stream.consume(used);
        }
        if (!end_of_message) break;
        inflated.reset();
        WsMessage done{std::move(message), !text};
        message.clear();
        co_return done;
      }
      case WsEvent::Ping: {
        std::string payload(rx.control_payload());
        stream.consume(used);
        if (on_ping) on_ping(payload);
        if (!close_sent) {
          try {
            co_await send(WsOpcode::Pong, payload);
          } catch (const WebSocketClosedError&) {
            // ended: the loop stops
          }
        }
        break;
      }
      case WsEvent::Pong: {
        std::string payload(rx.control_payload());
        stream.consume(used);
        if (on_pong) on_pong(payload);
        break;
      }
      case WsEvent::Close: {
        uint16_t code = rx.close_code();
        std::string reason(rx.close_reason());
        stream.consume(used);
        if (!close_sent) {
          // Echo the code (RFC 6455 5.5.1).
          close_sent = true;
          try {
            co_await send(WsOpcode::Close, ws_close_payload(code, ""));
            co_await with_timeout(options.close_timeout, stream.flush());
          } catch (const CancelledError&) {
            throw;
          } catch (const Error&) {
            // The peer is gone or does not read: the connection ends all the same.
          }
        }
        // The server closes the TCP connection first; a client waits for it.
        if (role == Role::Client) co_await await_server_close();
        end(code, reason);
        break;
      }
      case WsEvent::Fail: {
        uint16_t code = rx.fail_code();
        std::string reason(rx.fail_reason());
        stream.consume(used);
        co_await fail(code, reason);
        break;
      }
    }
  }
  co_return std::nullopt;
}

namespace {

// The verbs take the shared state when they are called, not when their task first runs, so a
// task spawned to write keeps the connection alive even if the WebSocket object is gone by then.
Task<std::optional<WsMessage>> read_on(StateRef s) {
  // An idle connection waits for its next frame here, before read()'s frame (the larger by far)
  // exists: 10,000 idle WebSockets hold none of it. The wait counts as the read in progress.
  if (s->stream.buffered().empty() && !s->reading && !s->ended) {
    ReadingGuard guard(s->reading);
    co_await s->stream.wait_readable();
  }
  co_return co_await s->read();
}

// Waits for the end of a connection whose close frame is sent: reads for the peer's close
// frame unless another task already reads.
Task<void> wait_for_close(StateRef s) {
  if (s->reading) {
    co_await s->ended_event.wait();
    co_return;
  }
  for (;;) {
    std::optional<WsMessage> dropped = co_await s->read();
    if (!dropped) break;
  }
}

Task<void> close_on(StateRef s, uint16_t code, std::string reason) {
  if (s->ended) co_return;
  if (!s->close_sent) {
    s->close_sent = true;
    try {
      co_await s->send(WsOpcode::Close, ws_close_payload(code, reason));
    } catch (const WebSocketClosedError&) {
      co_return;  // ended already
    }
  }
  try {
    co_await with_timeout(s->options.close_timeout, wait_for_close(s));
  } catch (const TimeoutError&) {
    s->end(ws_close::kAbnormal, "no close frame from the peer within close_timeout");
  }
}

}  // namespace

WebSocket::WebSocket(Stream stream, Role role, WebSocketOptions options,
                     std::optional<WsDeflateParams> deflate, std::string protocol)
    : state_(
          std::make_shared<State>(std::move(stream), role, options, deflate, std::move(protocol))) {
  if (options.ping_interval.count() > 0)
    state_->pinger = spawn(ping_loop(state_), state_->stream.loop());
}

WebSocket::WebSocket(WebSocket&&) noexcept = default;
WebSocket& WebSocket::operator=(WebSocket&&) noexcept = default;

WebSocket::~WebSocket() {
  if (state_) state_->end(ws_close::kAbnormal, "the WebSocket was destroyed");
}

Task<std::optional<WsMessage>> WebSocket::read_message() {
  return read_on(state_);
}

Task<void> WebSocket::write_message(std::string_view data, bool binary) {
  if (state_->close_sent || state_->ended) throw WebSocketClosedError("write_message after close");
  WsOpcode opcode = binary ? WsOpcode::Binary : WsOpcode::Text;
  if (state_->deflater) return state_->send(opcode, state_->deflater->compress(data), true);
  return state_->send(opcode, data);
}

Task<void> WebSocket::ping(std::string_view data) {
  if (data.size() > kWsMaxControlPayload)
    throw InvalidArgumentError("a ping carries at most 125 bytes");
  if (state_->close_sent || state_->ended) throw WebSocketClosedError("ping after close");
  return state_->send(WsOpcode::Ping, data);
}

Task<void> WebSocket::close(uint16_t code, std::string_view reason) {
  if (code != ws_close::kNoStatus && !is_sendable_close_code(code))
    throw InvalidArgumentError("close code " + std::to_string(code) + " may not be sent");
  return close_on(state_, code, std::string(reason));
}

void WebSocket::set_pong_callback(WsControlCallback callback) {
  state_->on_pong = std::move(callback);
}
void WebSocket::set_ping_callback(WsControlCallback callback) {
  state_->on_ping = std::move(callback);
}

std::optional<uint16_t> WebSocket::close_code() const noexcept {
  return state_->ended ? state_->close_code : std::nullopt;
}
std::string_view WebSocket::close_reason() const noexcept {
  return state_->close_reason;
}
bool WebSocket::closed() const noexcept {
  return state_->ended;
}
const std::string& WebSocket::selected_subprotocol() const noexcept {
  return state_->protocol;
}
bool WebSocket::compressed() const noexcept {
  return state_->deflater.has_value();
}
size_t WebSocket::buffered_amount() const noexcept {
  return state_->ended ? 0 : state_->stream.pending_write_bytes();
}
Stream& WebSocket::stream() noexcept {
  return state_->stream;
}

}  // namespace squall::http
