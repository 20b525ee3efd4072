// The engine split over processes: a project crawled by 1 scheduler, 3 fetchers, 2 processors
// and 1 result worker, each its own `squall` process, joined by a real redis-server and a real
// PostgreSQL 15, gives the same results as `squall run` in one process.
#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "cli/run_peer.h"
#include "squall/engine/engine_store.h"
#include "support/postgres_server.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::contains;
using test::Process;
using test::RunPeer;
using test::TempDir;
using test::with_origin;

constexpr const char* kProject = R"(
from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/page/index?links=a,b,c,d,e,f", callback=self.index_page)

    def index_page(self, response):
        for each in response.doc('a[href^="http"]').items():
            self.crawl(each.attr.href, callback=self.detail_page)

    def detail_page(self, response):
        return {"url": response.url, "title": response.doc("title").text()}
)";

class Cluster : public test::PostgresTest {};

// The results of a JSON lines export, by taskid, without their updatetime.
std::map<std::string, nlohmann::json> results_of(const std::filesystem::path& path) {
  auto lines = test::results_by_taskid(path);
  for (auto& [taskid, line] : lines) line.erase("updatetime");
  return lines;
}

TEST_F(Cluster, SevenProcessesOverRedisAndPostgresqlGiveTheResultsOfOneSquallRun) {
  RunPeer site;
  TempDir work;
  work.write("shop.py", with_origin(kProject, site.origin));
  test::RedisServer redis;
  std::string r = redis.url(0);
  std::string db = pg().url();
  std::vector<std::string> common = {"--redis", r, "--namespace", "shop", "--lease", "2"};
  auto start = [&](std::vector<std::string> argv) {
    argv.insert(argv.begin(), test::squall_binary());
    argv.insert(argv.end(), common.begin(), common.end());
    return Process::start(argv, work.path());
  };
  std::vector<Process> others;
  for (int i = 0; i < 3; ++i) others.push_back(start({"fetcher", "-c", "4"}));
  for (int i = 0; i < 2; ++i) others.push_back(start({"processor", "shop.py"}));
  others.push_back(start({"result-worker", "--taskdb", db, "--results", "cluster.jsonl"}));
  Process scheduler = start({"scheduler", "shop.py", "--taskdb", db, "--fresh"});

  int status = scheduler.wait(120s);
  ASSERT_EQ(test::exit_status(status), 0) << scheduler.output();
  EXPECT_TRUE(contains(scheduler.output(), "squall scheduler: done")) << scheduler.output();
  for (Process& p : others) {
    EXPECT_EQ(test::exit_status(p.wait(60s)), 0) << p.output();
    EXPECT_TRUE(contains(p.output(), ": done after")) << p.output();
  }

  test::CommandResult one = test::squall_run(work, "shop.py", {"--results", "one.jsonl"});
  ASSERT_EQ(one.status, 0) << one.err;
  auto expected = results_of(work.path() / "one.jsonl");
  ASSERT_EQ(expected.size(), 6u);
  EXPECT_EQ(results_of(work.path() / "cluster.jsonl"), expected);

  // Every page was fetched once by the cluster and once by squall run.
  for (const std::string page : {"/page/index?links=a,b,c,d,e,f", "/page/a", "/page/f"})
    EXPECT_EQ(site.requests_for(page).size(), 2u) << page;

  auto stored = [&]() -> Task<std::pair<int64_t, CounterValues>> {
    EngineStoreOptions keep;
    auto store = co_await open_engine_store(db, keep);
    co_return std::make_pair(co_await store->count("shop"), co_await store->recount("shop"));
  };
  auto [results, tasks] = run(stored());
  EXPECT_EQ(results, 6);
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Success)], 9)
      << "on_start, the index, six pages, on_finished";
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Pending)], 0);
}

}  // namespace
}  // namespace squall
