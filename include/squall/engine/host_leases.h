// HostLeases: per-host politeness shared by every fetcher of a crawl, through Redis.
//
//   RedisClient redis("redis://127.0.0.1:6379/0");
//   HostLeases leases(redis, {.per_host = 1, .delay = 0.2});
//   LeaseGrant g = co_await leases.acquire("example.com:443");
//   if (!g.lease) { co_await sleep(g.wait); ... ask again ... }
//   ... fetch from the host ...
//   co_await leases.release(*g.lease);
//   co_await leases.set_delay("example.com:443", 5s);  // its robots.txt said Crawl-delay: 5
//
// The state is in Redis, under `squall:NS:` (NS is options.ns):
// - `squall:NS:hosts:ready`, a sorted set of host -> the time (ms, the server's clock) before
//   which no fetch of the host may start (a host without a delay is there only when backed
//   off: a ready time already passed would decide nothing);
// - `squall:NS:host:<host>:leases`, a sorted set of the host's leases in flight, lease id -> the
//   time it expires;
// - `squall:NS:host:<host>:delay`, the host's own delay in ms (its Crawl-delay), expiring with
//   the robots.txt that gave it;
// - `squall:NS:leases:seq`, the counter that numbers the leases.
// Every decision is one Lua script run by EVALSHA, which reads the time with redis.call('TIME'):
// fetchers never send a time of their own, so their clocks may disagree by any amount and
// nothing changes. A wait handed back is a duration, which the caller sleeps on its own
// monotonic clock. The acquire() and release() calls of one HostLeases go to Redis in batches:
// those made while a batch is on its way (or in the same loop iteration as the first) go
// together in the next, one script call (one round trip) for the lot, each applied in the
// order it was made, with the same rules as if alone. Each takes its place in that order when
// it is called, not when its task is first awaited: a release called before an acquire frees
// its slot before the acquire is decided, however the two tasks are then awaited or spawned.
// renew(), set_delay() and back_off() are one round trip each.
//
// The rules:
// - acquire(host) grants a lease when the host's ready time has passed and the host holds fewer
//   than per_host unexpired leases; the grant sets the ready time to now + the host's delay (the
//   larger of options.delay and the delay set_delay gave it), so two grants of a host are at
//   least the delay apart. Otherwise it says how long to wait: until the ready time, or, when
//   every slot is taken, until the first lease expires but at most options.busy_retry (a release
//   elsewhere is not signalled; the caller asks again).
// - release(lease) frees the slot and moves the ready time to at least now + the delay: the delay
//   also separates the end of a fetch from the next start. That is what makes the guarantee hold
//   where it matters, at the server, whatever happens between a grant and the moment the request
//   arrives there (the grant's reply on its way, a connect that takes long, a pooled connection
//   that does not): the server has answered a request before its fetcher releases the lease, so
//   with per_host 1 the next request of the host reaches the server at least `delay` after the
//   previous one ended there, hence never in flight beside it and never less than `delay` after
//   its start. With per_host above 1 the starts of the fetches in flight side by side are spaced
//   by `delay` as they are granted, and the server sees them spaced by that plus the difference
//   of their grant-to-arrival times, which the client cannot bound.
// - A lease not released within options.lease_ttl (its fetcher was killed, or cut off) expires
//   and frees its slot by itself, so a dead fetcher never holds a host for longer. A fetch that
//   may last longer renews its lease (renew(), before half of lease_ttl, as FetchStage does):
//   a lease that expired is not renewed, and its fetch no longer holds the slot.
// - set_delay(host, d) gives the host its own delay for every fetcher (robots.txt's
//   Crawl-delay); back_off(host, pause) keeps every fetcher off the host for `pause` (a host
//   that keeps failing, or answered 429/503 with Retry-After).
//
// A Redis restart with appendonly yes and appendfsync everysec can lose the last second of
// writes (a crash or kill -9; a clean shutdown loses nothing). What that can cost here: a grant
// that is lost lets the slot and the ready time it took be taken again, so at worst one fetch of
// each host then starts early (beside its lost lease or less than the delay after it), once; a
// lost release leaves its lease to expire after lease_ttl (slower, never less polite); a lost
// set_delay is set again with the next robots.txt; a lost back-off pause shortens one pause.
// Lease ids carry the server's time beside the counter, so a counter rolled back by the restart
// never hands out an id a fetcher still holds, and a late release cannot free another's lease.
// After a restart the scripts are loaded again by RedisScript (NOSCRIPT, then EVAL).
//
// Errors: what RedisClient and RedisScript throw (connection, timeout, RedisError). Threads: a
// HostLeases belongs to its client's loop; any number of HostLeases on any number of clients,
// processes and machines share one state.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "squall/core/future.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/redis.h"

namespace squall {

struct HostLeasesOptions {
  std::string ns = "squall";                            // keys under squall:NS:
  size_t per_host = 2;                                  // leases in flight per host; 0: no limit
  double delay = 0;                                     // seconds between two fetches of a host
  Duration lease_ttl = std::chrono::seconds(120);       // a lease not released expires after this
  Duration busy_retry = std::chrono::milliseconds(50);  // the longest wait for a free slot
};

// A lease granted by acquire(): the host and the id to release it by.
struct HostLease {
  std::string host;
  std::string id;
};

struct LeaseGrant {
  // Granted: release it when the fetch ends.
  std::optional<HostLease> lease;
  // Not granted: how long before the host may have a free slot (at least 1 ms).
  Duration wait{};
  // The host's delay in force (options.delay, or its own if longer).
  Duration delay{};
};

class HostLeases {
 public:
  // `redis` must outlive this.
  explicit HostLeases(RedisClient& redis, HostLeasesOptions options = {});
  HostLeases(const HostLeases&) = delete;
  HostLeases& operator=(const HostLeases&) = delete;
  // An acquire() or release() still waiting for its batch fails with CancelledError.
  ~HostLeases();

  // A lease on `host` (host:port) when the rules above allow one now; else how long to wait.
  // Queued for its batch at the call (see above).
  [[nodiscard]] Task<LeaseGrant> acquire(std::string host);
  // Frees the lease's slot (nothing when it expired already) and keeps the host's next start at
  // least its delay away. Queued for its batch at the call (see above); a lease without an id
  // is queued nowhere and its task throws InvalidArgumentError.
  [[nodiscard]] Task<void> release(HostLease lease);
  // Gives the lease lease_ttl from now again; false when it had expired (its slot may be taken).
  [[nodiscard]] Task<bool> renew(HostLease lease);
  // The host's own delay (robots.txt's Crawl-delay) for every fetcher, until `valid_for` passes
  // (the life of the robots.txt that gave it). A delay of 0 removes it.
  [[nodiscard]] Task<void> set_delay(std::string host, Duration delay,
                                     Duration valid_for = std::chrono::hours(24));
  // No fetcher starts a fetch of `host` for `pause` from now (a later ready time stays).
  [[nodiscard]] Task<void> back_off(std::string host, Duration pause);

  const HostLeasesOptions& options() const noexcept { return options_; }
  // The keys, as described above.
  std::string ready_key() const;
  std::string leases_key(const std::string& host) const;
  std::string delay_key(const std::string& host) const;

 private:
  struct Batches;  // the acquires and releases not yet sent, and the task that sends them
  // Queues an acquire (an empty `id`) or a release of `id` for the next batch, now: its element
  // of the batch script's reply, once the batch is answered.
  Future<RedisReply> batched(std::string host, std::string id);
  static Task<LeaseGrant> granted(std::string host, Future<RedisReply> reply);
  static Task<void> released(Future<RedisReply> reply);
  // Sends the queued ones, a batch at a time, until none is left.
  static Task<void> send_batches(std::shared_ptr<Batches> batches);

  RedisClient& redis_;
  HostLeasesOptions options_;
  std::shared_ptr<Batches> batches_;
};

}  // namespace squall
