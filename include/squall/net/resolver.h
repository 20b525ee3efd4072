// Resolver: where host names become addresses; the seam the c-ares resolver plugs into.
//
// tcp_connect asks a Resolver for the addresses of a host and tries them in order (after
// interleaving families, RFC 8305). The default resolver is this thread's DnsResolver (dns.h):
// c-ares on the loop, with a cache and an override map. Resolvers belong to one loop's thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "squall/core/task.h"
#include "squall/net/address.h"

namespace squall {

class Resolver {
 public:
  virtual ~Resolver() = default;
  // `co_await resolver.resolve(host, port)`: the addresses of `host` with `port` set, in the
  // order to try, never empty; NetError (kind Resolve, phase resolve) if there are none. A kill
  // interrupts the lookup and leaves nothing behind.
  [[nodiscard]] virtual Task<std::vector<Address>> resolve(std::string host, uint16_t port) = 0;
};

// IP literals ("10.0.0.1", "::1", "[::1]") and "localhost" (::1 then 127.0.0.1, as RFC 6761
// reserves it): no I/O, no waiting.
class LiteralResolver final : public Resolver {
 public:
  [[nodiscard]] Task<std::vector<Address>> resolve(std::string host, uint16_t port) override;
};

// The resolver tcp_connect uses when ConnectOptions names none: this thread's DnsResolver with
// default options (resolv.conf's servers), made on first use for the current loop. When
// another loop becomes current, the next call makes a fresh one (cache and overrides start
// empty) and the previous one is destroyed; lookups still waiting in it fail. An idle
// DnsResolver holds nothing on its loop, so one that outlives its loop leaves nothing behind.
// default_dns_resolver() (dns.h) is the same object, typed for add_override().
Resolver& default_resolver();

// Reorders addresses so the families alternate, starting with the family of the first (RFC
// 8305 section 4), keeping the order within each family.
std::vector<Address> interleave_families(std::vector<Address> addresses);

}  // namespace squall
