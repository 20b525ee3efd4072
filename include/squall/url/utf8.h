// UTF-8 validation that reads text in pieces, for protocols that must refuse invalid text as soon
// as it arrives: a WebSocket text message fails at the frame that holds the first invalid byte,
// not when the message ends.
//
//   Utf8Validator v;
//   for (piece : pieces) if (!v.feed(piece)) refuse();   // an invalid byte in this piece
//   if (!v.complete()) refuse();                          // the text ends inside a character
//
// Valid means RFC 3629: no overlong forms, no surrogates (U+D800-U+DFFF), nothing above
// U+10FFFF. A byte is refused as soon as no valid text can continue with it, so "\xF4\x90" fails
// at its second byte and "\xED\xA0" (a surrogate) at its second. Plain data: no thread affinity.
#pragma once

#include <cstdint>
#include <string_view>

namespace squall {

class Utf8Validator {
 public:
  // Reads the next piece of text. False once an invalid byte has been seen (in this piece or an
  // earlier one); the validator stays failed until reset().
  bool feed(std::string_view piece) noexcept;
  // True when the text so far is valid and ends between characters.
  bool complete() const noexcept { return !failed_ && pending_ == 0; }
  bool failed() const noexcept { return failed_; }
  void reset() noexcept { *this = Utf8Validator(); }

 private:
  uint8_t pending_ = 0;  // continuation bytes still expected
  uint8_t low_ = 0x80;   // the range the next continuation byte must fall in
  uint8_t high_ = 0xBF;
  bool failed_ = false;
};

// The whole of `text` is valid UTF-8.
bool is_valid_utf8(std::string_view text) noexcept;

}  // namespace squall
