// The WebSocket protocol (RFC 6455) without I/O: frames in, events out; messages in, bytes out.
//
// WebSocketReceiver reads the bytes a peer sent, in whatever pieces they arrive, and tells what
// they mean one event at a time:
//
//   WebSocketReceiver rx({.expect_masked = true});          // a server's view of a client
//   while (!input.empty()) {
//     auto [event, used] = rx.next(input);                   // unmasks input in place
//     switch (event) {
//       case WsEvent::Data: message.append(rx.data()); if (rx.message_end()) deliver(); break;
//       case WsEvent::Ping: send_pong(rx.control_payload()); break;
//       case WsEvent::Close: answer_close(rx.close_code()); break;
//       case WsEvent::Fail: close_with(rx.fail_code(), rx.fail_reason()); break;
//       case WsEvent::NeedMore: break;
//     }
//     input = input.subspan(used);
//   }
//
// Payload reaches the caller in place and in pieces (Data events), so the receiver itself holds
// at most one frame header and one control frame (125 bytes) whatever the peer sends; the caller
// decides what to keep. It checks everything RFC 6455 asks a receiver to check and fails with
// the close code the RFC names for it:
//   - 1002 (protocol error): reserved bits without an extension that defines them, reserved
//     opcodes, fragmented or over-long (> 125 bytes) control frames, a continuation without a
//     message or a new message inside one, masking the wrong way round (clients must mask, servers
//     must not), a 64-bit length with its top bit set, a close frame of 1 byte or with a code
//     that may not be sent;
//   - 1007 (invalid payload): a text message or close reason that is not UTF-8, failed at the
//     frame that holds the first invalid byte (for compressed messages the caller validates the
//     inflated text, see `compressed()`);
//   - 1009 (too big): a message longer than max_message_size, failed as soon as a frame header
//     announces it, before its payload is read.
// After a Close or a Fail event the receiver has nothing more to say: next() consumes and
// ignores all input (RFC 6455 5.5.1: nothing a peer sends after its close frame counts).
//
// The sending side is free functions: a frame header for a payload the caller writes next, the
// mask applied in place, a close frame's payload.
//
// Plain data: no loop, no thread affinity.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "squall/url/utf8.h"

namespace squall::http {

enum class WsOpcode : uint8_t {
  Continuation = 0x0,
  Text = 0x1,
  Binary = 0x2,
  Close = 0x8,
  Ping = 0x9,
  Pong = 0xA,
};

// The close codes of RFC 6455 section 7.4.1 that squall sends or reports.
namespace ws_close {
inline constexpr uint16_t kNormal = 1000;
inline constexpr uint16_t kGoingAway = 1001;
inline constexpr uint16_t kProtocolError = 1002;
inline constexpr uint16_t kUnsupportedData = 1003;
inline constexpr uint16_t kNoStatus =
    1005;  // reported for a close frame without a code; never sent
inline constexpr uint16_t kAbnormal =
    1006;  // reported when the connection ended without a close; never sent
inline constexpr uint16_t kInvalidPayload = 1007;
inline constexpr uint16_t kPolicyViolation = 1008;
inline constexpr uint16_t kTooBig = 1009;
inline constexpr uint16_t kMandatoryExtension = 1010;
inline constexpr uint16_t kInternalError = 1011;
}  // namespace ws_close

// A code a close frame may carry: 1000-1003, 1007-1011 (1012-1014 as registered since), and
// 3000-4999 (libraries and applications).
bool is_sendable_close_code(uint16_t code) noexcept;

// The largest frame header: 2 bytes, an 8-byte length and a 4-byte mask.
inline constexpr size_t kWsMaxHeader = 14;
// A control frame's payload limit.
inline constexpr size_t kWsMaxControlPayload = 125;

// Writes the header of a frame whose `length` payload bytes follow; returns its size (2 to 14).
// With a mask, the payload must be masked with it (ws_mask) before it is sent.
size_t ws_frame_header(std::span<uint8_t, kWsMaxHeader> out, WsOpcode opcode, bool fin,
                       uint64_t length, std::optional<uint32_t> mask = std::nullopt,
                       bool rsv1 = false) noexcept;
// XORs `data` with the masking key, as the bytes at `offset` onwards of a frame's payload (so a
// payload can be masked or unmasked in pieces). The key's bytes are in wire order.
void ws_mask(std::span<uint8_t> data, uint32_t key, uint64_t offset = 0) noexcept;
// A whole frame: header, then the payload (masked when a mask is given).
std::string ws_frame(WsOpcode opcode, std::string_view payload, bool fin = true,
                     std::optional<uint32_t> mask = std::nullopt, bool rsv1 = false);
// A close frame's payload: the code in network order, then the reason cut to what fits in a
// control frame (123 bytes, at a character boundary). Empty for kNoStatus.
std::string ws_close_payload(uint16_t code, std::string_view reason);

enum class WsEvent : uint8_t {
  NeedMore,  // all of the input was taken; nothing to report yet
  Data,      // a piece of a text or binary message: data(), message_end()
  Ping,      // control_payload()
  Pong,      // control_payload()
  Close,     // the peer's close frame: close_code(), close_reason()
  Fail,      // the peer broke the protocol: fail_code(), fail_reason()
};

class WebSocketReceiver {
 public:
  struct Options {
    // Servers receive masked frames, clients unmasked ones.
    bool expect_masked = true;
    // The longest message accepted, in payload bytes as they come off the wire (compressed
    // bytes for compressed messages; the inflater bounds what they inflate to). Tornado's
    // default: 10 MiB.
    uint64_t max_message_size = uint64_t{10} << 20;
    // permessage-deflate was negotiated: RSV1 marks a message's first frame as compressed.
    bool allow_compressed = false;
  };

  struct Step {
    WsEvent event;
    size_t consumed;  // bytes of the input taken, also with an event
  };

  WebSocketReceiver() : WebSocketReceiver(Options{}) {}
  explicit WebSocketReceiver(Options options) : options_(options) {}

  // Reads from the start of `input` until it has an event or has taken all of it. Payload bytes
  // are unmasked in place; data() points into `input`.
  Step next(std::span<uint8_t> input);

  // After Data: the bytes of this piece (possibly none: empty messages and frames), whether the
  // message is text, whether this piece ends the message, and whether the message is compressed
  // (RSV1 on its first frame; text is then not validated here).
  std::span<const uint8_t> data() const noexcept { return data_; }
  std::string_view text() const noexcept {
    return {reinterpret_cast<const char*>(data_.data()), data_.size()};
  }
  bool message_is_text() const noexcept { return message_opcode_ == WsOpcode::Text; }
  bool message_end() const noexcept { return message_end_; }
  bool compressed() const noexcept { return compressed_; }

  // After Ping, Pong or Close: the control frame's payload (valid until the next call).
  std::string_view control_payload() const noexcept {
    return {reinterpret_cast<const char*>(control_.data()), control_size_};
  }
  // After Close: the code (kNoStatus when the frame had none) and the reason.
  uint16_t close_code() const noexcept { return close_code_; }
  std::string_view close_reason() const noexcept {
    return control_size_ >= 2 ? control_payload().substr(2) : std::string_view();
  }

  // After Fail: the close code to send back and a short English reason.
  uint16_t fail_code() const noexcept { return fail_code_; }
  std::string_view fail_reason() const noexcept { return fail_reason_; }

  // A Close or Fail event has been reported.
  bool done() const noexcept { return state_ == State::Done; }

 private:
  enum class State : uint8_t { Header, Payload, Done };

  Step fail(uint16_t code, std::string_view reason, size_t consumed);
  // The header in header_ is complete: checks it and starts its payload.
  std::optional<Step> begin_frame(size_t consumed);
  Step end_control_frame(size_t consumed);

  Options options_;
  State state_ = State::Header;

  // The frame being read.
  std::array<uint8_t, kWsMaxHeader> header_{};
  uint8_t header_size_ = 0;
  WsOpcode opcode_ = WsOpcode::Continuation;
  bool fin_ = false;
  bool masked_ = false;
  uint32_t mask_ = 0;
  uint64_t length_ = 0;
  uint64_t offset_ = 0;  // payload bytes of the frame read so far

  // The message being read (fragmented or not).
  bool in_message_ = false;
  WsOpcode message_opcode_ = WsOpcode::Binary;
  bool compressed_ = false;
  uint64_t message_size_ = 0;
  Utf8Validator utf8_;

  // What the last event reports.
  std::span<const uint8_t> data_;
  bool message_end_ = false;
  std::array<uint8_t, kWsMaxControlPayload> control_{};
  uint8_t control_size_ = 0;
  uint16_t close_code_ = 0;
  uint16_t fail_code_ = 0;
  std::string_view fail_reason_;
};

}  // namespace squall::http
