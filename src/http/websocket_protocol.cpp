// The WebSocket protocol without I/O: frame headers, masking, close payloads, and the receiver's
// state machine (RFC 6455 sections 5 and 7).
#include "squall/http/websocket_protocol.h"

#include <algorithm>
#include <cstring>

namespace squall::http {

namespace {

bool is_control(WsOpcode opcode) {
  return static_cast<uint8_t>(opcode) >= 0x8;
}

bool is_known_opcode(uint8_t op) {
  return op <= 0x2 || (op >= 0x8 && op <= 0xA);
}

// The frame header's size once its first two bytes are known.
size_t header_size(const std::array<uint8_t, kWsMaxHeader>& h) {
  size_t length_code = h[1] & 0x7F;
  size_t extended = length_code == 126 ? 2 : length_code == 127 ? 8 : 0;
  return 2 + extended + ((h[1] & 0x80) ? 4 : 0);
}

}  // namespace

bool is_sendable_close_code(uint16_t code) noexcept {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
         (code >= 3000 && code <= 4999);
}

size_t ws_frame_header(std::span<uint8_t, kWsMaxHeader> out, WsOpcode opcode, bool fin,
                       uint64_t length, std::optional<uint32_t> mask, bool rsv1) noexcept {
  out[0] =
      static_cast<uint8_t>((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | static_cast<uint8_t>(opcode));
  uint8_t mask_bit = mask ? 0x80 : 0;
  size_t n = 2;
  if (length < 126) {
    out[1] = static_cast<uint8_t>(mask_bit | length);
  } else if (length <= 0xFFFF) {
    out[1] = mask_bit | 126;
    out[2] = static_cast<uint8_t>(length >> 8);
    out[3] = static_cast<uint8_t>(length);
    n = 4;
  } else {
    out[1] = mask_bit | 127;
    for (int i = 0; i < 8; ++i) out[2 + i] = static_cast<uint8_t>(length >> (56 - 8 * i));
    n = 10;
  }
  if (mask) {
    for (int i = 0; i < 4; ++i) out[n + i] = static_cast<uint8_t>(*mask >> (24 - 8 * i));
    n += 4;
  }
  return n;
}

void ws_mask(std::span<uint8_t> data, uint32_t key, uint64_t offset) noexcept {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(key >> (24 - 8 * i));
  // The key as it lines up with data[0], repeated over eight bytes.
  uint8_t pattern[8];
  for (int i = 0; i < 8; ++i) pattern[i] = bytes[(offset + i) % 4];
  uint64_t wide;
  std::memcpy(&wide, pattern, 8);
  size_t i = 0;
  for (; i + 8 <= data.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, data.data() + i, 8);
    word ^= wide;
    std::memcpy(data.data() + i, &word, 8);
  }
  for (; i < data.size(); ++i) data[i] ^= pattern[i % 8];
}

std::string ws_frame(WsOpcode opcode, std::string_view payload, bool fin,
                     std::optional<uint32_t> mask, bool rsv1) {
  std::array<uint8_t, kWsMaxHeader> header;
  size_t n = ws_frame_header(header, opcode, fin, payload.size(), mask, rsv1);
  std::string frame(reinterpret_cast<const char*>(header.data()), n);
  frame += payload;
  if (mask) {
    auto* body = reinterpret_cast<uint8_t*>(frame.data() + n);
    ws_mask({body, payload.size()}, *mask);
  }
  return frame;
}

std::string ws_close_payload(uint16_t code, std::string_view reason) {
  if (code == ws_close::kNoStatus) return {};
  size_t fit = kWsMaxControlPayload - 2;
  if (reason.size() > fit) {
    // Cut at a character boundary: never before a continuation byte.
    while (fit > 0 && (static_cast<unsigned char>(reason[fit]) & 0xC0) == 0x80) --fit;
    reason = reason.substr(0, fit);
  }
  std::string payload;
  payload += static_cast<char>(code >> 8);
  payload += static_cast<char>(code & 0xFF);
  payload += reason;
  return payload;
}

WebSocketReceiver::Step WebSocketReceiver::fail(uint16_t code, std::string_view reason,
                                                size_t consumed) {
  state_ = State::Done;
  fail_code_ = code;
  fail_reason_ = reason;
  return {WsEvent::Fail, consumed};
}

std::optional<WebSocketReceiver::Step> WebSocketReceiver::begin_frame(size_t consumed) {
  const uint8_t b0 = header_[0], b1 = header_[1];
  fin_ = (b0 & 0x80) != 0;
  const bool rsv1 = (b0 & 0x40) != 0;
  if (b0 & 0x30) return fail(ws_close::kProtocolError, "reserved bits set", consumed);
  if (!is_known_opcode(b0 & 0x0F))
    return fail(ws_close::kProtocolError, "reserved opcode", consumed);
  opcode_ = static_cast<WsOpcode>(b0 & 0x0F);
  masked_ = (b1 & 0x80) != 0;
  if (masked_ != options_.expect_masked)
    return fail(ws_close::kProtocolError,
                masked_ ? "masked frame from a server" : "unmasked frame from a client", consumed);

  const uint8_t length_code = b1 & 0x7F;
  size_t at = 2;
  if (length_code == 126) {
    length_ = (uint64_t{header_[2]} << 8) | header_[3];
    at = 4;
  } else if (length_code == 127) {
    length_ = 0;
    for (int i = 0; i < 8; ++i) length_ = (length_ << 8) | header_[2 + i];
    if (length_ >> 63) return fail(ws_close::kProtocolError, "frame length above 2^63", consumed);
    at = 10;
  } else {
    length_ = length_code;
  }
  mask_ = 0;
  if (masked_)
    for (int i = 0; i < 4; ++i) mask_ = (mask_ << 8) | header_[at + i];

  offset_ = 0;
  header_size_ = 0;
  if (is_control(opcode_)) {
    if (!fin_) return fail(ws_close::kProtocolError, "fragmented control frame", consumed);
    if (length_ > kWsMaxControlPayload)
      return fail(ws_close::kProtocolError, "control frame longer than 125 bytes", consumed);
    if (rsv1) return fail(ws_close::kProtocolError, "RSV1 set on a control frame", consumed);
    control_size_ = 0;
    if (length_ == 0) return end_control_frame(consumed);
    state_ = State::Payload;
    return std::nullopt;
  }

  if (opcode_ == WsOpcode::Continuation) {
    if (!in_message_)
      return fail(ws_close::kProtocolError, "continuation frame without a message", consumed);
    if (rsv1) return fail(ws_close::kProtocolError, "RSV1 set on a continuation frame", consumed);
  } else {
    if (in_message_)
      return fail(ws_close::kProtocolError, "new message inside a fragmented one", consumed);
    if (rsv1 && !options_.allow_compressed)
      return fail(ws_close::kProtocolError, "RSV1 set without an extension", consumed);
    in_message_ = true;
    message_opcode_ = opcode_;
    compressed_ = rsv1;
    message_size_ = 0;
    utf8_.reset();
  }
  if (length_ > options_.max_message_size - message_size_)
    return fail(ws_close::kTooBig, "message longer than max_message_size", consumed);
  message_size_ += length_;

  if (length_ > 0) {
    state_ = State::Payload;
    return std::nullopt;
  }
  if (!fin_) return std::nullopt;  // an empty piece of a message: nothing to report
  in_message_ = false;
  data_ = {};
  message_end_ = true;
  if (message_is_text() && !compressed_ && !utf8_.complete())
    return fail(ws_close::kInvalidPayload, "text message is not UTF-8", consumed);
  return Step{WsEvent::Data, consumed};
}

WebSocketReceiver::Step WebSocketReceiver::end_control_frame(size_t consumed) {
  state_ = State::Header;
  switch (opcode_) {
    case WsOpcode::Ping:
      return {WsEvent::Ping, consumed};
    case WsOpcode::Pong:
      return {WsEvent::Pong, consumed};
    default:
      break;
  }
  if (control_size_ == 1) return fail(ws_close::kProtocolError, "close frame of 1 byte", consumed);
  close_code_ = ws_close::kNoStatus;
  if (control_size_ >= 2) {
    close_code_ = static_cast<uint16_t>((control_[0] << 8) | control_[1]);
    if (!is_sendable_close_code(close_code_))
      return fail(ws_close::kProtocolError, "close code that may not be sent", consumed);
    if (!is_valid_utf8(close_reason()))
      return fail(ws_close::kInvalidPayload, "close reason is not UTF-8", consumed);
  }
  state_ = State::Done;
  return {WsEvent::Close, consumed};
}

WebSocketReceiver::Step WebSocketReceiver::next(std::span<uint8_t> input) {
  size_t used = 0;
  while (true) {
    if (state_ == State::Done) return {WsEvent::NeedMore, input.size()};

    if (state_ == State::Header) {
      size_t need = header_size_ < 2 ? 2 : header_size(header_);
      while (header_size_ < need) {
        if (used == input.size()) return {WsEvent::NeedMore, used};
        header_[header_size_++] = input[used++];
        if (header_size_ == 2) need = header_size(header_);
      }
      if (auto step = begin_frame(used)) return *step;
      continue;
    }

    // Payload.
    size_t available = input.size() - used;
    size_t n = static_cast<size_t>(std::min<uint64_t>(length_ - offset_, available));
    if (n == 0) return {WsEvent::NeedMore, used};
    std::span<uint8_t> piece = input.subspan(used, n);
    if (masked_) ws_mask(piece, mask_, offset_);
    offset_ += n;
    used += n;
    const bool frame_end = offset_ == length_;

    if (is_control(opcode_)) {
      std::memcpy(control_.data() + control_size_, piece.data(), n);
      control_size_ = static_cast<uint8_t>(control_size_ + n);
      if (frame_end) return end_control_frame(used);
      continue;
    }

    data_ = piece;
    message_end_ = frame_end && fin_;
    if (frame_end) state_ = State::Header;
    if (message_end_) in_message_ = false;
    if (message_is_text() && !compressed_) {
      if (!utf8_.feed(text()) || (message_end_ && !utf8_.complete()))
        return fail(ws_close::kInvalidPayload, "text message is not UTF-8", used);
    }
    return {WsEvent::Data, used};
  }
}

}  // namespace squall::http
