// ClusterCron: the projects' @every jobs (cron.h) in the split engine (cluster.h), fired by the
// scheduler that holds the projects' claims, so two schedulers never fire one tick.
//
//   ClusterCron cron(scheduler, store, projects, o.scheduler.processing_timeout);
//   co_await cron.load();
//   for (Dispatch& d : co_await cron.fire()) ... push d to the fetch stream ...
//   if (cron.settle(outcome.status)) ... it was a tick's: nothing for the Scheduler ...
//
// Where the last tick is kept: in the task store, as the project's "_on_cronjob" task, a done
// task whose fetch.save is the last tick's ({tick, last_tick}, what the processor reads). Each
// tick is written there and committed before its dispatch is handed on, so a scheduler that
// takes over (one standing by, one restarted, or one whose store's connection was replaced)
// goes on from the last tick fired, whatever its own clock says, and never fires it again: a
// tick is fired at most once. One killed between that commit and the push loses the tick's
// dispatch, as pyspider loses a tick its scheduler held. The first tick after a takeover
// carries the last one fired before it (cron.h: a job runs once when any multiple of its
// interval passed since), so the ticks of a scheduler's death run once, late, not never.
//
// The task is stored through the Scheduler the first time (stored done, counted as a success,
// so the counters equal a recount) and replaced in the store directly afterwards (its status
// unchanged, so no count moves): browsing the project's tasks shows its last tick. A tick's
// dispatch is a task of its own, "_on_cronjob@TICK" (so a fetcher that takes two ticks at once
// fetches both), with a token from a range the Scheduler's never reach; its outcome brings the
// jobs' follows and changes no task.
//
// One loop's, like the Scheduler it drives.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "squall/core/task.h"
#include "squall/engine/project_runtime.h"
#include "squall/engine/scheduler.h"
#include "squall/engine/task_store.h"

namespace squall::detail {

class ClusterCron {
 public:
  // `outcome_timeout`: how long a tick fired counts as in flight without its outcome (the
  // scheduler's processing timeout): a dispatch lost to a kill is not waited for forever.
  ClusterCron(Scheduler& scheduler, TaskStore& store, const std::vector<ProjectRuntime*>& projects,
              double outcome_timeout);

  // Reads each project's last tick from the store; a project that never fired one starts from
  // now, as the embedded engine does.
  Task<void> load();

  // Whether some project has @every jobs: its crawl does not end by itself.
  bool has_jobs() const noexcept { return !projects_.empty(); }

  // When the next tick is due, in the Scheduler's clock (Unix seconds); nullopt for no job.
  std::optional<double> next_tick() const;

  // The dispatches of the ticks due now, one per project of a due job (RUNNING or DEBUG ones),
  // each tick written to its project's task and committed first (with whatever else the
  // store held uncommitted). Empty when none is due. Throws what the store throws; a tick
  // whose commit failed is not dispatched.
  Task<std::vector<Dispatch>> fire();

  // Takes an outcome: true when it is a tick's (this scheduler's or an earlier one's), which
  // is then no longer in flight and is not for the Scheduler; false for any other task's.
  bool settle(const StatusPack& status);

  // Whether a tick fired is awaiting its outcome (for at most the outcome timeout).
  bool in_flight();

 private:
  struct Project {
    ProjectRuntime* runtime;
    int64_t last = 0;     // the last tick fired
    bool stored = false;  // its "_on_cronjob" task is in the store
  };

  Scheduler& scheduler_;
  TaskStore& store_;
  double outcome_timeout_;
  std::vector<Project> projects_;  // the ones with jobs
  uint64_t fired_ = 0;
  std::map<uint64_t, double> in_flight_;  // token → when it was fired
};

}  // namespace squall::detail
