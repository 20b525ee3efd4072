// Politeness: how the crawl treats each host, by robots.txt and by how the host is holding up.
//
//   Frontier frontier({.per_host = 2, .delay = 500ms});
//   Politeness politeness(frontier, {.user_agent = "squall-crawler/1.0"});
//   politeness.meet(host, url);  // before the host's URL is pushed to the frontier
//   frontier.push(host, crawl_url);
//   while (auto due = politeness.next_robots(now)) {
//     const Url* robots = politeness.robots_fetch_started(*due);
//     ... fetch *robots ...;
//     politeness.robots_fetched(*due, RobotsPolicy::from_response(status, body), now);
//   }
//   if (politeness.allows(host, url).allowed) {
//     ... fetch url ...;
//     politeness.fetched(host, failed_transiently, elapsed_ms, now);
//   }
//
// Politeness is shared with the Frontier, which carries it out: the frontier keeps a host's
// fetches in flight under per_host, spaces their starts by the delay, and hands out nothing of a
// host that is held or backed off. This class decides when that is:
// - robots.txt (RFC 9309): a host is held from its first URL until its robots.txt has been
//   fetched (once per host, from the origin of that URL); its rules then decide every URL, its
//   Crawl-delay becomes the host's delay when longer than the default, and once the policy's
//   refresh time has passed the file is fetched again before the host's next page.
// - failing hosts: a host whose fetches fail kFailureThreshold times in a row (no response, 429
//   or 5xx) is backed off for a second, doubled for each further failure up to kBackoffMax; one
//   fetch that does not fail ends the streak. The crawler's own retry waits come on top.
// It also keeps each host's fetch count and time, for the crawl summary's slowest hosts: the same
// per-host record, updated by the same call.
//
// Pure bookkeeping like the frontier: no I/O (the crawler fetches robots.txt and hands over the
// policy) and no clock (callers pass the time). Belongs to one thread, the crawl's loop.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "squall/core/time.h"
#include "squall/crawl/frontier.h"
#include "squall/crawl/robots.h"
#include "squall/url/url.h"

namespace squall {

struct PolitenessOptions {
  bool obey_robots = true;
  std::string user_agent = "squall-crawler/1.0";  // whose robots.txt group applies
  // Hosts remembered at once before forget_idle() drops the idle ones: a record (and its
  // robots.txt rules) per host ever met would grow with a crawl of the whole web.
  size_t max_hosts = 10'000;
  // Hosts given up on (robots.txt unreachable) remembered at once: past it, forget_idle()
  // forgets the longest given up on first, so that a crawl meeting many dead hosts keeps a
  // bounded record of them. One forgotten and met again is new: its robots.txt is tried again.
  size_t max_unavailable = 1'000;
};

class Politeness {
 public:
  // Failures in a row that back a host off, and the longest back-off.
  static constexpr int kFailureThreshold = 5;
  static constexpr Duration kBackoffMax = std::chrono::seconds(60);

  // Holds, delays and back-offs go to `frontier`, which must outlive this.
  Politeness(Frontier& frontier, PolitenessOptions options);

  // A URL of `host` (its host:port, the frontier's key) is about to be queued. On the host's
  // first (when robots.txt is obeyed) the host is held in the frontier and its robots.txt, at
  // the origin of `url`, is put on the list for next_robots().
  void meet(const std::string& host, const Url& url);

  // The next host whose robots.txt is waiting to be fetched at `now` (met, or due for a retry),
  // taken off the list; nothing when none is.
  std::optional<std::string> next_robots(TimePoint now);
  // When the earliest robots.txt retry is due; nothing when none waits.
  std::optional<TimePoint> next_robots_retry() const;
  // Whether the robots.txt of `host` has outlived its policy at `now`: it is to be fetched again
  // before the host's next page. False when robots.txt is not obeyed.
  bool robots_expired(const std::string& host, TimePoint now) const;
  // A fetch of the robots.txt of `host` (a host met before) begins: its URL, origin +
  // "/robots.txt"; nullptr for a host never met, or in the unexpected case that the text did not
  // parse. robots_pending() is true until robots_fetched() reports the end.
  const Url* robots_fetch_started(const std::string& host);
  // The fetch ended with `policy` (RobotsPolicy::from_response, or unreachable() when no
  // response came): the host's rules for the user agent apply from now, its Crawl-delay goes to
  // the frontier, its robots.txt expires after the policy's refresh_after(), and it is released.
  void robots_fetched(const std::string& host, const RobotsPolicy& policy, TimePoint now);
  // The fetch got no answer, or 429 or 5xx: the site is unreachable, which is not a "disallow"
  // (RFC 9309 section 2.3.1.3). A host with rules from an earlier fetch keeps them (section
  // 2.3.1.4) until RobotsPolicy::kUnreachableRetry from `now`. Otherwise, with `retry_at` the
  // fetch goes back on the list for then and the host stays held; without it the host is
  // unavailable: held for the rest of the crawl, and unavailable() says so.
  void robots_unreachable(const std::string& host, std::optional<TimePoint> retry_at,
                          TimePoint now);
  // Whether robots_unreachable() gave up on `host`: none of its URLs is to be fetched.
  bool unavailable(const std::string& host) const;
  // Whether some robots.txt is waiting, due for a retry or being fetched: the crawl is not over
  // while one is.
  bool robots_pending() const noexcept {
    return !robots_todo_.empty() || !robots_retries_.empty() || robots_fetching_ > 0;
  }

  // Whether `url` of `host` may be fetched, and the rule that decided (owned by this, valid
  // until the host's robots.txt is fetched again). Always allowed when robots.txt is not obeyed
  // and for a host whose robots.txt has not come.
  RobotsMatch allows(const std::string& host, const Url& url) const;

  // A fetch from `host` ended after `elapsed_ms`; `transient_failure` when it failed in a way
  // that may pass (no response, 429 or 5xx). Backs the host off in the frontier when the
  // failures in a row reach kFailureThreshold, and then returns when the back-off ends (what a
  // caller that shares politeness with other processes tells them).
  std::optional<TimePoint> fetched(const std::string& host, bool transient_failure,
                                   double elapsed_ms, TimePoint now);

  // Where a host's robots.txt stands: "unknown" (not asked for), "pending" (being fetched or
  // waiting for a retry), "known" (its rules apply) or "unavailable" (given up on).
  std::string_view robots_state(const std::string& host) const;

  // Up to `n` hosts with fetches, by mean time per fetch, slowest first: (host, mean ms). The
  // hosts forgotten are in it too, up to kSlowestKept of them.
  std::vector<std::pair<std::string, double>> slowest_hosts(size_t n) const;

  // Once more than max_hosts are remembered, forgets those that nothing waits on: no robots.txt
  // being fetched or waiting for a retry, not given up on, and idle in the frontier
  // (Frontier::forget), which forgets them too. A forgotten host met again is new: its
  // robots.txt is fetched again, as when it expires. Cheap when under the bound; a sweep over
  // every host otherwise, after which the next waits until max_hosts / 4 more are met or
  // kSweepEvery has passed. Hosts given up on stay so until more than max_unavailable are: the
  // longest given up on are forgotten first (those the frontier still holds URLs of are kept).
  // Returns the hosts forgotten.
  std::vector<std::string> forget_idle(TimePoint now);
  size_t hosts() const noexcept { return hosts_.size(); }
  // Hosts given up on in this run, the forgotten ones included.
  uint64_t unavailable_count() const noexcept { return unavailable_count_; }

  static constexpr size_t kSlowestKept = 16;
  static constexpr Duration kSweepEvery = std::chrono::seconds(1);

 private:
  enum class Robots : uint8_t { Unknown, Pending, Known, Unavailable };
  struct Host {
    Robots robots = Robots::Unknown;
    std::optional<Url> robots_url;
    RobotsRules rules;
    TimePoint robots_expires{};
    int failures_in_a_row = 0;
    uint64_t fetches = 0;
    double total_ms = 0;
  };

  const Host* find(const std::string& host) const;
  // Forgets the longest given up on past max_unavailable into `forgotten`.
  void forget_unavailable(TimePoint now, std::vector<std::string>& forgotten);

  Frontier& frontier_;
  PolitenessOptions options_;
  std::unordered_map<std::string, Host> hosts_;
  std::deque<std::string> robots_todo_;
  // (due, host) of robots.txt fetches to try again; a handful at most, so a vector.
  std::vector<std::pair<TimePoint, std::string>> robots_retries_;
  size_t robots_fetching_ = 0;
  // The hosts given up on and remembered, in the order they were given up.
  std::deque<std::string> given_up_;
  uint64_t unavailable_count_ = 0;
  // forget_idle() sweeps again once this many hosts are remembered, or at this time.
  size_t next_sweep_ = 0;
  TimePoint next_sweep_at_{};
  // The slowest of the hosts forgotten (host, mean ms), slowest first, kSlowestKept at most.
  std::vector<std::pair<std::string, double>> slowest_forgotten_;
};

}  // namespace squall
