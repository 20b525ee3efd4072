// URLs as browsers parse them: the Url type, its storage and its accessors. The parser itself is
// in url_parser.cpp, hosts in url_host.cpp, percent-encoding in url_encode.cpp, data: URLs in
// url_data.cpp.
#include "squall/url/url.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "url_internal.h"

namespace squall {

namespace detail {

namespace {

constexpr SchemeInfo kSchemes[] = {
    {"http", UrlScheme::Http, true, 80},  {"https", UrlScheme::Https, true, 443},
    {"ws", UrlScheme::Ws, true, 80},      {"wss", UrlScheme::Wss, true, 443},
    {"ftp", UrlScheme::Ftp, true, 21},    {"file", UrlScheme::File, true, -1},
    {"data", UrlScheme::Data, false, -1},
};
constexpr SchemeInfo kOtherScheme = {"", UrlScheme::Other, false, -1};

}  // namespace

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

void UrlBuffer::grow(size_t capacity) {
  // Doubling keeps appends amortised O(1); the 32-bit size holds any URL parse accepts, since
  // input is at most Url::kMaxInputLength bytes and percent-encoding at most triples it.
  capacity = std::max(capacity, std::min(size_t{capacity_} * 2, size_t{UINT32_MAX}));
  char* bigger = new char[capacity];
  std::memcpy(bigger, data_, size_);
  release();
  data_ = bigger;
  capacity_ = static_cast<uint32_t>(capacity);
}

void UrlBuffer::insert(uint32_t at, std::string_view text) {
  reserve(size_t{size_} + text.size());
  std::memmove(data_ + at + text.size(), data_ + at, size_ - at);
  std::memcpy(data_ + at, text.data(), text.size());
  size_ += static_cast<uint32_t>(text.size());
}

void UrlBuffer::take(UrlBuffer& other) noexcept {
  size_ = other.size_;
  if (other.on_heap()) {
    data_ = other.data_;
    capacity_ = other.capacity_;
    other.data_ = other.inline_;
    other.capacity_ = kInline;
  } else {
    data_ = inline_;
    capacity_ = kInline;
    std::memcpy(inline_, other.inline_, size_);
  }
  other.size_ = 0;
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

namespace {

UrlError parse_into(Url& url, std::string_view input, const Url* base,
                    std::string_view query_encoding) {
  auto c0_or_space = [](char c) { return static_cast<unsigned char>(c) <= 0x20; };
  while (!input.empty() && c0_or_space(input.front())) input.remove_prefix(1);
  while (!input.empty() && c0_or_space(input.back())) input.remove_suffix(1);
  if (input.size() > Url::kMaxInputLength) return UrlError::TooLong;
  if (detail::UrlParser(input, base, query_encoding, url).run_fast_paths()) return UrlError::None;
  // Tab, LF and CR are all below 0x0E: a minimum over the bytes, which the compiler vectorises,
  // rules all three out for almost every input before any exact search.
  unsigned char lowest = 0xFF;
  for (char c : input) lowest = std::min(lowest, static_cast<unsigned char>(c));
  if (lowest > '\r' || input.find_first_of("\t\n\r") == std::string_view::npos)
    return detail::UrlParser(input, base, query_encoding, url).run();
  // Hrefs split over lines are common enough in real markup to deserve the inline buffer too.
  detail::UrlBuffer cleaned;
  cleaned.reserve(input.size());
  for (char c : input)
    if (c != '\t' && c != '\n' && c != '\r') cleaned.push_back(c);
  return detail::UrlParser(cleaned.view(), base, query_encoding, url).run();
}

}  // namespace

UrlResult Url::parse(std::string_view input, const Url* base, std::string_view query_encoding) {
  // The parser writes into the result itself: a Url is a few hundred bytes, not worth moving.
  UrlResult result{Url()};
  if (UrlError error = parse_into(*result.url_, input, base, query_encoding);
      error != UrlError::None) {
    result.url_.reset();
    result.error_ = error;
  }
  return result;
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
    copy.href_.truncate(fragment_start_);
    copy.fragment_start_ = kNone;
  }
  return copy;
}

}  // namespace squall
