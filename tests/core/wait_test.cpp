// wait, iwait, joinall, killall, gather and wait_idle, against the gevent hub's examples.
#include "squall/core/wait.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
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

TEST_F(WaitTest, JoinallWithCountReturnsOnceThatManyHaveFinished) {
  auto body = []() -> Task<void> {
    std::vector<TaskHandle<int>> hs{spawn(after(30ms, 3)), spawn(after(1ms, 1)),
                                    spawn(after(2ms, 2))};
    auto done = co_await joinall(hs, {}, false, 2);
    EXPECT_EQ(done.size(), 2u);
    EXPECT_FALSE(hs[0].done());
    if (done.size() == 2) {
      EXPECT_EQ(done[0].value(), 1);
      EXPECT_EQ(done[1].value(), 2);
    }
    co_await hs[0].join();
  };
  run(body());
}

TEST_F(WaitTest, JoinallWithRaiseErrorStopsAtTheCountBeforeALaterFailure) {
  auto body = []() -> Task<void> {
    std::vector<TaskHandle<int>> hs{spawn(fail_after(20ms)), spawn(after(1ms, 1))};
    auto done = co_await joinall(hs, {}, true, 1);
    EXPECT_EQ(done.size(), 1u);
    co_await hs[0].join();
    EXPECT_NE(hs[0].exception(), nullptr);
  };
  run(body());
}

TEST_F(WaitTest, WaitOverEventsYieldsTheAddressesOfThoseSetInTheOrderSet) {
  Event a, b, c;
  auto setter = [&]() -> Task<void> {
    co_await sleep(1ms);
    c.set();
    co_await sleep(1ms);
    a.set();
  };
  auto body = [&]() -> Task<void> {
    auto h = spawn(setter());
    std::vector<Event*> events{&a, &b, &c};
    auto ready = co_await wait(events, {}, 2);
    EXPECT_EQ(ready, (std::vector<Event*>{&c, &a}));
    co_await h;
  };
  run(body());
}

TEST_F(WaitTest, WaitOnAnEventNobodySetsEndsAtTheTimeoutWithWhatWasReady) {
  Event set_already, never;
  set_already.set();
  auto body = [&]() -> Task<void> {
    std::vector<Event*> events{&never, &set_already};
    auto ready = co_await wait(events, 5ms);
    EXPECT_EQ(ready, std::vector<Event*>{&set_already});
  };
  run(body());
}

TEST_F(WaitTest, IwaitOverFuturesYieldsTheDoneOneFirstThenEachAsItsResultIsSet) {
  Promise<int> early, late, failing;
  early.set_value(1);
  auto body = [&]() -> Task<void> {
    auto setter = [&]() -> Task<void> {
      co_await sleep(1ms);
      failing.set_exception(std::make_exception_ptr(std::runtime_error("no")));
      co_await sleep(1ms);
      late.set_value(3);
    };
    auto h = spawn(setter());
    std::vector<Future<int>> fs{late.future(), early.future(), failing.future()};
    std::vector<std::string> order;
    {
      IWait<Future<int>> it(fs);
      while (auto f = co_await it.next())
        order.push_back(f->exception() ? "failed" : std::to_string(f->result()));
    }
    EXPECT_EQ(order, (std::vector<std::string>{"1", "failed", "3"}));
    co_await h;
  };
  run(body());
}

TEST_F(WaitTest, JoinallOverFuturesWithRaiseErrorRethrowsTheFuturesException) {
  Promise<int> ok, failing;
  auto body = [&]() -> Task<void> {
    auto setter = [&]() -> Task<void> {
      ok.set_value(1);
      co_await sleep(1ms);
      failing.set_exception(std::make_exception_ptr(std::runtime_error("no")));
    };
    auto h = spawn(setter());
    std::vector<Future<int>> fs{ok.future(), failing.future()};
    EXPECT_THROW(co_await joinall(fs, {}, true), std::runtime_error);
    co_await h;
  };
  run(body());
}

TEST_F(WaitTest, AnIwaitLeftEarlyLeavesTheEventsItWaitedOn) {
  Event a, b;
  auto body = [&]() -> Task<void> {
    std::vector<Event*> events{&a, &b};
    {
      IWait<Event*> it(events, 1ms);
      EXPECT_FALSE(co_await it.next());
    }
    a.set();  // nothing of the iwait is linked to it any more
    b.set();
    auto ready = co_await wait(events);
    EXPECT_EQ(ready.size(), 2u);
  };
  run(body());
}

TEST_F(WaitTest, KillallKillsEveryTaskAndWaitsUntilAllHaveEnded) {
  auto body = []() -> Task<void> {
    std::vector<TaskHandle<int>> hs{spawn(after(10s, 1)), spawn(after(10s, 2)),
                                    spawn(after(0s, 3))};
    co_await hs[2].join();
    co_await sleep(0s);  // the others are asleep now
    co_await killall(hs);
    for (auto& h : hs) EXPECT_TRUE(h.done());
    EXPECT_THROW(hs[0].value(), CancelledError);
    EXPECT_THROW(hs[1].value(), CancelledError);
    EXPECT_EQ(hs[2].value(), 3) << "a task that had finished is left as it was";
  };
  run(body());
}

TEST_F(WaitTest, KillallDeliversTheGivenException) {
  auto body = []() -> Task<void> {
    std::vector<TaskHandle<int>> hs{spawn(after(10s, 1)), spawn(after(10s, 2))};
    co_await sleep(0s);
    co_await killall(hs, std::make_exception_ptr(std::logic_error("shutting down")));
    for (auto& h : hs) EXPECT_THROW(h.value(), std::logic_error);
  };
  run(body());
}

TEST_F(WaitTest, KillallWithoutBlockReturnsBeforeTheTasksHaveEnded) {
  auto body = []() -> Task<void> {
    std::vector<TaskHandle<int>> hs{spawn(after(10s, 1)), spawn(after(10s, 2))};
    co_await sleep(0s);
    co_await killall(hs, nullptr, /*block=*/false);
    EXPECT_FALSE(hs[0].done()) << "the kill is delivered when the task runs again";
    co_await joinall(hs);
    EXPECT_THROW(hs[0].value(), CancelledError);
  };
  run(body());
}

TEST_F(WaitTest, KillallThrowsTimeoutErrorWhenATaskOutlivesTheLimit) {
  auto stubborn = []() -> Task<void> {
    try {
      co_await sleep(10s);
    } catch (const CancelledError&) {
    }
    co_await sleep(10s);  // ignores the kill, as a greenlet may
  };
  auto body = [&]() -> Task<void> {
    std::vector<AnyTaskHandle> hs{spawn(stubborn()), spawn(after(10s, 1))};
    co_await sleep(0s);
    try {
      co_await killall(hs, nullptr, true, 5ms);
      ADD_FAILURE() << "expected TimeoutError";
    } catch (const TimeoutError& e) {
      EXPECT_NE(std::string(e.what()).find("1 of 2 tasks"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(hs[1].done());
    EXPECT_FALSE(hs[0].done());
    hs[0].kill();
    co_await hs[0].join();
  };
  run(body());
}

TEST_F(WaitTest, WaitIdleReturnsTrueOnceNoOtherTaskOrTimerIsLeft) {
  std::vector<int> finished;
  auto body = [&]() -> Task<void> {
    auto worker = [&](int v) -> Task<void> {
      co_await sleep(std::chrono::milliseconds(v));
      finished.push_back(v);
    };
    spawn(worker(2));
    spawn(worker(1));
    EXPECT_TRUE(co_await wait_idle());
    EXPECT_EQ(finished, (std::vector<int>{1, 2}));
  };
  run(body());
}

TEST_F(WaitTest, WaitIdleReturnsFalseWhenTheTimeoutPassesFirst) {
  auto body = []() -> Task<void> {
    auto h = spawn(after(10s, 1));
    EXPECT_FALSE(co_await wait_idle(5ms));
    EXPECT_FALSE(h.done());
    h.kill();
    co_await h.join();
    EXPECT_TRUE(co_await wait_idle(10s)) << "its own time limit does not keep the loop busy";
  };
  run(body());
}

TEST_F(WaitTest, WaitIdleIsNotKeptBusyByATaskBlockedOnSomethingNothingCanSet) {
  // gevent's Hub.join returns True on LoopExit: a blocked greenlet holds no watcher.
  Event never;
  auto body = [&]() -> Task<void> {
    auto blocked = spawn([](Event& e) -> Task<void> { co_await e.wait(); }(never));
    EXPECT_TRUE(co_await wait_idle());
    EXPECT_FALSE(blocked.done());
    blocked.kill();
    co_await blocked.join();
  };
  run(body());
}

TEST_F(WaitTest, RunSyncOfWaitIdleRunsTheLoopUntilEverySpawnedTaskIsDone) {
  // From outside every task, as gevent.wait() is called from the main greenlet.
  auto a = spawn(after(2ms, 1));
  auto b = spawn(after(1ms, 2));
  EXPECT_TRUE(run_sync(wait_idle()));
  EXPECT_EQ(a.value() + b.value(), 3);
}

TEST_F(WaitTest, TwoTasksInWaitIdleAreBothWokenWhenTheLoopGoesIdle) {
  auto body = []() -> Task<void> {
    auto other = spawn(wait_idle(10s));
    spawn(after(1ms, 1));
    EXPECT_TRUE(co_await wait_idle());
    EXPECT_TRUE(co_await other);
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
