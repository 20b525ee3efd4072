// Base64 encoding and the forgiving decode.
#include "squall/url/base64.h"

#include <cstdint>

#include "squall/url/ascii.h"

namespace squall {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The value of a base64 digit, or -1.
int digit_value(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string base64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16 | static_cast<uint8_t>(in[i + 1]) << 8 |
                 static_cast<uint8_t>(in[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (size_t left = in.size() - i) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    if (left == 2) v |= static_cast<uint8_t>(in[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += left == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> forgiving_base64_decode(std::string_view in) {
  std::string data;
  data.reserve(in.size());
  for (char c : in)
    if (!is_ascii_whitespace(c)) data.push_back(c);
  if (data.size() % 4 == 0 && data.ends_with("==")) {
    data.resize(data.size() - 2);
  } else if (data.size() % 4 == 0 && data.ends_with("=")) {
    data.resize(data.size() - 1);
  }
  if (data.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(data.size() * 3 / 4);
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : data) {
    int v = digit_value(c);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

}  // namespace squall
