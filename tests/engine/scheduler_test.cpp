// Scheduler over a real SQLite store, with a clock the tests move: every rule named as a sentence,
// each with a case where it must not fire.
#include "squall/engine/scheduler.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "squall/core/event.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/engine/sqlite_store.h"
#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall {
namespace {

using nlohmann::json;

constexpr double kStart = 1'700'000'000;

class SchedulerTest : public test::LoopTest {
 protected:
  SchedulerTest() { open(); }

  void open(SchedulerOptions options = {}) {
    scheduler_.reset();
    store_.reset();
    store_ = SqliteStore::open(dir_.path() / "engine.db");
    options.clock = [this] { return now_; };
    scheduler_ = std::make_unique<Scheduler>(*store_, options);
    add_project("p");
  }

  void add_project(const std::string& name, double rate = TokenBucket::kUnlimited,
                   double burst = -1, ProjectStatus status = ProjectStatus::Running,
                   RetryDelays delays = RetryDelays()) {
    ProjectInfo info;
    info.name = name;
    info.status = status;
    info.rate = rate;
    info.burst = burst < 0 ? rate * 10 : burst;
    run(scheduler_->add_project(info, delays));
  }

  static CrawlTask task(const std::string& url, int priority = 0,
                        const std::string& project = "p") {
    CrawlTask t = CrawlTask::for_url(project, url);
    t.schedule.priority = priority;
    return t;
  }

  RequestCounts request(std::vector<CrawlTask> tasks) {
    return run(scheduler_->request(std::move(tasks)));
  }
  RequestCounts request(CrawlTask t) {
    std::vector<CrawlTask> one;
    one.push_back(std::move(t));
    return request(std::move(one));
  }
  std::vector<Dispatch> select(size_t max = 100) { return run(scheduler_->select(max)); }
  static std::vector<std::string> urls(const std::vector<Dispatch>& ds) {
    std::vector<std::string> out;
    for (const Dispatch& d : ds) out.push_back(d.task.url);
    return out;
  }
  bool outcome(const Dispatch& d, bool ok) {
    return run(
        scheduler_->outcome(StatusPack::of(d, ok, JsonText(json{{"process", {{"ok", ok}}}}))));
  }
  CrawlTask stored(const std::string& url, const std::string& project = "p") {
    auto t = run(store_->get(project, default_taskid(url)));
    EXPECT_TRUE(t.has_value()) << url;
    return t ? *t : CrawlTask();
  }
  void expect_counters_match_recount(const std::string& project = "p") {
    run(scheduler_->commit());
    CounterValues recount = run(store_->recount(project));
    const TaskCounters* c = scheduler_->project_counters(project);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->totals()[0], recount[0]) << "pending";
    EXPECT_EQ(c->totals()[1], recount[1]) << "success";
    EXPECT_EQ(c->totals()[3], recount[3]) << "failed";
  }

  test::TempDir dir_;
  double now_ = kStart;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<Scheduler> scheduler_;
};

TEST_F(SchedulerTest, TasksLeaveByPriorityThenInTheOrderTheyCame) {
  request({task("http://h/a"), task("http://h/b", 2), task("http://h/c"), task("http://h/d", 2),
           task("http://h/e", -1)});
  EXPECT_EQ(urls(select()), (std::vector<std::string>{"http://h/b", "http://h/d", "http://h/a",
                                                      "http://h/c", "http://h/e"}));
  EXPECT_TRUE(select().empty());
}

TEST_F(SchedulerTest, ATaskWithAnExetimeWaitsForIt) {
  CrawlTask later = task("http://h/later");
  later.schedule.exetime = kStart + 60;
  CrawlTask past = task("http://h/past");
  past.schedule.exetime = kStart - 60;  // already due: ready at once
  request({later, past});
  EXPECT_EQ(urls(select()), std::vector<std::string>{"http://h/past"});
  now_ = kStart + 59;
  EXPECT_TRUE(select().empty());
  EXPECT_EQ(scheduler_->next_wake(), kStart + 60);
  now_ = kStart + 60;
  EXPECT_EQ(urls(select()), std::vector<std::string>{"http://h/later"});
}

TEST_F(SchedulerTest, AKnownTaskidIsDroppedUnlessForceUpdate) {
  EXPECT_EQ(request(task("http://h/a")).inserted, 1u);
  EXPECT_EQ(request(task("http://h/a")).dropped, 1u);
  auto d = select();
  ASSERT_EQ(d.size(), 1u);
  ASSERT_TRUE(outcome(d[0], true));
  EXPECT_EQ(request(task("http://h/a")).dropped, 1u);
  CrawlTask again = task("http://h/a");
  again.schedule.force_update = true;
  EXPECT_EQ(request(again).restarted, 1u);
  EXPECT_EQ(urls(select()), std::vector<std::string>{"http://h/a"});
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, AForceUpdateForATaskInWorkWaitsForItsOutcome) {
  request(task("http://h/a"));
  auto d = select();
  ASSERT_EQ(d.size(), 1u);
  CrawlTask again = task("http://h/a", 5);
  again.schedule.force_update = true;
  EXPECT_EQ(request(again).postponed, 1u);
  EXPECT_TRUE(select().empty());  // not dispatched twice at once
  ASSERT_TRUE(outcome(d[0], true));
  auto next = select();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].task.schedule.priority, 5);
}

TEST_F(SchedulerTest, AChangedItagOrAPassedAgeRestartsAFinishedTask) {
  CrawlTask a = task("http://h/a");
  a.schedule.itag = "v1";
  a.schedule.age = 3600;
  request(a);
  auto d = select();
  ASSERT_TRUE(outcome(d.at(0), true));
  EXPECT_EQ(stored("http://h/a").status, TaskStatus::Success);
  // Same itag, age not passed: dropped.
  EXPECT_EQ(request(a).dropped, 1u);
  now_ += 3601;  // the age has passed
  EXPECT_EQ(request(a).restarted, 1u);
  d = select();
  ASSERT_TRUE(outcome(d.at(0), true));
  CrawlTask v2 = a;
  v2.schedule.itag = "v2";
  EXPECT_EQ(request(v2).restarted, 1u);
  EXPECT_EQ(stored("http://h/a").schedule.itag, "v2");
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, AFailedTaskIsRetriedAfterThirtySecondsThenAnHourAndFailsAfterItsRetries) {
  CrawlTask a = task("http://h/a");
  a.schedule.retries = 2;
  request(a);
  auto d = select();
  ASSERT_TRUE(outcome(d.at(0), false));
  EXPECT_EQ(stored("http://h/a").schedule.retried, 1);
  now_ += 29;
  EXPECT_TRUE(select().empty());
  now_ += 1;
  d = select();
  ASSERT_EQ(d.size(), 1u);
  ASSERT_TRUE(outcome(d[0], false));
  now_ += 3599;
  EXPECT_TRUE(select().empty());
  now_ += 1;
  d = select();
  ASSERT_EQ(d.size(), 1u);
  ASSERT_TRUE(outcome(d[0], false));
  EXPECT_EQ(stored("http://h/a").status, TaskStatus::Failed);
  EXPECT_EQ(scheduler_->counters("p")["1d"]["retry"], 2);
  EXPECT_EQ(scheduler_->counters("p")["1h"]["retry"], 0);  // both are an hour old
  EXPECT_EQ(scheduler_->counters("p")["5m"]["failed"], 1);
  now_ += 86400 * 30;
  EXPECT_TRUE(select().empty());
  EXPECT_EQ(scheduler_->counters("p")["1d"]["retry"], 0);
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, AProjectsRetryDelaysReplaceTheDefaults) {
  add_project("p", TokenBucket::kUnlimited, -1, ProjectStatus::Running, RetryDelays({{0, 5}}, 7));
  request(task("http://h/a"));
  ASSERT_TRUE(outcome(select().at(0), false));
  now_ += 5;
  auto d = select();
  ASSERT_EQ(d.size(), 1u);
  ASSERT_TRUE(outcome(d[0], false));
  now_ += 6;
  EXPECT_TRUE(select().empty());
  now_ += 1;
  EXPECT_EQ(select().size(), 1u);
}

TEST_F(SchedulerTest, AnAutoRecrawlTaskComesBackEveryAgeAndNeverFails) {
  CrawlTask a = task("http://h/a");
  a.schedule.auto_recrawl = true;
  a.schedule.age = 600;
  a.schedule.retries = 0;
  request(a);
  ASSERT_TRUE(outcome(select().at(0), true));
  EXPECT_EQ(stored("http://h/a").status, TaskStatus::Active);
  now_ += 599;
  EXPECT_TRUE(select().empty());
  now_ += 1;
  auto d = select();
  ASSERT_EQ(d.size(), 1u);
  ASSERT_TRUE(outcome(d[0], false));  // no retries left, yet it does not fail
  EXPECT_EQ(stored("http://h/a").status, TaskStatus::Active);
  now_ += 600;
  EXPECT_EQ(select().size(), 1u);
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, CancelMarksATaskBadAndTakesItOutOfTheQueue) {
  request({task("http://h/a"), task("http://h/b")});
  CrawlTask cancel = task("http://h/a");
  cancel.schedule.cancel = true;
  EXPECT_EQ(request(cancel).dropped, 1u);  // without force_update, nothing restarts
  cancel.schedule.force_update = true;
  EXPECT_EQ(request(cancel).cancelled, 1u);
  EXPECT_EQ(stored("http://h/a").status, TaskStatus::Bad);
  EXPECT_EQ(urls(select()), std::vector<std::string>{"http://h/b"});
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, AStatusDeliveredTwiceIsAppliedOnce) {
  request(task("http://h/a"));
  auto d = select();
  ASSERT_TRUE(outcome(d.at(0), false));
  EXPECT_FALSE(outcome(d.at(0), false));
  EXPECT_FALSE(outcome(d.at(0), true));
  EXPECT_EQ(stored("http://h/a").schedule.retried, 1);
  StatusPack forged = StatusPack::of(d.at(0), true, JsonText());
  forged.token += 1000;
  EXPECT_FALSE(run(scheduler_->outcome(forged)));
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, ATaskBackFromWorkIsDispatchedAgainWithItsFetchAndProcess) {
  // Back by a retry, a put-back, a processing timeout and a recrawl, in turn.
  CrawlTask a = task("http://h/a");
  a.fetch = {{"method", "POST"}, {"data", "q=1"}, {"save", {{"page", 2}}}};
  a.process = {{"callback", "detail"}};
  a.schedule.age = 3600;
  a.schedule.auto_recrawl = true;
  a.schedule.retries = 1;
  request(a);
  auto same_dicts = [&](const std::vector<Dispatch>& d, const char* how) {
    ASSERT_EQ(d.size(), 1u) << how;
    EXPECT_EQ(d[0].task.fetch, a.fetch) << how;
    EXPECT_EQ(d[0].task.process, a.process) << how;
  };
  auto d = select();
  same_dicts(d, "the first dispatch");
  ASSERT_TRUE(outcome(d[0], false));
  now_ += 30;
  d = select();
  same_dicts(d, "a retry");
  ASSERT_TRUE(scheduler_->put_back(d[0]));
  d = select();
  same_dicts(d, "a put-back");
  now_ += 600;
  d = select();
  same_dicts(d, "after the processing timeout");
  ASSERT_TRUE(outcome(d[0], true));
  now_ += 3600;
  d = select();
  same_dicts(d, "a recrawl");
}

// An SQLite store whose reads of one task wait until the test lets them go, as a query to a
// server (PostgreSQL) lets the rest of the engine run meanwhile.
class WaitingStore final : public TaskStore {
 public:
  explicit WaitingStore(TaskStore& store) : store_(store) {}
  Event released;
  bool reading = false;

  Task<std::optional<CrawlTask>> get(std::string project, std::string taskid) override {
    reading = true;
    co_await released.wait();
    co_return co_await store_.get(std::move(project), std::move(taskid));
  }
  Task<void> put(const CrawlTask& task, int64_t seq) override { return store_.put(task, seq); }
  Task<void> update(const CrawlTask& task, int64_t seq) override {
    return store_.update(task, seq);
  }
  Task<std::vector<QueuedTask>> ready(std::string project, std::optional<ReadyKey> after,
                                      size_t limit) override {
    return store_.ready(std::move(project), after, limit);
  }
  Task<std::vector<QueuedTask>> delayed(std::string project, std::optional<DelayKey> after,
                                        size_t limit) override {
    return store_.delayed(std::move(project), after, limit);
  }
  Task<int64_t> last_seq() override { return store_.last_seq(); }
  Task<void> each_taskid(std::string project, std::function<void(const std::string&)> fn) override {
    return store_.each_taskid(std::move(project), std::move(fn));
  }
  Task<CounterValues> recount(std::string project) override {
    return store_.recount(std::move(project));
  }
  Task<std::optional<json>> counters(std::string project) override {
    return store_.counters(std::move(project));
  }
  Task<void> save_counters(std::string project, const json& counters) override {
    return store_.save_counters(std::move(project), counters);
  }
  Task<void> commit() override { return store_.commit(); }

 private:
  TaskStore& store_;
};

TEST_F(SchedulerTest, ARetryWaitingOnTheStoreKeepsTheSchedulerFromIdle) {
  // Between its outcome and its place in a window a retried task is read back from the store;
  // an engine that took the scheduler for idle meanwhile would end the crawl without it.
  WaitingStore waiting(*store_);
  SchedulerOptions options;
  options.clock = [this] { return now_; };
  Scheduler scheduler(waiting, options);
  ProjectInfo info;
  info.name = "q";
  info.status = ProjectStatus::Running;
  run(scheduler.add_project(info, RetryDelays()));
  auto body = [&]() -> Task<void> {
    std::vector<CrawlTask> one;
    one.push_back(task("http://h/a", 0, "q"));
    co_await scheduler.request(std::move(one));
    std::vector<Dispatch> d = co_await scheduler.select(10);
    EXPECT_EQ(d.size(), 1u);
    if (d.empty()) co_return;
    TaskHandle<bool> applying = spawn(scheduler.outcome(StatusPack::of(d[0], false, JsonText())));
    while (!waiting.reading) co_await sleep(Duration::zero());
    EXPECT_FALSE(scheduler.idle()) << "while its task is read back";
    waiting.released.set();
    co_await applying.join();
    EXPECT_TRUE(applying.successful());
    EXPECT_FALSE(scheduler.idle()) << "its retry waits";
  };
  run(body());
}

TEST_F(SchedulerTest, ATaskPutBackIsDispatchedAgainFromItsPlaceAndAStaleOneIsNot) {
  request(task("http://h/a"));
  request(task("http://h/b"));
  auto first = select(1);
  ASSERT_EQ(urls(first), (std::vector<std::string>{"http://h/a"}));
  EXPECT_TRUE(scheduler_->put_back(first[0]));
  EXPECT_FALSE(scheduler_->put_back(first[0])) << "no longer in work";
  EXPECT_EQ(urls(select()), (std::vector<std::string>{"http://h/a", "http://h/b"}));
  EXPECT_EQ(stored("http://h/a").schedule.retried, 0) << "no try counted";
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, AReleasedTaskStaysActiveUntriedAndComesBackOnlyAfterARestart) {
  request(task("http://h/a"));
  auto d = select();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(scheduler_->release(d[0]));
  EXPECT_FALSE(outcome(d[0], true)) << "its outcome no longer applies";
  EXPECT_TRUE(select().empty());
  EXPECT_TRUE(scheduler_->idle());
  CrawlTask t = stored("http://h/a");
  EXPECT_EQ(t.status, TaskStatus::Active);
  EXPECT_EQ(t.schedule.retried, 0);
  expect_counters_match_recount();
  run(scheduler_->commit());
  open();
  EXPECT_EQ(urls(select()), (std::vector<std::string>{"http://h/a"}));
}

TEST_F(SchedulerTest, ANewTaskMarkedDoneIsStoredDoneAndNeverDispatched) {
  CrawlTask done = task("http://h/target");
  done.status = TaskStatus::Success;
  EXPECT_EQ(request(std::move(done)).inserted, 1u);
  EXPECT_TRUE(select().empty());
  EXPECT_EQ(stored("http://h/target").status, TaskStatus::Success);
  EXPECT_EQ(request(task("http://h/target")).dropped, 1u) << "a later request finds it known";
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, ATaskWithNoOutcomeWithinTheProcessingTimeoutIsDispatchedAgain) {
  request(task("http://h/a"));
  auto first = select();
  ASSERT_EQ(first.size(), 1u);
  now_ += 599;
  EXPECT_TRUE(select().empty());
  now_ += 1;
  auto second = select();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(second[0].token, first[0].token);
  EXPECT_FALSE(outcome(first[0], true));  // the first dispatch's late answer is stale
  EXPECT_TRUE(outcome(second[0], true));
  EXPECT_EQ(stored("http://h/a").status, TaskStatus::Success);
}

TEST_F(SchedulerTest, AnsweredTasksLeaveNoDeadlineBehindAndOneStillInWorkKeepsItsOwn) {
  request(task("http://h/slow"));
  auto slow = select(1);
  ASSERT_EQ(slow.size(), 1u);
  std::vector<CrawlTask> tasks;
  for (int i = 0; i < 5000; ++i) tasks.push_back(task("http://h/" + std::to_string(i)));
  request(tasks);
  size_t answered = 0;
  for (auto d = select(10); !d.empty(); d = select(10)) {
    for (const Dispatch& x : d) answered += outcome(x, true);
    Scheduler::Held held = scheduler_->held("p");
    EXPECT_EQ(held.in_work, 1u);
    ASSERT_LE(held.deadlines, 2 * held.in_work + 1024 + 10) << "after " << answered;
  }
  EXPECT_EQ(answered, 5000u);
  EXPECT_LT(scheduler_->held("p").deadlines, 5000u);
  now_ += 600;
  auto again = select();
  ASSERT_EQ(again.size(), 1u) << "the task still in work times out as before";
  EXPECT_EQ(again[0].task.url, "http://h/slow");
  EXPECT_TRUE(outcome(again[0], true));
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, AProjectsTokenBucketLimitsItsDispatches) {
  add_project("p", 2, 3);
  std::vector<CrawlTask> many;
  for (int i = 0; i < 10; ++i) many.push_back(task("http://h/" + std::to_string(i)));
  request(many);
  EXPECT_EQ(select().size(), 3u);  // the burst
  EXPECT_TRUE(select().empty());
  EXPECT_DOUBLE_EQ(*scheduler_->next_wake(), kStart + 0.5);
  now_ += 0.5;
  EXPECT_EQ(select().size(), 1u);
  now_ += 1;
  EXPECT_EQ(select().size(), 2u);
}

TEST_F(SchedulerTest, ProjectsAreServedInTurnSoNoneStarvesAnother) {
  add_project("big");
  add_project("small");
  std::vector<CrawlTask> tasks;
  for (int i = 0; i < 50; ++i) tasks.push_back(task("http://big/" + std::to_string(i), 0, "big"));
  tasks.push_back(task("http://small/1", 0, "small"));
  tasks.push_back(task("http://small/2", 0, "small"));
  request(tasks);
  auto d = select(4);
  ASSERT_EQ(d.size(), 4u);
  int small = 0;
  for (const Dispatch& x : d) small += x.task.project == "small";
  EXPECT_EQ(small, 2);
}

TEST_F(SchedulerTest, AProjectThatIsNotRunningTakesNoTasksAndDispatchesNone) {
  request(task("http://h/a"));
  add_project("p", TokenBucket::kUnlimited, -1, ProjectStatus::Stop);
  EXPECT_TRUE(select().empty());
  EXPECT_EQ(request(task("http://h/b")).rejected, 1u);
  EXPECT_EQ(request(task("http://h/c", 0, "nobody")).rejected, 1u);
  add_project("p", TokenBucket::kUnlimited, -1, ProjectStatus::Debug);
  EXPECT_EQ(urls(select()), std::vector<std::string>{"http://h/a"});
}

TEST_F(SchedulerTest, TenFailuresInARowPauseAProjectForFiveMinutesThenThreeChecksRun) {
  std::vector<CrawlTask> tasks;
  for (int i = 0; i < 20; ++i) {
    CrawlTask t = task("http://h/" + std::to_string(i));
    t.schedule.retries = 0;
    tasks.push_back(t);
  }
  request(tasks);
  auto d = select(10);
  ASSERT_EQ(d.size(), 10u);
  for (const Dispatch& x : d) ASSERT_TRUE(outcome(x, false));
  EXPECT_TRUE(select().empty());
  EXPECT_EQ(scheduler_->next_wake(), kStart + 300);
  now_ += 300;
  auto checks = select();
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_TRUE(select().empty());
  ASSERT_TRUE(outcome(checks[0], true));
  EXPECT_EQ(select().size(), 7u);  // resumed: the rest go out
}

TEST_F(SchedulerTest, NineFailuresAndASuccessDoNotPause) {
  std::vector<CrawlTask> tasks;
  for (int i = 0; i < 12; ++i) {
    CrawlTask t = task("http://h/" + std::to_string(i));
    t.schedule.retries = 0;
    tasks.push_back(t);
  }
  request(tasks);
  auto d = select(10);
  for (size_t i = 0; i < d.size(); ++i) ASSERT_TRUE(outcome(d[i], i == 4));
  EXPECT_EQ(select().size(), 2u);
}

TEST_F(SchedulerTest, TheWindowStaysBoundedAndEveryTaskStillLeavesInOrder) {
  open({.window = 16});
  std::vector<CrawlTask> tasks;
  for (int i = 0; i < 500; ++i) tasks.push_back(task("http://h/" + std::to_string(i), i % 3));
  request(tasks);
  EXPECT_LE(scheduler_->held("p").ready, 16u);
  std::vector<Dispatch> all;
  int last_priority = 100;
  for (;;) {
    auto d = select(7);
    if (d.empty()) break;
    EXPECT_LE(scheduler_->held("p").ready, 16u);
    for (Dispatch& x : d) {
      EXPECT_LE(x.task.schedule.priority, last_priority);
      last_priority = x.task.schedule.priority;
      all.push_back(std::move(x));
    }
  }
  ASSERT_EQ(all.size(), 500u);
  for (const Dispatch& x : all) ASSERT_TRUE(outcome(x, true));
  expect_counters_match_recount();
}

TEST_F(SchedulerTest, ANewHigherPriorityTaskOvertakesAFullWindow) {
  open({.window = 8});
  std::vector<CrawlTask> tasks;
  for (int i = 0; i < 100; ++i) tasks.push_back(task("http://h/" + std::to_string(i)));
  request(tasks);
  std::set<std::string> seen;
  for (const Dispatch& d : select(3)) seen.insert(d.task.url);
  for (int i = 0; i < 20; ++i) request(task("http://h/urgent" + std::to_string(i), 9));
  auto urgent = select(1);
  EXPECT_EQ(urls(urgent), std::vector<std::string>{"http://h/urgent0"});
  seen.insert(urgent.at(0).task.url);
  size_t rest = 0;
  for (auto d = select(); !d.empty(); d = select())
    for (const Dispatch& x : d) {
      ++rest;
      EXPECT_TRUE(seen.insert(x.task.url).second) << x.task.url << " dispatched twice";
    }
  EXPECT_EQ(rest, 116u);
  EXPECT_EQ(seen.size(), 120u);
}

TEST_F(SchedulerTest, ARestartDispatchesWhatWasInWorkAgainAndKeepsTheCounters) {
  request({task("http://h/a"), task("http://h/b"), task("http://h/c")});
  auto d = select(2);
  ASSERT_EQ(d.size(), 2u);
  ASSERT_TRUE(outcome(d[0], true));
  run(scheduler_->commit());
  // b is in work when the process dies; its later outcome goes nowhere.
  open();
  auto again = select();
  EXPECT_EQ(urls(again), (std::vector<std::string>{"http://h/b", "http://h/c"}));
  EXPECT_FALSE(outcome(d[1], true));  // the old token means nothing now
  EXPECT_EQ(scheduler_->counters("p")["all"]["success"], 1);
  EXPECT_EQ(scheduler_->counters("p")["all"]["pending"], 2);
  EXPECT_EQ(scheduler_->counters("p")["5m"]["success"], 1);
  EXPECT_EQ(request(task("http://h/a")).dropped, 1u);  // known from the store
  expect_counters_match_recount();
}

}  // namespace
}  // namespace squall
