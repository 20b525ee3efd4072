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
// with exit_when_done, returns (not for a project of @every jobs, below). The other components
// return, with exit_when_done, once the crawl is marked done and their input stream has nothing
// left for them; a new scheduler's start clears the mark (a component beside a scheduler in one
// process returns only after that scheduler, whatever mark it saw before the scheduler's start). A
// scheduler that starts on a crawl marked done (its predecessor was killed after marking it) runs
// on_finished again only if it finds something more to do, since the other components may have
// left. `stop` set ends any of them within a second: a fetcher drops what it fetches (its entries
// come back to the others after the lease).
//
// Redis restarting: each command is retried by the client on a new connection where it is
// safe (stream_queue.h), and one that a restarted Redis answers LOADING (its data set not yet
// read back) is sent again once it is (redis.h); a take cut off by the connection's end gives
// nothing and is made again, what it may have delivered coming back after the lease; a push
// cut off is made again, and if the first one did reach Redis its entries come twice, which
// the stages absorb as above. With appendonly yes and appendfsync everysec, a clean stop loses
// nothing, and a Redis that crashes (or whose machine does) loses up to its last second of
// writes (stream_queue.h says what each loss is): deliveries and acknowledgements lost come
// back as duplicates; a push lost to the fetch, process or outcome stream leaves its task
// active in the scheduler with no outcome coming, which it dispatches again once
// SchedulerOptions::processing_timeout passes (`squall scheduler --processing-timeout`: four
// leases, and at least two minutes, by default: a task meets at most one lease per stream at a
// dead component, and waits its turn in the fetch stream besides); a push lost to the result
// stream loses that result from this crawl (its task is done), until the task runs again. A
// done mark lost leaves the other components waiting for it until a scheduler runs again and
// marks it.
//
// PostgreSQL restarting (or any loss of the store's connection, kind Closed or Connect): the
// scheduler and the result worker open their store again, trying every 0.1 s to 2 s (backing
// off) for up to 10 minutes, saying so in a log line every 10 s, then ending with the last
// error. The transaction the loss cut off is gone and what it held is still pending in the
// streams (acknowledged only after a commit): it is taken again after the lease. The scheduler
// starts over from the store as a new process would (its Scheduler rebuilt from what was
// committed, its tokens from a new base, so what it dispatched before matches nothing and is
// dispatched again), without running on_start again once it was committed; it claims its
// projects again first, and stands by if another scheduler took them meanwhile. Its claim is
// its session's, so a store whose connection was replaced, even with no query in flight,
// fails the next call rather than go on unclaimed (pg_store.h). The result worker cuts its
// export back to what the store committed, as after a kill.
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
// `fresh` on a store that schedulers share (PostgreSQL) claims the projects first and only then
// drops the tables; while another scheduler runs one of them it is refused with an
// InvalidArgumentError saying so, touching nothing. (An SQLite store is one process' file.)
//
// The projects' @every jobs (cron.h) are fired by the scheduler that holds their project's
// claim, so a standby scheduler fires none. Each tick is kept in the task store, as the project's
// "_on_cronjob" task (a done one, counted), and committed there before its "_on_cronjob@TICK"
// dispatch is pushed: a scheduler that takes over goes on after the last tick fired and never
// fires it again, whatever its own clock says, and its first tick carries the ones missed in
// between (a job due then runs once). A scheduler killed between that commit and the push loses
// the tick (at most once, as pyspider's ticks are); a tick's dispatch delivered twice after a
// kill downstream runs its jobs twice, as the at-least-once delivery may run any callback twice. A
// crawl whose projects have @every jobs does not end by itself, as in `squall run`: its scheduler
// runs on_finished when the projects are idle (no tick in flight either), as the embedded engine
// does, but never marks the crawl done, and runs until `stop`, and so do the other components,
// exit_when_done or not.
//
// A task whose host is unavailable (its robots.txt could not be fetched, fetch_stage.h) is
// parked as the embedded engine parks it: the fetcher hands it back to the scheduler, once per
// token as it would a page, in a ParkedTask message on the outcome stream (engine_message.h), and
// the scheduler takes it back untried (Scheduler::release): no try is counted, it stays active in
// the store, and the next start of a scheduler dispatches it again.
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
#include "squall/engine/result_worker.h"
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
  ExportLine export_line;       // its line of a result (result_worker.h); pyspider's dump if empty
  bool fresh = false;  // the scheduler starts its store over (the results in it too), claimed first
  size_t concurrency = 10;     // a fetcher's fetches in flight
  size_t batch = 64;           // entries taken from a stream at once
  uint64_t queue_bound = 100;  // the fetch stream's room: dispatched and not yet taken
  Duration lease = std::chrono::seconds(30);
  int max_deliveries = 5;  // of one entry, before it goes to the dead letters
  bool exit_when_done = true;
  // Set once the scheduler of this process returns, for the components beside it (cluster_node.h):
  // they look at the done mark only then, since a mark left by an earlier run is cleared only by
  // that scheduler's start, which may come after theirs.
  const Event* own_scheduler_ended = nullptr;
  SchedulerOptions scheduler;
  FetcherOptions fetcher;
  FetchStageOptions hosts;  // its capacity is twice the concurrency
  // This process' consumer name in the streams' groups ("<host>:<pid>" when empty).
  std::string consumer;
  // Told of the scheduler once it has its projects and their start tasks, and of nullptr as it
  // returns (the pointer given before still valid then), for a progress line or a summary.
  std::function<void(const Scheduler*)> on_scheduler;
};

// The scheduler's processing timeout for components holding what they take for `lease` (above):
// four leases, a task meeting at most one per stream at a dead component (fetch, process,
// outcome) and one for its fetch; two minutes at least, because a task also waits its turn in the
// fetch stream, and one dispatched again too early is only fetched twice. Seconds.
double processing_timeout_for(Duration lease);

// What a component did, when it returns.
struct ComponentSummary {
  uint64_t handled = 0;  // dispatches, pages fetched, pages processed or results stored
  // Tasks of unavailable hosts: handed back untried (a fetcher), or taken back (the scheduler,
  // counting only the ones it held live).
  uint64_t parked = 0;
  bool stopped = false;  // `stop` ended it
};

// Each runs until done (above) or `stop`. They throw what the store and Redis throw when they
// cannot be reached at start (InvalidArgumentError for a bad location or URL, and for `fresh`
// while another scheduler runs a project); later failures of Redis are retried by its client
// and logged, and a store lost later is opened again (above) for up to 10 minutes.
[[nodiscard]] Task<ComponentSummary> run_scheduler(ClusterOptions options,
                                                   std::vector<ProjectRuntime*> projects,
                                                   Event& stop);
[[nodiscard]] Task<ComponentSummary> run_fetcher(ClusterOptions options, Event& stop);
[[nodiscard]] Task<ComponentSummary> run_processor(ClusterOptions options,
                                                   std::vector<ProjectRuntime*> projects,
                                                   Event& stop);
[[nodiscard]] Task<ComponentSummary> run_result_worker(ClusterOptions options, Event& stop);

}  // namespace squall
