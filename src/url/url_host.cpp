// The URL Standard's host parser: IPv4 in all its number forms, IPv6, domains through IDNA
// (UTS #46 via libidn2) and the opaque hosts of non-special URLs.
#include <idn2.h>

#include <optional>
#include <utility>

#include "url_internal.h"

namespace squall::detail {

namespace {

// The forbidden host code points; forbidden domain code points add C0 controls, '%' and DEL.
constexpr auto kForbiddenHost = [] {
  std::array<bool, 256> set{};
  for (char c : std::string_view("\0\t\n\r #/:<>?@[\\]^|", 17))
    set[static_cast<unsigned char>(c)] = true;
  return set;
}();

bool is_forbidden_host(unsigned char c) {
  return kForbiddenHost[c];
}
bool is_forbidden_domain(unsigned char c) {
  return kForbiddenHost[c] || c <= 0x1F || c == '%' || c == 0x7F;
}

// The IPv4 number parser: decimal, 0-prefixed octal, 0x-prefixed hex; an empty number after a
// prefix is 0. Values saturate above 2^32, which every caller treats as out of range.
std::optional<uint64_t> parse_ipv4_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int radix = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    radix = 16;
  } else if (s.size() >= 2 && s[0] == '0') {
    s.remove_prefix(1);
    radix = 8;
  }
  uint64_t value = 0;
  for (char c : s) {
    int digit;
    if (radix == 16 && is_ascii_hex(c)) {
      digit = hex_value(c);
    } else if (radix != 16 && c >= '0' && c < '0' + radix) {
      digit = c - '0';
    } else {
      return std::nullopt;
    }
    value = value * radix + digit;
    if (value > (uint64_t{1} << 33)) value = uint64_t{1} << 33;
  }
  return value;
}

// The standard's "ends in a number": the last label (ignoring one trailing dot) is all digits or
// parses as an IPv4 number ("0x", "0x1f", "077").
bool ends_in_number(std::string_view host) {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  size_t dot = host.rfind('.');
  std::string_view last = dot == std::string_view::npos ? host : host.substr(dot + 1);
  if (last.empty()) return false;
  bool digits = true;
  for (char c : last) digits = digits && is_ascii_digit(c);
  return digits || parse_ipv4_number(last).has_value();
}

std::optional<uint32_t> parse_ipv4(std::string_view host) {
  if (!host.empty() && host.back() == '.' && host.size() > 1) host.remove_suffix(1);
  uint64_t numbers[4];
  size_t count = 0;
  size_t start = 0;
  while (true) {
    size_t dot = host.find('.', start);
    std::string_view part =
        host.substr(start, dot == std::string_view::npos ? host.npos : dot - start);
    if (count == 4) return std::nullopt;
    auto n = parse_ipv4_number(part);
    if (!n) return std::nullopt;
    numbers[count++] = *n;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (size_t i = 0; i + 1 < count; ++i)
    if (numbers[i] > 255) return std::nullopt;
  if (numbers[count - 1] >= (uint64_t{1} << (8 * (5 - count)))) return std::nullopt;
  uint64_t ipv4 = numbers[count - 1];
  for (size_t i = 0; i + 1 < count; ++i) ipv4 += numbers[i] << (8 * (3 - i));
  return static_cast<uint32_t>(ipv4);
}

void serialize_ipv4(UrlBuffer& out, uint32_t address) {
  for (int i = 3; i >= 0; --i) {
    append_decimal(out, (address >> (8 * i)) & 0xFF);
    if (i) out.push_back('.');
  }
}

std::optional<std::array<uint16_t, 8>> parse_ipv6(std::string_view in) {
  std::array<uint16_t, 8> address{};
  size_t piece = 0;
  int compress = -1;
  size_t p = 0;
  auto at = [&](size_t i) { return i < in.size() ? static_cast<unsigned char>(in[i]) : kEof; };
  if (at(p) == ':') {
    if (at(p + 1) != ':') return std::nullopt;
    p += 2;
    compress = static_cast<int>(++piece);
  }
  while (at(p) != kEof) {
    if (piece == 8) return std::nullopt;
    if (at(p) == ':') {
      if (compress >= 0) return std::nullopt;
      ++p;
      compress = static_cast<int>(++piece);
      continue;
    }
    unsigned value = 0;
    size_t length = 0;
    while (length < 4 && is_ascii_hex(at(p))) {
      value = value * 16 + hex_value(at(p));
      ++p;
      ++length;
    }
    if (at(p) == '.') {
      if (length == 0) return std::nullopt;
      p -= length;
      if (piece > 6) return std::nullopt;
      int numbers_seen = 0;
      while (at(p) != kEof) {
        int ipv4_piece = -1;
        if (numbers_seen > 0) {
          if (at(p) == '.' && numbers_seen < 4) {
            ++p;
          } else {
            return std::nullopt;
          }
        }
        if (!is_ascii_digit(at(p))) return std::nullopt;
        while (is_ascii_digit(at(p))) {
          int number = at(p) - '0';
          if (ipv4_piece == -1) {
            ipv4_piece = number;
          } else if (ipv4_piece == 0) {
            return std::nullopt;
          } else {
            ipv4_piece = ipv4_piece * 10 + number;
          }
          if (ipv4_piece > 255) return std::nullopt;
          ++p;
        }
        address[piece] = static_cast<uint16_t>(address[piece] * 0x100 + ipv4_piece);
        ++numbers_seen;
        if (numbers_seen == 2 || numbers_seen == 4) ++piece;
      }
      if (numbers_seen != 4) return std::nullopt;
      break;
    } else if (at(p) == ':') {
      ++p;
      if (at(p) == kEof) return std::nullopt;
    } else if (at(p) != kEof) {
      return std::nullopt;
    }
    address[piece++] = static_cast<uint16_t>(value);
  }
  if (compress >= 0) {
    size_t swaps = piece - compress;
    piece = 7;
    while (piece != 0 && swaps > 0) {
      std::swap(address[piece], address[compress + swaps - 1]);
      --piece;
      --swaps;
    }
  } else if (piece != 8) {
    return std::nullopt;
  }
  return address;
}

void serialize_ipv6(UrlBuffer& out, const std::array<uint16_t, 8>& address) {
  // The first longest run of two or more zero pieces is compressed to "::".
  int compress = -1, best = 1;
  for (int i = 0; i < 8;) {
    if (address[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && address[j] == 0) ++j;
    if (j - i > best) best = j - i, compress = i;
    i = j;
  }
  out.push_back('[');
  for (int i = 0; i < 8; ++i) {
    if (i == compress) {
      out += i == 0 ? "::" : ":";
      i += best - 1;
      continue;
    }
    char buf[4];
    int n = 0;
    unsigned v = address[i];
    do buf[n++] = "0123456789abcdef"[v & 15], v >>= 4;
    while (v);
    while (n) out.push_back(buf[--n]);
    if (i != 7) out.push_back(':');
  }
  out.push_back(']');
}

// UTS #46 validates a "xn--" label by decoding it and checking the result as it would a Unicode
// label; a valid one maps back to exactly itself. Decoding to nothing or to pure ASCII is an
// error too.
bool is_valid_a_label(const std::string& label) {
  char* unicode = nullptr;
  if (idn2_to_unicode_8z8z(label.c_str(), &unicode, 0) != IDN2_OK) return false;
  std::string decoded(unicode);
  idn2_free(unicode);
  bool ascii = true;
  for (char c : decoded) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (decoded.empty() || ascii) return false;
  char* back = nullptr;
  int rc = idn2_lookup_u8(reinterpret_cast<const uint8_t*>(decoded.c_str()),
                          reinterpret_cast<uint8_t**>(&back), IDN2_NONTRANSITIONAL);
  if (rc != IDN2_OK) return false;
  bool same = label == back;
  idn2_free(back);
  return same;
}

// UTS #46 ToASCII, as the standard's "domain to ASCII" with beStrict false. Labels that are
// ASCII and not "xn--" only need lower-casing (their UTS #46 mapping), so they bypass libidn2,
// which applies IDNA2008's stricter rules (no leading or trailing hyphens, no "--" in positions
// 3-4, no symbols) that the standard does not.
std::optional<std::string> domain_to_ascii(std::string_view domain) {
  std::string result;
  std::string label;
  size_t i = 0;
  while (true) {
    // Labels end at '.' and at the three dots UTS #46 maps to '.'.
    size_t end = i, next = std::string_view::npos;
    for (; end < domain.size(); ++end) {
      std::string_view rest = domain.substr(end);
      if (rest[0] == '.') {
        next = end + 1;
        break;
      }
      if (rest.starts_with("\xE3\x80\x82") || rest.starts_with("\xEF\xBC\x8E") ||
          rest.starts_with("\xEF\xBD\xA1")) {
        next = end + 3;
        break;
      }
    }
    std::string_view raw = domain.substr(i, end - i);
    bool ascii = true;
    for (char c : raw) {
      if (static_cast<unsigned char>(c) >= 0x80) {
        ascii = false;
      } else if (is_forbidden_domain(static_cast<unsigned char>(c))) {
        return std::nullopt;  // ASCII maps to itself, so it would be in the result too
      }
    }
    label.clear();
    for (char c : raw) label.push_back(ascii_lower(c));
    if (ascii) {
      if (label.starts_with("xn--") && !is_valid_a_label(label)) return std::nullopt;
      result += label;
    } else {
      char* out = nullptr;
      int rc =
          idn2_lookup_u8(reinterpret_cast<const uint8_t*>(label.c_str()),
                         reinterpret_cast<uint8_t**>(&out), IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
      if (rc != IDN2_OK) return std::nullopt;
      result += out;
      idn2_free(out);
    }
    if (next == std::string_view::npos) break;
    result.push_back('.');
    i = next;
  }
  if (result.empty()) return std::nullopt;
  for (char c : result) {
    auto u = static_cast<unsigned char>(c);
    if (is_forbidden_domain(u) || u >= 0x80) return std::nullopt;
  }
  return result;
}

}  // namespace

UrlError parse_host(std::string_view host, bool special, UrlBuffer& out, UrlHostType& type) {
  uint32_t start = out.size();
  if (!host.empty() && host[0] == '[') {
    if (host.back() != ']' || host.size() < 2) return UrlError::InvalidIpv6;
    auto address = parse_ipv6(host.substr(1, host.size() - 2));
    if (!address) return UrlError::InvalidIpv6;
    serialize_ipv6(out, *address);
    type = UrlHostType::Ipv6;
    return UrlError::None;
  }
  if (!special) {
    for (char c : host)
      if (is_forbidden_host(static_cast<unsigned char>(c))) return UrlError::InvalidHost;
    append_encoded(out, host, kC0Set);
    type = host.empty() ? UrlHostType::Empty : UrlHostType::Opaque;
    return UrlError::None;
  }
  // Common case: ASCII without '%' or "xn--" labels needs only lower-casing.
  bool simple = true;
  for (char c : host) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || c == '%') {
      simple = false;
      break;
    }
    if (is_forbidden_domain(u)) return UrlError::InvalidHost;
  }
  if (simple) {
    for (size_t i = 0; i < host.size(); ++i) {
      if ((i == 0 || host[i - 1] == '.') && istarts_with(host.substr(i), "xn--")) {
        simple = false;
        break;
      }
    }
  }
  if (simple) {
    for (char c : host) out.push_back(ascii_lower(c));
  } else {
    std::string decoded = percent_decode(host);
    auto ascii = domain_to_ascii(decoded);
    if (!ascii) {
      for (char c : decoded)
        if (is_forbidden_domain(static_cast<unsigned char>(c))) return UrlError::InvalidHost;
      return UrlError::InvalidDomain;
    }
    out += *ascii;
  }
  std::string_view domain = out.view().substr(start);
  if (ends_in_number(domain)) {
    auto ipv4 = parse_ipv4(domain);
    if (!ipv4) return UrlError::InvalidIpv4;
    out.truncate(start);
    serialize_ipv4(out, *ipv4);
    type = UrlHostType::Ipv4;
  } else {
    type = UrlHostType::Domain;
  }
  return UrlError::None;
}

}  // namespace squall::detail
