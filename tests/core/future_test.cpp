// Future and Promise: awaiting, done-callbacks on the loop, wrapping callback APIs.
#include "squall/core/future.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using FutureTest = test::LoopTest;

// A callback-style API, as legacy code has them.
void add_later(Loop& loop, int a, int b, std::function<void(int)> done) {
  loop.call_later(1ms, [=] { done(a + b); });
}

Future<int> add_async(Loop& loop, int a, int b) {
  Promise<int> p;
  add_later(loop, a, b, [p](int sum) mutable { p.set_value(sum); });
  return p.future();
}

TEST_F(FutureTest, ACallbackApiWrappedInAFutureCanBeAwaited) {
  auto body = [this]() -> Task<int> { co_return co_await add_async(*loop_, 2, 3); };
  EXPECT_EQ(run(body()), 5);
}

TEST_F(FutureTest, DoneCallbacksRunOnTheLoopNotInline) {
  std::vector<std::string> order;
  Promise<int> p;
  p.future().add_done_callback(
      [&](Future<int> f) { order.push_back("callback " + std::to_string(f.result())); });
  p.set_value(4);
  order.push_back("after set");
  auto body = []() -> Task<void> { co_await sleep(0s); };
  run(body());
  EXPECT_EQ(order, (std::vector<std::string>{"after set", "callback 4"}));
}

TEST_F(FutureTest, ExceptionsReachEveryAwaiter) {
  Promise<void> p;
  auto waiter = [](Future<void> f) -> Task<int> {
    try {
      co_await f;
    } catch (const std::runtime_error&) {
      co_return 1;
    }
    co_return 0;
  };
  auto body = [&]() -> Task<int> {
    auto a = spawn(waiter(p.future()));
    auto b = spawn(waiter(p.future()));
    co_await sleep(0s);
    p.set_exception(std::make_exception_ptr(std::runtime_error("x")));
    co_return co_await a + co_await b;
  };
  EXPECT_EQ(run(body()), 2);
}

TEST_F(FutureTest, SettingTwiceAndReadingEarlyAreErrors) {
  Promise<int> p;
  EXPECT_THROW(p.future().result(), InvalidStateError);
  p.set_value(1);
  EXPECT_THROW(p.set_value(2), InvalidStateError);
  EXPECT_EQ(p.future().result(), 1);
}

TEST_F(FutureTest, DroppingEveryPromiseBreaksTheFuture) {
  Future<int> f;
  {
    Promise<int> p;
    f = p.future();
  }
  EXPECT_TRUE(f.done());
  EXPECT_THROW(f.result(), InvalidStateError);
}

TEST_F(FutureTest, KillingATaskThatAwaitsAFutureReleasesItsPlace) {
  Promise<int> p;
  auto body = [&]() -> Task<void> {
    auto waiter = [](Future<int> f) -> Task<int> { co_return co_await f; };
    auto w = spawn(waiter(p.future()));
    co_await sleep(0s);
    w.kill();
    co_await w.join();
    p.set_value(1);  // no waiter left to wake
  };
  run(body());
}

TEST_F(FutureTest, AwaitingAFutureCanBeBoundedWithATimeout) {
  Promise<int> p;
  auto await_it = [](Future<int> f) -> Task<int> { co_return co_await f; };
  auto body = [&]() -> Task<void> {
    EXPECT_THROW(co_await with_timeout(2ms, await_it(p.future())), TimeoutError);
    p.set_value(3);
    EXPECT_EQ(co_await with_timeout(1s, await_it(p.future())), 3);
  };
  run(body());
}

}  // namespace
}  // namespace squall
