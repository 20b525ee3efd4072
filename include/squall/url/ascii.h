// ASCII bytes as protocols read them: letters, digits, whitespace, case, hex and percent-coding.
//
// Every layer from url up reads names, fields and escapes through these, so that "case-insensitive"
// and "%XX" mean one thing everywhere. Locale-free: only A-Z and a-z change case.
#pragma once

#include <string>
#include <string_view>

namespace squall {

constexpr bool is_ascii_alpha(int c) noexcept {
  return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}
constexpr bool is_ascii_digit(int c) noexcept {
  return c >= '0' && c <= '9';
}
constexpr bool is_ascii_hex(int c) noexcept {
  return is_ascii_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}
constexpr bool is_ascii_alphanumeric(int c) noexcept {
  return is_ascii_alpha(c) || is_ascii_digit(c);
}
// The value of a hex digit, or -1 for any other byte.
constexpr int hex_value(int c) noexcept {
  if (is_ascii_digit(c)) return c - '0';
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') return (c | 0x20) - 'a' + 10;
  return -1;
}
// The Infra Standard's ASCII whitespace: tab, LF, FF, CR and space (not VT).
constexpr bool is_ascii_whitespace(int c) noexcept {
  return c == ' ' || c == '\n' || c == '\t' || c == '\f' || c == '\r';
}
// `s` without leading and trailing ASCII whitespace; a view into `s`.
constexpr std::string_view strip_ascii_whitespace(std::string_view s) noexcept {
  while (!s.empty() && is_ascii_whitespace(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ascii_whitespace(s.back())) s.remove_suffix(1);
  return s;
}
// Upper-case hex digits, as percent-encoding writes them.
inline constexpr char kUpperHex[] = "0123456789ABCDEF";

constexpr char ascii_lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}
// `s` with A-Z lowered.
std::string ascii_lower(std::string_view s);
// Whether `a` and `b` are equal ignoring ASCII case. Inline: the URL parser asks it of every
// path segment and the HTTP layer of every header name it looks up.
constexpr bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    // Branch-free folding: 0x20 is added exactly when the byte is in 'A'..'Z'.
    auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x != y && (x | (static_cast<unsigned char>(x - 'A') < 26 ? 0x20 : 0)) !=
                      (y | (static_cast<unsigned char>(y - 'A') < 26 ? 0x20 : 0)))
      return false;
  }
  return true;
}
// Whether `s` starts with `prefix`, ignoring ASCII case.
constexpr bool istarts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

// Decodes every "%XX" with two hex digits; a '%' not followed by two hex digits stays as it is
// (the URL Standard's percent-decode). With `plus_as_space`, '+' is a space first, as in
// application/x-www-form-urlencoded.
std::string percent_decode(std::string_view s, bool plus_as_space = false);

}  // namespace squall
