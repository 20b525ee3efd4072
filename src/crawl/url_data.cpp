// data: URLs, decoded as the Fetch Standard's data: URL processor does.
#include <optional>
#include <string>
#include <utility>

#include "squall/crawl/sniff.h"
#include "url_internal.h"

namespace squall {

namespace {

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
    } else if (detail::is_digit(c)) {
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
