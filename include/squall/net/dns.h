// DnsResolver: host names to addresses through c-ares, on the squall loop, with a cache.
//
//   DnsOptions options;
//   options.servers = {"127.0.0.1:5353"};
//   DnsResolver resolver(options);
//   resolver.add_override("example.com", "127.0.0.1");           // any port
//   resolver.add_override("example.com", 443, "127.0.0.1", 8443);  // this port only
//   std::vector<Address> a = co_await resolver.resolve("example.com", 80);
//
// A lookup goes through, in order: the override map (a host:port entry, then a host entry);
// IP literals (answered at once); the names RFC 6761 reserves ("localhost" and "*.localhost"
// are the loopback addresses, "*.invalid" does not exist); the hosts file; the cache; then
// c-ares, which asks the DNS servers for A and AAAA records.
//
// The hosts file (options.hosts_file, else the file the CARES_HOSTS environment variable named
// when the resolver was made, else /etc/hosts) is read as c-ares and glibc read it: a name
// listed there, or an alias, without regard to case, gets the addresses of every line that
// lists it, in the file's order (c-ares would sort them by RFC 6724); other names go to DNS; lines
// whose address is not a numeric IPv4 or IPv6 address are skipped. The resolver keeps the file
// parsed and checks it again (stat: device, inode, size, times) at most once per hosts_recheck of
// the loop's clock, so an edit is seen within a second by default; a missing file lists nothing. A
// file too large to keep (hosts_memory_limit) is read line by line on every lookup instead, as
// c-ares does.
//
// c-ares runs on the loop: its sockets are watched by the loop's poller and its retransmission
// timeouts sit on the loop's timer heap; no thread is started. An idle resolver (no lookup
// waiting) holds no socket, handler or timer, so a resolver may outlive the tests and loops
// that used it.
//
// The cache keeps answers for their DNS TTL (capped at max_ttl; hosts-file answers are not
// cached but come from the parsed file), "no such host" and "no address" answers for negative_ttl,
// and at most cache_size names, dropping the least recently used. Concurrent lookups of one name
// share one query. Names are compared without regard to case or a trailing dot.
//
// Search domains from resolv.conf are not applied: the names a crawler or HTTP client meets
// are fully qualified, and trying "www.example.com.corp.internal" first costs a round trip.
//
// Threads: a DnsResolver belongs to the loop that was current when it was made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/address.h"
#include "squall/net/resolver.h"

namespace squall {

struct DnsOptions {
  // Servers to ask, in order: "127.0.0.1:5353", "[::1]:53", or an IP alone for port 53. Empty:
  // the nameservers of /etc/resolv.conf.
  std::vector<std::string> servers;
  // How long the first try waits for an answer; c-ares doubles it on each later round.
  Duration timeout = std::chrono::seconds(2);
  // Rounds over the servers before a lookup fails with "DNS server did not answer".
  int tries = 3;
  // Names the cache holds at most (positive and negative answers together); 0 disables it.
  size_t cache_size = 10000;
  // How long "no such host" and "no address" answers are kept. (c-ares's getaddrinfo does not
  // hand over the SOA record whose minimum RFC 2308 would use, so this option decides.)
  Duration negative_ttl = std::chrono::seconds(10);
  // The longest a positive answer is kept, whatever its TTL says.
  Duration max_ttl = std::chrono::hours(1);
  // Addresses kept per name; a peer's answer cannot make an entry larger than this.
  size_t max_addresses = 32;
  // AF_UNSPEC (A and AAAA), AF_INET or AF_INET6.
  int family = AF_UNSPEC;
  // Ask over TCP only, never UDP (c-ares falls back to TCP by itself for truncated answers).
  bool tcp = false;
  // The hosts file; empty: $CARES_HOSTS if set, else /etc/hosts.
  std::string hosts_file;
  // How often, at most, the hosts file is checked for a change (by the loop's clock). Zero:
  // before every lookup that reaches it.
  Duration hosts_recheck = std::chrono::seconds(1);
  // The most memory the parsed hosts file may take (estimated: 128 bytes a name and its text,
  // 128 an address); a larger file is not kept but read again on every lookup.
  size_t hosts_memory_limit = size_t{16} << 20;
};

// Counters since the resolver was made; clear_cache() leaves them as they are.
struct DnsStats {
  uint64_t lookups = 0;     // resolve() calls
  uint64_t overridden = 0;  // lookups the override map redirected
  uint64_t hosts_file = 0;  // answered from the hosts file
  uint64_t cache_hits = 0;  // answered from the cache (negative answers included)
  uint64_t coalesced = 0;   // joined a query already in flight for the same name
  uint64_t queries = 0;     // lookups handed to c-ares (DNS)
};

class DnsResolver final : public Resolver {
 public:
  // Reads resolv.conf (unless options.servers names the servers) on the current loop. Throws
  // InvalidArgumentError for a malformed server or option, Error (kind System) if c-ares
  // cannot start.
  explicit DnsResolver(DnsOptions options = {});
  // Lookups still waiting fail with a Resolve error ("resolver destroyed").
  ~DnsResolver() override;
  DnsResolver(const DnsResolver&) = delete;
  DnsResolver& operator=(const DnsResolver&) = delete;

  // `co_await resolver.resolve(host, port)`: the addresses of `host` with `port` set, never
  // empty. Throws NetError (kind Resolve, phase resolve, peer the name looked up) whose detail
  // says why: "no such host (NXDOMAIN)", "no address for this name (NODATA)", "DNS server did
  // not answer (timeout)", "DNS server refused the query (REFUSED)", "not a valid host name",
  // ... A kill or with_timeout ends only this caller's wait; other callers waiting on the same
  // name keep theirs, and once nobody waits, every query in flight is cancelled and its
  // sockets closed.
  [[nodiscard]] Task<std::vector<Address>> resolve(std::string host, uint16_t port) override;

  // Tornado's hostname_mapping. `host` (any port) resolves as `target` does: an IP literal, or
  // another name looked up without consulting the override map again. Replaces an earlier
  // entry for `host`.
  void add_override(std::string host, std::string target);
  // `host`:`port` resolves as `target`:`target_port`; checked before host-only entries.
  void add_override(std::string host, uint16_t port, std::string target, uint16_t target_port);
  // Removes the host-only entry, or the host:port entry; no-op if there is none.
  void remove_override(std::string_view host);
  void remove_override(std::string_view host, uint16_t port);
  void clear_overrides();

  // Forgets every cached answer (queries in flight still complete and are cached).
  void clear_cache();
  size_t cache_entries() const;
  DnsStats stats() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

// This thread's default resolver (what default_resolver() returns), made with default options
// on first use for the current loop, and remade when another loop has become current.
DnsResolver& default_dns_resolver();

}  // namespace squall
