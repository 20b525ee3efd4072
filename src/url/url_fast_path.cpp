// The parser's fast paths: an absolute http(s) URL that is already written the way the standard
// serializes it is its own serialization, and a relative reference made of such a path, query
// and fragment only needs the base's authority (and directory) in front of it; either is copied
// once and its components found in one scan, instead of going through the state machine byte by
// byte.
//
// "Already serialized" means: the scheme "http://" or "https://" in lower case; a host of ASCII
// letters, digits, '-', '_' and '.', with no "xn--" label and no trailing '.', that either ends
// in a label beginning with a letter (a domain) or is a plain dotted quad ("10.0.0.1"); no
// userinfo; no port or a non-default one without leading zeros; and a path, query and fragment of
// printable ASCII that their percent-encode sets leave alone, with no '\' and no dot segment. Upper
// case in the host is lowered and a missing "/" path is added, as the standard does. The relative
// references taken are those against an http(s) base that start with a path ("/a", "a/b", not
// "//host", "?q" or "#f"), have no ':' before their first '/', '?' or '#' (so no scheme), and
// whose path, query and fragment are plain in the same sense, dot segments allowed (they are
// resolved as the path state resolves them). Anything else is left to the state machine;
// fuzz/url_fuzz.cpp checks that both agree wherever these paths are taken.
#include <algorithm>
#include <array>

#include "url_internal.h"

namespace squall::detail {

namespace {

using ByteSet = std::array<bool, 256>;

// Printable ASCII without `excluded`.
constexpr ByteSet printable_without(std::string_view excluded) {
  ByteSet set{};
  for (int c = 0x21; c < 0x7F; ++c) set[c] = true;
  for (char c : excluded) set[static_cast<unsigned char>(c)] = false;
  return set;
}

// What each component may hold to need no encoding: the special path, query and fragment sets
// of url_internal.h, without '\\' (a slash in special URLs) in the path, and without the bytes
// that end a component ('/' a path segment, '?' the path, '#' the path and the query), which the
// scan looks for.
constexpr ByteSet kPlainSegment = printable_without("\"<>^`{}\\?#/");
constexpr ByteSet kPlainQuery = printable_without("\"<>'#");
constexpr ByteSet kPlainFragment = printable_without("\"<>`");
constexpr ByteSet kHostBytes = [] {
  ByteSet set{};
  for (int c = 0; c < 256; ++c)
    set[c] = is_ascii_alphanumeric(c) || c == '-' || c == '_' || c == '.';
  return set;
}();

// A dotted quad as the IPv4 serializer writes it: four decimal parts 0-255 without leading zeros.
bool is_plain_ipv4(std::string_view host) {
  int parts = 0;
  size_t i = 0;
  while (true) {
    size_t start = i;
    unsigned value = 0;
    while (i < host.size() && is_ascii_digit(host[i])) value = value * 10 + (host[i++] - '0');
    size_t digits = i - start;
    if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && host[start] == '0'))
      return false;
    ++parts;
    if (i == host.size()) return parts == 4;
    if (host[i] != '.' || parts == 4) return false;
    ++i;
  }
}

// A path segment that may be a dot segment: ".", "..", "%2e" and their mixes are at most 6 bytes
// and begin with '.' or '%'. `segment` is what follows a '/'.
bool may_be_dot_segment(std::string_view segment) {
  if (segment.empty() || (segment[0] != '.' && segment[0] != '%')) return false;
  size_t size = 1;
  while (size < segment.size() && size <= 6 && segment[size] != '/' && segment[size] != '?' &&
         segment[size] != '#')
    ++size;
  return size <= 6;
}

// Where the query and the fragment of a plain path, query and fragment begin (npos when absent),
// and whether a segment after a '/' may be a dot segment.
struct PlainTail {
  size_t query = std::string_view::npos;
  size_t fragment = std::string_view::npos;
  bool dot_segment = false;
};

// Whether in[from, end) is a path (from a '/', or from the first byte of a relative path whose
// first segment the caller checks), query and fragment that need no percent-encoding.
bool scan_plain_tail(std::string_view in, size_t from, PlainTail& tail) {
  const char* const begin = in.data();
  const char* const end = begin + in.size();
  auto skip = [end](const char* p, const ByteSet& set) {
    while (p != end && set[static_cast<unsigned char>(*p)]) ++p;
    return p;
  };
  const char* p = skip(begin + from, kPlainSegment);
  while (p != end && *p == '/') {
    ++p;
    if (may_be_dot_segment(std::string_view(p, static_cast<size_t>(end - p))))
      tail.dot_segment = true;
    p = skip(p, kPlainSegment);
  }
  if (p != end && *p == '?') {
    tail.query = static_cast<size_t>(p - begin);
    p = skip(p + 1, kPlainQuery);
  }
  if (p != end && *p == '#') {
    tail.fragment = static_cast<size_t>(p - begin);
    p = skip(p + 1, kPlainFragment);
  }
  return p == end;
}

}  // namespace

bool UrlParser::parse_serialized_http() {
  size_t start;
  if (in_.starts_with("http://")) {
    start = 7;
  } else if (in_.starts_with("https://")) {
    start = 8;
  } else {
    return false;
  }
  const SchemeInfo& info = scheme_info(start == 7 ? UrlScheme::Http : UrlScheme::Https);
  const size_t n = in_.size();
  auto byte = [&](size_t i) { return static_cast<unsigned char>(in_[i]); };

  // The host: a domain the host parser would only lower-case, or a plain dotted quad. A last
  // label that begins with a digit may make the host a number ("0x7f.1", "1.2.3"; "1e3" is a
  // domain): only the serialized quad is taken.
  size_t i = start, label = start;
  for (; i < n && kHostBytes[byte(i)]; ++i) {
    if (in_[i] == '.') {
      label = i + 1;
    } else if (i == label && istarts_with(in_.substr(i), "xn--")) {
      return false;
    }
  }
  std::string_view host = in_.substr(start, i - start);
  if (host.empty() || host.back() == '.') return false;
  UrlHostType host_type = UrlHostType::Domain;
  if (is_ascii_digit(in_[label])) {
    if (!is_plain_ipv4(host)) return false;
    host_type = UrlHostType::Ipv4;
  }
  // The port: digits without a leading zero, not the scheme's default.
  bool has_port = i < n && in_[i] == ':';
  uint32_t port = 0;
  if (has_port) {
    size_t digits = ++i;
    for (; i < n && is_ascii_digit(in_[i]) && i - digits < 5; ++i)
      port = port * 10 + (byte(i) - '0');
    if (i == digits || (i - digits > 1 && in_[digits] == '0') || port > 65535 ||
        static_cast<int>(port) == info.default_port)
      return false;
  }
  const size_t end = i;
  if (end < n && in_[end] != '/' && in_[end] != '?' && in_[end] != '#') return false;

  PlainTail tail;
  if (!scan_plain_tail(in_, i, tail) || tail.dot_segment) return false;

  // The input is the serialization, with the host lowered and a "/" path added if missing.
  bool add_slash = end == in_.size() || in_[end] != '/';
  out().reserve(in_.size() + add_slash);
  out().append(in_.substr(0, end));
  for (size_t k = start; k < start + host.size(); ++k) out()[k] = ascii_lower(out()[k]);
  uint32_t shift = add_slash ? 1 : 0;
  if (add_slash) out().push_back('/');
  out().append(in_.substr(end));

  set_scheme(info);
  url_.scheme_end_ = static_cast<uint32_t>(start - 3);
  url_.username_end_ = url_.host_start_ = static_cast<uint32_t>(start);
  url_.host_end_ = static_cast<uint32_t>(start + host.size());
  url_.host_type_ = host_type;
  url_.has_port_ = has_port;
  url_.port_ = static_cast<uint16_t>(port);
  url_.path_start_ = static_cast<uint32_t>(end);
  if (tail.query != std::string_view::npos)
    url_.query_start_ = static_cast<uint32_t>(tail.query + shift);
  if (tail.fragment != std::string_view::npos)
    url_.fragment_start_ = static_cast<uint32_t>(tail.fragment + shift);
  return true;
}

bool UrlParser::parse_plain_relative() {
  if (base_ == nullptr || !base_->is_http() || in_.empty()) return false;
  const bool absolute_path = in_[0] == '/';
  if (absolute_path) {
    if (in_.size() > 1 && in_[1] == '/') return false;  // "//host": an authority
  } else {
    // A ':' before the first '/', '?' or '#' may end a scheme ("mailto:", "c:").
    for (char c : in_) {
      if (c == ':') return false;
      if (c == '/' || c == '?' || c == '#') break;
    }
    if (!kPlainSegment[static_cast<unsigned char>(in_[0])]) return false;
  }
  PlainTail tail;
  if (!scan_plain_tail(in_, 0, tail)) return false;
  if (!absolute_path && may_be_dot_segment(in_)) tail.dot_segment = true;

  // The base's scheme and authority, then (for "a/b") its path up to its last '/', then the
  // input: what the relative and path states would write.
  copy_base_authority();
  url_.path_start_ = pos();
  if (!absolute_path) {
    const std::string_view base_path = base_->path();
    out().append(base_path.substr(0, base_path.rfind('/') + 1));
  }
  const size_t path_end = std::min({tail.query, tail.fragment, in_.size()});
  if (!tail.dot_segment) {
    out().append(in_.substr(0, path_end));
  } else {
    // Segment by segment, as the path state writes them (without the percent-encoding they do
    // not need), so that finish_segment() resolves each dot segment.
    const std::string_view path = in_.substr(0, path_end);
    size_t at = 1;
    if (!absolute_path) {
      out().truncate(pos() - 1);  // the base's directory without its last '/', as shortened
      at = 0;
    }
    for (;;) {
      const size_t slash = std::min(path.find('/', at), path.size());
      const uint32_t segment = pos();
      out().push_back('/');
      out().append(path.substr(at, slash - at));
      finish_segment(segment, slash < path.size());
      if (slash == path.size()) break;
      at = slash + 1;
    }
  }
  const uint32_t shift = static_cast<uint32_t>(pos() - path_end);
  out().append(in_.substr(path_end));
  if (tail.query != std::string_view::npos)
    url_.query_start_ = static_cast<uint32_t>(tail.query + shift);
  if (tail.fragment != std::string_view::npos)
    url_.fragment_start_ = static_cast<uint32_t>(tail.fragment + shift);
  return true;
}

}  // namespace squall::detail
