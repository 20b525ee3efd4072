// wait, iwait, joinall and gather.
#include "squall/core/wait.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using WaitTest = test::LoopTest;

Task<int> after(Duration d, int v) {
  co_await sleep(d);
  co_return v;
}
Task<int> fail_after(Duration d) {
  co_await sleep(d);
  throw std::runtime_error("failed");
}

TEST_F(WaitTest, IwaitYieldsInCompletionOrder) {
  auto body = []() -> Task<std::vector<int>> {
    std::vector<TaskHandle<int>> hs{spawn(after(15ms, 3)), spawn(after(5ms, 1)),
                                    spawn(after(10ms, 2))};
    std::vector<int> order;
    IWait<TaskHandle<int>> it(hs);
    while (auto h = co_await it.next()) order.push_back(h->value());
    co_return order;
  };
  EXPECT_EQ(run(body()), (std::vector<int>{1, 2, 3}));
}

TEST_F(WaitTest, IwaitEndsAtTheTimeout) {
  auto body = []() -> Task<void> {
    std::vector<TaskHandle<int>> hs{spawn(after(1ms, 1)), spawn(after(10s, 2))};
    std::vector<int> got;
    {
      IWait<TaskHandle<int>> it(hs, 20ms);
      while (auto h = co_await it.next()) got.push_back(h->value());
    }
    EXPECT_EQ(got, std::vector<int>{1});
    hs[1].kill();
    co_await hs[1].join();
  };
  run(body());
}

TEST_F(WaitTest, WaitWithCountReturnsTheFirstFinishers) {
  auto body = []() -> Task<void> {
    std::vector<TaskHandle<int>> hs{spawn(after(30ms, 3)), spawn(after(1ms, 1)),
                                    spawn(after(2ms, 2))};
    auto done = co_await wait(hs, {}, 2);
    EXPECT_EQ(done.size(), 2u);
    if (done.size() != 2) co_return;
    EXPECT_EQ(done[0].value(), 1);
    EXPECT_EQ(done[1].value(), 2);
    co_await hs[0].join();
  };
  run(body());
}

TEST_F(WaitTest, JoinallWithRaiseErrorRethrowsTheFirstFailure) {
  auto body = []() -> Task<void> {
    std::vector<TaskHandle<int>> hs{spawn(after(5ms, 1)), spawn(fail_after(1ms))};
    EXPECT_THROW(co_await joinall(hs, {}, true), std::runtime_error);
    co_await hs[0].join();
  };
  run(body());
}

TEST_F(WaitTest, JoinallWithoutRaiseErrorWaitsForAll) {
  auto body = []() -> Task<void> {
    std::vector<TaskHandle<int>> hs{spawn(after(2ms, 1)), spawn(fail_after(1ms))};
    auto done = co_await joinall(hs);
    EXPECT_EQ(done.size(), 2u);
    EXPECT_NE(hs[1].exception(), nullptr);
  };
  run(body());
}

TEST_F(WaitTest, GatherReturnsValuesInTheOrderGiven) {
  auto body = []() -> Task<std::vector<int>> {
    std::vector<Task<int>> tasks;
    tasks.push_back(after(10ms, 1));
    tasks.push_back(after(1ms, 2));
    co_return co_await gather(std::move(tasks));
  };
  EXPECT_EQ(run(body()), (std::vector<int>{1, 2}));
}

TEST_F(WaitTest, GatherKillsTheOthersWhenOneFails) {
  auto body = [this]() -> Task<void> {
    std::vector<Task<int>> tasks;
    tasks.push_back(after(10s, 1));
    tasks.push_back(fail_after(1ms));
    EXPECT_THROW(co_await gather(std::move(tasks)), std::runtime_error);
    EXPECT_EQ(loop_->task_count(), 1u) << "only this test's own task is left";
  };
  run(body());
}

}  // namespace
}  // namespace squall
