// Lock: a mutual-exclusion lock for tasks (Tornado's locks.Lock). One loop; no atomics.
//
//   auto guard = co_await lock.guard();   // released when `guard` goes out of scope
//
// Fair: release() hands the lock straight to the longest waiter, so nobody barges in.
#pragma once

#include <coroutine>
#include <utility>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/time.h"

namespace squall {

class Lock {
 public:
  class Guard {
   public:
    Guard() = default;
    explicit Guard(Lock& lock) noexcept : lock_(&lock) {}
    Guard(Guard&& other) noexcept : lock_(std::exchange(other.lock_, nullptr)) {}
    Guard& operator=(Guard&& other) noexcept {
      if (this != &other) {
        release();
        lock_ = std::exchange(other.lock_, nullptr);
      }
      return *this;
    }
    ~Guard() { release(); }
    // Releases early; nothing happens at destruction then.
    void release() {
      if (lock_) std::exchange(lock_, nullptr)->release();
    }

   private:
    Lock* lock_ = nullptr;
  };

  class Awaiter : public detail::Waiter {
   public:
    Awaiter(Lock& lock, TimePoint deadline) noexcept : lock_(lock), deadline_(deadline) {}
    bool await_ready() noexcept {
      if (lock_.locked_) return false;
      lock_.locked_ = true;
      return true;
    }
    bool await_suspend(std::coroutine_handle<> h) {
      return suspend_in(lock_.waiters_, h, deadline_);
    }
    void await_resume() {
      if (finish()) throw TimeoutError("Lock.acquire: the lock was not released in time");
    }

   protected:
    Lock& lock_;

   private:
    TimePoint deadline_;
  };

  class GuardAwaiter : public Awaiter {
   public:
    using Awaiter::Awaiter;
    [[nodiscard]] Guard await_resume() {
      Awaiter::await_resume();
      return Guard(lock_);
    }
  };

  Lock() = default;
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

  bool locked() const noexcept { return locked_; }

  // `co_await lock.acquire(timeout)`: holds the lock on return; TimeoutError if the limit
  // passes first. A killed waiter gives up its place in line.
  [[nodiscard]] Awaiter acquire(Timeout timeout = {}) {
    return Awaiter(*this, deadline_after(timeout));
  }
  // `co_await lock.guard(timeout)`: as acquire(), returning a Guard that releases.
  [[nodiscard]] GuardAwaiter guard(Timeout timeout = {}) {
    return GuardAwaiter(*this, deadline_after(timeout));
  }
  // Releases; the longest waiter (if any) now holds the lock. InvalidStateError if unlocked.
  void release() {
    if (!locked_) throw InvalidStateError("Lock.release: the lock is not locked");
    if (detail::Waiter* w = waiters_.pop_front()) {
      w->wake();  // ownership passes to it: `locked_` stays true
    } else {
      locked_ = false;
    }
  }

 private:
  bool locked_ = false;
  detail::IntrusiveList<detail::Waiter> waiters_;
};

}  // namespace squall
