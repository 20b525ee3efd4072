// SqliteStore: tasks in their two orders, results upserted once, projects, and clear refusals.
#include "squall/engine/sqlite_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include <filesystem>
#include <limits>
#include <numeric>

#include "squall/core/error.h"
#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall {
namespace {

using nlohmann::json;

CrawlTask active(const std::string& url, int priority = 0, double exetime = 0) {
  CrawlTask t = CrawlTask::for_url("p", url);
  t.schedule.priority = priority;
  t.schedule.exetime = exetime;
  return t;
}

class SqliteStoreTest : public test::LoopTest {
 protected:
  // A store at `path` holding http://h/0 to http://h/99, merged into task_keys every `merge_at`
  // new tasks; and a check that an open store finds each of them.
  void store_hundred_tasks(const std::filesystem::path& path, int64_t merge_at) {
    auto store = SqliteStore::open(path);
    store->merge_keys_at(merge_at);
    for (int i = 0; i < 100; ++i) run(store->put(active("http://h/" + std::to_string(i)), i + 1));
    run(store->commit());
  }
  void expect_hundred_tasks(SqliteStore& store) {
    for (int i = 0; i < 100; ++i)
      EXPECT_TRUE(run(store.get("p", default_taskid("http://h/" + std::to_string(i))))) << i;
  }
};

TEST_F(SqliteStoreTest, ReadyTasksComeByPriorityThenSeqAfterACursor) {
  test::TempDir dir;
  auto store = SqliteStore::open(dir.path() / "s.db");
  run(store->put(active("http://h/a", 0), 1));
  run(store->put(active("http://h/b", 5), 2));
  run(store->put(active("http://h/c", 0), 3));
  run(store->put(active("http://h/later", 9, 2e9), 4));  // delayed, not ready
  CrawlTask done = active("http://h/done", 9);
  done.status = TaskStatus::Success;
  run(store->put(done, 5));
  auto page = run(store->ready("p", std::nullopt, 2));
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0].task.url, "http://h/b");
  EXPECT_EQ(page[1].task.url, "http://h/a");
  auto rest = run(store->ready("p", page[1].ready_key(), 10));
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].task.url, "http://h/c");
  auto delayed = run(store->delayed("p", std::nullopt, 10));
  ASSERT_EQ(delayed.size(), 1u);
  EXPECT_EQ(delayed[0].task.url, "http://h/later");
  EXPECT_EQ(run(store->last_seq()), 5);
  EXPECT_TRUE(run(store->ready("other", std::nullopt, 10)).empty());
}

TEST_F(SqliteStoreTest, ATaskRoundTripsWithItsDictsAndSurvivesReopening) {
  test::TempDir dir;
  CrawlTask t = active("http://h/a", 3);
  t.fetch = json{{"method", "POST"}, {"headers", {{"X-A", "1"}}}, {"save", {1, 2, 3}}};
  t.process = json{{"callback", "detail_page"}};
  t.track = JsonText(json{{"fetch", {{"status_code", 200}}}});
  t.schedule.itag = "v1";
  t.schedule.age = 60;
  {
    auto store = SqliteStore::open(dir.path() / "s.db");
    run(store->put(t, 7));
    run(store->commit());
  }
  auto store = SqliteStore::open(dir.path() / "s.db");
  auto back = run(store->get("p", t.taskid));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->to_json(), t.to_json());
  EXPECT_FALSE(run(store->get("p", "nope")));
  EXPECT_FALSE(run(store->get("unknown project", t.taskid)));
  // New tasks continue after the last seq stored, which a reopened store still knows.
  EXPECT_EQ(run(store->last_seq()), 7);
}

TEST_F(SqliteStoreTest, AnOutcomeReachesItsTaskAfterTheTaskWasStoredAnew) {
  // ready() remembers where each task it hands out lives, and update() goes there; a task
  // stored again since (a cancel, a restart) lives elsewhere, and must still be found.
  test::TempDir dir;
  auto store = SqliteStore::open(dir.path() / "s.db");
  run(store->put(active("http://h/a"), 1));
  run(store->put(active("http://h/b"), 2));
  auto handed = run(store->ready("p", std::nullopt, 10));
  ASSERT_EQ(handed.size(), 2u);
  run(store->put(handed[0].task, 3));
  CrawlTask a = handed[0].task;
  a.status = TaskStatus::Success;
  a.track = JsonText(json{{"process", {{"ok", true}}}});
  run(store->update(a, 3));
  CrawlTask b = handed[1].task;
  b.status = TaskStatus::Failed;
  run(store->update(b, 2));
  run(store->commit());
  auto back_a = run(store->get("p", a.taskid));
  ASSERT_TRUE(back_a);
  EXPECT_EQ(back_a->status, TaskStatus::Success);
  EXPECT_EQ(back_a->track, a.track);
  auto back_b = run(store->get("p", b.taskid));
  ASSERT_TRUE(back_b);
  EXPECT_EQ(back_b->status, TaskStatus::Failed);
  EXPECT_TRUE(run(store->ready("p", std::nullopt, 10)).empty());
}

TEST_F(SqliteStoreTest, TwoTaskidsThatShareAKeyAreStoredFoundAndUpdatedApart) {
  // A hex taskid is found by its first 64 bits: these two share them.
  test::TempDir dir;
  CrawlTask a = active("http://h/a");
  a.taskid = "0123456789abcdef0000000000000000";
  CrawlTask b = active("http://h/b");
  b.taskid = "0123456789abcdefffffffffffffffff";
  {
    auto store = SqliteStore::open(dir.path() / "s.db");
    run(store->put(a, 1));
    run(store->put(b, 2));
    // Storing one again replaces it alone.
    a.schedule.priority = 4;
    run(store->put(a, 3));
    run(store->commit());
  }
  auto store = SqliteStore::open(dir.path() / "s.db");
  auto back_a = run(store->get("p", a.taskid));
  auto back_b = run(store->get("p", b.taskid));
  ASSERT_TRUE(back_a && back_b);
  EXPECT_EQ(back_a->url, "http://h/a");
  EXPECT_EQ(back_a->schedule.priority, 4);
  EXPECT_EQ(back_b->url, "http://h/b");
  EXPECT_FALSE(run(store->get("p", "0123456789abcdef1111111111111111")));
  EXPECT_EQ(run(store->recount("p"))[static_cast<size_t>(CounterKind::Pending)], 2);
  // An outcome by taskid (the store did not hand the task out) reaches its own task only.
  b.status = TaskStatus::Success;
  run(store->update(b, 5));
  EXPECT_EQ(run(store->get("p", b.taskid))->status, TaskStatus::Success);
  EXPECT_EQ(run(store->get("p", a.taskid))->status, TaskStatus::Active);
  auto ready = run(store->ready("p", std::nullopt, 10));
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].task.taskid, a.taskid);
}

// The rows whose keys a merge moved into task_keys, as a condition on tasks.
const std::string merged_rows =
    "rowid <= (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'task keys merged')";

// The number of rows of a table of the store's file.
int64_t rows_of(const std::filesystem::path& path, const std::string& table) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, ("SELECT count(*) FROM " + table).c_str(), -1, &s, nullptr) ==
          SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW)
    n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return n;
}

void exec_on(const std::filesystem::path& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST_F(SqliteStoreTest, TasksAreFoundReplacedAndUpdatedWhicheverLevelTheirKeysAreIn) {
  test::TempDir dir;
  auto path = dir.path() / "s.db";
  constexpr int kTasks = 1000;
  auto url_of = [](int i) { return "http://h/" + std::to_string(i); };
  // Two taskids that share a key, stored before and after merges.
  CrawlTask early = active("http://h/early");
  early.taskid = "0123456789abcdef0000000000000000";
  CrawlTask late = active("http://h/late");
  late.taskid = "0123456789abcdefffffffffffffffff";
  {
    auto store = SqliteStore::open(path);
    store->merge_keys_at(64);
    run(store->insert(early, 0));
    for (int i = 0; i < kTasks; ++i) {
      if (i % 2)
        run(store->put(active(url_of(i)), i + 1));
      else
        run(store->insert(active(url_of(i)), i + 1));
      if (i % 10 == 9) run(store->commit());
    }
    run(store->insert(late, kTasks + 1));
    // Stored again (a restart): the same row, whatever level holds its key.
    for (int i = 0; i < kTasks; i += 3) {
      CrawlTask again = active(url_of(i), 2);
      run(store->put(again, kTasks + 2 + i));
    }
    // Outcomes by taskid: the store did not hand these tasks out.
    for (int i = 0; i < kTasks; i += 5) {
      CrawlTask done = active(url_of(i), i % 3 == 0 ? 2 : 0);
      done.status = TaskStatus::Success;
      run(store->update(done, 0));
    }
    run(store->commit());
  }
  // Merges happened: every row up to the last merge has its key in task_keys, once, and fewer
  // than a merge's worth of rows came after it (their keys are read back from them).
  EXPECT_GT(rows_of(path, "task_keys"), 0);
  EXPECT_EQ(rows_of(path, "task_keys"), rows_of(path, "tasks WHERE " + merged_rows));
  EXPECT_LT(rows_of(path, "tasks WHERE NOT " + merged_rows), 64);
  auto store = SqliteStore::open(path);
  for (int i = 0; i < kTasks; ++i) {
    auto back = run(store->get("p", default_taskid(url_of(i))));
    ASSERT_TRUE(back) << url_of(i);
    EXPECT_EQ(back->url, url_of(i));
    EXPECT_EQ(back->schedule.priority, i % 3 == 0 ? 2 : 0) << url_of(i);
    EXPECT_EQ(back->status, i % 5 == 0 ? TaskStatus::Success : TaskStatus::Active) << url_of(i);
  }
  EXPECT_EQ(run(store->get("p", early.taskid))->url, "http://h/early");
  EXPECT_EQ(run(store->get("p", late.taskid))->url, "http://h/late");
  EXPECT_FALSE(run(store->get("p", default_taskid("http://h/none"))));
  CounterValues v = run(store->recount("p"));
  EXPECT_EQ(v[static_cast<size_t>(CounterKind::Success)], kTasks / 5);
  EXPECT_EQ(v[static_cast<size_t>(CounterKind::Pending)], kTasks - kTasks / 5 + 2);
  // A replaced task kept its row: the table's order is still the order of first storing.
  std::vector<std::string> ids;
  run(store->each_taskid("p", [&](const std::string& id) { ids.push_back(id); }));
  ASSERT_EQ(ids.size(), static_cast<size_t>(kTasks + 2));
  EXPECT_EQ(ids.front(), early.taskid);
  for (int i = 0; i < kTasks; ++i)
    EXPECT_EQ(ids[static_cast<size_t>(i) + 1], default_taskid(url_of(i)));
  EXPECT_EQ(ids.back(), late.taskid);
}

// New tasks are held and written several to an INSERT; held or written, they are found, read
// in dispatch order, updated and kept in the order they were stored, and closing the store
// writes those still held, as it commits the rest.
TEST_F(SqliteStoreTest, NewTasksWrittenSeveralToAStatementAreFoundReadAndKeptInOrder) {
  test::TempDir dir;
  auto path = dir.path() / "s.db";
  auto url_of = [](int i) { return "http://h/" + std::to_string(i); };
  constexpr int kTasks = 77;  // two whole statements' worth, then 13 held
  {
    auto store = SqliteStore::open(path);
    for (int i = 0; i < kTasks; ++i) run(store->insert(active(url_of(i), i % 3), i + 1));
    auto last = run(store->get("p", default_taskid(url_of(kTasks - 1))));
    ASSERT_TRUE(last);
    EXPECT_EQ(last->schedule.priority, (kTasks - 1) % 3);
    for (int i = kTasks; i < kTasks + 5; ++i) run(store->insert(active(url_of(i)), i + 1));
    auto ready = run(store->ready("p", std::nullopt, 1000));
    ASSERT_EQ(ready.size(), static_cast<size_t>(kTasks + 5));
    std::vector<int> order(kTasks + 5);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [](int a, int b) {
      return (a < kTasks ? a % 3 : 0) > (b < kTasks ? b % 3 : 0);
    });
    for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(ready[i].task.url, url_of(order[i])) << i;
    CrawlTask done = active(url_of(kTasks + 4));
    done.status = TaskStatus::Success;
    run(store->update(done, 0));
    run(store->commit());
    for (int i = kTasks + 5; i < kTasks + 8; ++i) run(store->insert(active(url_of(i)), i + 1));
  }
  auto store = SqliteStore::open(path);
  std::vector<std::string> ids;
  run(store->each_taskid("p", [&](const std::string& id) { ids.push_back(id); }));
  ASSERT_EQ(ids.size(), static_cast<size_t>(kTasks + 8));
  for (int i = 0; i < kTasks + 8; ++i)
    EXPECT_EQ(ids[static_cast<size_t>(i)], default_taskid(url_of(i)));
  CounterValues v = run(store->recount("p"));
  EXPECT_EQ(v[static_cast<size_t>(CounterKind::Success)], 1);
  EXPECT_EQ(v[static_cast<size_t>(CounterKind::Pending)], kTasks + 7);
  EXPECT_EQ(run(store->last_seq()), kTasks + 8);
  // A new task after reopening takes the row after the last one.
  run(store->insert(active("http://h/new"), kTasks + 9));
  ids.clear();
  run(store->each_taskid("p", [&](const std::string& id) { ids.push_back(id); }));
  EXPECT_EQ(ids.back(), default_taskid("http://h/new"));
}

// One URL in two projects is two tasks with one taskid: each project finds and replaces its
// own, before and after the merges, and once the store is opened again.
TEST_F(SqliteStoreTest, OneTaskidInTwoProjectsIsTwoTasksWhicheverLevelHoldsThem) {
  test::TempDir dir;
  auto path = dir.path() / "s.db";
  auto in = [](const std::string& project, int i, int priority = 0) {
    CrawlTask t = CrawlTask::for_url(project, "http://h/" + std::to_string(i));
    t.schedule.priority = priority;
    return t;
  };
  auto check = [&](SqliteStore& store) {
    for (int i = 0; i < 300; ++i) {
      auto p = run(store.get("p", in("p", i).taskid));
      auto q = run(store.get("q", in("q", i).taskid));
      ASSERT_TRUE(p && q) << i;
      EXPECT_EQ(p->project, "p");
      EXPECT_EQ(p->schedule.priority, i % 7 == 0 ? 1 : 0) << i;
      EXPECT_EQ(q->schedule.priority, i % 5 == 0 ? 2 : 0) << i;
    }
  };
  {
    auto store = SqliteStore::open(path);
    store->merge_keys_at(64);
    for (int i = 0; i < 300; ++i) {
      run(store->insert(in("p", i), 2 * i + 1));
      run(store->insert(in("q", i), 2 * i + 2));
      if (i % 20 == 19) run(store->commit());
    }
    for (int i = 0; i < 300; i += 7) run(store->put(in("p", i, 1), 1000 + i));
    for (int i = 0; i < 300; i += 5) run(store->put(in("q", i, 2), 2000 + i));
    run(store->commit());
    check(*store);
  }
  auto store = SqliteStore::open(path);
  check(*store);
  EXPECT_EQ(run(store->recount("p"))[static_cast<size_t>(CounterKind::Pending)], 300);
  EXPECT_EQ(run(store->recount("q"))[static_cast<size_t>(CounterKind::Pending)], 300);
}

TEST_F(SqliteStoreTest, AStoreWhoseKeysWereOneIndexIsBroughtToTwoLevelsWhenOpened) {
  test::TempDir dir;
  auto path = dir.path() / "s.db";
  store_hundred_tasks(path, 1000);  // no merge: every key stays in the recent level
  // What the layout before (version 3) looked like: the same tasks, their keys in one index.
  exec_on(path,
          "CREATE INDEX tasks_key ON tasks(project, key); DROP TABLE task_keys; "
          "PRAGMA user_version = 3");
  {
    auto store = SqliteStore::open(path);
    expect_hundred_tasks(*store);
    // Stored again, a task replaces its row rather than adding one.
    run(store->put(active("http://h/7", 3), 200));
    run(store->put(active("http://h/new"), 201));
    run(store->commit());
    EXPECT_EQ(run(store->recount("p"))[static_cast<size_t>(CounterKind::Pending)], 101);
    EXPECT_EQ(run(store->get("p", default_taskid("http://h/7")))->schedule.priority, 3);
  }
  EXPECT_EQ(rows_of(path, "task_keys"), 100);
  EXPECT_EQ(rows_of(path, "tasks WHERE " + merged_rows), 100);
  EXPECT_EQ(rows_of(path, "sqlite_master WHERE name = 'tasks_key'"), 0);
  EXPECT_EQ(rows_of(path, "pragma_user_version WHERE user_version = 5"), 1);
}

TEST_F(SqliteStoreTest, AStoreWhoseRecentKeysWereATableHasThemMergedWhenOpened) {
  test::TempDir dir;
  auto path = dir.path() / "s.db";
  store_hundred_tasks(path, 1);
  ASSERT_EQ(rows_of(path, "task_keys"), 100);
  // What layout 4 looked like: the keys of the rows after the last merge in task_keys_recent.
  exec_on(path,
          "CREATE TABLE task_keys_recent (project INTEGER NOT NULL, key INTEGER NOT NULL, "
          "row INTEGER NOT NULL, PRIMARY KEY (project, key, row)) WITHOUT ROWID; "
          "INSERT INTO task_keys_recent SELECT * FROM task_keys WHERE row > 60; "
          "DELETE FROM task_keys WHERE row > 60; DELETE FROM meta WHERE key = 'task keys merged'; "
          "PRAGMA user_version = 4");
  {
    auto store = SqliteStore::open(path);
    expect_hundred_tasks(*store);
    run(store->put(active("http://h/80", 3), 200));
    run(store->commit());
    EXPECT_EQ(run(store->recount("p"))[static_cast<size_t>(CounterKind::Pending)], 100);
  }
  EXPECT_EQ(rows_of(path, "task_keys"), 100);
  EXPECT_EQ(rows_of(path, "tasks WHERE " + merged_rows), 100);
  EXPECT_EQ(rows_of(path, "sqlite_master WHERE name = 'task_keys_recent'"), 0);
  EXPECT_EQ(rows_of(path, "pragma_user_version WHERE user_version = 5"), 1);
}

TEST_F(SqliteStoreTest, ATaskidThatIsNotAnMd5IsStoredAndFoundToo) {
  test::TempDir dir;
  auto store = SqliteStore::open(dir.path() / "s.db");
  CrawlTask a = active("http://h/a");
  a.taskid = "my-own-id";
  CrawlTask b = active("http://h/b");
  b.taskid = "0123456789abcdef000000000000000g";  // 32 characters, not all hex
  run(store->put(a, 1));
  run(store->put(b, 2));
  EXPECT_EQ(run(store->get("p", "my-own-id"))->url, "http://h/a");
  EXPECT_EQ(run(store->get("p", b.taskid))->url, "http://h/b");
  EXPECT_FALSE(run(store->get("p", "my-own-id2")));
  std::vector<std::string> ids;
  run(store->each_taskid("p", [&](const std::string& id) { ids.push_back(id); }));
  EXPECT_EQ(ids, (std::vector<std::string>{a.taskid, b.taskid}));
}

TEST_F(SqliteStoreTest, ASeqNotCommittedIsNotRemembered) {
  test::TempDir dir;
  {
    auto store = SqliteStore::open(dir.path() / "s.db");
    run(store->put(active("http://h/a"), 3));
    run(store->commit());
    run(store->update(active("http://h/a"), 9));
    run(store->put(active("http://h/b"), 10));
    // What a kill -9 here leaves on disk (destruction would commit): the update and the put
    // were never committed.
    std::filesystem::copy_file(dir.path() / "s.db", dir.path() / "copy.db");
    if (std::filesystem::exists(dir.path() / "s.db-wal"))
      std::filesystem::copy_file(dir.path() / "s.db-wal", dir.path() / "copy.db-wal");
  }
  auto copy = SqliteStore::open(dir.path() / "copy.db");
  EXPECT_EQ(run(copy->last_seq()), 3);
  EXPECT_TRUE(run(copy->get("p", default_taskid("http://h/a"))));
  EXPECT_FALSE(run(copy->get("p", default_taskid("http://h/b"))));
}

TEST_F(SqliteStoreTest, AnSqliteFileOfAnotherLayoutIsRefusedSayingWhatToDo) {
  test::TempDir dir;
  auto path = dir.path() / "crawl.db";
  {
    // squall crawl's state file, say: SQLite, but not an engine store.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(db, "CREATE TABLE urls (url TEXT PRIMARY KEY)", nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(db);
  }
  try {
    SqliteStore::open(path);
    FAIL() << "opened a file of another layout";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("give another file"), std::string::npos) << e.what();
  }
  // Starting over in it is what the message offers.
  auto fresh = SqliteStore::open(path, true);
  EXPECT_EQ(run(fresh->last_seq()), 0);
}

TEST_F(SqliteStoreTest, AStoreOfTheLayoutBeforeTaskKeysIsRefusedSayingWhatToDo) {
  test::TempDir dir;
  auto path = dir.path() / "old.db";
  {
    // Layout 2 found tasks by their (project, taskid) primary key.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE tasks (project INTEGER NOT NULL, taskid TEXT NOT NULL, "
                           "PRIMARY KEY (project, taskid)); PRAGMA user_version = 2",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  try {
    SqliteStore::open(path);
    FAIL() << "opened a store of an older layout";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("(version 2)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("start over in it (fresh)"), std::string::npos)
        << e.what();
  }
  auto fresh = SqliteStore::open(path, true);
  run(fresh->put(active("http://h/a"), 1));
  EXPECT_TRUE(run(fresh->get("p", default_taskid("http://h/a"))));
}

TEST_F(SqliteStoreTest, AResultUpsertedTwiceIsStoredOnceAndKeepsItsFirstPlace) {
  test::TempDir dir;
  auto store = SqliteStore::open(dir.path() / "s.db");
  TaskResult a{"ta", "http://h/a", json{{"title", "A"}}, 1};
  TaskResult b{"tb", "http://h/b", json{{"title", "B"}}, 2};
  run(store->upsert("p", a));
  run(store->upsert("p", b));
  a.result = json{{"title", "A2"}};
  run(store->upsert("p", a));
  EXPECT_EQ(run(store->count("p")), 2);
  auto all = run(store->results("p", 0, 10));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].taskid, "ta");
  EXPECT_EQ(all[0].result["title"], "A2");
  EXPECT_EQ(all[1].to_json(), (json{{"taskid", "tb"},
                                    {"url", "http://h/b"},
                                    {"result", {{"title", "B"}}},
                                    {"updatetime", 2.0}}));
  EXPECT_EQ(run(store->results("p", 1, 10)).size(), 1u);
}

TEST_F(SqliteStoreTest, ProjectsRoundTripWithAnUnlimitedRate) {
  test::TempDir dir;
  auto store = SqliteStore::open(dir.path() / "s.db");
  ProjectInfo p;
  p.name = "crawl";
  p.status = ProjectStatus::Running;
  p.rate = std::numeric_limits<double>::infinity();
  p.burst = std::numeric_limits<double>::infinity();
  p.script = "class Handler: pass";
  run(store->put_project(p));
  auto back = run(store->project("crawl"));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, ProjectStatus::Running);
  EXPECT_EQ(back->rate, std::numeric_limits<double>::infinity());
  EXPECT_EQ(back->script, p.script);
  EXPECT_FALSE(run(store->project("none")));
  EXPECT_EQ(run(store->projects()).size(), 1u);
}

TEST_F(SqliteStoreTest, AFileThatIsNotSqliteIsRefusedSayingSo) {
  test::TempDir dir;
  auto path = dir.write("tasks.db", std::string(4096, 'x'));
  try {
    SqliteStore::open(path);
    FAIL() << "opened a file that is not a database";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a database"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST_F(SqliteStoreTest, AStoreHeldByAnotherProcessIsRefusedAtOnce) {
  test::TempDir dir;
  auto path = dir.path() / "s.db";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  if (child == 0) {
    auto held = SqliteStore::open(path);
    char c = 1;
    (void)!write(ready[1], &c, 1);
    pause();
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  try {
    SqliteStore::open(path);
    ADD_FAILURE() << "a second process opened a held store";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidState);
    EXPECT_NE(std::string(e.what()).find("in use by another process"), std::string::npos);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  EXPECT_NO_THROW(SqliteStore::open(path));  // the lock went with the process
}

}  // namespace
}  // namespace squall
