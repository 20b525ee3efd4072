// Percent-encoding for the URL parser: the standard's encode sets, and queries in legacy encodings.
#include <algorithm>

#include "squall/url/charset.h"
#include "url_internal.h"

namespace squall::detail {

namespace {

// Length of the UTF-8 sequence starting at s[0], or 0 if it is not a valid one.
size_t utf8_length(std::string_view s) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  auto tail = [&](size_t n) {
    if (s.size() < n) return false;
    for (size_t i = 1; i < n; ++i)
      if ((b(i) & 0xC0) != 0x80) return false;
    return true;
  };
  if (b(0) < 0x80) return 1;
  if (b(0) >= 0xC2 && b(0) <= 0xDF) return tail(2) ? 2 : 0;
  if (b(0) >= 0xE0 && b(0) <= 0xEF) {
    if (!tail(3) || (b(0) == 0xE0 && b(1) < 0xA0) || (b(0) == 0xED && b(1) >= 0xA0)) return 0;
    return 3;
  }
  if (b(0) >= 0xF0 && b(0) <= 0xF4) {
    if (!tail(4) || (b(0) == 0xF0 && b(1) < 0x90) || (b(0) == 0xF4 && b(1) >= 0x90)) return 0;
    return 4;
  }
  return 0;
}

uint32_t utf8_decode(std::string_view s) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i])); };
  switch (s.size()) {
    case 1:
      return b(0);
    case 2:
      return (b(0) & 0x1F) << 6 | (b(1) & 0x3F);
    case 3:
      return (b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F);
    default:
      return (b(0) & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F);
  }
}

// Every byte: a character's bytes percent-encoded whole.
constexpr EncodeSet kEveryByte = [] {
  EncodeSet set;
  set.bits.fill(true);
  return set;
}();

}  // namespace

void append_decimal(UrlBuffer& out, uint32_t value) {
  char digits[10];
  int n = 10;
  do digits[--n] = static_cast<char>('0' + value % 10), value /= 10;
  while (value);
  out.append(std::string_view(digits + n, 10 - n));
}

void append_encoded(UrlBuffer& out, std::string_view in, const EncodeSet& set) {
  size_t run = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    auto c = static_cast<unsigned char>(in[i]);
    if (!set.has(c)) continue;
    out.append(in.substr(run, i - run));
    const char escaped[3] = {'%', kUpperHex[c >> 4], kUpperHex[c & 15]};
    out.append({escaped, 3});
    run = i + 1;
  }
  out.append(in.substr(run));
}

// One code point at a time, so that each one the encoding lacks becomes "%26%23<decimal>%3B".
bool append_encoded_in(UrlBuffer& out, std::string_view query, std::string_view encoding,
                       const EncodeSet& set) {
  TextEncoder encoder(encoding);
  if (encoder.is_utf8()) return false;
  std::string bytes;
  for (size_t i = 0; i < query.size();) {
    const size_t length = utf8_length(query.substr(i));
    if (length == 0) {
      append_encoded(out, query.substr(i, 1), set);
      ++i;
      continue;
    }
    const uint32_t code_point = utf8_decode(query.substr(i, length));
    bytes.clear();
    if (encoder.encode(code_point, bytes)) {
      // A character with a non-ASCII byte is percent-encoded whole, so that a double-byte
      // character's ASCII trail byte (Shift_JIS "本" is 96 7B) is not left bare beside its lead
      // byte: "%96%7B", where the standard writes "%96{"; either reads back as the same bytes.
      const bool non_ascii = std::any_of(
          bytes.begin(), bytes.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
      append_encoded(out, bytes, non_ascii ? kEveryByte : set);
    } else {
      // "&#N;" is ASCII text: a stateful encoding returns to ASCII before it.
      encoder.reset(bytes);
      append_encoded(out, bytes, set);
      out += "%26%23";
      append_decimal(out, code_point);
      out += "%3B";
    }
    i += length;
  }
  // Stateful encodings (ISO-2022-JP) end by shifting back to ASCII.
  bytes.clear();
  encoder.reset(bytes);
  append_encoded(out, bytes, set);
  return true;
}

}  // namespace squall::detail
