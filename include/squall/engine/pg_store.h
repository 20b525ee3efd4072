// PgStore: the engine's task, project and result stores in PostgreSQL, for an engine whose
// components run in several processes or on several machines.
//
//   std::unique_ptr<PgStore> store = co_await PgStore::open("postgresql://u:pw@db:5432/crawl");
//   Scheduler scheduler(*store);          // as over SqliteStore
//   ...
//   co_await store->commit();             // the writes since the last commit, durable together
//
// The same contract as SqliteStore (task_store.h, project_store.h, result_store.h), on one
// PgConnection (postgres.h):
// - Writes collect until commit(): puts and updates are buffered in memory (the latest write of
//   a task wins, an update of a task put since the last flush is folded into the put) and sent
//   as multi-row statements inside one transaction, which commit() commits. A buffer of
//   kFlushRows writes is sent early, in the same transaction, so memory stays bounded. A kill
//   before commit() loses exactly what SQLite's would: the transaction is rolled back by the
//   server when the connection goes.
// - Reads see the writes before them: get() folds in a buffered write of its task; the window
//   reads (ready, delayed), each_taskid and recount send the buffer first.
// - Tables are named squall_tasks, squall_projects, squall_results, squall_counters and
//   squall_meta, so they can share a database with others; they are created when missing, and
//   squall_meta's 'layout' row names their version (a database of another layout is refused).
//   A task's dicts are JSON text as in SQLite; a result is jsonb, for queries in SQL.
// - Results keep the order they were first stored in (a bigserial that an upsert keeps).
//
// One scheduler at a time per project: ready() reads without claiming. Several schedulers
// claiming tasks with FOR UPDATE SKIP LOCKED are the distributed engine's (DESIGN.md).
//
// Errors: PgError (postgres.h) for what the server or the connection refused; a lost connection
// fails the call with kind Closed and drops the open transaction, buffered writes included; the
// next call connects again. Once a project is claimed (claim_project), every call after its
// session was lost fails with Closed instead, since the claim went with it: the engine opens
// the store again, claims again and goes on from the last commit (cluster.h).
//
// Threads: the store belongs to the loop that opened it, like its connection.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "squall/core/task.h"
#include "squall/engine/engine_store.h"
#include "squall/net/postgres.h"

namespace squall {

class PgStore final : public EngineStore {
 public:
  // Buffered task writes at which they are sent before commit().
  static constexpr size_t kFlushRows = 1000;
  // Rows a multi-row statement carries (17 parameters each at most, far below the protocol's
  // 65,535).
  static constexpr size_t kRowsPerStatement = 500;

  // Connects to `url` (a postgresql:// URL or a conninfo string) and creates the tables when
  // missing; `start_over` drops them first (whatever their layout), and so empties them. Throws
  // PgError when the server cannot be reached or refuses, InvalidArgumentError when the database
  // holds squall tables of another layout.
  static Task<std::unique_ptr<PgStore>> open(std::string url, bool start_over = false,
                                             PgOptions options = {});
  ~PgStore() override;
  PgStore(const PgStore&) = delete;
  PgStore& operator=(const PgStore&) = delete;

  // TaskStore
  Task<std::optional<CrawlTask>> get(std::string project, std::string taskid) override;
  Task<void> put(const CrawlTask& task, int64_t seq) override;
  Task<void> update(const CrawlTask& task, int64_t seq) override;
  Task<std::vector<QueuedTask>> ready(std::string project, std::optional<ReadyKey> after,
                                      size_t limit) override;
  Task<std::vector<QueuedTask>> delayed(std::string project, std::optional<DelayKey> after,
                                        size_t limit) override;
  Task<int64_t> last_seq() override;
  Task<void> each_taskid(std::string project, std::function<void(const std::string&)> fn) override;
  Task<CounterValues> recount(std::string project) override;
  Task<std::optional<nlohmann::json>> counters(std::string project) override;
  Task<void> save_counters(std::string project, const nlohmann::json& counters) override;
  Task<void> commit() override;

  // ProjectStore
  Task<std::optional<ProjectInfo>> project(std::string name) override;
  Task<std::vector<ProjectInfo>> projects() override;
  Task<void> put_project(const ProjectInfo& project) override;

  // ResultStore
  Task<void> upsert(std::string project, const TaskResult& result) override;
  Task<std::optional<TaskResult>> result(std::string project, std::string taskid) override;
  // One multi-row statement per kRowsPerStatement results, in the open transaction.
  Task<void> upsert_all(std::span<const ProjectResult> batch) override;
  // One SELECT per kRowsPerStatement results.
  Task<std::vector<std::optional<TaskResult>>> stored(
      std::span<const ProjectResult> batch) override;
  Task<std::vector<TaskResult>> results(std::string project, size_t offset, size_t limit) override;
  Task<int64_t> count(std::string project) override;
  Task<std::optional<std::string>> meta(std::string key) override;
  Task<void> set_meta(std::string key, std::string value) override;

  // EngineStore: tasks are browsed by taskid (their primary key), results in stored order.
  std::string describe() const override;
  Task<void> claim_project(std::string project) override;
  Task<TaskPage> browse_tasks(std::string project, std::optional<TaskStatus> status,
                              std::string url_contains, std::string after, size_t limit) override;
  Task<ResultPage> browse_results(std::string project, std::string url_contains, std::string after,
                                  size_t limit) override;

  // Drops the tables and creates them empty, as open() with `start_over` does, on this
  // store's own connection: what it claimed (claim_project) stays claimed. Drops the open
  // transaction and what is buffered first.
  Task<void> start_over();

  // Task writes buffered and not yet sent.
  size_t buffered() const noexcept;
  // Drops the open transaction and what is buffered, and closes the connection (what a kill
  // would do); the store can be used again, from the last commit.
  void close();

 private:
  struct State;
  explicit PgStore(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace squall
