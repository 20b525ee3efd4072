// TaskStore: where the engine keeps its tasks, behind an interface so that the embedded SQLite
// store (sqlite_store.h) and a shared database serve the same scheduler.
//
// Active tasks wait in one of two orders, which the store keeps by index so the scheduler holds
// only a window of each in memory:
// - ready (exetime 0): higher priority first, then by `seq`, the order they became ready;
// - delayed (exetime > 0): earliest exetime first.
// The scheduler reads each order a page at a time after a cursor (the key of the last task it
// has read), so a store of 10 M tasks costs it a page, and a restart's first read is one index
// seek. Writes collect until commit(), which makes them durable together.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "squall/core/task.h"
#include "squall/engine/crawl_task.h"
#include "squall/engine/task_counters.h"

namespace squall {

// A place in the ready order: priority descending, then seq ascending.
struct ReadyKey {
  int priority = 0;
  int64_t seq = 0;
  // True when a task at this key is dispatched before one at `o`.
  bool before(const ReadyKey& o) const noexcept {
    return priority != o.priority ? priority > o.priority : seq < o.seq;
  }
};

// A place in the delayed order: exetime ascending, then seq.
struct DelayKey {
  double exetime = 0;
  int64_t seq = 0;
  bool before(const DelayKey& o) const noexcept {
    return exetime != o.exetime ? exetime < o.exetime : seq < o.seq;
  }
};

// An active task with its place in the orders.
struct QueuedTask {
  CrawlTask task;
  int64_t seq = 0;
  ReadyKey ready_key() const noexcept { return {task.schedule.priority, seq}; }
  DelayKey delay_key() const noexcept { return {task.schedule.exetime, seq}; }
};

// Every call is awaited where it is made: arguments passed by reference are read before the
// call first suspends, and live as long as the full expression that awaits it.
class TaskStore {
 public:
  virtual ~TaskStore() = default;

  virtual Task<std::optional<CrawlTask>> get(std::string project, std::string taskid) = 0;
  // Inserts or replaces the task (by project and taskid). `seq` places an active task in its
  // order; it is kept for ended tasks but means nothing there.
  virtual Task<void> put(const CrawlTask& task, int64_t seq) = 0;
  // put() of a task the caller knows is not stored (the scheduler looked, or holds every
  // taskid of the project), which spares a store the lookup.
  virtual Task<void> insert(const CrawlTask& task, int64_t seq) { return put(task, seq); }
  // Writes what an outcome changes of a stored task: its status, schedule, track, times and
  // place (`seq`); its url, fetch and process stay as stored.
  virtual Task<void> update(const CrawlTask& task, int64_t seq) = 0;
  // Up to `limit` ready tasks of the project after `after` (from the start without it).
  virtual Task<std::vector<QueuedTask>> ready(std::string project, std::optional<ReadyKey> after,
                                              size_t limit) = 0;
  virtual Task<std::vector<QueuedTask>> delayed(std::string project, std::optional<DelayKey> after,
                                                size_t limit) = 0;
  // The highest seq stored (0 when empty): new tasks continue after it.
  virtual Task<int64_t> last_seq() = 0;
  // Calls `fn` with every taskid of the project (a restart rebuilds its known set so).
  virtual Task<void> each_taskid(std::string project,
                                 std::function<void(const std::string&)> fn) = 0;
  // The project's tasks by state, counted (Pending = active, Failed = failed or bad): what the
  // counters' totals must equal.
  virtual Task<CounterValues> recount(std::string project) = 0;

  // The project's saved counters (TaskCounters::save()), saved with the task changes.
  virtual Task<std::optional<nlohmann::json>> counters(std::string project) = 0;
  virtual Task<void> save_counters(std::string project, const nlohmann::json& counters) = 0;

  // Makes every change so far durable.
  virtual Task<void> commit() = 0;
};

}  // namespace squall
