// Engine: pyspider's pipeline in one process: scheduler → fetcher → processor → result worker.
//
//   Spider spider;                                   // a Handler (handler.h)
//   Engine engine({.store = "spider.db", .jsonl = "results.jsonl"});
//   engine.add_project(spider);
//   EngineSummary summary = co_await engine.run();  // until the projects have nothing left
//
//        requests ┌───────────┐ dispatch  ┌─────────┐ fetched ┌───────────┐ results ┌────────┐
//   on_start ───► │ scheduler │ ────────► │ fetcher │ ──────► │ processor │ ──────► │ result │
//          ┌────► │  (store)  │  bounded  │  × N    │ bounded │ (handler) │         │ worker │
//          │      └───────────┘   queue   └─────────┘  queue  └───────────┘         └────────┘
//          └──────────── follows, messages, status packs ◄────────┘
//
// - The queues between components are bounded: the scheduler hands out tasks only while the
//   fetch queue has room, the fetchers wait while the processor's queue is full. Nothing polls:
//   a freed slot, a new task or an outcome wakes the dispatcher, and so does the scheduler's
//   next_wake (a delayed task due, a token refilled).
// - The fetcher is a FetchStage (fetch_stage.h): tasks queued by host, at most hosts.per_host
//   fetches in flight on one host and hosts.delay between their starts, each host's robots.txt
//   read before its pages. A host whose robots.txt cannot be fetched is unavailable for the run:
//   its tasks stay active in the store, untried, for the next (EngineSummary::parked).
// - One SQLite file (SqliteStore) holds tasks, projects, counters and results; the engine commits
//   every `commit_interval`. A task's outcome, its last follows and its result are applied
//   together, between two commits, so a kill at any moment loses at most the work since the last
//   commit: those tasks are still active in the store and run again on the next start, their
//   results replace nothing twice, and the JSON lines export is cut back to match (ResultWorker).
// - A callback's follows reach the scheduler in batches of at most kFollowBatch while it runs
//   (FollowSink, project_runtime.h), so a page of 1,000,000 links never sits whole in memory;
//   every batch is applied before the task's outcome. Batches committed before a kill are not
//   lost, and when the task runs again its follows are dropped as known, so each is stored once.
//   Results may have a store of their own (`result_store`), committed just before the tasks'.
// - Each project starts with its on_start task (pyspider's), run once per start; when no
//   project has anything left, each gets its on_finished, and then run() returns (with
//   exit_when_done; otherwise it waits for more until stop()).
// - A project's every() jobs (cron.h) run while the engine does: at each due tick its
//   _on_cronjob task goes straight to the fetcher, never stored. With exit_when_done the engine
//   still ends once the projects are idle, so a project of periodic jobs runs with it off.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "squall/core/task.h"
#include "squall/engine/engine_store.h"
#include "squall/engine/fetch_stage.h"
#include "squall/engine/fetcher.h"
#include "squall/engine/handler.h"
#include "squall/engine/project_runtime.h"
#include "squall/engine/project_store.h"
#include "squall/engine/scheduler.h"

namespace squall {

// What a program that runs the engine for its own ends (squall crawl's Crawler) hooks into it.
struct EngineHooks {
  // After the store opened, before the projects start: a program's own outputs claim their
  // files, a resumed run is checked against what the store holds. Throws to refuse the run.
  std::function<Task<void>(EngineStore&)> opened;
  // Before each commit: a program's own writes flushed and their offsets put in the store's
  // meta, to become durable with the tasks they describe.
  std::function<Task<void>(EngineStore&)> committing;
  // Asked before each task leaves the scheduler. False: the task goes back to its place, and it
  // is asked about again when work in flight ends; when nothing is in flight, run() returns (a
  // page limit).
  std::function<bool(const CrawlTask&)> may_dispatch;
  // Each task the fetch stage gave back because its host is unavailable (it stays active in
  // the store for a later run) or its project was paused (update_project) before its fetch: a
  // task may_dispatch counted is not going to be fetched after all.
  std::function<void(const CrawlTask&)> parked;
  // Each robots.txt that answered (FetchStage::on_robots).
  std::function<void(const std::string& host, const FetchResult&)> robots;
};

struct EngineOptions {
  // Where tasks, projects and counters are kept, and results unless `result_store` is given: a
  // file, sqlite:///PATH or postgresql://... (engine_store.h).
  std::string store = "engine.db";
  std::string result_store;                  // results' own store; empty: `store`
  std::string store_label = "engine store";  // what errors call the store file
  size_t store_cache_mib = 64;               // an SQLite store's page cache (SqliteStore::open)
  bool fresh = false;                        // drop what the store and the export held
  std::filesystem::path jsonl;               // the results' export; empty for none
  size_t concurrency = 10;                   // fetches in flight
  size_t queue_size = 100;                   // each queue between components
  double commit_interval = 0.2;              // seconds
  bool exit_when_done = true;
  SchedulerOptions scheduler;
  FetcherOptions fetcher;
  // Per-host politeness and robots.txt (fetch_stage.h); its capacity is queue_size and its user
  // agent the fetcher's.
  FetchStageOptions hosts;
  EngineHooks hooks;
};

struct EngineSummary {
  uint64_t dispatched = 0;  // tasks handed to the fetcher
  uint64_t succeeded = 0;   // outcomes ok
  uint64_t failed = 0;      // outcomes not ok (retried or failed for good)
  uint64_t results = 0;     // results stored
  uint64_t follows = 0;     // new tasks taken in
  uint64_t parked = 0;      // tasks of unavailable hosts, left active for a later run
  bool limited = false;     // may_dispatch ended it
  double seconds = 0;
  bool stopped = false;
};

class Engine {
 public:
  explicit Engine(EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Adds a project run by `handler` (it must outlive the engine). `info`'s name is the
  // handler's; its status (RUNNING unless set), rate and burst are used.
  void add_project(Handler& handler, ProjectInfo info = running());
  // Adds a project run by `runtime` (project_runtime.h; it must outlive the engine), whose
  // process() the engine awaits for each of its fetched tasks.
  void add_project(ProjectRuntime& runtime, ProjectInfo info = running());
  static ProjectInfo running();  // RUNNING, with no rate limit

  // Opens the store, starts every project and runs until done (or stop()). Throws squall::Error
  // when the store or the export cannot be opened.
  [[nodiscard]] Task<EngineSummary> run();
  // Ends run() soon: no new dispatches; work in flight is dropped (it stays active in the store).
  void stop() noexcept;

  // While run() runs (null before).
  Scheduler* scheduler() noexcept;
  EngineStore* store() noexcept;
  EngineStore* result_store() noexcept;  // store() unless results have a store of their own
  const FetchStage* fetch_stage() const noexcept;
  Fetcher* fetcher() noexcept;
  std::vector<std::string> projects() const;  // the names of the projects added
  size_t in_flight() const noexcept;          // dispatched, outcome not in yet
  size_t processing_queued() const noexcept;  // fetched, waiting for the processor

  // --- what a control plane (control/control_server.h) does once run() has opened the store.
  // These stay usable after run() returned, for as long as the engine lives: then each change
  // is committed at once, for the next run.
  // Takes tasks in as follows are (Scheduler::request) and wakes the dispatcher.
  [[nodiscard]] Task<RequestCounts> request(std::vector<CrawlTask> tasks);
  // Sets an added project's status, rate and burst in the scheduler and the store, acting on
  // the next dispatch. A project set so to a status that is not dispatched (STOP, TODO,
  // CHECKING) while it has tasks pending holds run() open where it would have ended as done,
  // until it runs again or stop() is called. Its tasks already handed to the fetch stage go
  // back to their places unfetched; those being fetched finish. False for a project the engine
  // does not run.
  [[nodiscard]] Task<bool> update_project(ProjectInfo info);
  // Called with every task the fetch stage hands on, as it leaves it (robots.txt refusals
  // included), before the processor sees it. Must not wait or throw.
  using FetchObserver = std::function<void(const CrawlTask&, const FetchResult&)>;
  void observe_fetches(FetchObserver observer);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace squall
