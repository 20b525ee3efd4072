// A WebSocket connection over a Stream: the reader's loop over WebSocketReceiver's events, the
// writers' frames, the closing handshake and the keepalive pings.
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

struct WebSocket::State {
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

  std::string message;  // the message being read
  bool reading = false;
  bool close_sent = false;
  bool ended = false;
  std::optional<uint16_t> close_code;
  std::string close_reason;
  Event ended_event;
  TimePoint last_received = Clock::now();
  std::optional<TaskHandle<void>> pinger;

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

  Task<void> send_frame(WsOpcode opcode, std::string_view payload, bool rsv1 = false) {
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
    try {
      co_await stream.write(std::move(frame));
    } catch (const NetError& e) {
      end(ws_close::kAbnormal, e.what());
      throw WebSocketClosedError(std::string("the connection ended: ") + e.what());
    }
  }

  // Sends a close frame (once), waits a little for it to leave, and ends the connection.
  Task<void> fail(uint16_t code, std::string_view reason) {
    std::string why(reason);
    if (!close_sent && !ended) {
      close_sent = true;
      try {
        co_await send_frame(WsOpcode::Close, ws_close_payload(code, why));
        co_await with_timeout(options.close_timeout, stream.flush());
      } catch (const CancelledError&) {
        throw;
      } catch (const Error&) {
        // The peer is gone or does not read: ending is all that is left.
      }
    }
    end(code, why);
  }

  Task<std::optional<WsMessage>> read();
};

namespace {

// Marks a read in progress for its lifetime.
struct ReadingGuard {
  explicit ReadingGuard(bool& flag) : flag_(flag) { flag_ = true; }
  ~ReadingGuard() { flag_ = false; }
  bool& flag_;
};

Task<void> ping_loop(std::shared_ptr<WebSocket::State> s) {
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
      co_await s->send_frame(WsOpcode::Ping, {});
    } catch (const WebSocketClosedError&) {
      break;
    }
  }
}

}  // namespace

Task<std::optional<WsMessage>> WebSocket::State::read() {
  if (reading) throw InvalidStateError("WebSocket::read_message while another read is waiting");
  ReadingGuard guard(reading);
  while (!ended) {
    std::span<char> buffered = stream.mutable_buffered();
    if (buffered.empty()) {
      size_t n = 0;
      try {
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
          if (!inflater->feed(rx.data(), end_of_message, message)) {
            stream.consume(used);
            bool too_big = inflater->error() == WsInflater::Error::TooBig;
            co_await fail(too_big ? ws_close::kTooBig : ws_close::kInvalidPayload,
                          too_big ? "message longer than max_message_size"
                                  : "compressed message is no deflate stream");
            break;
          }
        } else {
          message.append(rx.text());
        }
        stream.consume(used);
        if (!end_of_message) break;
        if (compressed && text && !is_valid_utf8(message)) {
          co_await fail(ws_close::kInvalidPayload, "text message is not UTF-8");
          break;
        }
        WsMessage done{std::move(message), !text};
        message.clear();
        co_return done;
      }
      case WsEvent::Ping: {
        std::string payload(rx.control_payload());
        stream.consume(used);
        if (!close_sent) {
          try {
            co_await send_frame(WsOpcode::Pong, payload);
          } catch (const WebSocketClosedError&) {
            // ended: the loop stops
          }
        }
        break;
      }
      case WsEvent::Pong:
        stream.consume(used);
        break;
      case WsEvent::Close: {
        uint16_t code = rx.close_code();
        std::string reason(rx.close_reason());
        stream.consume(used);
        if (!close_sent) {
          // Echo the code (RFC 6455 5.5.1), then end: the server closes the TCP connection first.
          close_sent = true;
          try {
            co_await send_frame(WsOpcode::Close, ws_close_payload(code, ""));
            co_await with_timeout(options.close_timeout, stream.flush());
          } catch (const CancelledError&) {
            throw;
          } catch (const Error&) {
            // The peer is gone or does not read: the connection ends all the same.
          }
        }
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
  auto s = state_;  // the connection outlives this read even if the WebSocket is moved
  co_return co_await s->read();
}

Task<void> WebSocket::write_message(std::string_view data, bool binary) {
  auto s = state_;
  if (s->close_sent || s->ended) throw WebSocketClosedError("write_message after close");
  WsOpcode opcode = binary ? WsOpcode::Binary : WsOpcode::Text;
  if (s->deflater) {
    std::string payload = s->deflater->compress(data);
    co_await s->send_frame(opcode, payload, true);
  } else {
    co_await s->send_frame(opcode, data);
  }
}

Task<void> WebSocket::ping(std::string_view data) {
  auto s = state_;
  if (data.size() > kWsMaxControlPayload)
    throw InvalidArgumentError("a ping carries at most 125 bytes");
  if (s->close_sent || s->ended) throw WebSocketClosedError("ping after close");
  co_await s->send_frame(WsOpcode::Ping, data);
}

Task<void> WebSocket::close(uint16_t code, std::string_view reason) {
  auto s = state_;
  if (s->ended) co_return;
  if (code != ws_close::kNoStatus && !is_sendable_close_code(code))
    throw InvalidArgumentError("close code " + std::to_string(code) + " may not be sent");
  if (!s->close_sent) {
    s->close_sent = true;
    try {
      co_await s->send_frame(WsOpcode::Close, ws_close_payload(code, reason));
    } catch (const WebSocketClosedError&) {
      co_return;  // ended already
    }
  }
  // Wait for the peer's close frame: read for it unless another task already reads.
  auto wait_for_close = [](std::shared_ptr<State> st) -> Task<void> {
    if (st->reading) {
      co_await st->ended_event.wait();
    } else {
      while (co_await st->read()) {
      }
    }
  };
  try {
    co_await with_timeout(s->options.close_timeout, wait_for_close(s));
  } catch (const TimeoutError&) {
    s->end(ws_close::kAbnormal, "no close frame from the peer within close_timeout");
  }
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
Stream& WebSocket::stream() noexcept {
  return state_->stream;
}

}  // namespace squall::http
