// The engine split over processes: a project crawled by 1 scheduler, 3 fetchers, 2 processors
// and 1 result worker, each its own `squall` process, joined by a real redis-server and a real
// PostgreSQL 15, gives the same results as `squall run` in one process, and the same crawl
// completes with each result once while its components are killed -9 and restarted; a project
// of @every jobs runs on them until they are stopped.
#include <gtest/gtest.h>
#include <signal.h>

#include <array>
#include <chrono>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "cli/run_peer.h"
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
  work.write("shop.py", with_origin(test::index_project, site.origin));
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

  test::StoredCrawl stored = run(test::stored_crawl(db, "shop"));
  int64_t results = stored.results;
  CounterValues tasks = stored.tasks;
  EXPECT_EQ(results, 6);
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Success)], 9)
      << "on_start, the index, six pages, on_finished";
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Pending)], 0);
}

// kill -9 at random moments, each of the four roles at least 5 times, each killed process
// restarted at once with its flags (the scheduler without --fresh, which would start the crawl
// over). The pages from 300 on wait for the kills to be over, so the crawl cannot end first.
TEST_F(Cluster, ACrawlWhoseComponentsAreKilledAndRestartedStoresEveryResultOnce) {
  RunPeer site;
  TempDir work;
  work.write("chain.py", with_origin(test::chain_project, site.origin));
  test::RedisServer redis;
  std::string db = pg().url();
  std::vector<std::string> common = {"--redis", redis.url(0), "--namespace",      "chain",
                                     "--lease", "1",          "--max-deliveries", "50"};
  struct Component {
    std::vector<std::string> argv;
    Process process;
  };
  auto argv_of = [&](std::vector<std::string> argv) {
    argv.insert(argv.begin(), test::squall_binary());
    argv.insert(argv.end(), common.begin(), common.end());
    return argv;
  };
  std::vector<Component> fetchers, processors;
  for (int i = 0; i < 3; ++i)
    fetchers.push_back({argv_of({"fetcher", "-c", "4", "--per-host", "4"}), {}});
  for (int i = 0; i < 2; ++i) processors.push_back({argv_of({"processor", "chain.py"}), {}});
  Component worker{argv_of({"result-worker", "--taskdb", db, "--results", "chain.jsonl"}), {}};
  Component scheduler{argv_of({"scheduler", "chain.py", "--taskdb", db}), {}};
  for (auto* group : {&fetchers, &processors})
    for (Component& c : *group) c.process = Process::start(c.argv, work.path());
  worker.process = Process::start(worker.argv, work.path());
  std::vector<std::string> fresh = scheduler.argv;
  fresh.push_back("--fresh");
  scheduler.process = Process::start(fresh, work.path());

  std::random_device seed_source;
  const unsigned seed = seed_source();
  SCOPED_TRACE("kill order seed " + std::to_string(seed));
  std::mt19937 random(seed);
  const std::array<const char*, 4> roles = {"fetcher", "processor", "scheduler", "result worker"};
  std::array<int, 4> kills = {0, 0, 0, 0};
  while (*std::min_element(kills.begin(), kills.end()) < 5) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(50, 400)(random)));
    size_t role = std::uniform_int_distribution<size_t>(0, 3)(random);
    Component* victim = role == 0   ? &fetchers[random() % fetchers.size()]
                        : role == 1 ? &processors[random() % processors.size()]
                        : role == 2 ? &scheduler
                                    : &worker;
    ASSERT_TRUE(victim->process.running())
        << roles[role] << " ended before the crawl could: " << victim->process.output();
    victim->process.stop(SIGKILL);
    victim->process = Process::start(victim->argv, work.path());
    ++kills[role];
  }
  std::ofstream(site.dir.path() / "open").put('\n');

  int status = scheduler.process.wait(120s);
  ASSERT_EQ(test::exit_status(status), 0) << scheduler.process.output();
  for (auto* group : {&fetchers, &processors})
    for (Component& c : *group)
      EXPECT_EQ(test::exit_status(c.process.wait(60s)), 0) << c.process.output();
  EXPECT_EQ(test::exit_status(worker.process.wait(60s)), 0) << worker.process.output();

  // Every page's result once in the store and once in the export.
  test::StoredCrawl stored = run(test::stored_crawl(db, "chain"));
  int64_t results = stored.results;
  CounterValues tasks = stored.tasks;
  EXPECT_EQ(results, 400);
  std::map<std::string, int> lines;
  std::ifstream in(work.path() / "chain.jsonl");
  for (std::string line; std::getline(in, line);)
    ++lines[nlohmann::json::parse(line).at("taskid").get<std::string>()];
  EXPECT_EQ(lines.size(), 400u);
  for (const auto& [taskid, count] : lines) EXPECT_EQ(count, 1) << taskid;

  // No task lost: every one done, none left active.
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Success)], 402)
      << "on_start, 400 pages, on_finished";
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Pending)], 0);
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Failed)], 0);

  // A page is fetched again only for a fetcher or a scheduler killed while it was in flight.
  std::map<std::string, int> fetches;
  for (const nlohmann::json& r : site.requests())
    if (std::string path = r["path"]; path.starts_with("/chain/")) ++fetches[path];
  EXPECT_EQ(fetches.size(), 400u);
  const int bound = 1 + kills[0] + kills[2];
  for (const auto& [path, count] : fetches) EXPECT_LE(count, bound) << path;
}

// A second scheduler of the project stands by while the first one runs, dispatching nothing,
// and takes the crawl over once the first one is killed.
TEST_F(Cluster, ASecondSchedulerStandsByAndTakesOverWhenTheFirstIsKilled) {
  RunPeer site;
  TempDir work;
  work.write("chain.py", with_origin(test::chain_project, site.origin));
  test::RedisServer redis;
  std::string db = pg().url();
  std::vector<std::string> common = {"--redis", redis.url(0), "--namespace",
                                     "standby", "--lease",    "1"};
  auto start = [&](std::vector<std::string> argv) {
    argv.insert(argv.begin(), test::squall_binary());
    argv.insert(argv.end(), common.begin(), common.end());
    return Process::start(argv, work.path());
  };
  std::vector<Process> others;
  for (int i = 0; i < 2; ++i) others.push_back(start({"fetcher", "-c", "4", "--per-host", "4"}));
  others.push_back(start({"processor", "chain.py"}));
  others.push_back(start({"result-worker", "--taskdb", db, "--results", "chain.jsonl"}));
  Process first = start({"scheduler", "chain.py", "--taskdb", db, "--fresh"});
  // The first one holds the project once pages are being fetched.
  for (int i = 0; i < 600 && site.requests().size() < 50; ++i) std::this_thread::sleep_for(50ms);
  ASSERT_GE(site.requests().size(), 50u) << first.output();
  Process second = start({"scheduler", "chain.py", "--taskdb", db});
  std::string said = test::await_output(second, "standing by");
  ASSERT_TRUE(contains(said, "is run by another scheduler")) << said;
  EXPECT_FALSE(contains(said, "taking over")) << said;
  first.stop(SIGKILL);
  std::ofstream(site.dir.path() / "open").put('\n');

  ASSERT_EQ(test::exit_status(second.wait(120s)), 0) << second.output();
  EXPECT_TRUE(contains(second.output(), "is ours now: taking over")) << second.output();
  for (Process& p : others) EXPECT_EQ(test::exit_status(p.wait(60s)), 0) << p.output();

  test::StoredCrawl stored = run(test::stored_crawl(db, "chain"));
  int64_t results = stored.results;
  CounterValues tasks = stored.tasks;
  // What every process said, for a crawl that ends short (tasks parked, a host given up on).
  std::string said_all = "second scheduler:\n" + second.output();
  for (Process& p : others) said_all += "\n---\n" + p.output();
  EXPECT_EQ(results, 400) << said_all;
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Success)], 402);
  EXPECT_EQ(tasks[static_cast<size_t>(CounterKind::Pending)], 0);
  // Only what the first one had in flight when it died is fetched twice.
  std::map<std::string, int> fetches;
  for (const nlohmann::json& r : site.requests())
    if (std::string path = r["path"]; path.starts_with("/chain/")) ++fetches[path];
  EXPECT_EQ(fetches.size(), 400u);
  for (const auto& [path, count] : fetches) EXPECT_LE(count, 2) << path;
}

constexpr const char* kPoliteProject = R"(
from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        for i in range(12):
            self.crawl("{ORIGIN}/page/p%d" % i, callback=self.page)

    def page(self, response):
        return {"url": response.url}
)";

TEST_F(Cluster, ThreeFetchersKeepPerHostAndTheDelayTogetherAndReadRobotsTxtOnce) {
  RunPeer site;
  TempDir work;
  work.write("polite.py", with_origin(kPoliteProject, site.origin));
  test::RedisServer redis;
  std::string db = pg().url();
  std::vector<std::string> common = {"--redis", redis.url(0), "--namespace", "polite"};
  auto start = [&](std::vector<std::string> argv) {
    argv.insert(argv.begin(), test::squall_binary());
    argv.insert(argv.end(), common.begin(), common.end());
    return Process::start(argv, work.path());
  };
  std::vector<Process> others;
  for (int i = 0; i < 3; ++i)
    others.push_back(start({"fetcher", "-c", "4", "--per-host", "1", "--delay", "0.2"}));
  others.push_back(start({"processor", "polite.py"}));
  others.push_back(start({"result-worker", "--taskdb", db}));
  Process scheduler = start({"scheduler", "polite.py", "--taskdb", db, "--fresh"});
  ASSERT_EQ(test::exit_status(scheduler.wait(120s)), 0) << scheduler.output();
  for (Process& p : others) EXPECT_EQ(test::exit_status(p.wait(60s)), 0) << p.output();

  // The site's own log: requests in the order they came, each with how many were being answered.
  std::vector<nlohmann::json> asked = site.requests();
  int robots = 0, pages = 0;
  double last = 0;
  for (const nlohmann::json& r : asked) {
    std::string path = r["path"];
    if (path == "/robots.txt") {
      ++robots;
    } else if (path.starts_with("/page/p")) {
      ++pages;
    } else {
      continue;
    }
    EXPECT_EQ(r["in_flight"], 1) << path << " came while another request was being answered";
    double at = r["time"];
    if (last > 0) {
      EXPECT_GE(at - last, 0.2 - 1e-3) << path << " started " << at - last << " s after the last";
    }
    last = at;
  }
  EXPECT_EQ(robots, 1) << "robots.txt is fetched once for every fetcher";
  EXPECT_EQ(pages, 12);
}

constexpr const char* kTicksProject = R"(
import time

from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    @every(seconds=1)
    def tick(self):
        self.crawl("{ORIGIN}/page/t%d" % int(time.time()), callback=self.page)

    def page(self, response):
        return {"url": response.url}
)";

// A project of an @every job, whose on_start asks for nothing: its components, started without
// --keep-running, do not end once on_start is done, as `squall run` does not; the scheduler
// fires the job at its ticks, their pages are fetched and stored, until each is stopped.
TEST_F(Cluster, AProjectOfAnEveryJobRunsOnItsProcessesUntilTheyAreStopped) {
  RunPeer site;
  TempDir work;
  work.write("ticks.py", with_origin(kTicksProject, site.origin));
  test::RedisServer redis;
  std::string db = pg().url();
  test::ClusterProcesses cluster{work.path(), {"--redis", redis.url(0), "--namespace", "ticks"}};
  std::vector<std::pair<std::string, Process>> all;
  all.emplace_back("fetcher", cluster.start({"fetcher", "-c", "2"}));
  all.emplace_back("processor", cluster.start({"processor", "ticks.py"}));
  all.emplace_back("result worker",
                   cluster.start({"result-worker", "--taskdb", db, "--results", "ticks.jsonl"}));
  all.emplace_back("scheduler",
                   cluster.start({"scheduler", "ticks.py", "--taskdb", db, "--fresh"}));
  auto outputs = [&] {
    std::string out;
    for (auto& [name, p] : all) out += "--- " + name + ":\n" + p.output() + "\n";
    return out;
  };
  auto stored = [&] { return run(test::stored_crawl(db, "ticks")); };
  ASSERT_TRUE(test::wait_until(
      [&] { return test::fetches_of(site.requests(), "/page/t").size() >= 3; }, 60s))
      << outputs();
  ASSERT_TRUE(test::wait_until([&] { return stored().results >= 2; }, 60s)) << outputs();
  for (auto& [name, p] : all) EXPECT_TRUE(p.running()) << name << " ended by itself\n" << outputs();
  for (auto& [name, p] : all) {
    EXPECT_EQ(test::exit_status(p.stop(SIGINT, 10s)), 130) << name << "\n" << p.output();
    EXPECT_TRUE(contains(p.output(), ": stopped after")) << p.output();
  }
  test::StoredCrawl crawl = stored();
  EXPECT_GE(crawl.results, 2);
  EXPECT_EQ(crawl.tasks_of(CounterKind::Failed), 0);
}

}  // namespace
}  // namespace squall
