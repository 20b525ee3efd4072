// `squall run --redis`: the engine's four components in one process over a real redis-server give
// what `squall run` gives, share the work with a `squall fetcher` started beside them, and stop,
// time out and resume as `squall run` does.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "cli/run_peer.h"
#include "squall/engine/engine_store.h"
#include "support/cluster_crawl.h"
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

// 100 pages, each a result; those from 20 on are answered only once the test opens the gate.
constexpr const char* kChainProject = R"(
from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/chain/0?to=100&hold=20", callback=self.chain_page)

    def chain_page(self, response):
        for each in response.doc('a[href^="http"]').items():
            self.crawl(each.attr.href, callback=self.chain_page)
        return {"url": response.url, "title": response.doc("title").text()}
)";

// The results of a JSON lines export, by taskid, without their updatetime.
std::map<std::string, nlohmann::json> results_of(const std::filesystem::path& path) {
  auto lines = test::results_by_taskid(path);
  for (auto& [taskid, line] : lines) line.erase("updatetime");
  return lines;
}

// The taskids of a JSON lines export with the number of lines each has.
std::map<std::string, int> lines_per_taskid(const std::filesystem::path& path) {
  std::map<std::string, int> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) ++lines[nlohmann::json::parse(line).at("taskid").get<std::string>()];
  return lines;
}

// The store's tasks by status (1 active, 2 success, 3 failed, 4 bad).
std::map<int, int> statuses_in(const std::filesystem::path& db) {
  std::map<int, int> out;
  for (const test::StoredTask& t : test::stored_tasks(db)) ++out[t.status];
  return out;
}

// The number written right after `prefix` in `text`; -1 when there is none.
int number_after(const std::string& text, const std::string& prefix) {
  size_t at = text.find(prefix);
  if (at == std::string::npos) return -1;
  at += prefix.size();
  size_t end = text.find_first_not_of("0123456789", at);
  if (end == at) return -1;
  return std::stoi(text.substr(at, end - at));
}

// Waits until the site has been asked for `n` requests that `match`, or about a minute passed.
template <class Match>
size_t await_requests(const RunPeer& site, size_t n, Match match) {
  size_t seen = 0;
  for (int i = 0; i < 1200; ++i) {
    seen = 0;
    for (const nlohmann::json& r : site.requests())
      if (match(r)) ++seen;
    if (seen >= n) break;
    std::this_thread::sleep_for(50ms);
  }
  return seen;
}

TEST(RunRedis, TheComponentsInOneProcessGiveTheResultsAndStoreOfSquallRun) {
  RunPeer site;
  TempDir one, split;
  one.write("shop.py", with_origin(test::index_project, site.origin));
  split.write("shop.py", with_origin(test::index_project, site.origin));
  test::RedisServer redis;

  test::CommandResult embedded = test::squall_run(one, "shop.py", {"--results", "out.jsonl"});
  ASSERT_EQ(embedded.status, 0) << embedded.err;
  test::CommandResult r =
      test::squall_run(split, "shop.py", {"--redis", redis.url(0), "--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;

  auto expected = results_of(one.path() / "out.jsonl");
  ASSERT_EQ(expected.size(), 6u);
  EXPECT_EQ(results_of(split.path() / "out.jsonl"), expected);
  for (const auto& [taskid, count] : lines_per_taskid(split.path() / "out.jsonl"))
    EXPECT_EQ(count, 1) << taskid;
  // The same store, where squall run keeps it: every task done, on_start and on_finished too.
  EXPECT_EQ(statuses_in(split.path() / "shop.db"), statuses_in(one.path() / "shop.db"));
  EXPECT_EQ(statuses_in(split.path() / "shop.db"), (std::map<int, int>{{2, 9}}));
  // Each page fetched once by each run.
  for (const std::string page : {"/page/index?links=a,b,c,d,e,f", "/page/a", "/page/f"})
    EXPECT_EQ(site.requests_for(page).size(), 2u) << page;

  // The summary says what squall run's does, and what this process did.
  EXPECT_TRUE(contains(r.err, "Done in ")) << r.err;
  EXPECT_TRUE(contains(r.err, ", processed 9 tasks.")) << r.err;
  EXPECT_TRUE(contains(r.err, "in this process: fetched 9, processed 9, results stored 6"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "in the store: 9 success, 0 failed or bad, 0 active")) << r.err;

  // A second run finds the crawl done, as squall run does.
  test::CommandResult again =
      test::squall_run(split, "shop.py", {"--redis", redis.url(0), "--results", "out.jsonl"});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(results_of(split.path() / "out.jsonl"), expected);
  EXPECT_EQ(site.requests_for("/page/a").size(), 2u);
}

class RunRedisPostgres : public test::PostgresTest {};

// The commands of the README's "More than one machine": squall run --redis with a PostgreSQL
// store, and a squall fetcher beside it.
TEST_F(RunRedisPostgres, ASquallFetcherStartedBesideItSharesTheWorkAndEachResultIsStoredOnce) {
  RunPeer site;
  TempDir work;
  work.write("chain.py", with_origin(kChainProject, site.origin));
  test::RedisServer redis;
  Process fetcher =
      Process::start({test::squall_binary(), "fetcher", "--redis", redis.url(0), "--namespace",
                      "shared", "-c", "2", "--per-host", "8", "--user-agent", "second-fetcher/1.0"},
                     work.path());
  test::suppress_interpreter_leaks();
  std::string db = pg().url();
  Process node = Process::start(
      {test::squall_binary(), "run", "chain.py", "--redis", redis.url(0), "--namespace", "shared",
       "--taskdb", db, "-c", "2", "--per-host", "8", "--results", "chain.jsonl"},
      work.path());
  // The pages from 20 on wait at the site, so the run's fetcher, its slots taken by them, cannot
  // take them all: the second fetcher gets some (the host's slots, shared by both, are more than
  // both fetchers' together).
  auto by_second = [](const nlohmann::json& r) {
    return r["headers"].value("user-agent", "") == "second-fetcher/1.0";
  };
  ASSERT_GE(await_requests(site, 1, by_second), 1u) << node.output() << fetcher.output();
  std::ofstream(site.dir.path() / "open").put('\n');

  ASSERT_EQ(test::exit_status(node.wait(120s)), 0) << node.output();
  ASSERT_EQ(test::exit_status(fetcher.wait(60s)), 0) << fetcher.output();

  std::map<std::string, int> fetches;
  size_t first = 0, second = 0;
  for (const nlohmann::json& r : site.requests()) {
    std::string path = r["path"];
    if (!path.starts_with("/chain/")) continue;
    ++fetches[path];
    ++(by_second(r) ? second : first);
  }
  EXPECT_EQ(fetches.size(), 100u);
  for (const auto& [path, count] : fetches) EXPECT_EQ(count, 1) << path;
  EXPECT_GT(first, 0u);
  EXPECT_GT(second, 0u);
  // What each says it fetched, on_start and on_finished (no request) counted by whichever took
  // them: every task once between them.
  std::string run_said = node.output(), fetcher_said = fetcher.output();
  int by_run = number_after(run_said, "in this process: fetched ");
  int by_fetcher = number_after(fetcher_said, "squall fetcher: done after ");
  ASSERT_GE(by_run, 0) << run_said;
  ASSERT_GE(by_fetcher, 0) << fetcher_said;
  EXPECT_TRUE(contains(run_said, ", processed 102, results stored 100")) << run_said;
  EXPECT_TRUE(contains(fetcher_said, " pages fetched")) << fetcher_said;
  EXPECT_EQ(by_run + by_fetcher, 102);
  EXPECT_GE(static_cast<size_t>(by_fetcher), second);

  auto lines = lines_per_taskid(work.path() / "chain.jsonl");
  EXPECT_EQ(lines.size(), 100u);
  for (const auto& [taskid, count] : lines) EXPECT_EQ(count, 1) << taskid;
  auto stored = [&]() -> Task<std::pair<int64_t, CounterValues>> {
    EngineStoreOptions keep;
    auto store = co_await open_engine_store(db, keep);
    co_return std::make_pair(co_await store->count("chain"), co_await store->recount("chain"));
  };
  auto [results, tasks] = run(stored());
  EXPECT_EQ(results, 100);
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Success)], 102)
      << "on_start, 100 pages, on_finished";
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Pending)], 0);
}

TEST(RunRedis, CtrlCAndTimeoutStopItWithTheirStatusesAndTheSameCommandResumes) {
  RunPeer site;
  TempDir work;
  work.write("chain.py", with_origin(kChainProject, site.origin));
  test::RedisServer redis;
  std::vector<std::string> argv = {test::squall_binary(), "run",     "chain.py", "--redis",
                                   redis.url(0),          "--lease", "1",        "--results",
                                   "chain.jsonl"};
  test::suppress_interpreter_leaks();
  Process first = Process::start(argv, work.path());
  auto chain = [](const nlohmann::json& r) {
    return r["path"].get<std::string>().starts_with("/chain/2");
  };
  // Stopped while a page held at the site is being fetched.
  ASSERT_GE(await_requests(site, 1, chain), 1u) << first.output();
  int status = first.stop(SIGINT, 30s);
  EXPECT_EQ(test::exit_status(status), 130) << first.output();
  EXPECT_TRUE(contains(first.output(), "Stopped after ")) << first.output();
  EXPECT_TRUE(contains(first.output(), "(Ctrl-C)")) << first.output();
  EXPECT_TRUE(contains(first.output(), "run the same command again to resume")) << first.output();

  std::vector<std::string> limited = argv;
  limited.insert(limited.end(), {"--timeout", "2"});
  test::CommandResult timed = test::run_command(limited, work.path());
  EXPECT_EQ(timed.status, 3) << timed.err;
  EXPECT_TRUE(contains(timed.err, "Timed out after ")) << timed.err;
  EXPECT_TRUE(contains(timed.err, "run the same command again to resume")) << timed.err;

  std::ofstream(site.dir.path() / "open").put('\n');
  test::CommandResult last = test::run_command(argv, work.path());
  ASSERT_EQ(last.status, 0) << last.err;
  EXPECT_TRUE(contains(last.err, "in the store: 102 success, 0 failed or bad, 0 active"))
      << last.err;
  auto lines = lines_per_taskid(work.path() / "chain.jsonl");
  EXPECT_EQ(lines.size(), 100u);
  for (const auto& [taskid, count] : lines) EXPECT_EQ(count, 1) << taskid;
  EXPECT_EQ(statuses_in(work.path() / "chain.db"), (std::map<int, int>{{2, 102}}));
}

}  // namespace
}  // namespace squall
