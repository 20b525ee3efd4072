// Scheduler: pyspider's scheduler over a TaskStore, holding a bounded window of each project's
// tasks instead of all of them.
//
//   Scheduler scheduler(store, {.clock = [&] { return now; }});
//   co_await scheduler.add_project(project);
//   co_await scheduler.request(tasks);                     // follows, start URLs, API calls
//   for (Dispatch& d : co_await scheduler.select(100)) {   // what to fetch next
//     ... fetch and process d.task ...
//     co_await scheduler.outcome(StatusPack::of(d, ok, track));
//   }
//   co_await scheduler.commit();                           // a few times a second
//
// The rules are schedule_rules.h's (pyspider's exactly, with the divergences it names). Beyond
// them:
// - Ordering: a project's ready tasks leave by priority, then in the order they became ready;
//   a task with an exetime waits for it in the delayed order. The scheduler holds at most
//   `window` tasks of each order per project and refills from the store's indexes after a
//   cursor, so 10 M stored tasks cost what `window` does, and a restart's first dispatch is one
//   index read away.
// - Rate: each project's token bucket (rate, burst) gates its dispatches; projects are served
//   round-robin, one task each per turn, so none starves another. A project that is not RUNNING
//   or DEBUG is neither dispatched nor given new tasks, and FailurePause holds one whose tasks
//   keep failing.
// - In work: a dispatched task carries a token; its outcome is applied only with that token and
//   only once, so a status delivered twice changes nothing. A task whose outcome has not come
//   within `processing_timeout` (pyspider: 10 minutes) is dispatched again with a new token. After
//   a restart every active task is dispatchable again: nothing in work is lost.
// - Counters (TaskCounters) follow every change and are saved by commit() in the same
//   transaction as the task changes they count.
// - Known taskids are cached (`known_cache` of them, about 13 bytes each: 12 M take 128 MiB), so
//   a follow of a page the project already has costs no store read; an unknown one costs one.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "squall/core/task.h"
#include "squall/engine/failure_pause.h"
#include "squall/engine/project_store.h"
#include "squall/engine/schedule_rules.h"
#include "squall/engine/task_counters.h"
#include "squall/engine/task_store.h"
#include "squall/engine/token_bucket.h"

namespace squall {

// Unix time in seconds, as pyspider keeps it; tests pass a clock they move.
using EngineClock = std::function<double()>;
double wall_clock_seconds();

struct SchedulerOptions {
  size_t window = 1024;             // tasks of each order held per project
  double processing_timeout = 600;  // seconds before a task in work is dispatched again
  size_t known_cache = 12'000'000;  // taskids remembered per project
  FailurePauseOptions pause;
  EngineClock clock;  // wall_clock_seconds when empty
};

// A task handed out to be fetched and processed.
struct Dispatch {
  CrawlTask task;
  uint64_t token = 0;  // the outcome must carry it
};

// What became of a dispatched task (pyspider's status pack).
struct StatusPack {
  std::string project;
  std::string taskid;
  uint64_t token = 0;
  bool ok = false;  // track.process.ok: fetched and processed without error
  JsonText track;

  static StatusPack of(const Dispatch& d, bool ok, JsonText track);
};

// How the scheduler took a batch of requests.
struct RequestCounts {
  size_t inserted = 0, restarted = 0, cancelled = 0, dropped = 0, postponed = 0, rejected = 0;
};

class Scheduler {
 public:
  Scheduler(TaskStore& store, SchedulerOptions options = {});
  ~Scheduler();

  // Adds or updates a project: its status, rate and burst, retry delays (pyspider's
  // retry_delay). A project seen for the first time has its counters loaded from the store.
  Task<void> add_project(const ProjectInfo& project, const RetryDelays& delays = RetryDelays());
  bool has_project(const std::string& name) const;
  const ProjectInfo* project(const std::string& name) const;

  // Takes requests for tasks (pyspider's newtask queue). A request whose project is unknown or
  // not running is rejected with a logged reason. A new task that comes marked bad (the handler
  // marks a URL it cannot parse so, with the reason in its track) is stored bad, never
  // dispatched; one that comes marked success (a redirect's target, fetched under the URL that
  // redirected) is stored as done, so that it is not fetched again on its own.
  Task<RequestCounts> request(std::vector<CrawlTask> tasks);

  // Up to `max` tasks to fetch now, fairly across projects.
  Task<std::vector<Dispatch>> select(size_t max);

  // Applies an outcome; false when it is stale or repeated (wrong token) and changed nothing.
  Task<bool> outcome(StatusPack pack);

  // Takes back a dispatched task that is not fetched in this run (its host cannot be reached):
  // it stays active in the store with no try counted, and is dispatched again after a restart.
  // False when the token is stale.
  bool release(const Dispatch& d);

  // Takes back a dispatched task that the engine did not hand on after all: it is dispatched
  // again from its place. False when the token is stale.
  bool put_back(const Dispatch& d);

  // When select() may next have something that it has not now (a delayed task due, a token
  // refilled, a pause over, a task in work timed out); nullopt when only a request or an outcome
  // can change that.
  std::optional<double> next_wake();

  // True when no running project has a task left to dispatch, now or later, or in work.
  bool idle() const;

  // Saves the counters of the projects that changed and commits the store.
  Task<void> commit();

  // pyspider's counters report for a project (empty object for an unknown one).
  nlohmann::json counters(const std::string& project);
  const TaskCounters* project_counters(const std::string& project) const;

  // Tasks held in memory for a project: ready, delayed, in work, and the processing-timeout
  // deadlines kept for them (at most about twice those in work, whatever was dispatched before).
  struct Held {
    size_t ready = 0, delayed = 0, in_work = 0, deadlines = 0;
  };
  Held held(const std::string& project) const;

  double now() const { return clock_(); }

 private:
  struct ProjectState;
  ProjectState* find(const std::string& name);
  Task<void> handle(CrawlTask task, RequestCounts& counts);
  Task<void> place(ProjectState& p, QueuedTask queued);
  Task<void> refill(ProjectState& p, double now);
  Task<void> promote_due(ProjectState& p, double now);
  Task<void> expire_in_work(ProjectState& p, double now);
  // A task back from work gets its fetch and process dicts again: they went with its dispatch.
  Task<void> read_back_dicts(QueuedTask& q);
  void forget(ProjectState& p, const std::string& taskid);
  std::optional<KnownTask> known_in_memory(ProjectState& p, const std::string& taskid) const;

  TaskStore& store_;
  SchedulerOptions options_;
  EngineClock clock_;
  std::map<std::string, std::unique_ptr<ProjectState>> projects_;
  std::string turn_;  // the project whose turn comes next in select()
  int64_t seq_ = -1;  // the last seq given; read from the store on first use
  uint64_t tokens_ = 0;
};

}  // namespace squall
