// `squall run` and `squall crawl` on the stores --taskdb and --resultdb name: tasks in a real
// PostgreSQL 15, results in an SQLite file, resumed by the same command; a crawl's state in
// PostgreSQL, one crawl per database.
#include <gtest/gtest.h>

#include "cli/run_peer.h"
#include "squall/engine/engine_store.h"
#include "support/postgres_server.h"
#include "support/site.h"

namespace squall {
namespace {

using test::contains;
using test::Process;
using test::RunPeer;
using test::squall_run;
using test::TempDir;
using test::with_origin;

constexpr const char* kProject = R"(
from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/page/index?links=a,b,c", callback=self.index_page)

    def index_page(self, response):
        for each in response.doc('a[href^="http"]').items():
            self.crawl(each.attr.href, callback=self.detail_page)

    def detail_page(self, response):
        return {"url": response.url, "title": response.doc("title").text()}
)";

class RunStore : public test::PostgresTest {};

TEST_F(RunStore, AProjectKeepsItsTasksInPostgresqlAndItsResultsInAFileAndResumesFromThem) {
  RunPeer site;
  TempDir work;
  work.write("shared.py", with_origin(kProject, site.origin));
  std::string pg_url = pg().url();
  std::vector<std::string> args = {"--taskdb",  pg_url,     "--resultdb", "sqlite:///results.db",
                                   "--results", "out.jsonl"};
  test::CommandResult r = squall_run(work, "shared.py", args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(test::results_by_taskid(work.path() / "out.jsonl").size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(work.path() / "shared.db")) << "no file store was made";

  auto counts = [&]() -> Task<std::pair<int64_t, CounterValues>> {
    EngineStoreOptions keep;
    auto results = co_await open_engine_store((work.path() / "results.db").string(), keep);
    auto tasks = co_await open_engine_store(pg_url, keep);
    co_return std::make_pair(co_await results->count("shared"), co_await tasks->recount("shared"));
  };
  auto [results, tasks] = run(counts());
  EXPECT_EQ(results, 3);
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Success)], 6)
      << "on_start, the index, three pages, on_finished";

  // The same command again: the tasks in PostgreSQL say it is done, so nothing is fetched.
  test::CommandResult again = squall_run(work, "shared.py", args);
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(site.requests_for("/page/index?links=a,b,c").size(), 1u);
  EXPECT_EQ(test::results_by_taskid(work.path() / "out.jsonl").size(), 3u);
}

TEST_F(RunStore, AStoreLocationSquallDoesNotTakeIsAUsageErrorThatSaysWhatItTakes) {
  TempDir work;
  work.write("p.py", with_origin(kProject, "http://127.0.0.1:9"));
  test::CommandResult r = squall_run(work, "p.py", {"--taskdb", "mysql+taskdb://u@h/db"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "postgresql://")) << r.err;
}

class CrawlStore : public test::PostgresTest {};

TEST_F(CrawlStore, ACrawlKeepsItsStateInPostgresqlOneCrawlPerDatabase) {
  test::GeneratedSite site(30);
  TempDir work;
  std::string pg_url = pg().url();
  Process first = test::run_crawl(
      work.path(), {site.origin + "/", "--taskdb", pg_url, "--fresh", "--jsonl", "out.jsonl"});
  ASSERT_EQ(test::exit_status(first.wait(std::chrono::milliseconds(0))), 0) << first.output();
  std::vector<std::string> urls = test::jsonl_urls(work.path() / "out.jsonl");
  EXPECT_GE(urls.size(), 30u);
  EXPECT_FALSE(std::filesystem::exists(work.path() / "crawl.db")) << "no file store was made";

  Process other = test::run_crawl(work.path(), {site.origin + "/p/1.html", "--taskdb", pg_url});
  EXPECT_EQ(test::exit_status(other.wait(std::chrono::milliseconds(0))), 2) << other.output();
  EXPECT_TRUE(contains(other.output(), "belongs to another crawl")) << other.output();

  Process again =
      test::run_crawl(work.path(), {site.origin + "/", "--taskdb", pg_url, "--jsonl", "out.jsonl"});
  EXPECT_EQ(test::exit_status(again.wait(std::chrono::milliseconds(0))), 0) << again.output();
  EXPECT_TRUE(contains(again.output(), "resumed")) << again.output();
  EXPECT_EQ(test::jsonl_urls(work.path() / "out.jsonl"), urls) << "nothing was fetched twice";
}

}  // namespace
}  // namespace squall
