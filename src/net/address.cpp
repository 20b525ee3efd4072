// Address parsing and formatting for IPv4 and IPv6.
#include "squall/net/address.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

#include "squall/core/error.h"

namespace squall {

namespace {
sockaddr_in* v4(sockaddr_storage& s) noexcept {
  return reinterpret_cast<sockaddr_in*>(&s);
}
const sockaddr_in* v4(const sockaddr_storage& s) noexcept {
  return reinterpret_cast<const sockaddr_in*>(&s);
}
sockaddr_in6* v6(sockaddr_storage& s) noexcept {
  return reinterpret_cast<sockaddr_in6*>(&s);
}
const sockaddr_in6* v6(const sockaddr_storage& s) noexcept {
  return reinterpret_cast<const sockaddr_in6*>(&s);
}
}  // namespace

Address::Address() noexcept {
  std::memset(&storage_, 0, sizeof storage_);
  storage_.ss_family = AF_INET;
}

std::optional<Address> Address::from_ip(std::string_view host, uint16_t port) noexcept {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    if (host.find(':') == std::string_view::npos) return std::nullopt;
  }
  char text[INET6_ADDRSTRLEN + 1];
  if (host.empty() || host.size() >= sizeof text) return std::nullopt;
  // A host name is turned away without inet_pton: an IPv4 literal ends with a digit and an
  // IPv6 one has a colon (resolvers ask this of every name they look up).
  bool digit_last = host.back() >= '0' && host.back() <= '9';
  if (!digit_last && host.find(':') == std::string_view::npos) return std::nullopt;
  std::memcpy(text, host.data(), host.size());
  text[host.size()] = '\0';
  Address a;
  if (inet_pton(AF_INET, text, &v4(a.storage_)->sin_addr) == 1) {
    a.storage_.ss_family = AF_INET;
  } else if (inet_pton(AF_INET6, text, &v6(a.storage_)->sin6_addr) == 1) {
    a.storage_.ss_family = AF_INET6;
  } else {
    return std::nullopt;
  }
  a.set_port(port);
  return a;
}

Address Address::parse(std::string_view text) {
  auto bad = [&](const char* why) {
    return InvalidArgumentError("address \"" + std::string(text) + "\": " + why +
                                " (expected \"127.0.0.1:80\" or \"[::1]:80\")");
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) throw bad("no port");
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  bool bracketed = !host.empty() && host.front() == '[';
  if (!bracketed && host.find(':') != std::string_view::npos)
    throw bad("an IPv6 address needs brackets");
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() ||
      port > 65535)
    throw bad("bad port");
  auto address = from_ip(host, static_cast<uint16_t>(port));
  if (!address) throw bad("not a numeric IP address");
  return *address;
}

std::optional<Address> Address::from_sockaddr(const sockaddr* sa, socklen_t length) noexcept {
  Address a;
  if (sa->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    std::memcpy(&a.storage_, sa, sizeof(sockaddr_in));
  } else if (sa->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    std::memcpy(&a.storage_, sa, sizeof(sockaddr_in6));
  } else {
    return std::nullopt;
  }
  return a;
}

Address Address::ipv4_loopback(uint16_t port) noexcept {
  Address a;
  v4(a.storage_)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.set_port(port);
  return a;
}

Address Address::ipv6_loopback(uint16_t port) noexcept {
  Address a;
  a.storage_.ss_family = AF_INET6;
  v6(a.storage_)->sin6_addr = in6addr_loopback;
  a.set_port(port);
  return a;
}

Address Address::ipv4_any(uint16_t port) noexcept {
  Address a;
  a.set_port(port);
  return a;
}

Address Address::ipv6_any(uint16_t port) noexcept {
  Address a;
  a.storage_.ss_family = AF_INET6;
  v6(a.storage_)->sin6_addr = in6addr_any;
  a.set_port(port);
  return a;
}

uint16_t Address::port() const noexcept {
  return ntohs(is_v6() ? v6(storage_)->sin6_port : v4(storage_)->sin_port);
}

void Address::set_port(uint16_t port) noexcept {
  if (is_v6()) {
    v6(storage_)->sin6_port = htons(port);
  } else {
    v4(storage_)->sin_port = htons(port);
  }
}

std::string Address::host() const {
  char text[INET6_ADDRSTRLEN];
  const void* raw = is_v6() ? static_cast<const void*>(&v6(storage_)->sin6_addr)
                            : static_cast<const void*>(&v4(storage_)->sin_addr);
  inet_ntop(family(), raw, text, sizeof text);
  return text;
}

std::string Address::to_string() const {
  std::string text;
  if (is_v6()) text += '[';
  text += host();
  if (is_v6()) text += ']';
  text += ':';
  text += std::to_string(port());
  return text;
}

socklen_t Address::length() const noexcept {
  return is_v6() ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
}

bool Address::operator==(const Address& other) const noexcept {
  if (family() != other.family() || port() != other.port()) return false;
  if (is_v6())
    return std::memcmp(&v6(storage_)->sin6_addr, &v6(other.storage_)->sin6_addr,
                       sizeof(in6_addr)) == 0;
  return v4(storage_)->sin_addr.s_addr == v4(other.storage_)->sin_addr.s_addr;
}

}  // namespace squall
