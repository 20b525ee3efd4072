// PgStore against a real PostgreSQL 15 started for the test: the task store's orders and
// round trips, writes buffered until commit and gone with the connection before it, bounded
// buffering, results and projects (one by one and in batches, exported once by a result worker), a
// scheduler dispatching over it across a restart, and a project's claim lost with its session or
// kept across starting over.
#include "squall/engine/pg_store.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "squall/core/error.h"
#include "squall/engine/result_worker.h"
#include "squall/engine/scheduler.h"
#include "support/loop_fixture.h"
#include "support/postgres_server.h"
#include "support/process.h"

namespace squall {
namespace {

using nlohmann::json;

class PgStoreTest : public test::PostgresTest {
 protected:
  // A store on the test database, emptied first unless `keep`.
  std::unique_ptr<PgStore> open(bool keep = false) { return run(PgStore::open(pg().url(), !keep)); }
};

CrawlTask active(const std::string& url, int priority = 0, double exetime = 0) {
  CrawlTask t = CrawlTask::for_url("p", url);
  t.schedule.priority = priority;
  t.schedule.exetime = exetime;
  return t;
}

TEST_F(PgStoreTest, ReadyTasksComeByPriorityThenSeqAfterACursorAndDelayedOnesByExetime) {
  auto store = open();
  run(store->put(active("http://h/a", 0), 1));
  run(store->put(active("http://h/b", 5), 2));
  run(store->put(active("http://h/c", 0), 3));
  run(store->put(active("http://h/later", 9, 2e9), 4));
  run(store->put(active("http://h/sooner", 9, 1e9), 5));
  CrawlTask done = active("http://h/done", 9);
  done.status = TaskStatus::Success;
  run(store->put(done, 6));
  auto page = run(store->ready("p", std::nullopt, 2));
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0].task.url, "http://h/b");
  EXPECT_EQ(page[1].task.url, "http://h/a");
  auto rest = run(store->ready("p", page[1].ready_key(), 10));
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].task.url, "http://h/c");
  auto delayed = run(store->delayed("p", std::nullopt, 10));
  ASSERT_EQ(delayed.size(), 2u);
  EXPECT_EQ(delayed[0].task.url, "http://h/sooner");
  EXPECT_EQ(run(store->delayed("p", delayed[0].delay_key(), 10)).size(), 1u);
  EXPECT_EQ(run(store->last_seq()), 6);
  EXPECT_TRUE(run(store->ready("other", std::nullopt, 10)).empty());
}

TEST_F(PgStoreTest, ATaskRoundTripsWithItsDictsAndAnotherConnectionSeesItAfterTheCommit) {
  CrawlTask t = active("http://h/a", 3);
  t.fetch = json{{"method", "POST"}, {"headers", {{"X-A", "1"}}}, {"save", {1, 2.5, "é"}}};
  t.process = json{{"callback", "detail_page"}};
  t.track = JsonText(json{{"fetch", {{"status_code", 200}, {"time", 0.25}}}});
  t.schedule.itag = "v1";
  t.schedule.age = 60;
  t.schedule.auto_recrawl = true;
  auto store = open();
  run(store->put(t, 7));
  auto other = open(true);
  EXPECT_FALSE(run(other->get("p", t.taskid))) << "not committed yet";
  run(store->commit());
  auto back = run(other->get("p", t.taskid));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->to_json(), t.to_json());
  EXPECT_FALSE(run(other->get("p", "nope")));
  EXPECT_EQ(run(other->last_seq()), 0) << "read at open";
  EXPECT_EQ(run(open(true)->last_seq()), 7);
}

TEST_F(PgStoreTest, WritesNotCommittedAreGoneWithTheConnection) {
  auto store = open();
  run(store->put(active("http://h/a"), 3));
  run(store->commit());
  CrawlTask a = active("http://h/a");
  a.status = TaskStatus::Success;
  run(store->update(a, 9));
  run(store->put(active("http://h/b"), 10));
  run(store->set_meta("k", "v"));  // sent at once, inside the open transaction
  store->close();                  // what a kill -9 of the process does to its session
  auto after = open(true);
  EXPECT_EQ(run(after->last_seq()), 3);
  auto back = run(after->get("p", default_taskid("http://h/a")));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, TaskStatus::Active);
  EXPECT_FALSE(run(after->get("p", default_taskid("http://h/b"))));
  EXPECT_FALSE(run(after->meta("k")));
  // The closed store connects again and goes on from the last commit.
  EXPECT_TRUE(run(store->get("p", default_taskid("http://h/a"))));
}

TEST_F(PgStoreTest, ReadsSeeBufferedWritesAndAnUpdateOfABufferedPutIsFoldedIntoIt) {
  auto store = open();
  CrawlTask a = active("http://h/a");
  a.fetch = json{{"save", {{"depth", 2}}}};
  run(store->put(a, 1));
  CrawlTask outcome = active("http://h/a");
  outcome.status = TaskStatus::Success;
  outcome.track = JsonText(json{{"process", {{"ok", true}}}});
  outcome.lastcrawltime = 100;
  run(store->update(outcome, 2));
  EXPECT_EQ(store->buffered(), 1u);
  auto seen = run(store->get("p", a.taskid));
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->status, TaskStatus::Success);
  EXPECT_EQ(seen->fetch, a.fetch) << "an update keeps the put's fetch";
  run(store->commit());
  EXPECT_EQ(store->buffered(), 0u);
  // An update of a stored task, read before it is sent.
  CrawlTask again = outcome;
  again.status = TaskStatus::Active;
  again.schedule.retried = 1;
  run(store->update(again, 3));
  auto merged = run(store->get("p", a.taskid));
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->status, TaskStatus::Active);
  EXPECT_EQ(merged->schedule.retried, 1);
  EXPECT_EQ(merged->fetch, a.fetch);
  EXPECT_EQ(merged->url, "http://h/a");
  // The window reads send the buffer first.
  EXPECT_EQ(run(store->ready("p", std::nullopt, 10)).size(), 1u);
  run(store->commit());
  auto stored = run(open(true)->get("p", a.taskid));
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->schedule.retried, 1);
  EXPECT_EQ(stored->track, outcome.track);
}

TEST_F(PgStoreTest, ManyWritesAreSentInBatchesSoTheBufferStaysBounded) {
  auto store = open();
  constexpr int kTasks = 2500;
  size_t most = 0;
  for (int i = 0; i < kTasks; ++i) {
    run(store->put(active("http://h/" + std::to_string(i)), i + 1));
    most = std::max(most, store->buffered());
  }
  EXPECT_LT(most, PgStore::kFlushRows);
  CounterValues v = run(store->recount("p"));
  EXPECT_EQ(v[static_cast<size_t>(CounterKind::Pending)], kTasks);
  std::set<std::string> ids;
  run(store->each_taskid("p", [&](const std::string& id) { ids.insert(id); }));
  EXPECT_EQ(ids.size(), static_cast<size_t>(kTasks));
  run(store->commit());
}

TEST_F(PgStoreTest, AResultUpsertedTwiceIsStoredOnceAndKeepsItsFirstPlace) {
  auto store = open();
  run(store->upsert("p", TaskResult{"t1", "http://h/1", json{{"n", 1}}, 1}));
  run(store->upsert("p", TaskResult{"t2", "http://h/2", json{{"n", 2}}, 2}));
  run(store->upsert("p", TaskResult{"t1", "http://h/1", json{{"n", 3}, {"s", "x"}}, 3}));
  run(store->commit());
  EXPECT_EQ(run(store->count("p")), 2);
  auto all = run(store->results("p", 0, 10));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].taskid, "t1");
  EXPECT_EQ(all[0].result, (json{{"n", 3}, {"s", "x"}}));
  EXPECT_EQ(all[1].taskid, "t2");
  EXPECT_EQ(run(store->results("p", 1, 10)).size(), 1u);
  auto one = run(store->result("p", "t2"));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->updatetime, 2);
  EXPECT_FALSE(run(store->result("p", "t9")));
}

std::vector<ProjectResult> result_batch(const std::vector<std::string>& keys, int n) {
  std::vector<ProjectResult> out;
  for (const std::string& key : keys) {
    ProjectResult& r = out.emplace_back();
    r.project = key.substr(0, key.find('/'));
    r.result.taskid = key.substr(key.find('/') + 1);
    r.result.url = "http://h/" + r.result.taskid;
    r.result.result = json{{"n", n++}};
  }
  return out;
}

TEST_F(PgStoreTest, ABatchOfResultsIsUpsertedInItsOrderATaskGivenTwiceKeepingItsLast) {
  auto store = open();
  run(store->upsert("p", TaskResult{"old", "http://h/old", json{{"n", 0}}, 1}));
  auto batch = result_batch({"p/a", "q/a", "p/old", "p/a", "p/b"}, 1);
  run(store->upsert_all(batch));
  run(store->commit());
  auto p = run(store->results("p", 0, 10));
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].taskid, "old");
  EXPECT_EQ(p[0].result, (json{{"n", 3}}));
  EXPECT_EQ(p[1].taskid, "a");
  EXPECT_EQ(p[1].result, (json{{"n", 4}})) << "the last of the two";
  EXPECT_EQ(p[2].taskid, "b");
  auto q = run(store->results("q", 0, 10));
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].result, (json{{"n", 2}}));
  run(store->upsert_all({}));
}

TEST_F(PgStoreTest, TheStoredResultsOfABatchComeInItsOrderAcrossStatementsAndProjects) {
  auto store = open();
  std::vector<std::string> keys;
  for (size_t i = 0; i < PgStore::kRowsPerStatement + 20; ++i)
    keys.push_back(std::string(i % 2 ? "p/" : "q/") + std::to_string(i));
  auto all = result_batch(keys, 0);
  std::vector<ProjectResult> every_third;
  for (size_t i = 0; i < all.size(); i += 3) every_third.push_back(all[i]);
  run(store->upsert_all(every_third));
  run(store->commit());
  all.push_back(all[3]);
  all.back().project = "elsewhere";
  auto held = run(store->stored(all));
  ASSERT_EQ(held.size(), all.size());
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    ASSERT_EQ(held[i].has_value(), i % 3 == 0) << i;
    if (held[i]) {
      EXPECT_EQ(held[i]->result, all[i].result.result) << i;
    }
  }
  EXPECT_FALSE(held.back()) << "the same taskid in another project";
  EXPECT_TRUE(run(store->stored({})).empty());
}

TEST_F(PgStoreTest, AResultWorkersBatchExportsOnlyResultsThatDifferFromWhatTheirTaskHeld) {
  test::TempDir dir;
  auto store = open();
  auto file = dir.path() / "results.jsonl";
  {
    ResultWorker writer(*store, file);
    run(writer.open());
    run(writer.write_batch(result_batch({"p/a", "p/b"}, 1)));
    run(writer.checkpoint());
    run(store->commit());
  }
  ResultWorker writer(*store, file);
  run(writer.open());
  // a and b again as stored, b twice more in the batch (the second time changed, the third
  // time as the second), c new.
  auto batch = result_batch({"p/a", "p/b", "p/b", "p/b", "p/c"}, 0);
  batch[0].result.result = json{{"n", 1}};
  batch[1].result.result = json{{"n", 2}};
  batch[2].result.result = json{{"n", 7}};
  batch[3].result.result = json{{"n", 7}};
  run(writer.write_batch(batch));
  run(writer.checkpoint());
  run(store->commit());
  std::string lines = test::read_file(file);
  std::vector<std::string> got;
  for (size_t at = 0; at < lines.size();) {
    size_t end = lines.find('\n', at);
    got.push_back(json::parse(lines.substr(at, end - at)).at("result").dump());
    at = end + 1;
  }
  EXPECT_EQ(got,
            (std::vector<std::string>{R"({"n":1})", R"({"n":2})", R"({"n":7})", R"({"n":4})"}));
  EXPECT_EQ(run(store->result("p", "b"))->result, (json{{"n", 7}}));
  EXPECT_EQ(run(store->count("p")), 3);
}

TEST_F(PgStoreTest, ProjectsCountersAndMetaRoundTripWithAnUnlimitedRate) {
  auto store = open();
  ProjectInfo info;
  info.name = "p";
  info.group = "g";
  info.status = ProjectStatus::Running;
  info.script = "print('hi')";
  info.rate = std::numeric_limits<double>::infinity();
  info.burst = 3;
  run(store->put_project(info));
  run(store->save_counters("p", json{{"all", {1, 2, 3, 4}}}));
  run(store->set_meta("export", "42"));
  run(store->commit());
  auto other = open(true);
  auto back = run(other->project("p"));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, ProjectStatus::Running);
  EXPECT_EQ(back->rate, std::numeric_limits<double>::infinity());
  EXPECT_EQ(back->script, "print('hi')");
  EXPECT_EQ(run(other->projects()).size(), 1u);
  EXPECT_FALSE(run(other->project("q")));
  EXPECT_EQ(run(other->counters("p")), (json{{"all", {1, 2, 3, 4}}}));
  EXPECT_EQ(run(other->meta("export")), "42");
}

TEST_F(PgStoreTest, ASchedulerOverPostgresDispatchesEveryTaskOnceAcrossARestart) {
  constexpr int kTasks = 1200;
  ProjectInfo info;
  info.name = "p";
  info.status = ProjectStatus::Running;
  info.rate = info.burst = TokenBucket::kUnlimited;
  std::set<std::string> dispatched;
  {
    auto store = open();
    Scheduler scheduler(*store);
    run(scheduler.add_project(info));
    std::vector<CrawlTask> tasks;
    for (int i = 0; i < kTasks; ++i) tasks.push_back(active("http://h/" + std::to_string(i)));
    run(scheduler.request(std::move(tasks)));
    run(scheduler.commit());
    // Half are answered and committed; then the process "dies" with 100 more in work.
    while (dispatched.size() < kTasks / 2) {
      for (const Dispatch& d : run(scheduler.select(100))) {
        EXPECT_TRUE(dispatched.insert(d.task.taskid).second) << d.task.url;
        run(scheduler.outcome(StatusPack::of(d, true, JsonText())));
      }
    }
    run(scheduler.commit());
    EXPECT_EQ(run(scheduler.select(100)).size(), 100u);
    store->close();
  }
  auto store = open(true);
  Scheduler scheduler(*store);
  run(scheduler.add_project(info));
  size_t again = 0;
  for (;;) {
    std::vector<Dispatch> batch = run(scheduler.select(100));
    if (batch.empty()) break;
    for (const Dispatch& d : batch) {
      EXPECT_EQ(dispatched.count(d.task.taskid), 0u)
          << "answered before the restart: " << d.task.url;
      ++again;
      run(scheduler.outcome(StatusPack::of(d, true, JsonText())));
    }
  }
  run(scheduler.commit());
  EXPECT_EQ(again, static_cast<size_t>(kTasks / 2)) << "the 100 in work are dispatched again";
  CounterValues v = run(store->recount("p"));
  EXPECT_EQ(v[static_cast<size_t>(CounterKind::Success)], kTasks);
  EXPECT_EQ(v[static_cast<size_t>(CounterKind::Pending)], 0);
  const TaskCounters* counters = scheduler.project_counters("p");
  ASSERT_TRUE(counters);
  EXPECT_EQ(counters->totals(), v) << "the counters equal a recount";
}

// A project's claim is its session's: after the server restarted, the store that claimed it
// fails every call with Closed instead of going on, unclaimed, on a new connection, and another
// store may claim the project.
TEST_F(PgStoreTest, AStoreWhoseClaimingSessionEndedFailsEveryCallAndTheClaimIsFree) {
  auto store = open();
  run(store->claim_project("p"));
  run(store->put(active("http://h/a"), 1));
  run(store->commit());
  pg().restart();
  for (int call = 0; call < 2; ++call) {
    ErrorKind kind = ErrorKind::InvalidArgument;
    try {
      run(store->get("p", CrawlTask::for_url("p", "http://h/a").taskid));
    } catch (const PgError& e) {
      kind = e.kind();
    }
    EXPECT_EQ(kind, ErrorKind::Closed) << "call " << call;
  }
  auto again = open(/*keep=*/true);
  run(again->claim_project("p"));
  EXPECT_TRUE(run(again->get("p", CrawlTask::for_url("p", "http://h/a").taskid)).has_value());
}

TEST_F(PgStoreTest, StartingOverEmptiesTheTablesAndKeepsTheClaim) {
  auto store = open();
  run(store->claim_project("p"));
  run(store->put(active("http://h/a"), 1));
  run(store->commit());
  run(store->start_over());
  EXPECT_FALSE(run(store->get("p", CrawlTask::for_url("p", "http://h/a").taskid)).has_value());
  EXPECT_EQ(run(store->last_seq()), 0);
  auto other = open(/*keep=*/true);
  EXPECT_THROW(run(other->claim_project("p")), InvalidArgumentError);
}

TEST_F(PgStoreTest, SquallTablesOfAnotherLayoutAreRefusedSayingWhatToDo) {
  {
    auto store = open();
    run(store->set_meta("layout", "0"));
    run(store->commit());
  }
  try {
    open(true);
    FAIL() << "opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("fresh"), std::string::npos) << e.what();
  }
  // Starting over, as the error says, replaces them.
  auto store = open();
  run(store->put(active("http://h/a"), 1));
  run(store->commit());
  EXPECT_EQ(run(open(true)->last_seq()), 1);
}

}  // namespace
}  // namespace squall
