// Cluster: the engine's components as processes of their own, joined by Redis streams and a
// shared store: `squall scheduler`, `squall fetcher`, `squall processor`, `squall result-worker`.
//
//   ClusterOptions o;
//   o.redis = "redis://10.0.0.5:6379/0";
//   o.taskdb = "postgresql://crawler@10.0.0.6/crawl";
//   Event stop;
//   co_await run_fetcher(o, stop);                       // on as many machines as wanted
//
// The pieces are the embedded engine's (engine.h): the Scheduler over the store, a FetchStage
// with its Fetcher, the projects' runtimes, a ResultWorker; what changes is what joins them. Each
// hop is a StreamQueue (stream_queue.h) under the namespace's keys (cluster_keys.h), carrying
// EngineMessage bytes (engine_message.h):
//
//   scheduler ──fetch──► fetcher × N ──process──► processor × N ──outcome──► scheduler
//                                                               └──result───► result worker × N
//
// Delivery is at-least-once and every effect is idempotent, so nothing asked for is lost and
// nothing is stored twice:
// - A component acknowledges what it took only once the next stage holds it: the fetcher after
//   its page is pushed to the processors, the processor after its outcome and result are
//   pushed, the scheduler after the outcomes are committed to the task store, the result worker
//   after the results are committed to the result store. A component killed at any moment
//   leaves its entries pending; after the lease (30 s) another component of its kind takes
//   them again. A fetcher renews the leases of the fetches it still runs. A task a fetcher
//   takes again while it fetches it (dispatched again by a restarted scheduler, or its lease
//   passed) is fetched once, and its page goes on once per token.
// - The scheduler applies an outcome only with the token it dispatched (scheduler.h), so an
//   outcome delivered twice, or one of a task dispatched by a scheduler since restarted, changes
//   nothing: each scheduler process counts its tokens up from a random 64-bit base, so a dead
//   one's never match a live one's. A restarted scheduler dispatches again what its store holds
//   as active. Re-fetches are bounded by what was in flight: a page is fetched at most once more
//   for each fetcher or scheduler killed while it was in flight.
// - A result is upserted by taskid. One equal to the result the store holds for its task (the
//   same page processed again after a kill) is upserted but not exported again, and a killed
//   result worker's export is cut back to what the store committed (result_worker.h): the JSON
//   lines export has each result once. A page whose result changed between two fetches gets a
//   line for each.
// - Backpressure: the scheduler dispatches only while the fetch stream's room (entries not yet
//   taken, against `queue_bound`) allows; fetchers take only what their free slots hold.
//
// Ends: the scheduler runs on_start (once per start, as the embedded engine does) and, once no
// project has anything left, on_finished; then it marks the crawl done ("squall:NS:done") and,
// with exit_when_done, returns. The other components return, with exit_when_done, once the crawl
// is marked done and their input stream has nothing left for them; a new scheduler's start clears
// the mark. A scheduler that starts on a crawl marked done (its predecessor was killed after
// marking it) runs on_finished again only if it finds something more to do, since the other
// components may have left. `stop` set ends any of them within a second: a fetcher drops what it
// fetches (its entries come back to the others after the lease).
//
// Redis restarting: each command is retried by the client on a new connection where it is
// safe (stream_queue.h); a take cut off by the connection's end gives nothing and is made again,
// what it may have delivered coming back after the lease. With appendfsync everysec a Redis
// that crashes (not a clean stop) loses up to its last second of writes (stream_queue.h says what
// each loss is). A lost push to the fetch stream leaves a task active in the scheduler, which
// dispatches it again after SchedulerOptions::processing_timeout (600 s by default, not yet a
// flag of `squall scheduler`; a cluster whose Redis may crash wants it a few leases long).
// Not yet proven by a test: a whole crawl across a Redis restart. PostgreSQL restarting is not
// survived yet: the scheduler and the result worker end with the store's Closed error, and are
// restarted to continue from their last commit.
//
// One scheduler runs a project at a time (the store's claim_project): a second one stands by,
// saying so in a log line, touching nothing, and takes over once the first one's claim goes (it
// ends, or dies and its connection to the store with it).
//
// Politeness holds across every fetcher of the crawl: each host's slots (per_host) and the delay
// between its fetches are leased in Redis (host_leases.h), and its robots.txt is fetched by one
// fetcher and shared (shared_robots.h); a killed fetcher's slots and robots.txt lock pass to the
// others after a lease.
//
// Not yet here: the projects' @every jobs (they run in the embedded engine only). A task whose
// host is unavailable (its robots.txt could not be fetched) fails its try here, where the
// embedded engine parks it untried. A scheduler started with `fresh` drops the store's tables as
// it opens it, before it claims the project: never give it to a second, standing-by scheduler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "squall/core/event.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/engine/fetch_stage.h"
#include "squall/engine/fetcher.h"
#include "squall/engine/project_runtime.h"
#include "squall/engine/scheduler.h"

namespace squall {

class EngineStore;

struct ClusterOptions {
  std::string redis = "redis://127.0.0.1:6379/0";
  std::string ns = "squall";  // keys under "squall:<ns>:"
  // The scheduler's task store, and the result worker's results unless `resultdb` is given
  // (engine_store.h locations; a postgresql:// one to share across machines).
  std::string taskdb;
  std::string resultdb;
  // The store the scheduler and the result worker use instead of opening taskdb (and resultdb,
  // for the result worker): one a process runs them both on, as an SQLite file only one
  // connection may hold. Not closed by them; `fresh` is then the opener's to do.
  EngineStore* store = nullptr;
  std::filesystem::path jsonl;  // the result worker's export of the results it stores
  bool fresh = false;           // the scheduler starts its store over (the results in it too)
  size_t concurrency = 10;      // a fetcher's fetches in flight
  size_t batch = 64;            // entries taken from a stream at once
  uint64_t queue_bound = 100;   // the fetch stream's room: dispatched and not yet taken
  Duration lease = std::chrono::seconds(30);
  int max_deliveries = 5;  // of one entry, before it goes to the dead letters
  bool exit_when_done = true;
  SchedulerOptions scheduler;
  FetcherOptions fetcher;
  FetchStageOptions hosts;  // its capacity is twice the concurrency
  // This process' consumer name in the streams' groups ("<host>:<pid>" when empty).
  std::string consumer;
  // Told of the scheduler once it has its projects and their start tasks, and of nullptr as it
  // returns (the pointer given before still valid then), for a progress line or a summary.
  std::function<void(const Scheduler*)> on_scheduler;
};

// What a component did, when it returns.
struct ComponentSummary {
  uint64_t handled = 0;  // dispatches, pages fetched, pages processed or results stored
  bool stopped = false;  // `stop` ended it
};

// Each runs until done (above) or `stop`. They throw what the store and Redis throw when they
// cannot be reached at start (InvalidArgumentError for a bad location or URL); later failures of
// Redis are retried by its client and logged.
[[nodiscard]] Task<ComponentSummary> run_scheduler(ClusterOptions options,
                                                   std::vector<ProjectRuntime*> projects,
                                                   Event& stop);
[[nodiscard]] Task<ComponentSummary> run_fetcher(ClusterOptions options, Event& stop);
[[nodiscard]] Task<ComponentSummary> run_processor(ClusterOptions options,
                                                   std::vector<ProjectRuntime*> projects,
                                                   Event& stop);
[[nodiscard]] Task<ComponentSummary> run_result_worker(ClusterOptions options, Event& stop);

}  // namespace squall
