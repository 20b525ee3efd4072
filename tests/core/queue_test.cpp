// Queue, PriorityQueue and LifoQueue with Tornado's semantics.
#include "squall/core/queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using QueueTest = test::LoopTest;

TEST_F(QueueTest, NowaitVariantsRaiseDistinctFullAndEmptyErrors) {
  Queue<int> q(1);
  EXPECT_THROW(q.get_nowait(), QueueEmptyError);
  q.put_nowait(1);
  EXPECT_TRUE(q.full());
  EXPECT_THROW(q.put_nowait(2), QueueFullError);
  EXPECT_EQ(q.get_nowait(), 1);
}

TEST_F(QueueTest, GettersAreServedInTheOrderTheyStartedWaiting) {
  Queue<int> q;
  std::vector<std::string> got;
  auto getter = [&](std::string name) -> Task<void> {
    int v = co_await q.get();
    got.push_back(name + std::to_string(v));
  };
  auto body = [&]() -> Task<void> {
    auto a = spawn(getter("a"));
    auto b = spawn(getter("b"));
    auto c = spawn(getter("c"));
    co_await sleep(0s);
    for (int i = 1; i <= 3; ++i) co_await q.put(i);
    co_await a.join();
    co_await b.join();
    co_await c.join();
  };
  run(body());
  EXPECT_EQ(got, (std::vector<std::string>{"a1", "b2", "c3"}));
}

TEST_F(QueueTest, APutterWaitsWhileFullAndEntersWhenAGetMakesRoom) {
  Queue<int> q(1);
  std::vector<std::string> events;
  auto putter = [&]() -> Task<void> {
    co_await q.put(1);
    events.push_back("put 1");
    co_await q.put(2);
    events.push_back("put 2");
  };
  auto body = [&]() -> Task<void> {
    auto p = spawn(putter());
    co_await sleep(1ms);
    EXPECT_EQ(events, std::vector<std::string>{"put 1"});
    EXPECT_EQ(co_await q.get(), 1);
    co_await p.join();
    EXPECT_EQ(q.get_nowait(), 2);
  };
  run(body());
}

TEST_F(QueueTest, GetAndPutTimeOutWithTimeoutError) {
  Queue<int> q(1);
  auto body = [&]() -> Task<void> {
    EXPECT_THROW(co_await q.get(2ms), TimeoutError);
    q.put_nowait(1);
    EXPECT_THROW(co_await q.put(2, 2ms), TimeoutError);
    EXPECT_EQ(q.qsize(), 1u) << "a timed-out put must not insert its item";
  };
  run(body());
}

TEST_F(QueueTest, KillingAGetterLeavesTheLineAndTheNextGetterGetsTheItem) {
  Queue<int> q;
  auto body = [&]() -> Task<void> {
    auto getter = [&]() -> Task<int> { co_return co_await q.get(); };
    auto first = spawn(getter());
    auto second = spawn(getter());
    co_await sleep(0s);
    first.kill();
    co_await first.join();
    q.put_nowait(9);
    EXPECT_EQ(co_await second, 9);
  };
  run(body());
}

TEST_F(QueueTest, KillingAPutterDropsItsItem) {
  Queue<int> q(1);
  q.put_nowait(1);
  auto body = [&]() -> Task<void> {
    auto putter = [&]() -> Task<void> { co_await q.put(2); };
    auto p = spawn(putter());
    co_await sleep(0s);
    p.kill();
    co_await p.join();
    EXPECT_EQ(q.get_nowait(), 1);
    EXPECT_TRUE(q.empty());
  };
  run(body());
}

TEST_F(QueueTest, AnItemHandedToAKilledGetterIsStillReturnedToIt) {
  Queue<int> q;
  std::vector<int> received;
  auto body = [&]() -> Task<void> {
    auto getter = [&]() -> Task<void> {
      received.push_back(co_await q.get());
      co_await sleep(10s);
    };
    auto g = spawn(getter());
    co_await sleep(0s);
    q.put_nowait(5);  // handed over: the getter is now ready to resume
    g.kill();         // arrives after the hand-off
    co_await g.join();
  };
  run(body());
  EXPECT_EQ(received, std::vector<int>{5});
}

TEST_F(QueueTest, JoinWaitsUntilEveryItemIsMarkedDone) {
  Queue<int> q;
  std::vector<int> processed;
  auto worker = [&]() -> Task<void> {
    for (;;) {
      int v = co_await q.get();
      co_await sleep(1ms);
      processed.push_back(v);
      q.task_done();
    }
  };
  auto body = [&]() -> Task<void> {
    for (int i = 0; i < 5; ++i) q.put_nowait(i);
    auto w = spawn(worker());
    co_await q.join(5s);
    EXPECT_EQ(processed.size(), 5u);
    w.kill();
    co_await w.join();
  };
  run(body());
}

TEST_F(QueueTest, JoinTimesOutWhileItemsAreUnfinished) {
  Queue<int> q;
  q.put_nowait(1);
  auto body = [&]() -> Task<void> { EXPECT_THROW(co_await q.join(2ms), TimeoutError); };
  run(body());
}

TEST_F(QueueTest, TaskDoneCalledTooOftenIsAnError) {
  Queue<int> q;
  q.put_nowait(1);
  q.get_nowait();
  q.task_done();
  EXPECT_THROW(q.task_done(), InvalidStateError);
}

TEST_F(QueueTest, PriorityQueueReturnsTheSmallestFirst) {
  PriorityQueue<std::pair<int, std::string>> q;
  q.put_nowait({3, "low"});
  q.put_nowait({1, "high"});
  q.put_nowait({2, "mid"});
  EXPECT_EQ(q.get_nowait().second, "high");
  EXPECT_EQ(q.get_nowait().second, "mid");
  EXPECT_EQ(q.get_nowait().second, "low");
}

TEST_F(QueueTest, LifoQueueReturnsTheNewestFirst) {
  LifoQueue<int> q;
  for (int i = 0; i < 3; ++i) q.put_nowait(i);
  EXPECT_EQ(q.get_nowait(), 2);
  EXPECT_EQ(q.get_nowait(), 1);
}

}  // namespace
}  // namespace squall
