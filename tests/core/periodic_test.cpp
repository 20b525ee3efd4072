// PeriodicCallback: ticks, missed ticks skipped, coroutine invocations never overlapping.
#include "squall/core/periodic.h"

#include <gtest/gtest.h>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using PeriodicTest = test::LoopTest;

TEST_F(PeriodicTest, APlainCallbackRunsEveryPeriodUntilStopped) {
  int ticks = 0;
  PeriodicCallback pc([&] { ++ticks; }, 2ms);
  pc.start();
  int at_stop = 0;
  auto body = [&]() -> Task<void> {
    while (ticks < 5) co_await sleep(1ms);
    pc.stop();
    at_stop = ticks;
    co_await sleep(10ms);  // several periods: nothing may run after stop()
  };
  run(body());
  EXPECT_GE(at_stop, 5);
  EXPECT_EQ(ticks, at_stop);
  EXPECT_FALSE(pc.is_running());
}

TEST_F(PeriodicTest, ACoroutineCallbackNeverRunsTwiceAtOnce) {
  int running = 0, most = 0, started = 0;
  PeriodicCallback pc(
      [&]() -> Task<void> {
        ++started;
        most = std::max(most, ++running);
        co_await sleep(7ms);  // longer than the period
        --running;
      },
      2ms);
  pc.start();
  auto body = [&]() -> Task<void> {
    while (started < 3) co_await sleep(1ms);
    pc.stop();
    while (running > 0) co_await sleep(1ms);
  };
  run(body());
  EXPECT_EQ(most, 1);
  EXPECT_GT(pc.overlaps_skipped(), 0u);
}

TEST_F(PeriodicTest, TicksMissedWhileTheLoopWasBusyAreSkippedNotBurst) {
  int ticks = 0;
  PeriodicCallback* self = nullptr;
  PeriodicCallback pc(
      [&] {
        if (++ticks == 1) {
          TimePoint until = Loop::time() + 12ms;  // hog the loop for four periods
          while (Loop::time() < until) {
          }
        } else {
          self->stop();  // the first tick after the hog
        }
      },
      3ms);
  self = &pc;
  pc.start();
  auto body = [&]() -> Task<void> {
    while (pc.is_running()) co_await sleep(1ms);
  };
  run(body());
  // A burst would have run the missed ticks back to back and counted none missed.
  EXPECT_EQ(ticks, 2);
  EXPECT_GE(pc.ticks_missed(), 3u);
}

TEST_F(PeriodicTest, ANonPositivePeriodIsRefused) {
  EXPECT_THROW(PeriodicCallback([] {}, 0ms), InvalidArgumentError);
}

}  // namespace
}  // namespace squall
