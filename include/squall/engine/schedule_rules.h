// pyspider's scheduling rules as pure functions: what a request for a task does, and what a
// task's fetch-and-process outcome makes of it. No store, no clock: callers pass the task's
// state and the time (Unix seconds), so every rule is testable over hours in microseconds.
//
// A request for a task (a follow, a start URL, an API call):
// - unknown taskid: it is inserted, active (a request that only cancels is dropped: there is
//   nothing to cancel; pyspider would insert and crawl it);
// - known and active (queued or in work): dropped unless force_update; a force_update for a
//   task in work is postponed until its outcome is in, since the two would conflict;
// - known and ended (success, failed, bad): it restarts when its itag changed, when age has
//   passed since lastcrawltime, or with force_update; otherwise it is dropped. A restart that
//   cancels marks the task bad instead.
// An outcome:
// - success: the task ends (success) at lastcrawltime = now; with auto_recrawl and an age, it
//   stays active and comes back at now + age.
// - failure: retry `retried` waits RetryDelays::after(retried) (30 s, 1 h, 6 h, 12 h, then 24 h)
//   but never more than age; after `retries` retries the task fails, unless it has
//   auto_recrawl and an age, when it never fails.
#pragma once

#include <map>
#include <optional>
#include <utility>

#include <nlohmann/json_fwd.hpp>

#include "squall/engine/crawl_task.h"

namespace squall {

// Seconds to wait before the next try, by the number of tries already failed (pyspider's
// handler attribute `retry_delay`: {retried: seconds, "": otherwise}).
class RetryDelays {
 public:
  RetryDelays();  // pyspider's: {0: 30, 1: 3600, 2: 21600, 3: 43200, "": 86400}
  RetryDelays(std::map<int, double> by_retried, double otherwise)
      : by_retried_(std::move(by_retried)), otherwise_(otherwise) {}

  double after(int retried) const;

  // From a pyspider retry_delay dict; keys are decimal counts or "" (the rest). Missing "" keeps
  // 24 h. Throws squall::Error (InvalidArgument) for a key or value that is not a count or a
  // number of seconds.
  static RetryDelays from_json(const nlohmann::json& json);

 private:
  std::map<int, double> by_retried_;
  double otherwise_;
};

// What the scheduler knows of a task that a request names.
struct KnownTask {
  TaskStatus status = TaskStatus::Active;
  TaskSchedule schedule;
  double lastcrawltime = 0;
  bool in_work = false;  // dispatched and its outcome not in yet
};

enum class RequestVerdict {
  Drop,      // nothing changes
  Insert,    // a new task, active
  Restart,   // the known task becomes active again with the request's schedule, fetch, process
  Cancel,    // the known task becomes bad and leaves the queue
  Postpone,  // decide again when the task's outcome is in
};

// `known` is nullopt for a taskid the project has not seen.
RequestVerdict judge_request(const TaskSchedule& request, const std::optional<KnownTask>& known,
                             double now);

// What an outcome makes of the task's status and schedule.
struct OutcomeVerdict {
  TaskStatus status = TaskStatus::Success;
  TaskSchedule schedule;  // with retried and exetime updated
  bool retry = false;     // a failure that will be tried again
};

OutcomeVerdict judge_success(const TaskSchedule& schedule, double now);
OutcomeVerdict judge_failure(const TaskSchedule& schedule, const RetryDelays& delays, double now);

}  // namespace squall
