// ProjectRuntime: what runs a project's logic for the engine, the processing step it awaits.
//
//   class MyRuntime : public ProjectRuntime { ... };   // or Processor, for a C++ Handler
//   Engine engine(options);
//   engine.add_project(runtime);
//   ProcessOutput out = co_await runtime.process(dispatch, std::move(fetched));
//   ProcessOutput rest = co_await runtime.process(dispatch, std::move(fetched), &sink);
//
// The engine co_awaits process() on its loop for each fetched task, so an implementation may
// run the project anywhere: Processor runs a C++ Handler in place, on the loop; a script runtime
// (script/python_runtime.h) hands the task to an interpreter on a thread of its own and resumes
// the engine when the answer comes back. Whatever the implementation, process() never throws for
// a failing project: a callback's failure is a status pack that is not ok. It throws only when the
// runtime itself can no longer run (then the engine stops with that error), and CancelledError
// when the engine is stopping. Every member is called on the engine's loop.
//
// Follows in batches. A callback may ask for any number of follows (a page of 1,000,000 links);
// given a FollowSink, process() hands them on in batches of at most kFollowBatch tasks while it
// runs and awaits each batch's take() before the next, so a runtime holds a bounded number of
// follows at once (processor.h and script/python_runtime.h say how many), and the output it
// returns keeps only the follows not handed on yet. Without a sink (the cluster's processor, the
// debugger), the output holds every follow, as before. What is handed on stays handed on:
// - a callback that then throws, or runs past its time limit, fails its task, and the follows it
//   asked for before still count (pyspider's processor sends them too);
// - every batch is taken before process() returns, so the engine applies the task's outcome
//   (its status pack) after all of its follows;
// - a batch may become durable before the outcome does (the engine commits on its own clock).
//   If the process dies between them, the task is still active in the store and runs again, and
//   its follows come again: a follow whose taskid the store has is dropped (unless it asks to
//   restart, force_update, age or itag, as any repeated request may), so each is stored once.
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

// Where process() hands follows on while the callback runs (the engine's scheduler).
class FollowSink {
 public:
  virtual ~FollowSink() = default;
  // Takes a batch; resumes when it is applied, so the caller may build the next one. Throws what
  // applying it threw (the engine stops then); CancelledError when the engine is stopping.
  [[nodiscard]] virtual Task<void> take(std::vector<CrawlTask> batch) = 0;
};

// The most follows a runtime hands to a FollowSink at once.
inline constexpr size_t kFollowBatch = 1000;

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

  // Runs the task's callback on its response (see processor.h for what the output holds), with
  // every follow in the output.
  [[nodiscard]] Task<ProcessOutput> process(const Dispatch& dispatch, FetchResult fetched) {
    return process(dispatch, std::move(fetched), nullptr);
  }
  // The same, handing follows to `follows` in batches while the callback runs when it is not
  // null (see above); the output then holds only the follows left when the callback ended.
  [[nodiscard]] virtual Task<ProcessOutput> process(const Dispatch& dispatch, FetchResult fetched,
                                                    FollowSink* follows) = 0;
};

}  // namespace squall
