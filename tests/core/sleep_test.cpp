// sleep, sleep(0) fairness, with_timeout and RollingTimeout.
#include "squall/core/sleep.h"
#include "squall/core/timeout.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using SleepTest = test::LoopTest;

TEST_F(SleepTest, SleepResumesAfterTheDuration) {
  auto body = []() -> Task<Duration> {
    TimePoint start = Loop::time();
    co_await sleep(20ms);
    co_return Loop::time() - start;
  };
  EXPECT_GE(run(body()), 20ms);
}

TEST_F(SleepTest, SleepZeroRoundRobinsThreeTasksInFifoOrder) {
  std::string trace;
  auto worker = [&](char name) -> Task<void> {
    for (int i = 0; i < 3; ++i) {
      trace += name;
      co_await sleep(0s);
    }
  };
  auto body = [&]() -> Task<void> {
    auto a = spawn(worker('a'));
    auto b = spawn(worker('b'));
    auto c = spawn(worker('c'));
    co_await a.join();
    co_await b.join();
    co_await c.join();
  };
  run(body());
  EXPECT_EQ(trace, "abcabcabc");
}

TEST_F(SleepTest, SleepZeroLetsCallbacksAlreadyQueuedRunFirst) {
  std::vector<std::string> order;
  auto body = [&]() -> Task<void> {
    loop_->call_soon([&] { order.push_back("callback"); });
    co_await sleep(0s);
    order.push_back("task");
  };
  run(body());
  EXPECT_EQ(order, (std::vector<std::string>{"callback", "task"}));
}

TEST_F(SleepTest, SleepersWakeInDeadlineOrder) {
  std::string trace;
  // Deadlines from one time point: a task that starts late under load still has its place.
  const TimePoint base = Loop::time();
  auto sleeper = [&](char name, Duration d) -> Task<void> {
    co_await sleep_until(base + d);
    trace += name;
  };
  auto body = [&]() -> Task<void> {
    auto c = spawn(sleeper('c', 15ms));
    auto a = spawn(sleeper('a', 5ms));
    auto b = spawn(sleeper('b', 10ms));
    co_await c.join();
    co_await a.join();
    co_await b.join();
  };
  run(body());
  EXPECT_EQ(trace, "abc");
}

TEST_F(SleepTest, KillDuringSleepZeroIsDeliveredThere) {
  auto body = []() -> Task<void> {
    auto yielder = []() -> Task<void> {
      for (;;) co_await sleep(0s);
    };
    auto h = spawn(yielder());
    co_await sleep(0s);
    co_await sleep(0s);
    h.kill();
    co_await h.join();
    EXPECT_THROW(h.value(), CancelledError);
  };
  run(body());
}

Task<int> slow(Duration d, int v) {
  co_await sleep(d);
  co_return v;
}

TEST_F(SleepTest, WithTimeoutPassesTheValueThroughWhenInTime) {
  auto body = []() -> Task<int> { co_return co_await with_timeout(1s, slow(1ms, 7)); };
  EXPECT_EQ(run(body()), 7);
}

TEST_F(SleepTest, WithTimeoutThrowsTimeoutErrorAndReleasesTheSleep) {
  auto body = [this]() -> Task<void> {
    EXPECT_THROW(co_await with_timeout(5ms, slow(10s, 1)), TimeoutError);
    EXPECT_EQ(loop_->timer_count(), 0u);
  };
  run(body());
}

TEST_F(SleepTest, NestedTimeoutsLetTheShorterOneWin) {
  auto inner = []() -> Task<int> { co_return co_await with_timeout(5ms, slow(10s, 1)); };
  auto body = [&]() -> Task<std::string> {
    try {
      co_await with_timeout(10s, inner());
    } catch (const TimeoutError& e) {
      co_return std::string(e.what());
    }
    co_return "no timeout";
  };
  EXPECT_NE(run(body()).find("5 ms"), std::string::npos);
}

TEST_F(SleepTest, ATimeoutThatDidNotFireLeavesNoKillBehind) {
  auto body = []() -> Task<void> {
    co_await with_timeout(50ms, slow(1ms, 1));
    co_await sleep(80ms);  // past the old limit: must not be interrupted
  };
  run(body());
}

TEST_F(SleepTest, WithDeadlineUsesAnAbsoluteTime) {
  auto body = []() -> Task<void> {
    EXPECT_THROW(co_await with_deadline(Loop::time() + 5ms, slow(10s, 1)), TimeoutError);
  };
  run(body());
}

TEST_F(SleepTest, ARollingTimeoutKillsTheWaitThatOutlivesIt) {
  auto body = []() -> Task<void> {
    detail::RollingTimeout limit;
    TimePoint start = Loop::time();
    bool timed_out = false;
    try {
      detail::RollingTimeout::Armed armed(limit, Loop::time() + 20ms, 20ms);
      co_await sleep(10s);
    } catch (const TimeoutError& e) {
      timed_out = true;
      EXPECT_NE(std::string(e.what()).find("20 ms"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(timed_out);
    EXPECT_GE(Loop::time() - start, 20ms);
  };
  run(body());
}

TEST_F(SleepTest, ARollingTimeoutMovedLaterWaitsForTheNewDeadline) {
  auto body = []() -> Task<void> {
    detail::RollingTimeout limit;
    // Armed and disarmed around short waits, many times over its first deadline: the timer
    // fires early, finds the deadline moved and moves on, and never kills a wait in time.
    TimePoint start = Loop::time();
    while (Loop::time() - start < 100ms) {
      detail::RollingTimeout::Armed armed(limit, Loop::time() + 30ms, 30ms);
      co_await sleep(5ms);
    }
    // Disarmed: a wait longer than the limit is not interrupted.
    co_await sleep(60ms);
    // Armed again for longer than the wait: no kill.
    {
      detail::RollingTimeout::Armed armed(limit, Loop::time() + 200ms, 200ms);
      co_await sleep(40ms);
    }
    // Armed with an earlier deadline than the timer's place: the earlier one wins.
    TimePoint before = Loop::time();
    { detail::RollingTimeout::Armed armed(limit, Loop::time() + 10s, 10s); }
    bool timed_out = false;
    try {
      detail::RollingTimeout::Armed armed(limit, Loop::time() + 15ms, 15ms);
      co_await sleep(10s);
    } catch (const TimeoutError&) {
      timed_out = true;
    }
    EXPECT_TRUE(timed_out);
    EXPECT_LT(Loop::time() - before, 5s);
  };
  run(body());
}

TEST_F(SleepTest, ARollingTimeoutOutlivesTheTasksThatArmedIt) {
  // As on a pooled connection: each task arms it around its own waits and ends; the timeout
  // lives on, is armed by the next task, and is destroyed after all of them (AddressSanitizer
  // would see a use of an ended task here).
  auto limit = std::make_unique<detail::RollingTimeout>();
  auto user = [](detail::RollingTimeout& t, Duration wait, Duration within) -> Task<bool> {
    try {
      detail::RollingTimeout::Armed armed(t, Loop::time() + within, within);
      co_await sleep(wait);
    } catch (const TimeoutError&) {
      co_return true;
    }
    co_return false;
  };
  EXPECT_FALSE(run(user(*limit, 1ms, 10s)));
  EXPECT_FALSE(run(user(*limit, 1ms, 10s)));
  EXPECT_TRUE(run(user(*limit, 10s, 10ms)));  // the third task's limit still applies to it
  limit.reset();
}

TEST_F(SleepTest, ARollingTimeoutArmedOutsideATaskIsAnError) {
  detail::RollingTimeout limit;
  EXPECT_THROW(detail::RollingTimeout::Armed(limit, Loop::time() + 1s, 1s), InvalidStateError);
}

}  // namespace
}  // namespace squall
