// SharedRobots: one robots.txt fetch per host per expiry for every fetcher of a crawl, through
// Redis.
//
//   RedisClient redis("redis://127.0.0.1:6379/0");
//   SharedRobots robots(redis);
//   SharedRobotsEntry e = co_await robots.get("example.com:443", [&]() -> Task<SharedRobotsEntry> {
//     FetchResult r = co_await fetcher.fetch_robots(url, like);   // only the lock holder runs this
//     co_return SharedRobotsEntry{.status = r.status_code, .body = r.content, ...};
//   });
//   RobotsPolicy policy = RobotsPolicy::from_response(e.status, e.body, e.max_age());
//
// get() answers with the host's entry in Redis when there is one. When there is none, the first
// caller takes the host's lock (SET NX PX options.lock_ttl) and runs its `fetch`; the entry it
// returns is stored and the lock dropped in one script, and that caller gets it back
// (fetched_here). The other callers, on any client, process or machine, wait meanwhile: they ask
// again after options.poll_initial, then twice as long each time up to options.poll_max, never
// past the lock's expiry, and take the entry once it is there. Each wait is one round trip (one
// script reads the entry or takes the lock); there is no busy loop. A lock holder that dies (its
// process killed, its link cut) leaves the lock to expire after lock_ttl, and the next caller to
// ask after that fetches instead. A `fetch` that throws drops the lock (when this caller still
// holds it) and get() rethrows: the next caller fetches.
//
// Keys: `squall:NS:robots:<host>` (a hash: status, body, error kind and message) and
// `squall:NS:robots:<host>:lock`. An entry expires as Politeness's cache does: after the ttl the
// fetch gave it, else after RobotsPolicy::refresh_after() of its answer (RFC 9309 section 2.4: 24
// hours, or a shorter HTTP freshness), so an error (no answer, 429, 5xx) is cached too, for the
// policy's kUnreachableRetry unless the fetch says shorter. max_age() of an entry read back is
// what is left of its life, so every fetcher's copy of the policy expires when the shared one
// does. Bodies are bounded: at most options.max_body bytes are stored (RFC 9309's 500 KiB,
// kRobotsParseLimit, what the parser reads), and an entry read back is cut to it too.
//
// Errors: what RedisClient and RedisScript throw, and what `fetch` throws. Threads: belongs to
// its client's loop.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/crawl/robots.h"
#include "squall/net/redis.h"

namespace squall {

struct SharedRobotsOptions {
  std::string ns = "squall";                              // keys under squall:NS:
  Duration lock_ttl = std::chrono::seconds(60);           // the longest one fetch may hold the lock
  Duration poll_initial = std::chrono::milliseconds(20);  // the first wait for another's fetch
  Duration poll_max = std::chrono::seconds(1);            // the longest wait between two asks
  size_t max_body = kRobotsParseLimit;                    // bytes of a body stored
};

// One answer to a host's /robots.txt, as the fetcher that held the lock got it.
struct SharedRobotsEntry {
  int status = 599;        // the HTTP status; 599 when none came
  std::string body;        // the body (2xx), at most options.max_body bytes
  std::string error_kind;  // with 599: "timeout", "connect", "tls", ...
  std::string error;       // why it failed, when it did
  // How long to keep it: set by `fetch` for a shorter life than its policy's refresh_after();
  // read back, what is left of it.
  Duration ttl{};
  bool fetched_here = false;  // this get() ran `fetch`

  // What is left of its life in whole seconds (rounded up, so that a copy never expires before
  // the shared entry), for RobotsPolicy::from_response's max_age.
  std::optional<std::chrono::seconds> max_age() const;
};

class SharedRobots {
 public:
  using Fetch = std::function<Task<SharedRobotsEntry>()>;

  // `redis` must outlive this.
  explicit SharedRobots(RedisClient& redis, SharedRobotsOptions options = {});

  // The entry of `host` (host:port), fetched with `fetch` by this caller when it takes the lock,
  // else by whichever caller holds it, as described above.
  [[nodiscard]] Task<SharedRobotsEntry> get(std::string host, Fetch fetch);

  const SharedRobotsOptions& options() const noexcept { return options_; }
  std::string entry_key(const std::string& host) const;
  std::string lock_key(const std::string& host) const;

 private:
  RedisClient& redis_;
  SharedRobotsOptions options_;
};

}  // namespace squall
