// Processor: runs a project's handler on a fetched task, as pyspider's processor does.
//
//   Processor processor(handler);
//   ProcessOutput out = processor.run(dispatch, std::move(fetched));
//   // out.follows to the scheduler, out.result to the result worker, out.status back
//
// It is the engine's ProjectRuntime for a C++ Handler (project_runtime.h): process() runs the
// callback in place, on the loop, and is done when it returns.
//
// The task's callback (its `process.callback`) gets the Response. Four callbacks are the
// engine's own, as in pyspider: "on_start" runs Handler::on_start, "_on_message" delivers a
// send_message to on_message, "_on_cronjob" runs the every() jobs due at its tick (one that
// throws fails the task, and the others still run), "on_finished" runs on_finished. The status
// pack's track records what the fetch and the callback did: {fetch: FetchResult::track(), process:
// {ok, time, follows, messages, exception, logs}}, the fetch's `content` (the body's first 1000
// bytes) only when the task failed, to see why. A callback that throws, a missing callback, a
// non-2xx response (unless the callback catches status code errors) or a callback over its time
// limit make the status not ok, and the scheduler's retry rules take over; follows asked for before
// the failure are still sent, as pyspider sends them. A 304 to a conditional request is ok and
// runs no callback: the page is unchanged.
//
// Given a FollowSink (project_runtime.h), process() holds at most kFollowBatch (1,000) of a
// callback's follows and messages in memory at once: each time the callback has asked for that
// many, they go to an unnamed temporary file (tmpfile(), in /tmp: a few hundred bytes a
// follow, gone when process() ends), and once the callback has returned they are read back and
// handed to the sink a batch at a time, in the order asked, before the output (the last partial
// batch and the status pack) is returned. A C++ callback runs synchronously on the engine's
// loop and cannot wait there for the store to take a batch, hence the file; a callback that
// asks for fewer than kFollowBatch touches no file. A file that cannot be written (no /tmp,
// a full disk) fails the crawl() that filled the batch with squall::Error (System) saying so.
#pragma once

#include <optional>
#include <vector>

#include "squall/engine/fetcher.h"
#include "squall/engine/handler.h"
#include "squall/engine/project_runtime.h"
#include "squall/engine/result_store.h"
#include "squall/engine/scheduler.h"

namespace squall {

class Processor : public ProjectRuntime {
 public:
  explicit Processor(Handler& handler) : handler_(handler) {}

  // The callback's output, at once.
  ProcessOutput run(const Dispatch& dispatch, FetchResult fetched);

  using ProjectRuntime::process;

  const std::string& project() const override { return handler_.project(); }
  RetryDelays retry_delay() const override { return handler_.retry_delay; }
  const std::vector<CronJob>& cron_jobs() const override { return handler_.cron_jobs(); }
  [[nodiscard]] Task<ProcessOutput> process(const Dispatch& dispatch, FetchResult fetched,
                                            FollowSink* follows) override;

  // The task that starts a project: its on_start, once per run.
  static CrawlTask start_task(const std::string& project);
  // A task's track, {"fetch": {...}, "process": {...}}, as text. begin_track writes its start
  // and the fetch's part, left open, before the response takes the fetch; end_track adds the
  // start of the body (`content`) when the task failed, ends the fetch's part, and adds
  // `process`, the process part's JSON text.
  static std::string begin_track(const FetchResult& fetched);
  static JsonText end_track(std::string track, bool ok, std::string_view content,
                            std::string_view process);
  // The "on_finished" task the engine requests once the project has nothing left (pyspider's).
  static CrawlTask finish_task(const std::string& project);
  // The task that carries a send_message to `to`.
  static CrawlTask message_task(const std::string& from, const std::string& to,
                                const nlohmann::json& message);
  // The task that runs `project`'s every() jobs due in (last_tick, tick].
  static CrawlTask cron_task(const std::string& project, int64_t tick, int64_t last_tick);

 private:
  class Spill;
  ProcessOutput run(const Dispatch& dispatch, FetchResult fetched, Spill* spill);
  void run_cron_jobs(const nlohmann::json& save);

  Handler& handler_;
};

}  // namespace squall
