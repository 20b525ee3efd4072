// permessage-deflate (RFC 7692): compressing messages to send and inflating received ones, with
// the window sizes and context takeover the handshake agreed (websocket_handshake.h).
//
// A sender compresses each whole message and sends it with RSV1 on its first frame:
//   WsDeflater out(params.server_max_window_bits, params.server_no_context_takeover);
//   std::string payload = out.compress(message);
// A receiver feeds each compressed message's pieces as they arrive (WebSocketReceiver reports
// compressed()), and gets the text bounded by `max_size` however small the input:
//   WsInflater in(params.client_no_context_takeover, max_message_size);
//   if (!in.feed(piece, message_end, text)) fail(in.error());   // 1009 or 1007
//
// zlib's state (about 256 KiB to compress, 40 KiB to inflate) is allocated at the first message,
// so idle connections pay nothing; without context takeover it is reset after each message.
// Not thread-safe; one per connection and direction.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace squall::http {

class WsDeflater {
 public:
  // `window_bits` 9 to 15 (RFC 7692's 8 is not supported by zlib's raw deflate).
  WsDeflater(int window_bits = 15, bool no_context_takeover = false, int level = 6);
  ~WsDeflater();
  WsDeflater(WsDeflater&&) noexcept;
  WsDeflater& operator=(WsDeflater&&) noexcept;

  // The payload of a compressed message: the deflate stream flushed to a byte boundary, without
  // the final empty block's 00 00 FF FF (RFC 7692 7.2.1).
  std::string compress(std::string_view message);

 private:
  struct State;
  std::unique_ptr<State> state_;
  int window_bits_, level_;
  bool no_context_takeover_;
};

class WsInflater {
 public:
  enum class Error : uint8_t { None, TooBig, Corrupt };

  explicit WsInflater(bool no_context_takeover = false, uint64_t max_size = uint64_t{10} << 20);
  ~WsInflater();
  WsInflater(WsInflater&&) noexcept;
  WsInflater& operator=(WsInflater&&) noexcept;

  // Inflates a piece of a compressed message, appending to `out`; `message_end` on the last
  // piece. False when the message inflates to more than `max_size` bytes (checked as it is
  // inflated, never after) or is no deflate stream; the inflater is then unusable.
  bool feed(std::span<const uint8_t> piece, bool message_end, std::string& out);
  Error error() const noexcept { return error_; }

 private:
  bool inflate_some(const uint8_t* data, size_t size, std::string& out);

  struct State;
  std::unique_ptr<State> state_;
  bool no_context_takeover_;
  uint64_t max_size_;
  uint64_t message_size_ = 0;
  Error error_ = Error::None;
};

}  // namespace squall::http
