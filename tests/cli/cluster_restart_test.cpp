// The engine split over processes survives its servers restarting: Redis (persisting to its
// append-only file) and then PostgreSQL are restarted in the middle of a crawl by separate
// scheduler, fetcher, processor and result worker processes, and the crawl completes with each
// result once, in the store and in the export. A scheduler restarted with --fresh while another
// runs the crawl is refused.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "cli/run_peer.h"
#include "support/cluster_crawl.h"
#include "support/postgres_server.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::ClusterProcesses;
using test::contains;
using test::Process;
using test::RunPeer;
using test::TempDir;
using test::wait_until;
using test::with_origin;

class ClusterRestart : public test::PostgresTest {};

// What every process said so far, for a failure's message.
std::string outputs_of(const std::vector<std::pair<std::string, Process*>>& processes) {
  std::string out;
  for (const auto& [name, p] : processes) out += "--- " + name + ":\n" + p->output() + "\n";
  return out;
}

TEST_F(ClusterRestart, ACrawlGoesOnAcrossARedisRestartAndAPostgresqlRestartLosingNothing) {
  RunPeer site;
  TempDir work;
  work.write("chain.py", with_origin(test::chain_project, site.origin));
  // Every page served at once; the fetchers' shared delay (at most 33 pages a second) keeps the
  // crawl going for 12 s at least, so both restarts come in its middle.
  std::ofstream(site.dir.path() / "open").put('\n');
  test::RedisServer redis({"--appendonly", "yes", "--appendfsync", "everysec"});
  std::string db = pg().url();
  ClusterProcesses cluster{work.path(),
                           {"--redis", redis.url(0), "--namespace", "restart", "--lease", "1",
                            "--max-deliveries", "50"}};
  Process fetcher1 = cluster.start({"fetcher", "-c", "4", "--per-host", "4", "--delay", "0.03"});
  Process fetcher2 = cluster.start({"fetcher", "-c", "4", "--per-host", "4", "--delay", "0.03"});
  Process processor = cluster.start({"processor", "chain.py"});
  Process worker = cluster.start({"result-worker", "--taskdb", db, "--results", "chain.jsonl"});
  Process scheduler = cluster.start({"scheduler", "chain.py", "--taskdb", db, "--fresh"});
  std::vector<std::pair<std::string, Process*>> all = {{"scheduler", &scheduler},
                                                       {"fetcher 1", &fetcher1},
                                                       {"fetcher 2", &fetcher2},
                                                       {"processor", &processor},
                                                       {"result worker", &worker}};
  auto chain_fetches = [&] { return test::fetches_of(site.requests(), "/chain/").size(); };

  ASSERT_TRUE(wait_until([&] { return chain_fetches() >= 30; }, 60s)) << outputs_of(all);
  redis.stop();
  redis.start();
  // Going on after Redis came back: pages are fetched that were not before.
  size_t before = chain_fetches();
  auto went_on = [&](size_t from) { return chain_fetches() >= std::min<size_t>(from + 40, 400); };
  ASSERT_TRUE(wait_until([&] { return went_on(before); }, 60s))
      << "the crawl did not go on after Redis restarted: " << before << " pages fetched then, "
      << chain_fetches() << " now\n"
      << outputs_of(all);

  pg().restart();
  // The scheduler's claim went with its session: it claims the project again, then goes on.
  before = chain_fetches();
  ASSERT_TRUE(
      wait_until([&] { return contains(scheduler.output(), "is back") && went_on(before); }, 60s))
      << "the crawl did not go on after PostgreSQL restarted: " << before << " pages fetched then, "
      << chain_fetches() << " now\n"
      << outputs_of(all);
  // One deadline for all: the rest of the crawl and every component's end.
  auto deadline = std::chrono::steady_clock::now() + 120s;
  for (auto& [name, p] : all) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    int status = p->wait(std::max(left, std::chrono::milliseconds(1)));
    ASSERT_EQ(test::exit_status(status), 0) << name << " did not end well\n" << outputs_of(all);
  }
  EXPECT_TRUE(contains(scheduler.output(), "squall scheduler: done")) << scheduler.output();

  // Every page's result once in the store and once in the export; no task lost.
  test::StoredCrawl stored = run(test::stored_crawl(db, "chain"));
  EXPECT_EQ(stored.results, 400);
  EXPECT_EQ(stored.tasks_of(CounterKind::Success), 402) << "on_start, 400 pages, on_finished";
  EXPECT_EQ(stored.tasks_of(CounterKind::Pending), 0);
  EXPECT_EQ(stored.tasks_of(CounterKind::Failed), 0);
  std::map<std::string, int> lines = test::export_lines(work.path() / "chain.jsonl");
  EXPECT_EQ(lines.size(), 400u);
  for (const auto& [taskid, count] : lines) EXPECT_EQ(count, 1) << taskid;

  // A page is fetched again only for what was in flight at a restart: once for Redis's (a take
  // whose reply was lost), once for PostgreSQL's (the scheduler dispatches again what it had
  // dispatched since its last commit).
  std::map<std::string, int> fetches = test::fetches_of(site.requests(), "/chain/");
  EXPECT_EQ(fetches.size(), 400u);
  for (const auto& [path, count] : fetches) EXPECT_LE(count, 3) << path;
}

// --fresh drops the store's tables: given to a second scheduler while the first runs the crawl,
// it is refused, touching nothing, and the first one's crawl completes whole.
TEST_F(ClusterRestart, ASecondSchedulerGivenFreshIsRefusedWhileTheFirstRunsTheCrawl) {
  RunPeer site;
  TempDir work;
  work.write("chain.py", with_origin(test::chain_project, site.origin));
  test::RedisServer redis;
  std::string db = pg().url();
  ClusterProcesses cluster{work.path(),
                           {"--redis", redis.url(0), "--namespace", "fresh", "--lease", "1"}};
  Process fetcher = cluster.start({"fetcher", "-c", "4", "--per-host", "4"});
  Process processor = cluster.start({"processor", "chain.py"});
  Process worker = cluster.start({"result-worker", "--taskdb", db, "--results", "chain.jsonl"});
  Process first = cluster.start({"scheduler", "chain.py", "--taskdb", db, "--fresh"});
  std::vector<std::pair<std::string, Process*>> all = {{"first scheduler", &first},
                                                       {"fetcher", &fetcher},
                                                       {"processor", &processor},
                                                       {"result worker", &worker}};
  // The first one holds the project once pages are being fetched; those from 300 on wait for
  // the gate, so its crawl cannot end meanwhile.
  ASSERT_TRUE(wait_until([&] { return site.requests().size() >= 50; }, 60s)) << outputs_of(all);

  Process second = cluster.start({"scheduler", "chain.py", "--taskdb", db, "--fresh"});
  int refused = second.wait(60s);
  EXPECT_EQ(test::exit_status(refused), 2) << second.output();
  EXPECT_TRUE(contains(second.output(), "is run by another scheduler")) << second.output();
  EXPECT_TRUE(contains(second.output(), "--fresh would wipe its crawl")) << second.output();
  std::ofstream(site.dir.path() / "open").put('\n');

  auto deadline = std::chrono::steady_clock::now() + 120s;
  for (auto& [name, p] : all) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    int status = p->wait(std::max(left, std::chrono::milliseconds(1)));
    ASSERT_EQ(test::exit_status(status), 0) << name << " did not end well\n" << outputs_of(all);
  }
  test::StoredCrawl stored = run(test::stored_crawl(db, "chain"));
  EXPECT_EQ(stored.results, 400);
  EXPECT_EQ(stored.tasks_of(CounterKind::Success), 402) << "on_start, 400 pages, on_finished";
  EXPECT_EQ(stored.tasks_of(CounterKind::Pending), 0);
  std::map<std::string, int> lines = test::export_lines(work.path() / "chain.jsonl");
  EXPECT_EQ(lines.size(), 400u);
  // Each page fetched once: nothing was started over.
  std::map<std::string, int> fetches = test::fetches_of(site.requests(), "/chain/");
  EXPECT_EQ(fetches.size(), 400u);
  for (const auto& [path, count] : fetches) EXPECT_EQ(count, 1) << path;
}

}  // namespace
}  // namespace squall
