// Task<T>: laziness, values, exceptions through nested awaits, and flat stacks.
#include "squall/core/task.h"
#include "squall/core/spawn.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using test::LoopTest;
using TaskTest = LoopTest;

Task<int> forty_two() {
  co_return 42;
}
Task<int> add(int a, int b) {
  co_return a + b;
}
Task<void> thrower() {
  throw std::runtime_error("boom");
  co_return;
}
Task<int> rethrower() {
  co_await thrower();
  co_return 0;
}

TEST_F(TaskTest, AwaitingATaskYieldsItsValue) {
  auto outer = []() -> Task<int> { co_return co_await forty_two() + co_await add(1, 2); };
  EXPECT_EQ(run(outer()), 45);
}

TEST_F(TaskTest, ATaskDoesNothingUntilAwaited) {
  bool ran = false;
  auto body = [](bool& flag) -> Task<void> {
    flag = true;
    co_return;
  };
  {
    Task<void> t = body(ran);
    EXPECT_FALSE(ran);
  }
  EXPECT_FALSE(ran) << "destroying an unstarted task must not run it";
}

TEST_F(TaskTest, ExceptionsPropagateThroughNestedAwaits) {
  auto outer = []() -> Task<std::string> {
    try {
      co_await rethrower();
    } catch (const std::runtime_error& e) {
      co_return std::string("caught ") + e.what();
    }
    co_return "not caught";
  };
  EXPECT_EQ(run(outer()), "caught boom");
}

TEST_F(TaskTest, RunSyncRethrowsTheTasksException) {
  EXPECT_THROW(run(rethrower()), std::runtime_error);
}

TEST_F(TaskTest, MoveOnlyValuesComeBackIntact) {
  auto make = []() -> Task<std::unique_ptr<int>> { co_return std::make_unique<int>(7); };
  auto outer = [&]() -> Task<int> {
    auto p = co_await make();
    co_return *p;
  };
  EXPECT_EQ(run(outer()), 7);
}

Task<int> one() {
  co_return 1;
}

TEST_F(TaskTest, AMillionSynchronousAwaitsInALoopDoNotGrowTheStack) {
  auto outer = []() -> Task<long> {
    long sum = 0;
    for (int i = 0; i < 1'000'000; ++i) sum += co_await one();
    co_return sum;
  };
  EXPECT_EQ(run(outer()), 1'000'000);
}

Task<long> chain(int depth) {
  if (depth == 0) co_return 0;
  co_return 1 + co_await chain(depth - 1);
}

TEST_F(TaskTest, AMillionDeepChainOfNestedAwaitsDoesNotOverflowTheStack) {
  EXPECT_EQ(run(chain(1'000'000)), 1'000'000);
}

TEST_F(TaskTest, AReadyTaskCompletesAtOnceWithoutAFrame) {
  Task<void> ready = Task<void>::ready();
  EXPECT_FALSE(ready);
  auto body = [](Task<void> t) -> Task<int> {
    int64_t frames = detail::live_frames();
    co_await std::move(t);
    co_await Task<void>::ready();
    EXPECT_EQ(detail::live_frames(), frames);
    co_return 1;
  };
  EXPECT_EQ(run(body(std::move(ready))), 1);
}

TEST_F(TaskTest, ASpawnedReadyTaskFinishes) {
  auto body = []() -> Task<void> {
    auto handle = spawn(Task<void>::ready());
    co_await handle;
    EXPECT_TRUE(handle.done());
  };
  run(body());
}

}  // namespace
}  // namespace squall
