// EngineStore: everything an engine keeps (tasks, projects, counters, results), in one database
// named by a location, with pages for the control plane to browse.
//
//   std::unique_ptr<EngineStore> store = co_await open_engine_store("crawl.db");
//   std::unique_ptr<EngineStore> shared = co_await open_engine_store("postgresql://db/crawl");
//   EngineStore::TaskPage page = co_await store->browse_tasks("proj", {}, "", "", 50);
//
// Locations, as pyspider's --taskdb and --resultdb take them (SQLAlchemy's URL forms):
// - a file path, or sqlite:///relative/path and sqlite:////absolute/path: SqliteStore, one file
//   that no other process may hold;
// - postgresql://user:pw@host:port/db or postgres://...: PgStore, which several processes and
//   machines share.
// pyspider's "+taskdb", "+resultdb" and "+projectdb" after the scheme (sqlite+taskdb:///t.db)
// are accepted and mean nothing more. Another scheme (mysql, mongodb, sqlite with no path, which
// is in memory in pyspider) is refused with an InvalidArgumentError saying what squall takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/core/task.h"
#include "squall/engine/project_store.h"
#include "squall/engine/result_store.h"
#include "squall/engine/task_store.h"

namespace squall {

class EngineStore : public TaskStore, public ProjectStore, public ResultStore {
 public:
  // Where the store is, for messages: its file's path, or postgresql://host:port/db (never a
  // password).
  virtual std::string describe() const = 0;

  // Makes this store's engine the only one that runs `project` on it: another engine claiming
  // the project while this one holds it is refused with an InvalidArgumentError that says so.
  // An SQLite store does nothing (its file is one process's already); a PostgreSQL store takes
  // a session lock, released when its connection ends (a process killed included).
  virtual Task<void> claim_project(std::string project) = 0;

  // Browsing: a page at a time after a cursor ("": from the start), in an order the store keeps
  // by index (SQLite: the order rows were stored; PostgreSQL: tasks by taskid, results in stored
  // order). A filter (a status; text the URL contains) never makes a page read more than
  // kBrowseScan rows: a page may come short, with `next` set to go on from where it stopped.
  // `next` is "" once nothing is left. Cursors are the store's own: give back what it returned.
  static constexpr size_t kBrowseScan = 20'000;
  struct TaskPage {
    std::vector<CrawlTask> tasks;
    std::string next;
  };
  virtual Task<TaskPage> browse_tasks(std::string project, std::optional<TaskStatus> status,
                                      std::string url_contains, std::string after,
                                      size_t limit) = 0;
  struct ResultPage {
    std::vector<TaskResult> results;
    std::string next;
  };
  virtual Task<ResultPage> browse_results(std::string project, std::string url_contains,
                                          std::string after, size_t limit) = 0;
};

// A browsing cursor that is a row number, as both stores use for some orders ("" is 0).
// InvalidArgumentError for anything else: a cursor the store did not return.
int64_t row_cursor(std::string_view cursor);

struct EngineStoreOptions {
  // Drop what the store held (its tables, or the file's contents) and start empty.
  bool start_over = false;
  // What errors call it before its location ("engine store crawl.db").
  std::string label = "engine store";
  // SQLite's page cache (SqliteStore::open).
  size_t cache_mib = 64;
};

// True when `location` names a store shared through a server (postgresql://), which several
// processes may open at once; false for a file.
bool is_shared_store(std::string_view location);

// Opens the store at `location` (above). Throws InvalidArgumentError for a location squall does
// not take, and what SqliteStore::open or PgStore::open throw.
Task<std::unique_ptr<EngineStore>> open_engine_store(std::string location,
                                                     EngineStoreOptions options);

}  // namespace squall
