// ASCII lower-casing of strings and percent-decoding (the constexpr helpers are in the header).
#include "squall/url/ascii.h"

namespace squall {

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

std::string percent_decode(std::string_view s, bool plus_as_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%' && i + 2 < s.size() && is_ascii_hex(s[i + 1]) && is_ascii_hex(s[i + 2])) {
      out.push_back(static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2])));
      i += 2;
    } else {
      out.push_back(plus_as_space && c == '+' ? ' ' : c);
    }
  }
  return out;
}

}  // namespace squall
