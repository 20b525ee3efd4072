// Event, Lock, Semaphore, BoundedSemaphore and Condition.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "squall/core/condition.h"
#include "squall/core/event.h"
#include "squall/core/lock.h"
#include "squall/core/semaphore.h"
#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using SyncTest = test::LoopTest;

TEST_F(SyncTest, EventWakesEveryWaiterInOrder) {
  Event ev;
  std::string trace;
  auto waiter = [&](char c) -> Task<void> {
    co_await ev.wait();
    trace += c;
  };
  auto body = [&]() -> Task<void> {
    auto a = spawn(waiter('a'));
    auto b = spawn(waiter('b'));
    co_await sleep(0s);
    EXPECT_EQ(trace, "");
    ev.set();
    co_await a.join();
    co_await b.join();
    co_await ev.wait();  // already set: returns at once
  };
  run(body());
  EXPECT_EQ(trace, "ab");
}

TEST_F(SyncTest, EventWaitTimesOut) {
  Event ev;
  auto body = [&]() -> Task<void> { EXPECT_THROW(co_await ev.wait(2ms), TimeoutError); };
  run(body());
}

TEST_F(SyncTest, LockHandsOffToWaitersInFifoOrder) {
  Lock lock;
  std::string trace;
  auto worker = [&](char c) -> Task<void> {
    auto guard = co_await lock.guard();
    trace += c;
    co_await sleep(1ms);
    trace += c;
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
  EXPECT_EQ(trace, "aabbcc");
  EXPECT_FALSE(lock.locked());
}

TEST_F(SyncTest, KillingALockWaiterGivesUpItsPlace) {
  Lock lock;
  auto body = [&]() -> Task<void> {
    co_await lock.acquire();
    auto waiter = [&]() -> Task<void> {
      co_await lock.acquire();
      lock.release();
    };
    auto w = spawn(waiter());
    co_await sleep(0s);
    w.kill();
    co_await w.join();
    lock.release();
    EXPECT_FALSE(lock.locked()) << "the killed waiter must not have been handed the lock";
  };
  run(body());
}

TEST_F(SyncTest, LockAcquireTimesOutAndReleasingAnUnlockedLockIsAnError) {
  Lock lock;
  auto body = [&]() -> Task<void> {
    co_await lock.acquire();
    EXPECT_THROW(co_await lock.acquire(2ms), TimeoutError);
    lock.release();
    EXPECT_THROW(lock.release(), InvalidStateError);
  };
  run(body());
}

TEST_F(SyncTest, SemaphoreAdmitsAtMostItsValue) {
  Semaphore sem(2);
  int inside = 0, most = 0;
  auto worker = [&]() -> Task<void> {
    co_await sem.acquire();
    most = std::max(most, ++inside);
    co_await sleep(1ms);
    --inside;
    sem.release();
  };
  auto body = [&]() -> Task<void> {
    std::vector<TaskHandle<void>> hs;
    for (int i = 0; i < 6; ++i) hs.push_back(spawn(worker()));
    for (auto& h : hs) co_await h.join();
  };
  run(body());
  EXPECT_EQ(most, 2);
  EXPECT_EQ(sem.value(), 2u);
}

TEST_F(SyncTest, SemaphoreAcquireTimesOutAndAKilledWaiterLeaves) {
  Semaphore sem(0);
  auto body = [&]() -> Task<void> {
    EXPECT_THROW(co_await sem.acquire(2ms), TimeoutError);
    auto waiter = [&]() -> Task<void> { co_await sem.acquire(); };
    auto w = spawn(waiter());
    co_await sleep(0s);
    w.kill();
    co_await w.join();
    sem.release();
    EXPECT_EQ(sem.value(), 1u);
  };
  run(body());
}

TEST_F(SyncTest, BoundedSemaphoreRefusesToBeReleasedPastItsInitialValue) {
  BoundedSemaphore sem(1);
  EXPECT_THROW(sem.release(), InvalidStateError);
  auto body = [&]() -> Task<void> {
    co_await sem.acquire();
    sem.release();
    EXPECT_THROW(sem.release(), InvalidStateError);
  };
  run(body());
}

TEST_F(SyncTest, ABoundedSemaphoreReleasedThroughASemaphoreReferenceIsStillChecked) {
  BoundedSemaphore bounded(2);
  Semaphore& sem = bounded;
  auto body = [&]() -> Task<void> {
    co_await sem.acquire();
    sem.release();
    EXPECT_THROW(sem.release(), InvalidStateError);
    EXPECT_EQ(sem.value(), 2u) << "a refused release changes nothing";
  };
  run(body());
}

TEST_F(SyncTest, ConditionNotifiesOneOrAllAndTimesOutWithFalse) {
  Condition cond;
  std::string trace;
  auto waiter = [&](char c) -> Task<void> {
    if (co_await cond.wait()) trace += c;
  };
  auto body = [&]() -> Task<void> {
    EXPECT_FALSE(co_await cond.wait(2ms));
    auto a = spawn(waiter('a'));
    auto b = spawn(waiter('b'));
    auto c = spawn(waiter('c'));
    co_await sleep(0s);
    cond.notify();
    co_await a.join();
    EXPECT_EQ(trace, "a");
    cond.notify_all();
    co_await b.join();
    co_await c.join();
  };
  run(body());
  EXPECT_EQ(trace, "abc");
}

}  // namespace
}  // namespace squall
