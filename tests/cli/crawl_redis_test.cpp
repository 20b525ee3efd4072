// `squall crawl --redis`: the built-in crawl project on the split engine over a real
// redis-server gives the lines of `squall crawl`, shares the crawl with a `squall processor
// --crawl` and a `squall fetcher` started beside it, resumes after kill -9, and refuses what it
// cannot do over Redis with a usage error.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "squall/engine/cluster_keys.h"
#include "support/postgres_server.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/site.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::contains;
using test::exit_status;
using test::Process;
using test::TempDir;

// The lines of a --jsonl file by URL, without what differs between two crawls of a site: when
// a page was fetched and how long it took, and the page it was first found on (with its depth),
// which depends on the order of fetches running at once.
std::map<std::string, nlohmann::json> lines_by_url(const std::filesystem::path& path) {
  std::map<std::string, nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line);
    for (const char* varies : {"fetched_at", "elapsed_ms", "parent", "depth"}) j.erase(varies);
    std::string url = j.at("url");
    out[url] = std::move(j);
  }
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

// Requests nginx has logged for the site.
size_t logged_requests(const test::GeneratedSite& site) {
  std::ifstream in(site.dir.path() / "access.log");
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Waits until nginx has logged `n` requests, or a minute passed.
bool await_requests(const test::GeneratedSite& site, size_t n) {
  for (int i = 0; i < 1200; ++i) {
    if (logged_requests(site) >= n) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

TEST(CrawlRedis, GivesTheLinesAndSummaryOfSquallCrawlAndASecondRunFindsItDone) {
  test::GeneratedSite site(150);
  TempDir embedded, split;
  test::RedisServer redis;
  std::vector<std::string> common = {
      site.origin + "/", "-c", "8", "--per-host", "8", "--jsonl", "out.jsonl", "--jsonl-links"};
  std::vector<std::string> plain = {test::squall_binary(), "crawl"};
  plain.insert(plain.end(), common.begin(), common.end());
  std::vector<std::string> over = plain;
  over.insert(over.end(), {"--redis", redis.url(0)});

  test::CommandResult one = test::run_command(plain, embedded.path());
  ASSERT_EQ(one.status, 0) << one.err;
  test::CommandResult r = test::run_command(over, split.path());
  ASSERT_EQ(r.status, 0) << r.err;

  auto expected = lines_by_url(embedded.path() / "out.jsonl");
  ASSERT_EQ(expected.size(), site.with_robots.size());
  auto urls = test::jsonl_urls(split.path() / "out.jsonl");
  EXPECT_EQ(urls.size(), site.with_robots.size()) << "a page's line once";
  EXPECT_EQ(std::set<std::string>(urls.begin(), urls.end()), site.with_robots);
  EXPECT_EQ(lines_by_url(split.path() / "out.jsonl"), expected);
  // The summary of squall crawl: the pages every machine stored in this run.
  std::string fetched = "fetched " + std::to_string(site.with_robots.size()) + " URLs.";
  EXPECT_TRUE(contains(one.err, fetched)) << one.err;
  EXPECT_TRUE(contains(r.err, "Done in ")) << r.err;
  EXPECT_TRUE(contains(r.err, fetched)) << r.err;
  EXPECT_TRUE(contains(r.err, "  status: 200×")) << r.err;
  EXPECT_TRUE(std::filesystem::exists(split.path() / "crawl.db")) << "the default state store";

  // The same command again: the crawl is done, nothing is fetched or written again.
  size_t before = logged_requests(site);
  test::CommandResult again = test::run_command(over, split.path());
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_TRUE(contains(again.err, "fetched 0 URLs.")) << again.err;
  EXPECT_EQ(test::jsonl_urls(split.path() / "out.jsonl").size(), site.with_robots.size());
  // Only the robots.txt of the start host is asked for again (the fetch stage's own).
  EXPECT_LE(logged_requests(site) - before, 1u);
}

TEST(CrawlRedis, AProcessorWithCrawlAndAFetcherStartedBesideItShareTheCrawl) {
  // At 150 requests a second the site's ~800 URLs take five seconds: time for the others to
  // join and take part of the work.
  test::GeneratedSite site(300, 150);
  TempDir work, elsewhere;
  test::RedisServer redis;
  Process crawl =
      Process::start({test::squall_binary(), "crawl", site.origin + "/", "-c", "2", "--per-host",
                      "4", "--redis", redis.url(0), "--namespace", "shop", "--jsonl", "out.jsonl"},
                     work.path());
  // Its options are in Redis once its first pages are asked for.
  ASSERT_TRUE(await_requests(site, 3)) << crawl.output();
  Process processor = Process::start({test::squall_binary(), "processor", "--crawl", "--redis",
                                      redis.url(0), "--namespace", "shop"},
                                     elsewhere.path());
  Process fetcher = Process::start({test::squall_binary(), "fetcher", "--redis", redis.url(0),
                                    "--namespace", "shop", "-c", "2", "--per-host", "4"},
                                   elsewhere.path());

  ASSERT_EQ(exit_status(crawl.wait(180s)), 0) << crawl.output();
  ASSERT_EQ(exit_status(processor.wait(60s)), 0) << processor.output();
  ASSERT_EQ(exit_status(fetcher.wait(60s)), 0) << fetcher.output();

  auto urls = test::jsonl_urls(work.path() / "out.jsonl");
  EXPECT_EQ(urls.size(), site.with_robots.size()) << "a page's line once";
  EXPECT_EQ(std::set<std::string>(urls.begin(), urls.end()), site.with_robots);
  EXPECT_TRUE(
      contains(crawl.output(), "fetched " + std::to_string(site.with_robots.size()) + " URLs."))
      << crawl.output();
  EXPECT_GT(number_after(processor.output(), "squall processor: done after "), 0)
      << processor.output();
  EXPECT_GT(number_after(fetcher.output(), "squall fetcher: done after "), 0) << fetcher.output();
  // Each page fetched once, whichever fetcher took it.
  for (const auto& [path, count] : site.hits())
    if (path != "/robots.txt") {
      EXPECT_EQ(count, 1) << path;
    }
}

TEST(CrawlRedis, KilledWithSigkillTheSameCommandResumesWithEachLineOnce) {
  // ~1,100 URLs at 400 a second: a run is still going when it is killed.
  test::GeneratedSite site(400, 400);
  TempDir work;
  test::RedisServer redis;
  std::vector<std::string> argv = {test::squall_binary(),
                                   "crawl",
                                   site.origin + "/",
                                   "-c",
                                   "4",
                                   "--per-host",
                                   "4",
                                   "--redis",
                                   redis.url(0),
                                   "--lease",
                                   "1",
                                   "--jsonl",
                                   "out.jsonl",
                                   "--quiet"};
  for (size_t at : {150u, 500u}) {
    Process killed = Process::start(argv, work.path());
    ASSERT_TRUE(await_requests(site, at)) << killed.output();
    ASSERT_TRUE(killed.running()) << killed.output();
    killed.stop(SIGKILL);
  }
  test::CommandResult last = test::run_command(argv, work.path());
  ASSERT_EQ(last.status, 0) << last.err;
  auto urls = test::jsonl_urls(work.path() / "out.jsonl");
  std::set<std::string> unique(urls.begin(), urls.end());
  EXPECT_EQ(unique.size(), urls.size()) << "a JSON line repeated after a resume";
  EXPECT_EQ(unique, site.with_robots) << "pages lost across kills";
}

TEST(CrawlRedis, CtrlCAndTimeoutStopItWithTheirStatusesAndTheSameCommandResumes) {
  test::GeneratedSite site(300, 200);
  TempDir work;
  test::RedisServer redis;
  std::vector<std::string> argv = {test::squall_binary(),
                                   "crawl",
                                   site.origin + "/",
                                   "-c",
                                   "2",
                                   "--redis",
                                   redis.url(0),
                                   "--lease",
                                   "1",
                                   "--jsonl",
                                   "out.jsonl"};
  Process first = Process::start(argv, work.path());
  ASSERT_TRUE(await_requests(site, 50)) << first.output();
  EXPECT_EQ(exit_status(first.stop(SIGINT, 30s)), 130) << first.output();
  EXPECT_TRUE(contains(first.output(), "Stopped after ")) << first.output();
  EXPECT_TRUE(contains(first.output(), "(Ctrl-C)")) << first.output();
  EXPECT_TRUE(contains(first.output(), "still queued: run the same command again to resume"))
      << first.output();

  std::vector<std::string> limited = argv;
  limited.insert(limited.end(), {"--timeout", "1"});
  test::CommandResult timed = test::run_command(limited, work.path());
  EXPECT_EQ(timed.status, 3) << timed.err;
  EXPECT_TRUE(contains(timed.err, "Timed out after ")) << timed.err;

  test::CommandResult last = test::run_command(argv, work.path());
  ASSERT_EQ(last.status, 0) << last.err;
  EXPECT_TRUE(contains(last.err, "resumed an earlier crawl")) << last.err;
  auto urls = test::jsonl_urls(work.path() / "out.jsonl");
  std::set<std::string> unique(urls.begin(), urls.end());
  EXPECT_EQ(unique.size(), urls.size()) << "a JSON line repeated after a resume";
  EXPECT_EQ(unique, site.with_robots);
}

class CrawlRedisPostgres : public test::PostgresTest {};

// The README's commands: the crawl's state in PostgreSQL, a `squall scheduler --crawl` started
// first on another machine standing by for the crawl's own, and taking over once it is gone.
TEST_F(CrawlRedisPostgres, ASchedulerWithCrawlStandsByAndAStoppedCrawlResumesFromPostgres) {
  test::GeneratedSite site(150, 150);
  TempDir work, elsewhere;
  test::RedisServer redis;
  std::string db = pg().url();
  std::vector<std::string> argv = {test::squall_binary(),
                                   "crawl",
                                   site.origin + "/",
                                   "-c",
                                   "2",
                                   "--redis",
                                   redis.url(0),
                                   "--taskdb",
                                   db,
                                   "--lease",
                                   "1",
                                   "--jsonl",
                                   "out.jsonl"};
  Process first = Process::start(argv, work.path());
  ASSERT_TRUE(await_requests(site, 30)) << first.output();
  Process standby = Process::start({test::squall_binary(), "scheduler", "--crawl", "--redis",
                                    redis.url(0), "--taskdb", db, "--lease", "1"},
                                   elsewhere.path());
  std::string said = test::await_output(standby, "standing by");
  EXPECT_TRUE(contains(said, "standing by")) << said << first.output();
  EXPECT_EQ(exit_status(first.stop(SIGINT, 30s)), 130) << first.output();
  // The crawl's scheduler gone, the one standing by takes the crawl over and finishes it with
  // a fetcher and a processor of the crawl.
  Process fetcher = Process::start(
      {test::squall_binary(), "fetcher", "--redis", redis.url(0), "--lease", "1", "-c", "2"},
      elsewhere.path());
  Process processor = Process::start(
      {test::squall_binary(), "processor", "--crawl", "--redis", redis.url(0), "--lease", "1"},
      elsewhere.path());
  ASSERT_EQ(exit_status(standby.wait(120s)), 0) << standby.output();
  ASSERT_EQ(exit_status(fetcher.wait(60s)), 0) << fetcher.output();
  ASSERT_EQ(exit_status(processor.wait(60s)), 0) << processor.output();
  EXPECT_TRUE(contains(standby.output(), "taking over")) << standby.output();

  // The same crawl command finds it done and stores what the others left in the result stream
  // (its result worker is the export's): each page's line once.
  test::CommandResult last = test::run_command(argv, work.path());
  ASSERT_EQ(last.status, 0) << last.err;
  EXPECT_TRUE(contains(last.err, "resumed an earlier crawl")) << last.err;
  auto urls = test::jsonl_urls(work.path() / "out.jsonl");
  std::set<std::string> unique(urls.begin(), urls.end());
  EXPECT_EQ(unique.size(), urls.size()) << "a JSON line repeated";
  EXPECT_EQ(unique, site.with_robots);
}

// A done mark an earlier crawl left in the namespace is cleared by this crawl's scheduler as it
// starts, which comes after its fetcher's and processor's first look at the streams when the
// scheduler waits for its project (held here by another session): they end with their
// scheduler, never on the mark it has not cleared yet.
TEST_F(CrawlRedisPostgres, ComponentsBesideTheirSchedulerEndWithItNotOnAnEarlierDoneMark) {
  test::GeneratedSite site(20);
  TempDir work;
  test::RedisServer redis;
  const std::string base = pg().url();
  const std::string db = base.substr(0, base.rfind('/')) + "/donemark";
  test::CommandResult created =
      test::run_command({"/usr/bin/psql", base, "-c", "CREATE DATABASE donemark"}, work.path());
  ASSERT_EQ(created.status, 0) << created.err;
  test::CommandResult marked =
      test::run_command({"/usr/bin/redis-cli", "-p", std::to_string(redis.port()), "SET",
                         cluster_key(default_cluster_namespace, "done"), "1"},
                        work.path());
  ASSERT_EQ(marked.status, 0) << marked.err;

  Process holder = Process::start(
      {"/usr/bin/psql", db, "-c",
       "SELECT pg_advisory_lock(hashtextextended('squall project crawl', 0)), pg_sleep(2)"},
      work.path());
  bool held = false;
  for (int i = 0; i < 200 && !held; ++i) {
    test::CommandResult r =
        test::run_command({"/usr/bin/psql", db, "-Atc",
                           "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"},
                          work.path());
    held = r.status == 0 && r.out == "1\n";
    if (!held) std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(held) << holder.output();

  test::CommandResult crawl =
      test::run_command({test::squall_binary(), "crawl", site.origin + "/", "--redis", redis.url(0),
                         "--taskdb", db, "--jsonl", "out.jsonl", "--timeout", "60"},
                        work.path());
  EXPECT_EQ(exit_status(holder.wait(10s)), 0) << holder.output();
  ASSERT_EQ(crawl.status, 0) << crawl.err;
  auto urls = test::jsonl_urls(work.path() / "out.jsonl");
  std::set<std::string> unique(urls.begin(), urls.end());
  EXPECT_EQ(unique, site.with_robots);
}

TEST(CrawlRedis, WhatCannotRunOverRedisIsAUsageError) {
  TempDir work;
  test::RedisServer redis;
  const std::string url = "http://127.0.0.1:9/";
  auto crawl = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {test::squall_binary(), "crawl", url, "--redis", redis.url(0)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return test::run_command(argv, work.path());
  };
  for (auto [flags, said] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--warc", "out.warc.gz"}, "--warc does not run over Redis"},
           {{"--max-pages", "5"}, "--max-pages does not run over Redis"},
           {{"--jsonl", "-"}, "--jsonl - does not run over Redis"},
           {{"--port", "0"}, "--port does not run over Redis"},
           {{"--lease", "0"}, "--lease must be 0.01 s or more"}}) {
    test::CommandResult r = crawl(flags);
    EXPECT_EQ(r.status, 2) << flags[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, said)) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(work.path() / "crawl.db")) << "refused before it opened";

  // A component given --crawl where no crawl was started.
  test::CommandResult none = test::run_command(
      {test::squall_binary(), "processor", "--crawl", "--redis", redis.url(0), "--namespace", "x"},
      work.path());
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_TRUE(contains(none.err, "no crawl in namespace \"x\"")) << none.err;
  EXPECT_TRUE(contains(none.err, "squall crawl URL --redis")) << none.err;
  test::CommandResult both =
      test::run_command({test::squall_binary(), "processor", "p.py", "--crawl"}, work.path());
  EXPECT_EQ(both.status, 2) << both.err;
  test::CommandResult neither =
      test::run_command({test::squall_binary(), "scheduler", "--redis", redis.url(0)}, work.path());
  EXPECT_EQ(neither.status, 2) << neither.err;
  EXPECT_TRUE(contains(neither.err, "--crawl")) << neither.err;
}

TEST(CrawlRedis, ANamespaceHoldingAnotherCrawlIsRefusedUnlessFresh) {
  test::GeneratedSite site(20);
  TempDir first, second;
  test::RedisServer redis;
  test::CommandResult a = test::run_command(
      {test::squall_binary(), "crawl", site.origin + "/", "--redis", redis.url(0), "--quiet"},
      first.path());
  ASSERT_EQ(a.status, 0) << a.err;
  std::vector<std::string> other = {
      test::squall_binary(), "crawl",  site.origin + "/", "--scope", "host", "--redis",
      redis.url(0),          "--quiet"};
  test::CommandResult b = test::run_command(other, second.path());
  EXPECT_EQ(b.status, 2) << b.err;
  EXPECT_TRUE(contains(b.err, "namespace \"squall\" of Redis")) << b.err;
  EXPECT_TRUE(contains(b.err, "--namespace NAME")) << b.err;
  other.push_back("--fresh");
  test::CommandResult c = test::run_command(other, second.path());
  EXPECT_EQ(c.status, 0) << c.err;
}

}  // namespace
}  // namespace squall
