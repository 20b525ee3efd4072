// SqliteStore: the engine's embedded store, tasks, projects, counters and results in one SQLite
// file with no server to start.
//
//   auto store = SqliteStore::open("project.db");
//   co_await store->put(task, seq);
//   co_await store->commit();
//
// One file means one transaction: a task's outcome, its result and the counters that count it
// become durable together at commit(), so a kill at any moment leaves them agreeing. The file is
// locked to one process (SqliteFile); a file that is not an SQLite database, or that another
// process holds, is refused with an error that says so. Every call completes without
// suspending.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "squall/engine/engine_store.h"

namespace squall {

class SqliteStore final : public EngineStore {
 public:
  // `label` names the file in errors ("engine store crawl.db is in use by another process");
  // `cache_mib` is SQLite's page cache, which grows up to it as pages are read.
  static std::unique_ptr<SqliteStore> open(const std::filesystem::path& path,
                                           bool start_over = false,
                                           std::string label = "engine store",
                                           size_t cache_mib = 64);
  ~SqliteStore() override;

  // A commit merges the keys of the tasks stored since the last merge into the key index once
  // there are `entries` of them (262,144 unless set; see sqlite_store.cpp).
  void merge_keys_at(int64_t entries) noexcept;

  // TaskStore
  Task<std::optional<CrawlTask>> get(std::string project, std::string taskid) override;
  Task<void> put(const CrawlTask& task, int64_t seq) override;
  Task<void> insert(const CrawlTask& task, int64_t seq) override;
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
  Task<std::vector<TaskResult>> results(std::string project, size_t offset, size_t limit) override;
  Task<int64_t> count(std::string project) override;
  Task<std::optional<std::string>> meta(std::string key) override;
  Task<void> set_meta(std::string key, std::string value) override;

  // EngineStore
  std::string describe() const override;
  Task<void> claim_project(std::string project) override;
  Task<TaskPage> browse_tasks(std::string project, std::optional<TaskStatus> status,
                              std::string url_contains, std::string after, size_t limit) override;
  Task<ResultPage> browse_results(std::string project, std::string url_contains, std::string after,
                                  size_t limit) override;

  const std::filesystem::path& path() const noexcept;

 private:
  struct Db;
  explicit SqliteStore(std::unique_ptr<Db> db);
  std::unique_ptr<Db> db_;
};

}  // namespace squall
