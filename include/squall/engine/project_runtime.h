// ProjectRuntime: what runs a project's logic for the engine, the processing step it awaits.
//
//   class MyRuntime : public ProjectRuntime { ... };   // or Processor, for a C++ Handler
//   Engine engine(options);
//   engine.add_project(runtime);
//   ProcessOutput out = co_await runtime.process(dispatch, std::move(fetched));
//
// The engine co_awaits process() on its loop for each fetched task, so an implementation may
// run the project anywhere: Processor runs a C++ Handler in place, on the loop; a script runtime
// (script/python_runtime.h) hands the task to an interpreter on a thread of its own and resumes
// the engine when the answer comes back. Whatever the implementation, process() never throws for
// a failing project: a callback's failure is a status pack that is not ok. It throws only when the
// runtime itself can no longer run (then the engine stops with that error), and CancelledError
// when the engine is stopping. Every member is called on the engine's loop.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "squall/core/task.h"
#include "squall/engine/cron.h"
#include "squall/engine/fetcher.h"
#include "squall/engine/result_store.h"
#include "squall/engine/schedule_rules.h"
#include "squall/engine/scheduler.h"

namespace squall {

// What processing a fetched task gave: follows for the scheduler, a result for the result
// worker, and the status pack that ends the task's try.
struct ProcessOutput {
  StatusPack status;
  std::vector<CrawlTask> follows;  // send_message's messages are tasks of their projects
  std::optional<TaskResult> result;
};

class ProjectRuntime {
 public:
  virtual ~ProjectRuntime() = default;

  // The project's name (its tasks' `project`).
  virtual const std::string& project() const = 0;
  // The retry delays its failed tasks wait (pyspider's retry_delay).
  virtual RetryDelays retry_delay() const = 0;
  // Its periodic jobs (pyspider's @every): the engine reads their names and intervals to send
  // the "_on_cronjob" task when one is due; running them is process()'s.
  virtual const std::vector<CronJob>& cron_jobs() const = 0;
  // The task the engine requests when the project starts: by default the "on_start" task with
  // force_update, so on_start runs at every start of the engine.
  virtual CrawlTask start_task() const;
  // How many of its tasks process() may be awaited for at once: 1 by default (Processor runs a
  // Handler in place, so more would gain nothing). A runtime on a thread of its own says more,
  // so that it finds the next task waiting when it ends one. The engine still applies the
  // outputs one at a time, in the order they come back.
  virtual size_t processing_slots() const { return 1; }

  // Runs the task's callback on its response (see processor.h for what the output holds).
  [[nodiscard]] virtual Task<ProcessOutput> process(const Dispatch& dispatch,
                                                    FetchResult fetched) = 0;
};

}  // namespace squall
