// Task<T>: laziness, values, exceptions through nested awaits, flat stacks, and the errors for
// tasks that cannot run (empty or already awaited).
#include "squall/core/task.h"
#include "squall/core/spawn.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
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

// The InvalidStateError that `fn` throws, or a failure if it throws nothing or something else.
template <class Fn>
std::string invalid_state_message(Fn&& fn) {
  try {
    fn();
  } catch (const InvalidStateError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InvalidStateError was thrown";
  return "";
}

// The message of the InvalidStateError that awaiting `task` throws in a task of its own.
template <class T>
Task<std::string> await_error(Task<T>& task) {
  try {
    co_await task;
  } catch (const InvalidStateError& e) {
    co_return e.what();
  }
  co_return "no InvalidStateError was thrown";
}

TEST_F(TaskTest, AwaitingADefaultConstructedTaskThrowsInsteadOfCrashing) {
  Task<int> value;
  Task<void> nothing;
  EXPECT_NE(run(await_error(value)).find("co_await of an empty Task"), std::string::npos);
  EXPECT_NE(run(await_error(nothing)).find("co_await of an empty Task"), std::string::npos);
}

TEST_F(TaskTest, AwaitingAMovedFromTaskThrowsInsteadOfCrashing) {
  Task<int> value = forty_two();
  Task<int> value_owner = std::move(value);
  Task<void> nothing = Task<void>::ready();
  Task<void> nothing_owner = std::move(nothing);
  EXPECT_NE(run(await_error(value)).find("empty Task"), std::string::npos);
  EXPECT_NE(run(await_error(nothing)).find("empty Task"), std::string::npos);
  EXPECT_EQ(run(std::move(value_owner)), 42) << "the task moved to still runs";
}

TEST_F(TaskTest, AwaitingATaskTwiceThrows) {
  int runs = 0;
  auto count = [](int& n) -> Task<int> { co_return ++n; };
  auto body = [&]() -> Task<void> {
    Task<int> task = count(runs);
    EXPECT_EQ(co_await task, 1);
    EXPECT_NE((co_await await_error(task)).find("already awaited"), std::string::npos);
    Task<void> thrower_task = thrower();
    EXPECT_THROW(co_await thrower_task, std::runtime_error);
    EXPECT_THROW(co_await std::move(thrower_task), InvalidStateError);
  };
  run(body());
  EXPECT_EQ(runs, 1) << "the finished frame must not be resumed";
}

TEST_F(TaskTest, AwaitingATaskThatAnotherTaskIsAwaitingThrows) {
  auto slow = []() -> Task<int> {
    co_await sleep(1ms);
    co_return 7;
  };
  auto body = [&]() -> Task<void> {
    Task<int> task = slow();
    auto first = [](Task<int>& t) -> Task<int> { co_return co_await t; };
    auto waiting = spawn(first(task));
    co_await sleep(0s);  // `first` is now suspended inside `task`
    EXPECT_NE((co_await await_error(task)).find("already awaited"), std::string::npos);
    EXPECT_EQ(co_await waiting, 7) << "the first awaiter still gets the value";
  };
  run(body());
}

TEST_F(TaskTest, AReadyTaskCanBeAwaitedAgain) {
  auto body = []() -> Task<int> {
    Task<void> ready = Task<void>::ready();
    co_await ready;
    co_await ready;
    co_return 1;
  };
  EXPECT_EQ(run(body()), 1);
}

TEST_F(TaskTest, SpawningAnEmptyTaskThrowsAndStartsNothing) {
  Task<int> moved = forty_two();
  Task<int> owner = std::move(moved);
  EXPECT_NE(invalid_state_message([&] { (void)spawn(std::move(moved)); }).find("spawn of an empty"),
            std::string::npos);
  EXPECT_NE(invalid_state_message([] { (void)spawn(Task<void>()); }).find("spawn of an empty"),
            std::string::npos);
  EXPECT_THROW(run(Task<int>()), InvalidStateError);
  EXPECT_EQ(loop_->task_count(), 0u);
  EXPECT_EQ(run(std::move(owner)), 42);
}

TEST_F(TaskTest, SpawningAnAwaitedTaskThrowsAndStartsNothing) {
  auto body = []() -> Task<void> {
    Task<int> task = forty_two();
    EXPECT_EQ(co_await task, 42);
    EXPECT_NE(invalid_state_message([&] { (void)spawn(std::move(task)); }).find("already awaited"),
              std::string::npos);
  };
  run(body());
  EXPECT_EQ(loop_->task_count(), 0u);
}

}  // namespace
}  // namespace squall
