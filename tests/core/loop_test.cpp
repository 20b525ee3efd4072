// The loop: callback order, timers, cancellation, descriptors and the cross-thread door.
#include "squall/core/loop.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using LoopTest = test::LoopTest;

TEST_F(LoopTest, CallSoonRunsCallbacksInFifoOrder) {
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) loop_->call_soon([&, i] { order.push_back(i); });
  loop_->call_soon([&] { loop_->stop(); });
  loop_->run_forever();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST_F(LoopTest, TimersFireInDeadlineOrderAndTiesInTheOrderSet) {
  std::vector<int> order;
  TimePoint t = Loop::time() + 5ms;
  loop_->call_at(t + 2ms, [&] { order.push_back(3); });
  loop_->call_at(t, [&] { order.push_back(1); });
  loop_->call_at(t, [&] { order.push_back(2); });
  loop_->call_at(t + 3ms, [&] { loop_->stop(); });
  loop_->run_forever();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_F(LoopTest, ACancelledTimerNeverRunsAndLeavesTheHeap) {
  bool ran = false;
  TimerHandle h = loop_->call_later(1ms, [&] { ran = true; });
  EXPECT_TRUE(h.active());
  h.cancel();
  EXPECT_FALSE(h.active());
  EXPECT_EQ(loop_->timer_count(), 0u);
  loop_->call_later(3ms, [&] { loop_->stop(); });
  loop_->run_forever();
  EXPECT_FALSE(ran);
  h.cancel();  // a second cancel is harmless
}

TEST_F(LoopTest, CancellingManyTimersInRandomOrderKeepsTheRestInOrder) {
  std::vector<int> fired;
  std::vector<TimerHandle> handles;
  TimePoint base = Loop::time() + 1ms;
  for (int i = 0; i < 200; ++i)
    handles.push_back(
        loop_->call_at(base + std::chrono::microseconds(i * 10), [&, i] { fired.push_back(i); }));
  for (int i = 0; i < 200; i += 3) handles[(i * 7) % 200].cancel();
  size_t cancelled = 0;
  for (auto& h : handles) cancelled += !h.active();
  loop_->call_at(base + 5ms, [&] { loop_->stop(); });
  loop_->run_forever();
  EXPECT_EQ(fired.size(), 200 - cancelled);
  EXPECT_TRUE(std::is_sorted(fired.begin(), fired.end()));
}

TEST_F(LoopTest, AnExceptionInACallbackIsLoggedAndTheLoopGoesOn) {
  test::LogCapture logs;
  bool after = false;
  loop_->call_soon([] { throw std::runtime_error("callback broke"); });
  loop_->call_soon([&] {
    after = true;
    loop_->stop();
  });
  loop_->run_forever();
  EXPECT_TRUE(after);
  EXPECT_TRUE(logs.contains("callback broke"));
}

TEST_F(LoopTest, HandlersSeeReadinessAndCanRemoveThemselves) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  int calls = 0;
  loop_->add_handler(fds[0], IoEvents::Read, [&](IoEvents e) {
    EXPECT_TRUE(any(e & IoEvents::Read));
    ++calls;
    loop_->remove_handler(fds[0]);
    loop_->stop();
  });
  EXPECT_EQ(loop_->handler_count(), 1u);
  ASSERT_EQ(write(fds[1], "x", 1), 1);
  loop_->run_forever();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(loop_->handler_count(), 0u);
  close(fds[0]);
  close(fds[1]);
}

TEST_F(LoopTest, WatchingTheSameDescriptorTwiceIsAnError) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  loop_->add_handler(fds[0], IoEvents::Read, [](IoEvents) {});
  EXPECT_THROW(loop_->add_handler(fds[0], IoEvents::Read, [](IoEvents) {}), InvalidStateError);
  loop_->remove_handler(fds[0]);
  loop_->run_once(Loop::time());
  close(fds[0]);
  close(fds[1]);
}

TEST_F(LoopTest, AnEventForAClosedDescriptorNeverReachesTheNextOneWithItsNumber) {
  int a[2], b[2];
  ASSERT_EQ(pipe(a), 0);
  ASSERT_EQ(pipe(b), 0);
  ASSERT_EQ(write(a[1], "x", 1), 1);
  ASSERT_EQ(write(b[1], "x", 1), 1);
  bool swapped = false, stale = false;
  int fresh[2] = {-1, -1};
  // Whichever handler runs first closes the other read end and reuses its number for a pipe
  // with nothing to read, while the old descriptor's event is still in the same batch.
  auto swap_other = [&](int other) {
    if (swapped) return;
    swapped = true;
    loop_->remove_handler(other);
    close(other);
    ASSERT_EQ(pipe(fresh), 0);
    ASSERT_EQ(fresh[0], other) << "the kernel reuses the lowest free number";
    loop_->add_handler(fresh[0], IoEvents::Read, [&](IoEvents) { stale = true; });
  };
  loop_->add_handler(a[0], IoEvents::Read, [&](IoEvents) { swap_other(b[0]); });
  loop_->add_handler(b[0], IoEvents::Read, [&](IoEvents) { swap_other(a[0]); });
  loop_->run_once(Loop::time() + 1s);
  EXPECT_TRUE(swapped);
  EXPECT_FALSE(stale);
  for (int fd : {a[0], b[0], fresh[0]}) loop_->remove_handler(fd);
  loop_->run_once(Loop::time());
  for (int fd : {a[0], a[1], b[0], b[1], fresh[0], fresh[1]}) close(fd);
}

TEST_F(LoopTest, CallSoonThreadsafeFromFourThreadsDeliversEveryCallback) {
  constexpr int kThreads = 4, kEach = 10'000;
  int received = 0;  // touched only on the loop thread
  std::atomic<int> finished{0};
  Loop::KeepAlive keep(*loop_);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        loop_->call_soon_threadsafe([&] {
          if (++received == kThreads * kEach) loop_->stop();
        });
      }
      finished.fetch_add(1);
    });
  }
  loop_->run_forever();
  for (auto& th : threads) th.join();
  EXPECT_EQ(received, kThreads * kEach);
  EXPECT_EQ(finished.load(), kThreads);
}

TEST_F(LoopTest, EachThreadHasItsOwnCurrentLoop) {
  Loop* mine = &Loop::current();
  EXPECT_EQ(mine, loop_.get());
  Loop* other = nullptr;
  std::thread([&] { other = &Loop::current(); }).join();
  EXPECT_NE(other, nullptr);
  EXPECT_NE(other, mine);
}

}  // namespace
}  // namespace squall
