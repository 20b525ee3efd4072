// FetchStage: the engine's fetcher component: dispatched tasks queued by host, handed to the
// fetch workers by host readiness, each host's robots.txt fetched before its pages.
//
//   FetchStage stage(fetcher, {.per_host = 2, .delay = 0.5, .obey_robots = true},
//                    [](Dispatch d, FetchResult r) -> Task<void> { ... to the processor ... },
//                    [](Dispatch d, const UnavailableHost& why) { ... back to the scheduler ... });
//   stage.push(std::move(dispatch));      // while stage.room() > 0
//   spawn(stage.worker());                // × concurrency
//
// - Hosts (host:port) are the crawl toolkit's Frontier: at most `per_host` fetches in flight on
//   one host, `delay` between the starts of two, round-robin over the ready hosts, so a host
//   waiting out its delay never holds a worker while another has work. Tasks without a host
//   (data: URLs, the engine's own on_start, _on_message, _on_cronjob and on_finished) go first.
// - robots.txt (for every task with obey_robots, else for the tasks whose fetch has robots_txt)
//   is Politeness's (RFC 9309): fetched once per host before the host's first page, with the
//   task's user agent, proxy and TLS trust; its Crawl-delay lengthens the host's delay; it is
//   fetched again when its policy expires. A disallowed URL is a 403 "disallowed by robots.txt"
//   result, as pyspider's fetcher gives. A robots.txt that cannot be reached (no answer, 429,
//   5xx) is tried again after robots_backoff, doubled each try (or the Retry-After, if longer),
//   `robots_retries` times; a TLS failure is not tried again. After that the host is
//   unavailable: its tasks go back through `park` (they stay active in the store, untried, for
//   a later run) and so does every later task of that host. The stage counts the hosts given up
//   on and names the first `unavailable_listed` of them with their reasons (unavailable()): a
//   crawl of many hosts that are down keeps a bounded list for its summary, whatever their
//   number.
// - A host whose fetches keep failing (no answer, 429, 5xx) is backed off (Politeness), and a
//   429 or 503 with Retry-After keeps the host waiting that long.
// - The stage holds at most `capacity` tasks, queued or in flight (the dispatcher asks room());
//   a task dispatched again while the stage holds it (its processing timeout passed) replaces
//   the held one's token instead of being fetched twice.
// - Shared politeness (host_leases, shared_robots; both null by default, and then one process
//   keeps politeness alone as above): when the stage is one of several fetchers of a crawl, in
//   other processes or on other machines, a host's fetch starts only once HostLeases grants a
//   lease on it (host_leases.h), and the lease's release is sent as soon as the fetch ends,
//   while the result goes on (the worker waits for neither). A host refused a lease goes back to
//   the frontier, its task behind the host's others, backed off locally for the wait HostLeases
//   gave, so the worker takes another host meanwhile. Because HostLeases counts the delay from each
//   release too, the server sees the guarantee itself with per_host 1: no two requests of a host in
//   flight at once, and no two starts closer than the delay, whatever a connect or the way to Redis
//   costs (see host_leases.h). robots.txt comes through SharedRobots (shared_robots.h): fetched
//   once per host per expiry by whichever fetcher asks first, under a host lease like any page, and
//   its policy expires in every stage when the shared copy does; an unreachable answer is kept for
//   the wait before the next try, so the tries are shared as well, and a failure to reach Redis
//   counts as an unreachable robots.txt. Its Crawl-delay, the back-off of a failing host and a
//   Retry-After go to HostLeases too, so every fetcher keeps them. The stage's own frontier
//   still applies per_host and the delay within the process. While a fetch runs, its lease is
//   renewed once it is a quarter of its lease_ttl old (one task of the stage renews them all),
//   so a long fetch keeps its slot and a killed fetcher's slot frees itself within lease_ttl.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "squall/core/event.h"
#include "squall/core/spawn.h"
#include "squall/core/task.h"
#include "squall/crawl/frontier.h"
#include "squall/crawl/politeness.h"
#include "squall/engine/fetcher.h"
#include "squall/engine/host_leases.h"
#include "squall/engine/scheduler.h"
#include "squall/engine/shared_robots.h"

namespace squall {

struct FetchStageOptions {
  size_t capacity = 100;                  // tasks held: queued by host or being fetched
  size_t per_host = 0;                    // fetches in flight per host; 0: no limit
  double delay = 0;                       // seconds between the starts of two fetches from one host
  bool obey_robots = false;               // robots.txt for every task, not only those that ask
  int robots_retries = 2;                 // tries after the first for an unreachable robots.txt
  double robots_backoff = 1;              // seconds before the first of them, doubled for each next
  std::string user_agent = "squall/1.0";  // whose robots.txt rules apply
  size_t max_hosts = 10'000;              // hosts remembered before idle ones are forgotten
  size_t unavailable_listed = 20;         // hosts given up on that unavailable() names
  // Politeness shared with other fetchers (see above); each must outlive the stage.
  HostLeases* host_leases = nullptr;
  SharedRobots* shared_robots = nullptr;
};

// A host given up on for this run because its robots.txt could not be fetched.
struct UnavailableHost {
  std::string host;     // host:port
  std::string kind;     // "connect", "timeout", "tls", "HTTP 503", ...
  std::string message;  // "robots.txt: ..." with what the last try got
};

class FetchStage {
 public:
  // Hands a fetched task on; awaits room downstream.
  using Deliver = std::function<Task<void>(Dispatch, FetchResult)>;
  // Takes back a task that will not be fetched in this run.
  using Park = std::function<void(Dispatch, const UnavailableHost&)>;

  FetchStage(Fetcher& fetcher, FetchStageOptions options, Deliver deliver, Park park);
  ~FetchStage();
  FetchStage(const FetchStage&) = delete;
  FetchStage& operator=(const FetchStage&) = delete;

  // How many more tasks the stage takes now.
  size_t room() const noexcept;
  // Queues a dispatched task (never waits; the dispatcher keeps to room()).
  void push(Dispatch d);
  // A fetch worker: runs until killed.
  [[nodiscard]] Task<void> worker();

  // Nothing queued, being fetched, or waiting for a robots.txt.
  bool idle() const noexcept;
  size_t queued() const noexcept;
  size_t in_flight() const noexcept { return in_flight_; }
  // The first options.unavailable_listed hosts given up on, in that order; all of them are
  // counted by unavailable_count().
  const std::vector<UnavailableHost>& unavailable() const noexcept { return unavailable_; }
  uint64_t unavailable_count() const noexcept { return unavailable_count_; }
  uint64_t robots_retried() const noexcept { return robots_retried_; }  // robots.txt tries again
  // robots.txt fetches (each try), and pages decided by a robots.txt already held (its cache's
  // hits).
  uint64_t robots_fetches() const noexcept { return robots_fetches_; }
  uint64_t robots_hits() const noexcept { return robots_hits_; }
  // Up to `n` hosts by mean time per fetch, slowest first (host, mean ms).
  std::vector<std::pair<std::string, double>> slowest_hosts(size_t n) const {
    return politeness_.slowest_hosts(n);
  }
  // One host as it stands (the frontier's counts and delay, its robots.txt state); nothing
  // for a host the stage never held a task of.
  struct HostState {
    size_t queued = 0, in_flight = 0;
    double delay = 0;    // seconds between the starts of its fetches
    std::string robots;  // Politeness::robots_state
  };
  std::optional<HostState> host(const std::string& host) const;

  // Called when room() grows (a held task left).
  std::function<void()> on_room;
  // Asked before each held task is fetched: true when its owner takes it back instead (a
  // project paused meanwhile), and it leaves the stage unfetched.
  std::function<bool(const Dispatch&)> withdraw;
  // Called with each robots.txt that answered with a status: what a program reads of it beside
  // the rules (its Sitemap lines).
  std::function<void(const std::string& host, const FetchResult& robots)> on_robots;

 private:
  struct Held {
    Dispatch dispatch;
    std::optional<Url> url;  // parsed, for an http(s) task
    std::string host;        // "" for a task without one
    bool robots = false;     // its robots.txt decides
  };
  Task<void> fetch_robots(std::string host);
  // robots.txt of `host` at `url` through options_.shared_robots, as a FetchResult, and its
  // shared copy's remaining life.
  Task<FetchResult> fetch_shared_robots(std::string host, Url url, CrawlTask like,
                                        std::optional<std::chrono::seconds>& max_age);
  // A lease on `host` from options_.host_leases, waiting until one is granted.
  Task<HostLease> shared_lease(std::string host);
  // Releases `lease` and backs its host off for `pause` (when positive) for every fetcher; a
  // Redis failure is logged (the lease expires by itself). The release takes its place in
  // `leases`' batches at the call, before any acquire the worker makes next, which it would
  // otherwise find still holding the slot. Touches nothing of the stage, so a `detached` one
  // (spawned, not awaited) may outlive it; it also ends quietly when `leases` goes while it
  // waits for Redis.
  static Task<void> release_shared(HostLeases& leases, HostLease lease, Duration pause,
                                   bool detached = false);
  // The rest of release_shared once the release is queued: `released` is its task.
  static Task<void> settle_release(HostLeases& leases, Task<void> released, std::string host,
                                   Duration pause, bool detached);
  // Keeps `lease` of held task `id` renewed while its fetch runs (until kept_leases_ loses it).
  void keep_lease(int64_t id, const HostLease& lease);
  // The one task that renews every kept lease: each quarter of lease_ttl, the leases granted or
  // renewed at least that long ago, so none is older than about half its life. Ends when no
  // lease is kept; keep_lease starts it again.
  Task<void> renew_leases();
  // Fetches held task `id` (of `host`, "" for none) under `shared` (when the stage shares
  // politeness) and delivers it.
  Task<void> fetch_task(int64_t id, std::string host, std::optional<HostLease> shared = {});
  void give_up(const std::string& host, const UnavailableHost& why);
  const std::string& task_key(const CrawlTask& task);
  void left();  // a held task left the stage

  Fetcher& fetcher_;
  FetchStageOptions options_;
  Deliver deliver_;
  Park park_;
  Frontier frontier_;
  Politeness politeness_;
  std::unordered_map<int64_t, Held> held_;            // by the frontier's id
  std::unordered_map<std::string, int64_t> by_task_;  // task_key(project, taskid) → id
  std::string key_;
  std::deque<int64_t> hostless_;
  std::unordered_map<std::string, CrawlTask> robots_like_;  // a task whose options robots.txt uses
  std::unordered_map<std::string, int> robots_tries_;
  std::vector<UnavailableHost> unavailable_;  // the first options_.unavailable_listed
  uint64_t unavailable_count_ = 0;
  uint64_t robots_retried_ = 0;
  uint64_t robots_fetches_ = 0;
  uint64_t robots_hits_ = 0;
  int64_t next_id_ = 0;
  size_t in_flight_ = 0;
  Event wake_;
  // The leases of the fetches in flight, by held id, and when each was granted or last renewed.
  struct KeptLease {
    HostLease lease;
    TimePoint renewed;
  };
  std::unordered_map<int64_t, KeptLease> kept_leases_;
  std::optional<TaskHandle<void>> renewer_;
};

}  // namespace squall
