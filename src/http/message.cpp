// Headers, version and head serialisation for HTTP messages.
#include "squall/http/message.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace squall::http {

namespace {

constexpr std::array<bool, 256> make_token_table() {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr std::array<bool, 256> kToken = make_token_table();

bool is_ows(char c) noexcept {
  return c == ' ' || c == '\t';
}

}  // namespace

bool is_token(std::string_view s) noexcept {
  if (s.empty()) return false;
  // No early exit: names are short and nearly always good, and a loop without a branch per
  // byte costs half as much.
  bool good = true;
  for (char c : s) good &= kToken[static_cast<unsigned char>(c)];
  return good;
}

std::string_view trim_ows(std::string_view s) noexcept {
  while (!s.empty() && is_ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ows(s.back())) s.remove_suffix(1);
  return s;
}

bool is_field_value(std::string_view s) noexcept {
  if (!s.empty() && (is_ows(s.front()) || is_ows(s.back()))) return false;
  auto bytes_good = [](const char* p, size_t n) noexcept {
    for (size_t i = 0; i < n; ++i) {
      auto c = static_cast<unsigned char>(p[i]);
      if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
    }
    return true;
  };
  // Eight bytes at a time: a word with no byte below 0x20 and none equal to 0x7f passes as a
  // whole (the tests borrow across bytes only after a byte that is below); a word with one,
  // perhaps an allowed tab, is checked byte by byte.
  constexpr uint64_t kOnes = 0x0101010101010101, kHigh = 0x8080808080808080;
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
    uint64_t x = w ^ (kOnes * 0x7f);
    uint64_t del = (x - kOnes) & ~x & kHigh;
    if ((below_space | del) != 0 && !bytes_good(p, 8)) return false;
  }
  return bytes_good(p, n);
}

Headers::Headers(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  fields_.reserve(fields.size());
  for (const auto& [name, value] : fields) add(name, value);
}

void Headers::add(std::string_view name, std::string_view value) {
  Header& h = fields_.emplace_back();  // built in place: no temporary to move from
  h.name.assign(name);
  h.value.assign(value);
}

void Headers::set(std::string_view name, std::string_view value) {
  auto first = fields_.end();
  for (auto it = fields_.begin(); it != fields_.end();) {
    if (!iequals(it->name, name)) {
      ++it;
    } else if (first == fields_.end()) {
      it->name.assign(name);
      it->value.assign(value);
      first = it++;
    } else {
      it = fields_.erase(it);
    }
  }
  if (first == fields_.end()) add(name, value);
}

size_t Headers::remove(std::string_view name) {
  size_t before = fields_.size();
  std::erase_if(fields_, [&](const Header& h) { return iequals(h.name, name); });
  return before - fields_.size();
}

bool Headers::contains(std::string_view name) const noexcept {
  return get(name).has_value();
}

std::optional<std::string_view> Headers::get(std::string_view name) const noexcept {
  for (const auto& h : fields_)
    if (iequals(h.name, name)) return std::string_view(h.value);
  return std::nullopt;
}

std::vector<std::string_view> Headers::get_all(std::string_view name) const {
  std::vector<std::string_view> values;
  for (const auto& h : fields_)
    if (iequals(h.name, name)) values.emplace_back(h.value);
  return values;
}

std::string Headers::get_joined(std::string_view name) const {
  std::string joined;
  bool first = true;
  for (const auto& h : fields_) {
    if (!iequals(h.name, name)) continue;
    if (!first) joined += ", ";
    joined += h.value;
    first = false;
  }
  return joined;
}

bool Headers::has_token(std::string_view name, std::string_view token) const noexcept {
  for (const auto& h : fields_) {
    if (!iequals(h.name, name)) continue;
    std::string_view rest = h.value;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      std::string_view element = trim_ows(rest.substr(0, comma));
      if (iequals(element, token)) return true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return false;
}

bool keep_alive(Version version, const Headers& headers) noexcept {
  if (headers.has_token("Connection", "close")) return false;
  if (version >= Version{1, 1}) return true;
  return headers.has_token("Connection", "keep-alive");
}

bool is_idempotent(std::string_view method) noexcept {
  // Methods are case-sensitive (RFC 9110 §9.1).
  return method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "TRACE" ||
         method == "PUT" || method == "DELETE";
}

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 100:
      return "Continue";
    case 101:
      return "Switching Protocols";
    case 103:
      return "Early Hints";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 203:
      return "Non-Authoritative Information";
    case 204:
      return "No Content";
    case 205:
      return "Reset Content";
    case 206:
      return "Partial Content";
    case 300:
      return "Multiple Choices";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 303:
      return "See Other";
    case 304:
      return "Not Modified";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 402:
      return "Payment Required";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 407:
      return "Proxy Authentication Required";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 411:
      return "Length Required";
    case 412:
      return "Precondition Failed";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 416:
      return "Range Not Satisfiable";
    case 417:
      return "Expectation Failed";
    case 421:
      return "Misdirected Request";
    case 422:
      return "Unprocessable Content";
    case 426:
      return "Upgrade Required";
    case 428:
      return "Precondition Required";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "";
  }
}

namespace {

void append_version(std::string& out, Version v) {
  out += "HTTP/";
  out += static_cast<char>('0' + v.major % 10);
  out += '.';
  out += static_cast<char>('0' + v.minor % 10);
}

void append_fields(std::string& out, const Headers& headers) {
  for (const auto& h : headers) {
    out += h.name;
    out += ": ";
    out += h.value;
    out += "\r\n";
  }
  out += "\r\n";
}

}  // namespace

void write_head(std::string& out, const RequestHead& head) {
  out += head.method;
  out += ' ';
  out += head.target;
  out += ' ';
  append_version(out, head.version);
  out += "\r\n";
  append_fields(out, head.headers);
}

void write_head(std::string& out, const ResponseHead& head) {
  append_version(out, head.version);
  out += ' ';
  int status = head.status;
  if (status < 100 || status > 999) status = 500;
  char digits[3] = {static_cast<char>('0' + status / 100),
                    static_cast<char>('0' + status / 10 % 10),
                    static_cast<char>('0' + status % 10)};
  out.append(digits, 3);
  out += ' ';
  out += head.reason.empty() ? reason_phrase(status) : std::string_view(head.reason);
  out += "\r\n";
  append_fields(out, head.headers);
}

}  // namespace squall::http
