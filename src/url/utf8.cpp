// UTF-8 validation in pieces: RFC 3629's table of well-formed byte sequences as a state of the
// bytes still expected and the range the next one must fall in.
#include "squall/url/utf8.h"

#include <cstring>

namespace squall {

bool Utf8Validator::feed(std::string_view piece) noexcept {
  if (failed_) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(piece.data());
  const auto* end = p + piece.size();
  while (p < end) {
    if (pending_ == 0) {
      // Between characters: skip ASCII eight bytes at a time.
      while (end - p >= 8) {
        uint64_t word;
        std::memcpy(&word, p, 8);
        if (word & 0x8080808080808080ull) break;
        p += 8;
      }
      if (p == end) break;
      unsigned char c = *p++;
      if (c < 0x80) continue;
      low_ = 0x80;
      high_ = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) {
        pending_ = 1;
      } else if (c >= 0xE0 && c <= 0xEF) {
        pending_ = 2;
        if (c == 0xE0) low_ = 0xA0;   // overlong below U+0800
        if (c == 0xED) high_ = 0x9F;  // surrogates U+D800-U+DFFF
      } else if (c >= 0xF0 && c <= 0xF4) {
        pending_ = 3;
        if (c == 0xF0) low_ = 0x90;   // overlong below U+10000
        if (c == 0xF4) high_ = 0x8F;  // above U+10FFFF
      } else {
        failed_ = true;  // a continuation byte, C0/C1 (overlong ASCII), or F5-FF
        return false;
      }
      continue;
    }
    unsigned char c = *p++;
    if (c < low_ || c > high_) {
      failed_ = true;
      return false;
    }
    --pending_;
    low_ = 0x80;
    high_ = 0xBF;
  }
  return true;
}

bool is_valid_utf8(std::string_view text) noexcept {
  Utf8Validator v;
  return v.feed(text) && v.complete();
}

}  // namespace squall
