// spawn, join, kill, done-callbacks, unhandled errors and run_sync, with gevent's semantics.
#include "squall/core/spawn.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::LogCapture;
using SpawnTest = test::LoopTest;

// Note for readers: a coroutine lambda's captures live in the lambda object, so the lambda
// must outlive the task (name it); parameters are copied into the frame and are always safe.

Task<int> value_after(Duration d, int v) {
  co_await sleep(d);
  co_return v;
}

Task<void> fail_after(Duration d) {
  co_await sleep(d);
  throw std::runtime_error("task failed");
}

TEST_F(SpawnTest, ASpawnedTaskStartsAfterCallbacksAlreadyQueued) {
  std::vector<std::string> order;
  auto body = [&]() -> Task<void> {
    loop_->call_soon([&] { order.push_back("callback"); });
    auto child = [&]() -> Task<void> {
      order.push_back("task");
      co_return;
    };
    auto h = spawn(child());
    order.push_back("spawned");
    co_await h.join();
  };
  run(body());
  EXPECT_EQ(order, (std::vector<std::string>{"spawned", "callback", "task"}));
}

TEST_F(SpawnTest, AwaitingAHandleYieldsTheTasksValue) {
  auto body = []() -> Task<int> {
    auto h = spawn(value_after(1ms, 5));
    co_return co_await h;
  };
  EXPECT_EQ(run(body()), 5);
}

TEST_F(SpawnTest, JoinReturnsFalseWhenTheTimeoutPassesFirst) {
  auto body = []() -> Task<void> {
    auto h = spawn(value_after(1s, 1));
    EXPECT_FALSE(co_await h.join(5ms));
    EXPECT_FALSE(h.done());
    h.kill();
    EXPECT_TRUE(co_await h.join());
  };
  run(body());
}

TEST_F(SpawnTest, JoinDoesNotThrowTheTasksExceptionButAwaitingDoes) {
  auto body = []() -> Task<void> {
    auto h = spawn(fail_after(1ms));
    EXPECT_TRUE(co_await h.join());
    EXPECT_FALSE(h.successful());
    EXPECT_THROW(co_await h, std::runtime_error);
  };
  run(body());
}

TEST_F(SpawnTest, GetWithATimeoutThrowsTimeoutError) {
  auto body = []() -> Task<void> {
    auto h = spawn(value_after(1s, 1));
    EXPECT_THROW(co_await h.get(5ms), TimeoutError);
    h.kill();
    co_await h.join();
  };
  run(body());
}

TEST_F(SpawnTest, KillDeliversCancelledErrorAtTheSleepThatTheTaskMayCatch) {
  std::vector<std::string> events;
  auto victim = [&]() -> Task<int> {
    try {
      co_await sleep(10s);
    } catch (const CancelledError&) {
      events.push_back("cleaned up");
      throw;
    }
    co_return 1;
  };
  auto body = [&]() -> Task<void> {
    auto h = spawn(victim());
    co_await sleep(0s);  // let it start and block
    h.kill();
    EXPECT_TRUE(co_await h.join());
    EXPECT_THROW(h.value(), CancelledError);
  };
  run(body());
  EXPECT_EQ(events, std::vector<std::string>{"cleaned up"});
  EXPECT_EQ(loop_->timer_count(), 0u) << "the killed sleep must release its timer";
}

TEST_F(SpawnTest, KillWithACustomExceptionDeliversThatException) {
  auto body = []() -> Task<void> {
    auto h = spawn(value_after(10s, 1));
    co_await sleep(0s);
    h.kill(std::make_exception_ptr(std::logic_error("custom")));
    co_await h.join();
    EXPECT_THROW(h.value(), std::logic_error);
  };
  run(body());
}

TEST_F(SpawnTest, AnUncaughtCustomKillExceptionIsAFailureLoggedWhenNobodyRetrievesIt) {
  // gevent's hub reports every exception but GreenletExit that ends a greenlet.
  LogCapture logs;
  auto body = []() -> Task<void> {
    auto h = spawn(value_after(10s, 1));
    co_await sleep(0s);
    h.kill(std::make_exception_ptr(std::logic_error("told to stop")));
    co_await h.join();
    EXPECT_FALSE(h.successful());
  };
  run(body());
  EXPECT_TRUE(logs.contains("told to stop")) << "lines: " << logs.lines().size();
}

TEST_F(SpawnTest, AKillWithACancelledErrorOfOurOwnIsACancellationNotLogged) {
  LogCapture logs;
  auto body = []() -> Task<void> {
    auto h = spawn(value_after(10s, 1));
    co_await sleep(0s);
    h.kill(std::make_exception_ptr(CancelledError("shutting down")));
    co_await h.join();
  };
  run(body());
  EXPECT_TRUE(logs.lines().empty());
}

TEST_F(SpawnTest, SpawnLaterRunsTheTaskOnlyOnceTheDelayHasPassed) {
  std::vector<std::string> order;
  auto body = [&]() -> Task<void> {
    auto later = [&]() -> Task<int> {
      order.push_back("later");
      co_return 7;
    };
    auto h = spawn_later(20ms, later());
    co_await sleep(0s);
    co_await sleep(1ms);  // its timer is due before the task's start
    order.push_back("before");
    EXPECT_EQ(co_await h, 7);
  };
  run(body());
  EXPECT_EQ(order, (std::vector<std::string>{"before", "later"}));
}

TEST_F(SpawnTest, ATaskKilledDuringSpawnLatersDelayNeverRunsAndLeavesNoTimer) {
  bool ran = false;
  auto body = [&]() -> Task<void> {
    auto child = [&]() -> Task<void> {
      ran = true;
      co_return;
    };
    auto h = spawn_later(10s, child());
    co_await sleep(0s);
    EXPECT_EQ(loop_->timer_count(), 1u);
    h.kill();
    EXPECT_TRUE(h.done());
    EXPECT_THROW(h.value(), CancelledError);
    EXPECT_EQ(loop_->timer_count(), 0u) << "the delayed start is cancelled";
  };
  run(body());
  EXPECT_FALSE(ran);
}

TEST_F(SpawnTest, ALoopDestroyedDuringSpawnLatersDelayFreesTheTask) {
  bool ran = false;
  {
    Loop inner;
    auto child = [&]() -> Task<void> {
      ran = true;
      co_return;
    };
    auto h = spawn_later(10s, child(), inner);
  }
  EXPECT_FALSE(ran);
}

TEST_F(SpawnTest, ATaskKilledBeforeItStartsNeverRuns) {
  bool ran = false;
  auto body = [&]() -> Task<void> {
    auto child = [&]() -> Task<void> {
      ran = true;
      co_return;
    };
    auto h = spawn(child());
    h.kill();
    EXPECT_TRUE(h.done());
    co_await sleep(0s);
  };
  run(body());
  EXPECT_FALSE(ran);
}

TEST_F(SpawnTest, KillingATaskBlockedInJoinReleasesItsPlace) {
  auto body = []() -> Task<void> {
    auto sleeper = spawn(value_after(50ms, 1));
    auto joiner =
        spawn([](AnyTaskHandle target) -> Task<void> { co_await target.join(); }(sleeper));
    co_await sleep(0s);
    joiner.kill();
    co_await joiner.join();
    EXPECT_THROW(joiner.value(), CancelledError);
    EXPECT_EQ(co_await sleeper, 1);
  };
  run(body());
}

TEST_F(SpawnTest, KillingAFinishedTaskDoesNothing) {
  auto body = []() -> Task<void> {
    auto h = spawn(value_after(0s, 3));
    co_await h.join();
    h.kill();
    EXPECT_EQ(h.value(), 3);
  };
  run(body());
}

TEST_F(SpawnTest, AKillArrivingAfterTheWaitCompletedIsDeliveredAtTheNextWait) {
  std::vector<std::string> events;
  auto body = [&]() -> Task<void> {
    auto child = [&]() -> Task<void> {
      co_await sleep(1ms);
      events.push_back("sleep completed");
      co_await sleep(10s);
      events.push_back("not reached");
    };
    auto h = spawn(child());
    // Wake the task's first sleep, then kill it before it has run again.
    co_await sleep(1ms);
    while (events.empty()) {
      h.kill();
      co_await sleep(0s);
    }
    co_await h.join();
    EXPECT_THROW(h.value(), CancelledError);
  };
  run(body());
  EXPECT_EQ(events, std::vector<std::string>{"sleep completed"});
}

TEST_F(SpawnTest, DoneCallbacksRunOnTheLoopAfterTheTaskFinishes) {
  std::vector<std::string> order;
  auto body = [&]() -> Task<void> {
    auto h = spawn(value_after(1ms, 1));
    h.add_done_callback([&] { order.push_back("callback"); });
    co_await h.join();
    order.push_back("joined");
    co_await sleep(0s);
    h.add_done_callback([&] { order.push_back("late callback"); });
    co_await sleep(0s);
  };
  run(body());
  // gevent order: links run in the order they were added, the joiner being one of them.
  EXPECT_EQ(order, (std::vector<std::string>{"callback", "joined", "late callback"}));
}

TEST_F(SpawnTest, AnExceptionNobodyRetrievesIsLogged) {
  LogCapture logs;
  auto body = []() -> Task<void> {
    spawn(fail_after(0s));
    co_await sleep(1ms);
  };
  run(body());
  EXPECT_TRUE(logs.contains("task failed")) << "lines: " << logs.lines().size();
}

TEST_F(SpawnTest, AnExceptionThatWasRetrievedIsNotLogged) {
  LogCapture logs;
  auto body = []() -> Task<void> {
    auto h = spawn(fail_after(0s));
    co_await h.join();
    EXPECT_NE(h.exception(), nullptr);
  };
  run(body());
  EXPECT_TRUE(logs.lines().empty());
}

TEST_F(SpawnTest, AKilledTasksCancellationIsNotLogged) {
  LogCapture logs;
  auto body = []() -> Task<void> {
    auto h = spawn(value_after(10s, 1));
    co_await sleep(0s);
    h.kill();
    co_await h.join();
  };
  run(body());
  EXPECT_TRUE(logs.lines().empty());
}

TEST_F(SpawnTest, AHundredThousandSpawnedTasksChurnWithoutLeaking) {
  auto body = []() -> Task<long> {
    long sum = 0;
    for (int round = 0; round < 10; ++round) {
      std::vector<TaskHandle<int>> handles;
      for (int i = 0; i < 10'000; ++i) handles.push_back(spawn(value_after(0s, 1)));
      for (auto& h : handles) sum += co_await h;
    }
    co_return sum;
  };
  EXPECT_EQ(run(body()), 100'000);
}

TEST_F(SpawnTest, RunSyncThrowsTimeoutErrorAndKillsTheTask) {
  bool cleaned = false;
  auto body = [&]() -> Task<void> {
    try {
      co_await sleep(10s);
    } catch (const TimeoutError&) {
      cleaned = true;
      throw;
    }
  };
  EXPECT_THROW(run_sync(body(), 10ms), TimeoutError);
  EXPECT_TRUE(cleaned);
}

TEST_F(SpawnTest, RunSyncSaysWhenTheTaskWouldBlockForever) {
  // A task joining itself, and the main task joining it: nothing can ever wake either.
  TaskHandle<void> other;
  auto self_joiner = [](TaskHandle<void>& target) -> Task<void> {
    co_await sleep(0s);
    co_await target.join();
  };
  auto body = [&]() -> Task<void> {
    other = spawn(self_joiner(other));
    co_await other.join();
  };
  try {
    run(body());
    FAIL() << "expected WouldBlockForeverError";
  } catch (const WouldBlockForeverError& e) {
    EXPECT_NE(std::string(e.what()).find("would block forever"), std::string::npos);
  }
  other.kill();
  auto reap = [&]() -> Task<void> { co_await other.join(); };
  run(reap());
}

}  // namespace
}  // namespace squall
