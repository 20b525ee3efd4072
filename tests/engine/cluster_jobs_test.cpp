// The split engine's @every jobs and parked tasks (cluster.h), its components on one loop against
// a real redis-server and a real PostgreSQL: the scheduler that holds a project's claim fires
// its jobs at their ticks and does not end by itself; a second scheduler standing by fires none,
// and once it takes over goes on from the last tick fired, even by a clock that runs behind, so
// no tick is fired twice and none is lost; and a task of a host whose robots.txt cannot be
// fetched is parked untried, not failed, as the embedded engine of `squall run` parks it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "squall/core.h"
#include "squall/engine/cluster.h"
#include "squall/engine/engine.h"
#include "squall/engine/engine_store.h"
#include "squall/engine/processor.h"
#include "support/loop_fixture.h"
#include "support/postgres_server.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// The page the job of a second crawls at its nth run.
std::string tick_page(int n) {
  std::string url = "data:,tick-";
  url.append(std::to_string(n));
  return url;
}

// A project of two jobs, one every second, which crawls a data: page each time it runs, and one
// every two seconds.
class Ticker : public Handler {
 public:
  Ticker() : Handler("ticker") {
    every(1, [this] {
      ++seconds;
      crawl(tick_page(seconds), {{"callback", "page"}});
    });
    every(2, [this] { ++evens; });
    callback("page", [this](Response& r) -> std::optional<json> {
      ++pages;
      return json{{"page", r.url}};
    });
  }
  int seconds = 0, evens = 0, pages = 0;
};

// The interval of ticks an "_on_cronjob" task carried: its jobs due in (last, tick] ran.
struct Tick {
  int64_t last = 0, tick = 0;
};

// A project's runtime that notes each "_on_cronjob" task it processes, then runs it as usual.
class TickLog : public ProjectRuntime {
 public:
  explicit TickLog(ProjectRuntime& inner) : inner_(inner) {}
  const std::string& project() const override { return inner_.project(); }
  RetryDelays retry_delay() const override { return inner_.retry_delay(); }
  const std::vector<CronJob>& cron_jobs() const override { return inner_.cron_jobs(); }
  CrawlTask start_task() const override { return inner_.start_task(); }
  using ProjectRuntime::process;
  Task<ProcessOutput> process(const Dispatch& d, FetchResult fetched,
                              FollowSink* follows) override {
    if (d.task.callback() == "_on_cronjob") {
      const json& save = d.task.fetch.at("save");
      ticks.push_back(Tick{save.at("last_tick").get<int64_t>(), save.at("tick").get<int64_t>()});
    }
    return inner_.process(d, std::move(fetched), follows);
  }

  std::vector<Tick> ticks;

 private:
  ProjectRuntime& inner_;
};

// Why `ticks` are not one run of each tick after the one before it, or "" when they are.
std::string gaps_or_repeats(std::vector<Tick> ticks) {
  std::sort(ticks.begin(), ticks.end(),
            [](const Tick& a, const Tick& b) { return a.tick < b.tick; });
  std::ostringstream why;
  for (size_t i = 0; i < ticks.size(); ++i) {
    const Tick& t = ticks[i];
    if (t.tick <= t.last) why << "(" << t.last << ", " << t.tick << "] is empty; ";
    if (i == 0) continue;
    if (t.tick == ticks[i - 1].tick) why << "tick " << t.tick << " came twice; ";
    if (t.last != ticks[i - 1].tick)
      why << "(" << t.last << ", " << t.tick << "] does not follow " << ticks[i - 1].tick << "; ";
  }
  return why.str();
}

// On_start asks for one page of a host where nothing listens, robots.txt included.
class Unreachable : public Handler {
 public:
  explicit Unreachable(std::string url) : Handler("parker"), url_(std::move(url)) {
    callback("page", [](Response&) -> std::optional<json> { return json{{"fetched", true}}; });
  }
  void on_start() override { crawl(url_, {{"callback", "page"}}); }

 private:
  std::string url_;
};

// Polls `ready` every 50 ms until it holds (true) or `limit` passes (false).
Task<bool> eventually(std::function<bool()> ready, Duration limit) {
  const TimePoint deadline = Clock::now() + limit;
  while (!ready()) {
    if (Clock::now() >= deadline) co_return false;
    co_await sleep(50ms);
  }
  co_return true;
}

class ClusterJobsTest : public test::PostgresTest {
 protected:
  ClusterOptions options(std::string ns) {
    ClusterOptions o;
    o.redis = redis_.url();
    o.ns = std::move(ns);
    o.taskdb = pg().url();
    o.concurrency = 4;
    o.hosts.obey_robots = true;
    o.hosts.robots_retries = 0;  // an unreachable robots.txt gives its host up at once
    return o;
  }

  test::RedisServer redis_;
};

TEST_F(ClusterJobsTest, AnEveryJobFiresAtItsTicksAndTheCrawlDoesNotEndByItself) {
  Ticker ticker;
  Processor processor(ticker);
  TickLog log(processor);
  std::vector<ProjectRuntime*> projects = {&log};
  ClusterOptions o = options("ticks");
  o.fresh = true;
  ASSERT_TRUE(o.exit_when_done);
  ComponentSummary scheduled;
  bool ran_on = false;
  run(
      [&]() -> Task<void> {
        Event stop;
        TaskHandle<ComponentSummary> scheduler = spawn(run_scheduler(o, projects, stop));
        TaskHandle<ComponentSummary> fetcher = spawn(run_fetcher(o, stop));
        TaskHandle<ComponentSummary> processing = spawn(run_processor(o, projects, stop));
        TaskHandle<ComponentSummary> results = spawn(run_result_worker(o, stop));
        // Three runs of the job of a second, each page it crawled processed.
        bool ticked = co_await eventually([&] { return ticker.pages >= 3; }, 60s);
        EXPECT_TRUE(ticked) << ticker.seconds << " runs, " << ticker.pages << " pages";
        // on_start asked for nothing: without its jobs the crawl would have been done at once.
        ran_on = !scheduler.done() && !fetcher.done() && !processing.done() && !results.done();
        stop.set();
        scheduled = co_await scheduler;
        co_await fetcher;
        co_await processing;
        co_await results;
      }(),
      90s);
  EXPECT_TRUE(ran_on) << "a component ended by itself";
  EXPECT_TRUE(scheduled.stopped);
  EXPECT_GE(ticker.seconds, 3);
  // Each tick once, each after the one before; the two-second job never runs more often than
  // the one-second job (a tick runs each job due in it once).
  EXPECT_EQ(gaps_or_repeats(log.ticks), "");
  EXPECT_EQ(static_cast<size_t>(ticker.seconds), log.ticks.size());
  EXPECT_GE(ticker.evens, 1);
  EXPECT_LE(ticker.evens, ticker.seconds);

  run([&]() -> Task<void> {
    EngineStoreOptions keep;
    std::unique_ptr<EngineStore> store = co_await open_engine_store(pg().url(), keep);
    // What the job crawled went through the pipeline to the result store.
    for (int i = 1; i <= 3; ++i) {
      std::string taskid = default_taskid(tick_page(i));
      std::optional<TaskResult> result = co_await store->result("ticker", taskid);
      EXPECT_TRUE(result) << i;
    }
    // The last tick fired is the project's "_on_cronjob" task, done and counted.
    std::optional<CrawlTask> record = co_await store->get("ticker", "_on_cronjob");
    EXPECT_TRUE(record);
    if (record && !log.ticks.empty()) {
      EXPECT_EQ(record->status, TaskStatus::Success);
      int64_t last = 0;
      for (const Tick& t : log.ticks) last = std::max(last, t.tick);
      EXPECT_EQ(record->fetch["save"]["tick"], last);
    }
    CounterValues recount = co_await store->recount("ticker");
    std::optional<json> saved = co_await store->counters("ticker");
    EXPECT_TRUE(saved);
    if (saved) {
      TaskCounters counters;
      counters.restore(*saved);
      EXPECT_EQ(counters.totals(), recount);
    }
    EXPECT_EQ(recount[static_cast<size_t>(CounterKind::Failed)], 0);
  }());
}

TEST_F(ClusterJobsTest, TwoSchedulersNeverFireATickTwiceAndTheOneTakingOverGoesOnFromTheLast) {
  Ticker ticker;
  Processor processor(ticker);
  TickLog log(processor);
  std::vector<ProjectRuntime*> projects = {&log};
  ClusterOptions first = options("takeover");
  first.fresh = true;
  first.consumer = "scheduler-a";
  ClusterOptions second = options("takeover");
  second.consumer = "scheduler-b";
  // On a machine whose clock runs 3 s behind: going by its own clock, it would fire again the
  // ticks the first one fired last.
  second.scheduler.clock = [] { return wall_clock_seconds() - 3; };
  ClusterOptions others = options("takeover");
  test::LogCapture said;
  size_t while_both = 0, before_takeover = 0;
  run(
      [&]() -> Task<void> {
        Event stop, stop_first, stop_second;
        TaskHandle<ComponentSummary> a = spawn(run_scheduler(first, projects, stop_first));
        TaskHandle<ComponentSummary> fetcher = spawn(run_fetcher(others, stop));
        TaskHandle<ComponentSummary> processing = spawn(run_processor(others, projects, stop));
        bool ticked = co_await eventually([&] { return log.ticks.size() >= 2; }, 60s);
        EXPECT_TRUE(ticked);
        // The second stands by while the first holds the project.
        TaskHandle<ComponentSummary> b = spawn(run_scheduler(second, projects, stop_second));
        bool standing = co_await eventually([&] { return said.contains("standing by"); }, 60s);
        EXPECT_TRUE(standing);
        while_both = log.ticks.size();
        ticked = co_await eventually([&] { return log.ticks.size() >= while_both + 3; }, 60s);
        EXPECT_TRUE(ticked);
        stop_first.set();
        co_await a;
        before_takeover = log.ticks.size();
        bool took_over = co_await eventually(
            [&] { return said.contains("is ours now") && log.ticks.size() >= before_takeover + 3; },
            60s);
        EXPECT_TRUE(took_over) << log.ticks.size() << " ticks";
        stop_second.set();
        stop.set();
        co_await b;
        co_await fetcher;
        co_await processing;
      }(),
      120s);
  // Every tick once, whichever scheduler fired it, and the first the second fired carried the
  // last the first fired: none twice, none lost.
  EXPECT_EQ(gaps_or_repeats(log.ticks), "");
  EXPECT_GE(log.ticks.size(), before_takeover + 3);
  EXPECT_EQ(static_cast<size_t>(ticker.seconds), log.ticks.size());
}

TEST_F(ClusterJobsTest, ATaskOfAHostWhoseRobotsTxtCannotBeFetchedIsParkedAsSquallRunParksIt) {
  std::string url = "http://127.0.0.1:";
  url.append(std::to_string(test::free_port())).append("/page");
  Unreachable clustered(url);
  Processor processor(clustered);
  std::vector<ProjectRuntime*> projects = {&processor};
  ClusterOptions o = options("parking");
  o.fresh = true;
  ComponentSummary scheduled, fetched;
  run(
      [&]() -> Task<void> {
        Event stop;
        TaskHandle<ComponentSummary> scheduler = spawn(run_scheduler(o, projects, stop));
        TaskHandle<ComponentSummary> fetcher = spawn(run_fetcher(o, stop));
        TaskHandle<ComponentSummary> processing = spawn(run_processor(o, projects, stop));
        TaskHandle<ComponentSummary> results = spawn(run_result_worker(o, stop));
        // The crawl ends by itself: the parked task is not waited for.
        scheduled = co_await scheduler;
        fetched = co_await fetcher;
        co_await processing;
        co_await results;
      }(),
      90s);
  EXPECT_FALSE(scheduled.stopped);
  EXPECT_EQ(fetched.parked, 1u);
  EXPECT_EQ(scheduled.parked, 1u);
  EXPECT_EQ(fetched.handled, 2u) << "on_start and on_finished, not the page";

  // The embedded engine on the same project.
  test::TempDir dir;
  Unreachable embedded(url);
  EngineOptions e;
  e.store = (dir.path() / "engine.db").string();
  e.jsonl = dir.path() / "results.jsonl";
  e.hosts.obey_robots = true;
  e.hosts.robots_retries = 0;
  EngineSummary alone;
  {
    Engine engine(e);
    engine.add_project(embedded);
    alone = run(engine.run(), 60s);
  }
  EXPECT_EQ(alone.parked, 1u);
  EXPECT_EQ(alone.failed, 0u);

  run([&]() -> Task<void> {
    EngineStoreOptions keep;
    std::unique_ptr<EngineStore> cluster = co_await open_engine_store(pg().url(), keep);
    std::unique_ptr<EngineStore> single = co_await open_engine_store(e.store, keep);
    const std::string taskid = default_taskid(url);
    // Active and untried in both: no try counted, nothing of a fetch in its track.
    std::vector<EngineStore*> stores = {cluster.get(), single.get()};
    for (EngineStore* store : stores) {
      std::optional<CrawlTask> task = co_await store->get("parker", taskid);
      EXPECT_TRUE(task) << store->describe();
      if (!task) continue;
      EXPECT_EQ(task->status, TaskStatus::Active) << store->describe();
      EXPECT_EQ(task->schedule.retried, 0) << store->describe();
      EXPECT_FALSE(task->track.read().contains("fetch"))
          << store->describe() << ": " << task->track.text();
      EXPECT_EQ(task->lastcrawltime, 0) << store->describe();
    }
    CounterValues in_cluster = co_await cluster->recount("parker");
    CounterValues in_one = co_await single->recount("parker");
    EXPECT_EQ(in_cluster, in_one);
    EXPECT_EQ(in_cluster[static_cast<size_t>(CounterKind::Pending)], 1);
    EXPECT_EQ(in_cluster[static_cast<size_t>(CounterKind::Failed)], 0);
    // The counters the scheduler kept say the same: no failure, no retry.
    std::optional<json> saved = co_await cluster->counters("parker");
    EXPECT_TRUE(saved);
    if (saved) {
      TaskCounters counters;
      counters.restore(*saved);
      EXPECT_EQ(counters.totals(), in_cluster);
      json report = counters.report(wall_clock_seconds());
      EXPECT_EQ(report["1h"]["retry"], 0) << report;
      EXPECT_EQ(report["1h"]["failed"], 0) << report;
    }
  }());
}

}  // namespace
}  // namespace squall
