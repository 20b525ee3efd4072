// Engine: pyspider's pipeline end to end against real local servers and a real SQLite store,
// including kill -9 at random points while a 5,000-page project runs.
#include "squall/engine/engine.h"
#include "squall/engine/sqlite_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "squall/http/server.h"
#include "support/loop_fixture.h"
#include "support/memory.h"
#include "support/process.h"
#include "support/site.h"

namespace squall {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Follows every link of the same origin; a result for each 200 page.
class SiteSpider : public Handler {
 public:
  SiteSpider(std::string start, std::string project = "site")
      : Handler(std::move(project)), start_(std::move(start)) {
    origin_ = start_.substr(0, start_.find('/', 8));
    callback("page",
             [this](Response& r) -> std::optional<json> {
               if (r.status_code != 200) return std::nullopt;
               for (const std::string& link : r.links())
                 if (link.starts_with(origin_ + "/")) crawl(link, {{"callback", "page"}});
               return json{{"url", r.url}, {"links", r.links().size()}};
             },
             {.catch_status_code_error = true});
  }
  void on_start() override { crawl(start_, {{"callback", "page"}}); }

 private:
  std::string start_, origin_;
};

std::vector<json> read_lines(const std::filesystem::path& path) {
  std::vector<json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

// A small site: / links to /a and /b, which link to /c; /c links to /missing (404).
Task<void> small_site(http::ServerRequest& request, http::ServerResponse& response) {
  std::string path(request.path());
  static const std::map<std::string, std::string> pages = {
      {"/", "<a href=/a>a</a> <a href=/b>b</a> <a href='http://[bad'>broken</a>"},
      {"/a", "<title>A</title><a href=/c>c</a>"},
      {"/b", "<title>B</title><a href=/c>c</a> <a href=/throw>t</a>"},
      {"/c", "<title>C</title><a href=/missing>m</a>"},
      {"/throw", "<title>T</title>"},
  };
  auto it = pages.find(path);
  if (it == pages.end()) {
    response.set_status(404);
    co_return;
  }
  response.headers().set("Content-Type", "text/html");
  co_await response.write(it->second);
}

class SmallSpider : public Handler {
 public:
  explicit SmallSpider(std::string origin) : Handler("small"), origin_(std::move(origin)) {
    retry_delay = RetryDelays({}, 0);
    callback("page", [this](Response& r) -> std::optional<json> {
      if (r.url.ends_with("/throw")) throw std::runtime_error("the callback broke on purpose");
      for (const std::string& link : r.links()) crawl(link, {{"callback", "page"}, {"retries", 1}});
      XPathResult title = r.xpath("string(//title)");
      return json{{"url", r.url}, {"title", title.values().at(0)}};
    });
    callback("raw", [this](Response& r) -> std::optional<json> {
      // Relative URLs resolve against the response; a broken one becomes a bad task.
      crawl("http://[bad", {{"callback", "page"}});
      crawl("a", {{"callback", "page"}});
      return json{{"url", r.url}};
    });
  }
  void on_start() override {
    crawl(origin_ + "/", {{"callback", "page"}, {"retries", 1}});
    crawl(origin_ + "/c?raw", {{"callback", "raw"}});
  }
  void on_message(const std::string& from, const json& message) override {
    messages.emplace_back(from, message);
  }
  std::vector<std::pair<std::string, json>> messages;

 private:
  std::string origin_;
};

class EngineTest : public test::LoopTest {
 protected:
  EngineOptions options() {
    EngineOptions o;
    o.store = dir_.path() / "engine.db";
    o.jsonl = dir_.path() / "results.jsonl";
    o.commit_interval = 0.05;
    return o;
  }
  test::TempDir dir_;
};

TEST_F(EngineTest, AProjectRunsToItsEndWithAResultPerPageAndCountersThatMatchARecount) {
  auto body = [&]() -> Task<void> {
    http::HttpServer server(small_site);
    server.listen(Address::parse("127.0.0.1:0"));
    std::string origin = "http://127.0.0.1:" + std::to_string(server.port());
    SmallSpider spider(origin);
    Engine engine(options());
    engine.add_project(spider);
    EngineSummary summary = co_await engine.run();
    // /, /a, /b, /c and /c?raw give results; /throw fails (twice: one retry), /missing 404s.
    EXPECT_EQ(summary.results, 5u);
    EngineStore& store = *engine.store();
    EXPECT_EQ(co_await store.count("small"), 5);
    std::optional<CrawlTask> thrown =
        co_await store.get("small", default_taskid(origin + "/throw"));
    EXPECT_TRUE(thrown);
    if (thrown) {
      EXPECT_EQ(thrown->status, TaskStatus::Failed);
      EXPECT_NE(thrown->track.text().find("the callback broke on purpose"), std::string::npos)
          << thrown->track.text();
    }
    std::optional<CrawlTask> missing =
        co_await store.get("small", default_taskid(origin + "/missing"));
    EXPECT_TRUE(missing && missing->status == TaskStatus::Failed);
    if (missing) {
      EXPECT_NE(missing->track.text().find("404"), std::string::npos);
    }
    std::optional<CrawlTask> bad = co_await store.get("small", default_taskid("http://[bad"));
    EXPECT_TRUE(bad && bad->status == TaskStatus::Bad);
    if (bad) {
      EXPECT_NE(bad->track.text().find("unparsable URL"), std::string::npos);
    }
    std::optional<CrawlTask> relative = co_await store.get("small", default_taskid(origin + "/a"));
    EXPECT_TRUE(relative && relative->status == TaskStatus::Success);
    CounterValues recount = co_await store.recount("small");
    const TaskCounters* counters = engine.scheduler()->project_counters("small");
    EXPECT_EQ(counters->totals()[0], recount[0]);
    EXPECT_EQ(counters->totals()[1], recount[1]);
    EXPECT_EQ(counters->totals()[3], recount[3]);
    EXPECT_EQ(recount[0], 0);  // nothing left active
    http::HttpClient::shared().close();
    co_await server.stop(1s);
  };
  run(body());
  std::vector<json> lines = read_lines(dir_.path() / "results.jsonl");
  EXPECT_EQ(lines.size(), 5u);
  std::set<std::string> ids;
  for (const json& l : lines) {
    EXPECT_TRUE(l.contains("taskid") && l.contains("url") && l.contains("result") &&
                l.contains("updatetime"))
        << l.dump();
    ids.insert(l["taskid"].get<std::string>());
  }
  EXPECT_EQ(ids.size(), 5u);
}

TEST_F(EngineTest, ARunStoppedHalfWayResumesAndNoResultRepeats) {
  test::GeneratedSite site(300);
  auto pass = [&](bool stop_early) -> Task<EngineSummary> {
    SiteSpider spider(site.origin + "/index.html");
    EngineOptions o = options();
    o.concurrency = 4;
    Engine engine(o);
    engine.add_project(spider);
    TaskHandle<EngineSummary> running = spawn(engine.run());
    if (stop_early) {
      while (!engine.scheduler() || engine.scheduler()->counters("site")["all"]["success"] < 40)
        co_await sleep(5ms);
      engine.stop();
    }
    EngineSummary summary = co_await running;
    http::HttpClient::shared().close();
    co_return summary;
  };
  EngineSummary first = run(pass(true));
  EXPECT_TRUE(first.stopped);
  EngineSummary second = run(pass(false));
  EXPECT_FALSE(second.stopped);
  std::vector<json> lines = read_lines(dir_.path() / "results.jsonl");
  std::set<std::string> urls;
  for (const json& l : lines)
    EXPECT_TRUE(urls.insert(l["url"].get<std::string>()).second) << l["url"] << " twice";
  EXPECT_EQ(urls.size(), first.results + second.results);
  EXPECT_GT(urls.size(), 100u);
}

TEST_F(EngineTest, AHostWhoseRobotsTxtCannotBeFetchedKeepsItsTasksForALaterRun) {
  uint16_t port = 0;
  {
    http::HttpServer probe(small_site);
    probe.listen(Address::parse("127.0.0.1:0"));
    port = probe.port();
  }
  std::string origin = "http://127.0.0.1:" + std::to_string(port);
  auto pass = [&](bool up) -> Task<EngineSummary> {
    std::optional<http::HttpServer> server;
    if (up) {
      server.emplace(small_site);
      server->listen(Address::parse("127.0.0.1:" + std::to_string(port)));
    }
    SmallSpider spider(origin);
    EngineOptions o = options();
    o.hosts.obey_robots = true;
    o.hosts.robots_retries = 1;
    o.hosts.robots_backoff = 0.01;
    Engine engine(o);
    engine.add_project(spider);
    EngineSummary summary = co_await engine.run();
    std::optional<CrawlTask> start =
        co_await engine.store()->get("small", default_taskid(origin + "/"));
    EXPECT_TRUE(start);
    if (start) {
      EXPECT_EQ(start->status, up ? TaskStatus::Success : TaskStatus::Active);
      EXPECT_EQ(start->schedule.retried, 0) << "an unavailable host costs its tasks no try";
    }
    if (server) co_await server->stop(1s);
    co_return summary;
  };
  EngineSummary down = run(pass(false));
  EXPECT_EQ(down.parked, 2u);  // the start page and /c?raw
  EXPECT_EQ(down.results, 0u);
  EngineSummary up = run(pass(true));
  EXPECT_EQ(up.parked, 0u);
  EXPECT_EQ(up.results, 5u);
}

class Messenger : public Handler {
 public:
  Messenger() : Handler("sender") {}
  void on_start() override { send_message("receiver", json{{"hello", 1}}); }
};

class Receiver : public Handler {
 public:
  Receiver() : Handler("receiver") {}
  void on_message(const std::string& from, const json& message) override {
    got.emplace_back(from, message);
  }
  std::vector<std::pair<std::string, json>> got;
};

TEST_F(EngineTest, SendMessageReachesTheOtherProjectsOnMessage) {
  Messenger sender;
  Receiver receiver;
  Engine engine(options());
  engine.add_project(sender);
  engine.add_project(receiver);
  run(engine.run());
  ASSERT_EQ(receiver.got.size(), 1u);
  EXPECT_EQ(receiver.got[0].first, "sender");
  EXPECT_EQ(receiver.got[0].second, (json{{"hello", 1}}));
}

TEST_F(EngineTest, AnExportTheStoreDidNotWriteIsRefused) {
  dir_.write("results.jsonl", "{\"someone\": \"else\"}\n");
  Receiver nobody;
  Engine engine(options());
  engine.add_project(nobody);
  EXPECT_THROW(run(engine.run()), Error);
}

TEST_F(EngineTest, AFreshRunStartsTheExportOverToo) {
  dir_.write("results.jsonl", "{\"someone\": \"else\"}\n");
  Receiver nobody;
  EngineOptions o = options();
  o.fresh = true;
  Engine engine(o);
  engine.add_project(nobody);
  run(engine.run());
  EXPECT_TRUE(read_lines(dir_.path() / "results.jsonl").empty());
}

// The child: runs the project to its end on the store, then exits 0.
[[noreturn]] void run_child(const std::string& start, const std::filesystem::path& dir) {
  {
    Loop loop;
    SiteSpider spider(start);
    EngineOptions o;
    o.store = dir / "engine.db";
    o.jsonl = dir / "results.jsonl";
    o.concurrency = 16;
    o.commit_interval = 0.02;
    Engine engine(o);
    engine.add_project(spider);
    run_sync(engine.run());
    http::HttpClient::shared().close();
  }
  _exit(0);
}

TEST(EngineKill, KilledAtRandomPointsAProjectStillEndsWithEveryTaskOnceAndCountersThatMatch) {
  // nginx paces the site, so a full run takes at least 5000 / 2500 s on any machine, and the
  // kills (every 40-160 ms) all land inside it.
  test::GeneratedSite site(5000, 2500);
  test::TempDir dir;
  std::mt19937 rng(20261201);
  std::uniform_int_distribution<int> pause_ms(40, 160);
  int kills = 0;
  bool finished = false;
  while (!finished && kills < 100) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) run_child(site.origin + "/index.html", dir.path());
    int status = 0;
    if (kills < 10) {
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
      if (waitpid(child, &status, WNOHANG) == 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        ++kills;
        continue;
      }
    } else {
      waitpid(child, &status, 0);
    }
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    finished = true;
  }
  ASSERT_TRUE(finished);
  EXPECT_GE(kills, 10) << "the project finished before ten kills";

  // Every page reached once: the results, the export and the tasks agree.
  auto check = [&]() -> Task<void> {
    auto store = SqliteStore::open(dir.path() / "engine.db");
    int64_t results = co_await store->count("site");
    std::vector<TaskResult> all = co_await store->results("site", 0, 1'000'000);
    std::set<std::string> result_ids;
    for (const TaskResult& r : all) result_ids.insert(r.taskid);
    EXPECT_EQ(result_ids.size(), static_cast<size_t>(results));
    std::vector<json> lines = read_lines(dir.path() / "results.jsonl");
    std::map<std::string, int> line_ids;
    for (const json& l : lines) ++line_ids[l["taskid"].get<std::string>()];
    EXPECT_EQ(line_ids.size(), lines.size()) << "a result was exported twice";
    EXPECT_EQ(line_ids.size(), result_ids.size());
    for (const std::string& id : result_ids) EXPECT_EQ(line_ids.count(id), 1u) << id;
    CounterValues recount = co_await store->recount("site");
    EXPECT_EQ(recount[0], 0) << "tasks left active";
    std::optional<nlohmann::json> saved = co_await store->counters("site");
    EXPECT_TRUE(saved);
    TaskCounters counters;
    if (saved) counters.restore(*saved);
    EXPECT_EQ(counters.totals()[0], recount[0]);
    EXPECT_EQ(counters.totals()[1], recount[1]);
    EXPECT_EQ(counters.totals()[3], recount[3]);
    // Every URL the site's generator says a crawl reaches ended as a success, plus the
    // project's on_start and on_finished.
    EXPECT_EQ(recount[1], static_cast<int64_t>(site.without_robots.size()) + 2);
  };
  Loop loop;
  run_sync(check());
}

// A project of two periodic jobs, stopped by itself once the second tick's page is in.
class Ticker : public Handler {
 public:
  explicit Ticker(Engine*& engine) : Handler("ticker"), engine_(engine) {
    every(1, [this] {
      ++seconds;
      crawl("data:,tick-" + std::to_string(seconds), {{"callback", "page"}});
    });
    every(2, [this] { ++evens; });
    callback("page", [this](Response& r) -> std::optional<json> {
      if (r.url == "data:,tick-2") engine_->stop();
      return json{{"page", r.url}};
    });
  }
  int seconds = 0, evens = 0;

 private:
  Engine*& engine_;
};

TEST_F(EngineTest, PeriodicJobsRunAtTheirTicksWhileTheEngineRuns) {
  Engine* running = nullptr;
  Ticker ticker(running);
  EngineOptions o = options();
  o.exit_when_done = false;  // periodic jobs keep a project going until stop()
  Engine engine(o);
  running = &engine;
  engine.add_project(ticker);
  EngineSummary summary = run(engine.run());
  EXPECT_TRUE(summary.stopped);
  EXPECT_GE(ticker.seconds, 2);
  // Two ticks a second apart hold one even tick at least; the job of two seconds never runs
  // more often than the job of one (a late wake-up runs each due job once).
  EXPECT_GE(ticker.evens, 1);
  EXPECT_LE(ticker.evens, ticker.seconds);
  // What the jobs crawled went through the pipeline like any task; the cron tasks themselves
  // are not stored.
  auto check = [&]() -> Task<void> {
    EngineStore& store = *engine.store();
    EXPECT_TRUE(co_await store.result("ticker", default_taskid("data:,tick-1")));
    EXPECT_TRUE(co_await store.result("ticker", default_taskid("data:,tick-2")));
    EXPECT_FALSE(co_await store.get("ticker", "_on_cronjob"));
  };
  run(check());
}

}  // namespace
}  // namespace squall

namespace squall {
namespace {

// on_start asks for one data: page, whose callback asks for `count` distinct pages (never
// fetched: the test lets only those two through), then throws when told to. Its time limit is
// an hour, so that a slow machine does not fail it.
class ManyFollows : public Handler {
 public:
  ManyFollows(size_t count, bool raise) : Handler("many"), count_(count), raise_(raise) {
    callback("many",
             [this](Response&) -> std::optional<json> {
               for (size_t i = 0; i < count_; ++i) crawl(url(i), {{"callback", "page"}});
               if (raise_) throw std::runtime_error("the callback broke after its follows");
               return std::nullopt;
             },
             {.time_limit = 3600});
    callback("page", [](Response&) -> std::optional<json> { return std::nullopt; });
  }
  void on_start() override { crawl(kPage, {{"callback", "many"}}); }
  static std::string url(size_t i) { return "http://127.0.0.1:9/page/" + std::to_string(i); }
  static bool lets_through(const CrawlTask& t) { return t.taskid == "on_start" || t.url == kPage; }
  static constexpr const char* kPage = "data:,many";

 private:
  size_t count_;
  bool raise_;
};

// Runs on_start alone and reports what the store holds: the follows' counts, the start task.
struct ManyFollowsRun {
  EngineSummary summary;
  CounterValues recount{};
  std::optional<CrawlTask> page, first, last;
  size_t peak_growth_kib = 0;
};

// Far above what the engine needs (a 16 MiB page cache, the scheduler's known taskids, a few
// batches), far below 1,000,000 follows held whole (about 500 MiB).
constexpr size_t kFollowsPeakBoundKib = 200 * 1024;

class ManyFollowsTest : public test::LoopTest {
 protected:
  ManyFollowsRun run_many_follows(size_t count, bool raise) {
    const std::filesystem::path& dir = dir_.path();
    ManyFollowsRun out;
    auto body = [&]() -> Task<void> {
      ManyFollows handler(count, raise);
      EngineOptions o;
      o.store = dir / "engine.db";
      o.jsonl = dir / "results.jsonl";
      o.store_cache_mib = 16;
      // A slow machine (a sanitizer, a busy one) may need more than the default ten minutes
      // for the callback and its follows: the task is not to be dispatched again meanwhile.
      o.scheduler.processing_timeout = 3600;
      o.hooks.may_dispatch = ManyFollows::lets_through;
      Engine engine(o);
      engine.add_project(handler);
      test::reset_peak_rss();
      size_t before = test::rss_kib();
      out.summary = co_await engine.run();
      out.peak_growth_kib = test::peak_rss_kib() - before;
      RecordProperty("peak_growth_kib", std::to_string(out.peak_growth_kib));
      EngineStore& store = *engine.store();
      out.recount = co_await store.recount("many");
      out.page = co_await store.get("many", default_taskid(ManyFollows::kPage));
      out.first = co_await store.get("many", default_taskid(ManyFollows::url(0)));
      out.last = co_await store.get("many", default_taskid(ManyFollows::url(count - 1)));
    };
    run(body(), std::chrono::seconds(600));
    return out;
  }

  test::TempDir dir_;
};

TEST_F(ManyFollowsTest, ACallbackFollowingAMillionPagesStoresEachOnceInBoundedMemory) {
  if (test::kAddressSanitizer)
    GTEST_SKIP() << "a million follows take minutes under AddressSanitizer, whose memory says "
                    "little of the bound: the release tree runs this, the smaller follow tests "
                    "run here";
  constexpr size_t kCount = 1'000'000;
  ManyFollowsRun r = run_many_follows(kCount, false);
  EXPECT_TRUE(r.summary.limited);
  // on_start, its page and every follow, each inserted once.
  EXPECT_EQ(r.summary.follows, kCount + 2);
  EXPECT_EQ(r.recount[static_cast<size_t>(CounterKind::Pending)], static_cast<int64_t>(kCount));
  EXPECT_EQ(r.recount[static_cast<size_t>(CounterKind::Success)], 2);
  ASSERT_TRUE(r.page && r.first && r.last);
  EXPECT_EQ(r.page->status, TaskStatus::Success) << r.page->track.text();
  EXPECT_EQ(r.page->track.read()["process"]["follows"], kCount);
  EXPECT_EQ(r.first->url, ManyFollows::url(0));
  EXPECT_EQ(r.last->process["callback"], "page");
  EXPECT_LT(r.peak_growth_kib, kFollowsPeakBoundKib)
      << "the process grew by " << r.peak_growth_kib / 1024
      << " MiB at its peak: follows are held whole instead of handed on in batches";
}

TEST_F(ManyFollowsTest, ACallbackThatRaisesAfterFiftyThousandFollowsStillSendsThemAndFails) {
  constexpr size_t kCount = 50'000;
  ManyFollowsRun r = run_many_follows(kCount, true);
  EXPECT_EQ(r.summary.follows, kCount + 2);
  EXPECT_EQ(r.summary.failed, 1u);
  // The page waits for its retry; its follows are all there.
  EXPECT_EQ(r.recount[static_cast<size_t>(CounterKind::Pending)], static_cast<int64_t>(kCount + 1));
  ASSERT_TRUE(r.page && r.first && r.last);
  EXPECT_EQ(r.page->status, TaskStatus::Active);
  EXPECT_EQ(r.page->track.read()["process"]["ok"], false);
  EXPECT_EQ(r.page->track.read()["process"]["follows"], kCount);
  EXPECT_NE(r.page->track.text().find("the callback broke after its follows"), std::string::npos);
}

// Tells the parent that a commit holding follows is done, and keeps the child where it is.
Task<void> tell_and_hold(int ready_fd) {
  char byte = 'x';
  if (::write(ready_fd, &byte, 1) != 1) _exit(3);
  for (;;) pause();
  co_return;
}

// The child of the kill test: on_start's follows go in until a commit has made more than a
// batch of them durable while on_start has not ended; then it tells the parent, which kills it.
[[noreturn]] void run_many_follows_child(const std::filesystem::path& dir, size_t count,
                                         int ready_fd) {
  {
    Loop loop;
    ManyFollows handler(count, false);
    EngineOptions o;
    o.store = dir / "engine.db";
    o.jsonl = dir / "results.jsonl";
    o.commit_interval = 0.02;
    o.hooks.may_dispatch = ManyFollows::lets_through;
    Engine* engine = nullptr;
    std::vector<TaskHandle<void>> told;
    o.hooks.committing = [&](EngineStore&) -> Task<void> {
      auto totals = engine->scheduler()->project_counters("many")->totals();
      bool mid_callback = totals[static_cast<size_t>(CounterKind::Success)] < 2;
      if (told.empty() && mid_callback &&
          totals[static_cast<size_t>(CounterKind::Pending)] > 1000) {
        // The commit this hook precedes never suspends (SQLite): the spawned task runs after it.
        told.push_back(spawn(tell_and_hold(ready_fd)));
      }
      co_return;
    };
    Engine running(o);
    engine = &running;
    running.add_project(handler);
    run_sync(running.run());
  }
  _exit(0);
}

TEST(ManyFollowsKill, KilledWhileACallbacksFollowsGoInTheRunAfterStoresEachOnce) {
  constexpr size_t kCount = 200'000;
  test::TempDir dir;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    run_many_follows_child(dir.path(), kCount, ready[1]);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the child ended before its follows were durable";
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  close(ready[0]);
  ASSERT_TRUE(WIFSIGNALED(status));

  Loop loop;
  auto second = [&]() -> Task<void> {
    CounterValues killed;
    {
      auto store = SqliteStore::open(dir.path() / "engine.db");
      killed = co_await store->recount("many");
    }
    // Some follows were durable, the page's callback had not ended (on_start had).
    EXPECT_EQ(killed[static_cast<size_t>(CounterKind::Success)], 1);
    int64_t durable = killed[static_cast<size_t>(CounterKind::Pending)] - 1;
    EXPECT_GT(durable, 1000);
    EXPECT_LT(durable, static_cast<int64_t>(kCount));

    ManyFollows handler(kCount, false);
    EngineOptions o;
    o.store = dir.path() / "engine.db";
    o.jsonl = dir.path() / "results.jsonl";
    o.hooks.may_dispatch = ManyFollows::lets_through;
    Engine engine(o);
    engine.add_project(handler);
    EngineSummary summary = co_await engine.run();
    // on_start again, and only the follows the killed run had not made durable.
    EXPECT_EQ(summary.follows, 1 + kCount - static_cast<size_t>(durable));
    CounterValues after = co_await engine.store()->recount("many");
    EXPECT_EQ(after[static_cast<size_t>(CounterKind::Pending)], static_cast<int64_t>(kCount));
    EXPECT_EQ(after[static_cast<size_t>(CounterKind::Success)], 2);
  };
  run_sync(second(), std::chrono::seconds(600));
}

}  // namespace
}  // namespace squall
