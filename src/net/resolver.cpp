// The literal resolver and family interleaving.
#include "squall/net/resolver.h"

#include "squall/net/dns.h"
#include "squall/net/net_error.h"

namespace squall {

Task<std::vector<Address>> LiteralResolver::resolve(std::string host, uint16_t port) {
  if (auto address = Address::from_ip(host, port)) co_return std::vector<Address>{*address};
  if (host == "localhost")
    co_return std::vector<Address>{Address::ipv6_loopback(port), Address::ipv4_loopback(port)};
  throw NetError(ErrorKind::Resolve, NetPhase::Resolve, host,
                 "not an IP address or \"localhost\" (name lookup is not available yet)");
}

Resolver& default_resolver() {
  return default_dns_resolver();
}

std::vector<Address> interleave_families(std::vector<Address> addresses) {
  if (addresses.size() < 3) {
    // Two addresses of the same family, or one of each: the order is already right.
    if (addresses.size() < 2 || addresses[0].family() != addresses[1].family()) return addresses;
  }
  std::vector<Address> first, second;
  int family = addresses.empty() ? AF_INET : addresses[0].family();
  for (const Address& a : addresses) (a.family() == family ? first : second).push_back(a);
  std::vector<Address> out;
  out.reserve(addresses.size());
  for (size_t i = 0; i < std::max(first.size(), second.size()); ++i) {
    if (i < first.size()) out.push_back(first[i]);
    if (i < second.size()) out.push_back(second[i]);
  }
  return out;
}

}  // namespace squall
