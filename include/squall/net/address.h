// Address: an IPv4 or IPv6 socket address (IP + port), parsed from and formatted as text.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace squall {

// A value type holding a sockaddr_in or sockaddr_in6. Text forms: "127.0.0.1:80" and
// "[::1]:80"; the host alone ("127.0.0.1", "::1") with a separate port. No name lookup here:
// host names go through a Resolver (resolver.h).
class Address {
 public:
  // 0.0.0.0:0
  Address() noexcept;

  // "127.0.0.1:80" or "[::1]:80". Throws InvalidArgumentError on anything else.
  static Address parse(std::string_view text);
  // A numeric IPv4 or IPv6 literal ("10.0.0.1", "::1", "[::1]") and a port; nullopt if `host`
  // is not an IP literal (it may be a name to resolve).
  static std::optional<Address> from_ip(std::string_view host, uint16_t port) noexcept;
  // From what accept/getsockname filled in; nullopt for families other than IPv4/IPv6.
  static std::optional<Address> from_sockaddr(const sockaddr* sa, socklen_t length) noexcept;

  static Address ipv4_loopback(uint16_t port) noexcept;  // 127.0.0.1
  static Address ipv6_loopback(uint16_t port) noexcept;  // ::1
  static Address ipv4_any(uint16_t port) noexcept;       // 0.0.0.0
  static Address ipv6_any(uint16_t port) noexcept;       // ::

  int family() const noexcept { return storage_.ss_family; }  // AF_INET or AF_INET6
  bool is_v6() const noexcept { return family() == AF_INET6; }
  uint16_t port() const noexcept;
  void set_port(uint16_t port) noexcept;

  // "127.0.0.1:80", "[::1]:80"; host() is the IP alone ("::1").
  std::string to_string() const;
  std::string host() const;

  const sockaddr* sockaddr_ptr() const noexcept {
    return reinterpret_cast<const sockaddr*>(&storage_);
  }
  socklen_t length() const noexcept;

  bool operator==(const Address& other) const noexcept;

 private:
  sockaddr_storage storage_;
};

}  // namespace squall
