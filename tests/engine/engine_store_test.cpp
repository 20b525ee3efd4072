// EngineStore: the locations --taskdb and --resultdb take, browsing a page at a time in both
// stores, one engine per project on a shared PostgreSQL store, and an engine run whose tasks are
// in PostgreSQL and whose results are in an SQLite file.
#include "squall/engine/engine_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "squall/core/error.h"
#include "squall/engine/engine.h"
#include "squall/engine/pg_store.h"
#include "squall/engine/sqlite_store.h"
#include "squall/http/server.h"
#include "support/loop_fixture.h"
#include "support/postgres_server.h"

namespace squall {
namespace {

using nlohmann::json;

class EngineStoreTest : public test::LoopTest {
 protected:
  std::unique_ptr<EngineStore> open(const std::string& location) {
    EngineStoreOptions o;
    return run(open_engine_store(location, o));
  }
  test::TempDir dir_;
};

TEST_F(EngineStoreTest, AFileOrAnSqliteUrlInSqlAlchemysFormsOpensAnSqliteStoreThere) {
  std::string file = (dir_.path() / "plain.db").string();
  auto plain = open(file);
  EXPECT_NE(dynamic_cast<SqliteStore*>(plain.get()), nullptr);
  EXPECT_EQ(plain->describe(), file);
  // Four slashes: an absolute path (the fourth is the path's own).
  std::string absolute = (dir_.path() / "abs.db").string();
  auto by_url = open("sqlite://" + std::string("/") + absolute);
  EXPECT_EQ(by_url->describe(), absolute);
  EXPECT_TRUE(std::filesystem::exists(absolute));
  by_url.reset();  // the file is one process's, one store's, at a time
  auto pyspider_form = open("sqlite+taskdb:///" + absolute);
  EXPECT_EQ(pyspider_form->describe(), absolute);
  EXPECT_FALSE(is_shared_store(file));
  EXPECT_FALSE(is_shared_store("sqlite+resultdb:///r.db"));
  EXPECT_TRUE(is_shared_store("postgresql://u@h/db"));
  EXPECT_TRUE(is_shared_store("postgres+taskdb://u@h/db"));
}

TEST_F(EngineStoreTest, ALocationSquallDoesNotTakeIsRefusedSayingWhatItTakes) {
  for (const char* bad : {"mysql+taskdb://u@h/db", "mongodb://h/db", "sqlite://",
                          "sqlite+taskdb://", "sqlite://host/db", "sqlite+cache:///x.db", ""}) {
    try {
      open(bad);
      ADD_FAILURE() << bad << " was taken";
    } catch (const InvalidArgumentError& e) {
      EXPECT_FALSE(std::string(e.what()).empty()) << bad;
    }
  }
  try {
    open("mysql://u@h/db");
    ADD_FAILURE();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("postgresql://"), std::string::npos) << e.what();
  }
}

// Browsing's contract, the same for both stores: pages after a cursor, filters inside a bounded
// window, a foreign cursor refused.
Task<void> check_browsing(EngineStore& store) {
  for (int i = 0; i < 25; ++i) {
    CrawlTask t = CrawlTask::for_url("p", "http://h/" + std::to_string(i));
    if (i % 5 == 0) t.status = TaskStatus::Failed;
    co_await store.put(t, i + 1);
    TaskResult r{t.taskid, t.url, json{{"i", i}}, 1.0 * i};
    co_await store.upsert("p", r);
  }
  co_await store.put(CrawlTask::for_url("other", "http://h/x"), 26);
  co_await store.commit();

  std::set<std::string> seen;
  std::string after;
  int pages = 0;
  do {
    EngineStore::TaskPage page = co_await store.browse_tasks("p", std::nullopt, "", after, 10);
    for (const CrawlTask& t : page.tasks) {
      EXPECT_EQ(t.project, "p");
      EXPECT_TRUE(seen.insert(t.taskid).second) << t.url << " came twice";
    }
    after = page.next;
    ++pages;
  } while (!after.empty() && pages < 10);
  EXPECT_EQ(seen.size(), 25u);
  EXPECT_EQ(pages, 3);

  EngineStore::TaskPage failed = co_await store.browse_tasks("p", TaskStatus::Failed, "", "", 100);
  EXPECT_EQ(failed.tasks.size(), 5u);
  EXPECT_TRUE(failed.next.empty());
  EngineStore::TaskPage search = co_await store.browse_tasks("p", std::nullopt, "h/1", "", 100);
  EXPECT_EQ(search.tasks.size(), 11u);  // 1 and 10..19

  EngineStore::ResultPage first = co_await store.browse_results("p", "", "", 20);
  EXPECT_EQ(first.results.size(), 20u);
  EXPECT_EQ(first.results.front().result["i"], 0) << "results come in stored order";
  EngineStore::ResultPage second = co_await store.browse_results("p", "", first.next, 20);
  EXPECT_EQ(second.results.size(), 5u);
  EXPECT_TRUE(second.next.empty());
  EXPECT_EQ(second.results.back().result["i"], 24);
  bool refused = false;
  try {
    co_await store.browse_results("p", "", "not-a-cursor", 20);
  } catch (const InvalidArgumentError&) {
    refused = true;
  }
  EXPECT_TRUE(refused);
}

TEST_F(EngineStoreTest, AnSqliteStoreIsBrowsedAPageAtATime) {
  auto store = open((dir_.path() / "browse.db").string());
  run(check_browsing(*store));
}

class EngineStorePgTest : public test::PostgresTest {
 protected:
  std::unique_ptr<EngineStore> open(const std::string& location, bool start_over = true) {
    EngineStoreOptions o;
    o.start_over = start_over;
    return run(open_engine_store(location, o));
  }
  test::TempDir dir_;
};

TEST_F(EngineStorePgTest, APostgresqlUrlOpensAPgStoreBrowsedAPageAtATime) {
  std::string url = pg().url();
  auto store = open("postgresql+taskdb://" + url.substr(url.find("://") + 3));
  ASSERT_NE(dynamic_cast<PgStore*>(store.get()), nullptr);
  EXPECT_EQ(store->describe().find("p@ss"), std::string::npos) << "no password in messages";
  run(check_browsing(*store));
}

TEST_F(EngineStorePgTest, OneEngineAtATimeRunsAProjectOnASharedStore) {
  auto first = open(pg().url());
  run(first->claim_project("p"));
  run(first->claim_project("p"));  // its own claim again: still its
  auto second = open(pg().url(), false);
  run(second->claim_project("q"));
  try {
    run(second->claim_project("p"));
    ADD_FAILURE() << "a second engine claimed the project";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("being run by another process"), std::string::npos)
        << e.what();
  }
  first.reset();  // its connection ends, and the claim with it
  run(second->claim_project("p"));
}

// /p/0 ... /p/19, each linking to the next two.
Task<void> chain_site(http::ServerRequest& request, http::ServerResponse& response) {
  std::string path(request.path());
  if (!path.starts_with("/p/")) {
    response.set_status(404);
    co_return;
  }
  int n = std::stoi(path.substr(3));
  std::string body = "<title>" + std::to_string(n) + "</title>";
  for (int next : {n + 1, n + 2})
    if (next < 20) body += "<a href=/p/" + std::to_string(next) + ">n</a>";
  response.headers().set("Content-Type", "text/html");
  co_await response.write(body);
}

class ChainSpider : public Handler {
 public:
  explicit ChainSpider(std::string origin) : Handler("chain"), origin_(std::move(origin)) {
    callback("page", [this](Response& r) -> std::optional<json> {
      for (const std::string& link : r.links()) crawl(link, {{"callback", "page"}});
      return json{{"url", r.url}};
    });
  }
  void on_start() override { crawl(origin_ + "/p/0", {{"callback", "page"}}); }

 private:
  std::string origin_;
};

TEST_F(EngineStorePgTest, AnEngineKeepsItsTasksInPostgresqlAndItsResultsInAnotherStore) {
  auto body = [&]() -> Task<void> {
    http::HttpServer server(chain_site);
    server.listen(Address::parse("127.0.0.1:0"));
    std::string origin = "http://127.0.0.1:" + std::to_string(server.port());
    ChainSpider spider(origin);
    EngineOptions o;
    o.store = pg().url();
    o.result_store = (dir_.path() / "results.db").string();
    o.jsonl = dir_.path() / "results.jsonl";
    o.fresh = true;
    o.commit_interval = 0.05;
    o.hosts.obey_robots = false;
    {
      Engine engine(o);
      engine.add_project(spider);
      EngineSummary summary = co_await engine.run();
      EXPECT_EQ(summary.results, 20u);
      EXPECT_NE(dynamic_cast<PgStore*>(engine.store()), nullptr);
      EXPECT_NE(dynamic_cast<SqliteStore*>(engine.result_store()), nullptr);
      EXPECT_EQ(co_await engine.store()->count("chain"), 0) << "no result in the task store";
    }
    EngineStoreOptions keep;
    auto tasks = co_await open_engine_store(pg().url(), keep);
    CounterValues v = co_await tasks->recount("chain");
    EXPECT_EQ(v[static_cast<size_t>(CounterKind::Success)], 22)
        << "20 pages, on_start, on_finished";
    auto results = co_await open_engine_store(o.result_store, keep);
    EXPECT_EQ(co_await results->count("chain"), 20);
    // The export's size is kept with the tasks, committed after the results.
    std::string key = "export " + o.jsonl.string();
    std::optional<std::string> size = co_await tasks->meta(key);
    EXPECT_EQ(size, std::to_string(std::filesystem::file_size(o.jsonl)));
    EXPECT_FALSE(co_await results->meta(key));
  };
  run(body());
}

}  // namespace
}  // namespace squall
