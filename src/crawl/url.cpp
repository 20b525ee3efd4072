// The WHATWG basic URL parser and serializer, writing the serialization directly into one string.
#include "squall/crawl/url.h"

#include "squall/crawl/sniff.h"

#include <iconv.h>
#include <idn2.h>

#include <algorithm>
#include <array>
#include <utility>

namespace squall {

namespace detail {
namespace {

constexpr int kEof = -1;

// A set of bytes to percent-encode. Every set of the standard includes the C0 controls and all
// bytes above 0x7E, so non-ASCII (UTF-8) input is always encoded byte by byte.
struct EncodeSet {
  std::array<bool, 256> bits{};
  bool has(unsigned char c) const { return bits[c]; }
};

constexpr EncodeSet make_set(std::string_view extra) {
  EncodeSet set;
  for (int c = 0; c < 0x20; ++c) set.bits[c] = true;
  for (int c = 0x7F; c < 256; ++c) set.bits[c] = true;
  for (char c : extra) set.bits[static_cast<unsigned char>(c)] = true;
  return set;
}

constexpr EncodeSet kC0Set = make_set("");
constexpr EncodeSet kFragmentSet = make_set(" \"<>`");
constexpr EncodeSet kQuerySet = make_set(" \"#<>");
constexpr EncodeSet kSpecialQuerySet = make_set(" \"#<>'");
constexpr EncodeSet kPathSet = make_set(" \"#<>?^`{}");
constexpr EncodeSet kUserinfoSet = make_set(" \"#<>?^`{}/:;=@[\\]|");

constexpr char kHex[] = "0123456789ABCDEF";

void append_encoded(std::string& out, std::string_view in, const EncodeSet& set) {
  size_t run = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    auto c = static_cast<unsigned char>(in[i]);
    if (!set.has(c)) continue;
    out.append(in.data() + run, i - run);
    const char escaped[3] = {'%', kHex[c >> 4], kHex[c & 15]};
    out.append(escaped, 3);
    run = i + 1;
  }
  out.append(in.data() + run, in.size() - run);
}

bool is_alpha(int c) {
  return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}
bool is_digit(int c) {
  return c >= '0' && c <= '9';
}
bool is_hex(int c) {
  return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}
int hex_value(int c) {
  return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}
char to_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (to_lower(a[i]) != to_lower(b[i])) return false;
  return true;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

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

std::string percent_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%' && i + 2 < in.size() && is_hex(in[i + 1]) && is_hex(in[i + 2])) {
      out.push_back(static_cast<char>(hex_value(in[i + 1]) * 16 + hex_value(in[i + 2])));
      i += 2;
    } else {
      out.push_back(in[i]);
    }
  }
  return out;
}

struct SchemeInfo {
  std::string_view name;
  UrlScheme kind;
  bool special;
  int default_port;  // -1: none
};

constexpr SchemeInfo kSchemes[] = {
    {"http", UrlScheme::Http, true, 80},  {"https", UrlScheme::Https, true, 443},
    {"ws", UrlScheme::Ws, true, 80},      {"wss", UrlScheme::Wss, true, 443},
    {"ftp", UrlScheme::Ftp, true, 21},    {"file", UrlScheme::File, true, -1},
    {"data", UrlScheme::Data, false, -1},
};
constexpr SchemeInfo kOtherScheme = {"", UrlScheme::Other, false, -1};

const SchemeInfo& scheme_info(std::string_view lowered) {
  for (const auto& info : kSchemes)
    if (info.name == lowered) return info;
  return kOtherScheme;
}
const SchemeInfo& scheme_info(UrlScheme kind) {
  for (const auto& info : kSchemes)
    if (info.kind == kind) return info;
  return kOtherScheme;
}

// "C:" or "C|": a Windows drive letter; normalized means the second byte is ':'.
bool is_drive_letter(std::string_view s, bool normalized) {
  return s.size() == 2 && is_alpha(s[0]) && (s[1] == ':' || (!normalized && s[1] == '|'));
}
bool starts_with_drive_letter(std::string_view s) {
  if (s.size() < 2 || !is_drive_letter(s.substr(0, 2), false)) return false;
  if (s.size() == 2) return true;
  char c = s[2];
  return c == '/' || c == '\\' || c == '?' || c == '#';
}

bool is_single_dot(std::string_view s) {
  return s == "." || iequals(s, "%2e");
}
bool is_double_dot(std::string_view s) {
  return s == ".." || iequals(s, ".%2e") || iequals(s, "%2e.") || iequals(s, "%2e%2e");
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
    if (radix == 16 && is_hex(c)) {
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
  for (char c : last) digits = digits && is_digit(c);
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

void serialize_ipv4(std::string& out, uint32_t address) {
  for (int i = 3; i >= 0; --i) {
    out += std::to_string((address >> (8 * i)) & 0xFF);
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
    while (length < 4 && is_hex(at(p))) {
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
        if (!is_digit(at(p))) return std::nullopt;
        while (is_digit(at(p))) {
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

void serialize_ipv6(std::string& out, const std::array<uint16_t, 8>& address) {
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
    for (char c : raw) label.push_back(to_lower(c));
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

// The standard's "get an output encoding": UTF-16 and replacement encode queries as UTF-8.
bool is_utf8_for_queries(std::string_view encoding) {
  return encoding.empty() || iequals(encoding, "utf-8") || iequals(encoding, "utf8") ||
         starts_with_ci(encoding, "utf-16") || iequals(encoding, "replacement");
}

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

// The standard's "percent-encode after encoding" for a legacy encoding, through iconv, one code
// point at a time so that each unmappable one becomes "%26%23<decimal>%3B". False when iconv does
// not know the encoding. Invalid UTF-8 bytes are percent-encoded as they are.
bool append_encoded_in(std::string& out, std::string_view query, std::string_view encoding,
                       const EncodeSet& set) {
  iconv_t cd = iconv_open(std::string(encoding).c_str(), "UTF-8");
  if (cd == reinterpret_cast<iconv_t>(-1)) return false;
  char buffer[16];
  auto flush = [&](char* end) { append_encoded(out, std::string_view(buffer, end - buffer), set); };
  for (size_t i = 0; i < query.size();) {
    size_t length = utf8_length(query.substr(i));
    if (length == 0) {
      append_encoded(out, query.substr(i, 1), set);
      ++i;
      continue;
    }
    char* in = const_cast<char*>(query.data() + i);
    size_t in_left = length;
    char* o = buffer;
    size_t out_left = sizeof buffer;
    if (iconv(cd, &in, &in_left, &o, &out_left) == static_cast<size_t>(-1)) {
      o = buffer;
      out_left = sizeof buffer;
      if (iconv(cd, nullptr, nullptr, &o, &out_left) != static_cast<size_t>(-1)) flush(o);
      out += "%26%23";
      out += std::to_string(utf8_decode(query.substr(i, length)));
      out += "%3B";
    } else {
      flush(o);
    }
    i += length;
  }
  // Stateful encodings (ISO-2022-JP) end by shifting back to ASCII.
  char* o = buffer;
  size_t out_left = sizeof buffer;
  if (iconv(cd, nullptr, nullptr, &o, &out_left) != static_cast<size_t>(-1)) flush(o);
  iconv_close(cd);
  return true;
}

// --- Helpers of the Fetch Standard's data: URL processor.

bool is_ascii_whitespace(char c) {
  return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ';
}
std::string_view trim(std::string_view s, bool (*space)(char)) {
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// Forgiving-base64 decode: whitespace ignored, up to two '=' of padding, leftover bits dropped.
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
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (is_digit(c)) {
      v = c - '0' + 52;
    } else if (c == '+') {
      v = 62;
    } else if (c == '/') {
      v = 63;
    } else {
      return std::nullopt;
    }
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

}  // namespace

// The basic URL parser's state machine. It writes the serialization of the URL record straight
// into url_.href_, in order, so the only allocation is that string (and, off the common path, a
// copy of the input with tabs and newlines removed, or IDNA's buffers for non-ASCII hosts).
class UrlParser {
 public:
  UrlParser(std::string_view input, const Url* base, std::string_view query_encoding)
      : in_(input), base_(base), query_encoding_(query_encoding) {}

  UrlResult run();

 private:
  enum class State {
    SchemeStart,
    Scheme,
    NoScheme,
    SpecialRelativeOrAuthority,
    PathOrAuthority,
    Relative,
    RelativeSlash,
    SpecialAuthoritySlashes,
    SpecialAuthorityIgnoreSlashes,
    Authority,
    File,
    FileSlash,
    FileHost,
    // From here on the path has begun (path_start_ is set).
    PathStart,
    Path,
    OpaquePath,
    Query,
    Fragment,
    Done,
  };

  int at(size_t i) const { return i < in_.size() ? static_cast<unsigned char>(in_[i]) : kEof; }
  bool is_slash(int c) const { return c == '/' || (url_.special_ && c == '\\'); }
  std::string& out() { return url_.href_; }
  uint32_t pos() const { return static_cast<uint32_t>(url_.href_.size()); }

  void set_scheme(const SchemeInfo& info) {
    url_.scheme_kind_ = info.kind;
    url_.special_ = info.special;
  }
  void no_host() {
    url_.username_end_ = url_.host_start_ = url_.host_end_ = pos();
    url_.host_type_ = UrlHostType::None;
  }
  void copy_base_authority();
  void copy_base_path() { out() += base_->path(); }
  void copy_base_query();
  void shorten_path();
  void begin_path();

  UrlError parse_authority(size_t end);
  UrlError parse_host(std::string_view host);
  UrlError parse_port(std::string_view port);
  void parse_path();
  void finish_segment(size_t segment, bool slash);
  void parse_opaque_path();
  void parse_query();
  void parse_fragment();
  void finish();

  std::string_view in_;
  const Url* base_;
  std::string_view query_encoding_;
  Url url_;
  size_t p_ = 0;
  State state_ = State::SchemeStart;
  bool path_begun_ = false;
};

void UrlParser::copy_base_authority() {
  const Url& b = *base_;
  uint32_t end = b.path_start_ - (b.dot_slash_ ? 2 : 0);
  out().assign(b.href_, 0, end);
  url_.scheme_end_ = b.scheme_end_;
  url_.username_end_ = b.username_end_;
  url_.host_start_ = b.host_start_;
  url_.host_end_ = b.host_end_;
  url_.port_ = b.port_;
  url_.has_port_ = b.has_port_;
  url_.special_ = b.special_;
  url_.scheme_kind_ = b.scheme_kind_;
  url_.host_type_ = b.host_type_;
}

void UrlParser::copy_base_query() {
  if (!base_->has_query()) return;
  url_.query_start_ = pos();
  out() += base_->slice(base_->query_start_, base_->fragment_end());
}

void UrlParser::begin_path() {
  url_.path_start_ = pos();
  path_begun_ = true;
}

// Removes the last path segment, except a lone normalized drive letter of a file URL.
void UrlParser::shorten_path() {
  std::string_view path = std::string_view(out()).substr(url_.path_start_);
  if (url_.scheme_kind_ == UrlScheme::File && path.size() == 3 &&
      is_drive_letter(path.substr(1), true))
    return;
  size_t slash = path.rfind('/');
  if (slash != std::string_view::npos) out().resize(url_.path_start_ + slash);
}

UrlResult UrlParser::run() {
  out().reserve(in_.size() + (base_ ? base_->href_.size() : 0) + 8);
  while (state_ != State::Done) {
    if (state_ >= State::PathStart && !path_begun_) begin_path();
    int c = at(p_);
    switch (state_) {
      case State::SchemeStart:
        state_ = is_alpha(c) ? State::Scheme : State::NoScheme;
        break;

      case State::Scheme: {
        size_t i = 0;
        while (i < in_.size() &&
               (is_alpha(at(i)) || is_digit(at(i)) || at(i) == '+' || at(i) == '-' || at(i) == '.'))
          ++i;
        if (at(i) != ':') {
          state_ = State::NoScheme;
          break;
        }
        for (size_t k = 0; k < i; ++k) out().push_back(to_lower(in_[k]));
        url_.scheme_end_ = pos();
        out().push_back(':');
        const SchemeInfo& info = scheme_info(url_.scheme());
        set_scheme(info);
        p_ = i + 1;
        if (info.kind == UrlScheme::File) {
          state_ = State::File;
        } else if (info.special && base_ && base_->scheme() == url_.scheme()) {
          state_ = State::SpecialRelativeOrAuthority;
        } else if (info.special) {
          state_ = State::SpecialAuthoritySlashes;
        } else if (at(p_) == '/') {
          state_ = State::PathOrAuthority;
          ++p_;
        } else {
          no_host();
          url_.opaque_path_ = true;
          state_ = State::OpaquePath;
        }
        break;
      }

      case State::NoScheme:
        if (!base_ || (base_->opaque_path_ && c != '#')) return UrlError::MissingScheme;
        if (base_->opaque_path_) {
          out().assign(base_->href_, 0, base_->fragment_end());
          url_.scheme_end_ = base_->scheme_end_;
          url_.special_ = base_->special_;
          url_.scheme_kind_ = base_->scheme_kind_;
          url_.opaque_path_ = true;
          url_.username_end_ = url_.host_start_ = url_.host_end_ = base_->host_start_;
          url_.path_start_ = base_->path_start_;
          url_.query_start_ = base_->query_start_;
          path_begun_ = true;
          ++p_;
          state_ = State::Fragment;
        } else if (base_->scheme_kind_ != UrlScheme::File) {
          state_ = State::Relative;
        } else {
          state_ = State::File;
        }
        break;

      case State::SpecialRelativeOrAuthority:
        if (c == '/' && at(p_ + 1) == '/') {
          state_ = State::SpecialAuthorityIgnoreSlashes;
          p_ += 2;
        } else {
          state_ = State::Relative;
        }
        break;

      case State::PathOrAuthority:
        if (c == '/') {
          state_ = State::Authority;
          ++p_;
        } else {
          no_host();
          state_ = State::Path;
        }
        break;

      case State::Relative:
        copy_base_authority();
        if (is_slash(c)) {
          state_ = State::RelativeSlash;
          ++p_;
          break;
        }
        begin_path();
        copy_base_path();
        if (c == '?') {
          state_ = State::Query;
          ++p_;
        } else if (c == '#') {
          copy_base_query();
          state_ = State::Fragment;
          ++p_;
        } else if (c != kEof) {
          shorten_path();
          state_ = State::Path;
        } else {
          copy_base_query();
          state_ = State::Done;
        }
        break;

      case State::RelativeSlash:
        // The base authority is already copied; an authority in the input replaces it.
        if (is_slash(c)) {
          out().resize(url_.scheme_end_ + 1);
          state_ = url_.special_ ? State::SpecialAuthorityIgnoreSlashes : State::Authority;
          ++p_;
        } else {
          state_ = State::Path;
        }
        break;

      case State::SpecialAuthoritySlashes:
        if (c == '/' && at(p_ + 1) == '/') p_ += 2;
        state_ = State::SpecialAuthorityIgnoreSlashes;
        break;

      case State::SpecialAuthorityIgnoreSlashes:
        while (at(p_) == '/' || at(p_) == '\\') ++p_;
        state_ = State::Authority;
        break;

      case State::Authority: {
        size_t end = p_;
        while (end < in_.size()) {
          int e = at(end);
          if (e == '/' || e == '?' || e == '#' || (url_.special_ && e == '\\')) break;
          ++end;
        }
        if (UrlError error = parse_authority(end); error != UrlError::None) return error;
        p_ = end;
        state_ = State::PathStart;
        break;
      }

      case State::File:
        if (url_.scheme_end_ == 0) {
          out() = "file:";
          url_.scheme_end_ = 4;
          set_scheme(scheme_info(UrlScheme::File));
        }
        out() += "//";
        url_.username_end_ = url_.host_start_ = url_.host_end_ = pos();
        url_.host_type_ = UrlHostType::Empty;
        if (c == '/' || c == '\\') {
          state_ = State::FileSlash;
          ++p_;
        } else if (base_ && base_->scheme_kind_ == UrlScheme::File) {
          copy_base_authority();
          begin_path();
          copy_base_path();
          if (c == '?') {
            state_ = State::Query;
            ++p_;
          } else if (c == '#') {
            copy_base_query();
            state_ = State::Fragment;
            ++p_;
          } else if (c != kEof) {
            if (!starts_with_drive_letter(in_.substr(p_))) {
              shorten_path();
            } else {
              out().resize(url_.path_start_);
            }
            state_ = State::Path;
          } else {
            copy_base_query();
            state_ = State::Done;
          }
        } else {
          state_ = State::Path;
        }
        break;

      case State::FileSlash:
        if (c == '/' || c == '\\') {
          state_ = State::FileHost;
          ++p_;
          break;
        }
        if (base_ && base_->scheme_kind_ == UrlScheme::File) {
          copy_base_authority();
          begin_path();
          std::string_view base_path = base_->path();
          if (!starts_with_drive_letter(in_.substr(p_)) && base_path.size() >= 3 &&
              is_drive_letter(base_path.substr(1, 2), true) &&
              (base_path.size() == 3 || base_path[3] == '/'))
            out() += base_path.substr(0, 3);
        }
        state_ = State::Path;
        break;

      case State::FileHost: {
        size_t end = p_;
        while (end < in_.size()) {
          int e = at(end);
          if (e == '/' || e == '\\' || e == '?' || e == '#') break;
          ++end;
        }
        std::string_view buffer = in_.substr(p_, end - p_);
        if (is_drive_letter(buffer, false)) {
          state_ = State::Path;  // the buffer is read again as the first path segment
          break;
        }
        if (!buffer.empty()) {
          if (UrlError error = parse_host(buffer); error != UrlError::None) return error;
          if (url_.host() == "localhost") {
            out().resize(url_.host_start_);
            url_.host_end_ = url_.host_start_;
            url_.host_type_ = UrlHostType::Empty;
          }
        }
        p_ = end;
        state_ = State::PathStart;
        break;
      }

      case State::PathStart:
        if (url_.special_) {
          state_ = State::Path;
          if (c == '/' || c == '\\') ++p_;
        } else if (c == '?') {
          state_ = State::Query;
          ++p_;
        } else if (c == '#') {
          state_ = State::Fragment;
          ++p_;
        } else if (c != kEof) {
          state_ = State::Path;
          if (c == '/') ++p_;
        } else {
          state_ = State::Done;
        }
        break;

      case State::Path:
        parse_path();
        break;

      case State::OpaquePath:
        parse_opaque_path();
        break;

      case State::Query:
        parse_query();
        break;

      case State::Fragment:
        parse_fragment();
        break;

      case State::Done:
        break;
    }
  }
  finish();
  return std::move(url_);
}

// The authority state and the host and port states it hands over to, on in_[p_, end).
UrlError UrlParser::parse_authority(size_t end) {
  std::string_view authority = in_.substr(p_, end - p_);
  // A relative reference's authority replaces all of the base's, port included.
  out().resize(url_.scheme_end_ + 1);
  url_.has_port_ = false;
  url_.port_ = 0;
  out() += "//";
  uint32_t username_start = pos();
  // Every '@' but the last belongs to the userinfo (and is encoded there); the first ':' of the
  // userinfo separates username from password.
  size_t at_sign = authority.rfind('@');
  std::string_view host_port = authority;
  if (at_sign != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at_sign);
    size_t colon = userinfo.find(':');
    append_encoded(out(), userinfo.substr(0, colon), kUserinfoSet);
    url_.username_end_ = pos();
    if (colon != std::string_view::npos && colon + 1 < userinfo.size()) {
      out().push_back(':');
      append_encoded(out(), userinfo.substr(colon + 1), kUserinfoSet);
    }
    if (pos() != username_start) out().push_back('@');
    host_port = authority.substr(at_sign + 1);
    if (host_port.empty()) return UrlError::HostMissing;
  } else {
    url_.username_end_ = username_start;
  }
  url_.host_start_ = pos();

  bool in_brackets = false;
  size_t colon = std::string_view::npos;
  for (size_t i = 0; i < host_port.size(); ++i) {
    char c = host_port[i];
    if (c == ':' && !in_brackets) {
      colon = i;
      break;
    }
    if (c == '[') in_brackets = true;
    if (c == ']') in_brackets = false;
  }
  std::string_view host = host_port.substr(0, colon);
  if (host.empty() && (url_.special_ || colon != std::string_view::npos))
    return UrlError::HostMissing;
  if (UrlError error = parse_host(host); error != UrlError::None) return error;
  if (colon != std::string_view::npos) return parse_port(host_port.substr(colon + 1));
  return UrlError::None;
}

// The host parser; writes the serialized host at the end of the href and sets host_end_.
UrlError UrlParser::parse_host(std::string_view host) {
  uint32_t start = pos();
  if (!host.empty() && host[0] == '[') {
    if (host.back() != ']' || host.size() < 2) return UrlError::InvalidIpv6;
    auto address = parse_ipv6(host.substr(1, host.size() - 2));
    if (!address) return UrlError::InvalidIpv6;
    serialize_ipv6(out(), *address);
    url_.host_type_ = UrlHostType::Ipv6;
  } else if (!url_.special_) {
    for (char c : host)
      if (is_forbidden_host(static_cast<unsigned char>(c))) return UrlError::InvalidHost;
    append_encoded(out(), host, kC0Set);
    url_.host_type_ = host.empty() ? UrlHostType::Empty : UrlHostType::Opaque;
  } else {
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
        if ((i == 0 || host[i - 1] == '.') && starts_with_ci(host.substr(i), "xn--")) {
          simple = false;
          break;
        }
      }
    }
    if (simple) {
      for (char c : host) out().push_back(to_lower(c));
    } else {
      std::string decoded = percent_decode(host);
      auto ascii = domain_to_ascii(decoded);
      if (!ascii) {
        for (char c : decoded)
          if (is_forbidden_domain(static_cast<unsigned char>(c))) return UrlError::InvalidHost;
        return UrlError::InvalidDomain;
      }
      out() += *ascii;
    }
    std::string_view domain = std::string_view(out()).substr(start);
    if (ends_in_number(domain)) {
      auto ipv4 = parse_ipv4(domain);
      if (!ipv4) return UrlError::InvalidIpv4;
      out().resize(start);
      serialize_ipv4(out(), *ipv4);
      url_.host_type_ = UrlHostType::Ipv4;
    } else {
      url_.host_type_ = UrlHostType::Domain;
    }
  }
  url_.host_end_ = pos();
  return UrlError::None;
}

UrlError UrlParser::parse_port(std::string_view port) {
  uint32_t value = 0;
  for (char c : port) {
    if (!is_digit(c)) return UrlError::InvalidPort;
    value = value * 10 + (c - '0');
    if (value > 65535) value = 65536;
  }
  if (port.empty()) return UrlError::None;
  if (value > 65535) return UrlError::PortOutOfRange;
  if (static_cast<int>(value) == scheme_info(url_.scheme_kind_).default_port) return UrlError::None;
  url_.port_ = static_cast<uint16_t>(value);
  url_.has_port_ = true;
  out().push_back(':');
  out() += std::to_string(value);
  return UrlError::None;
}

// The path state: segments are written as '/'-prefixed runs; dot segments are undone in place.
void UrlParser::parse_path() {
  size_t segment = out().size();
  out().push_back('/');
  while (true) {
    int c = at(p_);
    bool slash = is_slash(c);
    if (c == kEof || slash || c == '?' || c == '#') {
      finish_segment(segment, slash);
      ++p_;
      if (slash) {
        segment = out().size();
        out().push_back('/');
        continue;
      }
      state_ = c == '?' ? State::Query : c == '#' ? State::Fragment : State::Done;
      return;
    }
    size_t run = p_;
    while (run < in_.size()) {
      int d = at(run);
      if (d == '/' || d == '?' || d == '#' || (d == '\\' && url_.special_)) break;
      ++run;
    }
    append_encoded(out(), in_.substr(p_, run - p_), kPathSet);
    p_ = run;
  }
}

void UrlParser::finish_segment(size_t segment, bool slash) {
  std::string_view text = std::string_view(out()).substr(segment + 1);
  if (is_double_dot(text)) {
    out().resize(segment);
    shorten_path();
    if (!slash) out().push_back('/');
  } else if (is_single_dot(text)) {
    out().resize(segment);
    if (!slash) out().push_back('/');
  } else if (url_.scheme_kind_ == UrlScheme::File && segment == url_.path_start_ &&
             is_drive_letter(text, false)) {
    out()[segment + 2] = ':';
  }
}

void UrlParser::parse_opaque_path() {
  while (true) {
    int c = at(p_);
    if (c == '?' || c == '#' || c == kEof) {
      ++p_;
      state_ = c == '?' ? State::Query : c == '#' ? State::Fragment : State::Done;
      return;
    }
    if (c == ' ') {
      int next = at(p_ + 1);
      out() += next == '?' || next == '#' ? "%20" : " ";
      ++p_;
      continue;
    }
    size_t run = p_;
    while (run < in_.size() && in_[run] != '?' && in_[run] != '#' && in_[run] != ' ') ++run;
    append_encoded(out(), in_.substr(p_, run - p_), kC0Set);
    p_ = run;
  }
}

void UrlParser::parse_query() {
  url_.query_start_ = pos();
  out().push_back('?');
  size_t hash = in_.find('#', p_);
  std::string_view query = in_.substr(p_, hash == std::string_view::npos ? in_.npos : hash - p_);
  const EncodeSet& set = url_.special_ ? kSpecialQuerySet : kQuerySet;
  bool legacy = !is_utf8_for_queries(query_encoding_) && url_.special_ &&
                url_.scheme_kind_ != UrlScheme::Ws && url_.scheme_kind_ != UrlScheme::Wss &&
                std::any_of(query.begin(), query.end(),
                            [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
  if (!legacy || !append_encoded_in(out(), query, query_encoding_, set))
    append_encoded(out(), query, set);
  if (hash == std::string_view::npos) {
    state_ = State::Done;
  } else {
    p_ = hash + 1;
    state_ = State::Fragment;
  }
}

void UrlParser::parse_fragment() {
  url_.fragment_start_ = pos();
  out().push_back('#');
  append_encoded(out(), in_.substr(std::min(p_, in_.size())), kFragmentSet);
  state_ = State::Done;
}

// A URL without a host whose path starts with an empty segment serializes with "/." before the
// path, or its path would read as an authority.
void UrlParser::finish() {
  if (url_.host_type_ != UrlHostType::None || url_.opaque_path_) return;
  std::string_view path = url_.path();
  if (path.size() < 2 || path[0] != '/' || path[1] != '/') return;
  out().insert(url_.path_start_, "/.");
  url_.path_start_ += 2;
  url_.dot_slash_ = true;
  if (url_.query_start_ != Url::kNone) url_.query_start_ += 2;
  if (url_.fragment_start_ != Url::kNone) url_.fragment_start_ += 2;
}

}  // namespace detail

std::string_view url_error_message(UrlError error) noexcept {
  switch (error) {
    case UrlError::None:
      return "ok";
    case UrlError::MissingScheme:
      return "relative URL without a base";
    case UrlError::HostMissing:
      return "missing host";
    case UrlError::InvalidHost:
      return "forbidden code point in host";
    case UrlError::InvalidDomain:
      return "invalid international domain name";
    case UrlError::InvalidIpv4:
      return "invalid IPv4 address";
    case UrlError::InvalidIpv6:
      return "invalid IPv6 address";
    case UrlError::InvalidPort:
      return "invalid port";
    case UrlError::PortOutOfRange:
      return "port out of range";
    case UrlError::TooLong:
      return "URL too long";
  }
  return "unknown URL error";
}

UrlResult Url::parse(std::string_view input, const Url* base, std::string_view query_encoding) {
  auto c0_or_space = [](char c) { return static_cast<unsigned char>(c) <= 0x20; };
  while (!input.empty() && c0_or_space(input.front())) input.remove_prefix(1);
  while (!input.empty() && c0_or_space(input.back())) input.remove_suffix(1);
  if (input.size() > kMaxInputLength) return UrlError::TooLong;
  if (input.find_first_of("\t\n\r") == std::string_view::npos)
    return detail::UrlParser(input, base, query_encoding).run();
  std::string cleaned;
  cleaned.reserve(input.size());
  for (char c : input)
    if (c != '\t' && c != '\n' && c != '\r') cleaned.push_back(c);
  return detail::UrlParser(cleaned, base, query_encoding).run();
}

std::string_view Url::username() const noexcept {
  if (host_type_ == UrlHostType::None) return {};
  return slice(scheme_end_ + 3, username_end_);
}

std::string_view Url::password() const noexcept {
  if (host_start_ <= username_end_ + 1 || href_[username_end_] != ':') return {};
  return slice(username_end_ + 1, host_start_ - 1);
}

std::string_view Url::hostname_for_connect() const noexcept {
  std::string_view h = host();
  if (host_type_ == UrlHostType::Ipv6) return h.substr(1, h.size() - 2);
  return h;
}

std::optional<uint16_t> Url::port() const noexcept {
  if (!has_port_) return std::nullopt;
  return port_;
}

std::optional<uint16_t> Url::effective_port() const noexcept {
  if (has_port_) return port_;
  int port = detail::scheme_info(scheme_kind_).default_port;
  if (port < 0) return std::nullopt;
  return static_cast<uint16_t>(port);
}

std::string Url::host_port() const {
  auto port = effective_port();
  if (!has_host() || !port) return {};
  std::string out(host());
  out.push_back(':');
  out += std::to_string(*port);
  return out;
}

std::string Url::origin() const {
  switch (scheme_kind_) {
    case UrlScheme::Http:
    case UrlScheme::Https:
    case UrlScheme::Ws:
    case UrlScheme::Wss:
    case UrlScheme::Ftp: {
      std::string out(scheme());
      out += "://";
      out += host();
      if (has_port_) {
        out.push_back(':');
        out += std::to_string(port_);
      }
      return out;
    }
    default:
      return "null";
  }
}

std::string_view Url::query() const noexcept {
  if (query_start_ == kNone) return {};
  return slice(query_start_ + 1, fragment_end());
}

std::string_view Url::fragment() const noexcept {
  if (fragment_start_ == kNone) return {};
  return slice(fragment_start_ + 1, size32());
}

Url Url::normalized() const {
  Url copy = *this;
  if (fragment_start_ != kNone) {
    copy.href_.resize(fragment_start_);
    copy.fragment_start_ = kNone;
  }
  return copy;
}

std::optional<DataUrl> Url::data_url() const {
  using namespace detail;
  if (scheme_kind_ != UrlScheme::Data) return std::nullopt;
  std::string_view input = slice(scheme_end_ + 1, fragment_end());
  size_t comma = input.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view mime = trim(input.substr(0, comma), is_ascii_whitespace);
  DataUrl result;
  result.body = percent_decode(input.substr(comma + 1));
  // ";base64", with optional spaces before "base64", marks a base64 body.
  if (mime.size() >= 6 && iequals(mime.substr(mime.size() - 6), "base64")) {
    std::string_view rest = mime.substr(0, mime.size() - 6);
    while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
    if (!rest.empty() && rest.back() == ';') {
      auto decoded = forgiving_base64_decode(result.body);
      if (!decoded) return std::nullopt;
      result.body = std::move(*decoded);
      mime = rest.substr(0, rest.size() - 1);
    }
  }
  std::string type(mime.starts_with(';') ? "text/plain" : "");
  type += mime;
  if (auto parsed = parse_mime_type(type)) {
    result.mime_type = parsed->serialize();
    result.essence = parsed->essence();
    result.charset = parsed->parameter("charset").value_or("");
  } else {
    result.mime_type = "text/plain;charset=US-ASCII";
    result.essence = "text/plain";
    result.charset = "US-ASCII";
  }
  return result;
}

}  // namespace squall
