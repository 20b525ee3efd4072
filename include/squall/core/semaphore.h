// Semaphore and BoundedSemaphore for tasks (Tornado's locks.Semaphore). One loop; no atomics.
#pragma once

#include <coroutine>
#include <utility>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/time.h"

namespace squall {

class Semaphore {
 public:
  class Awaiter : public detail::Waiter {
   public:
    Awaiter(Semaphore& sem, TimePoint deadline) noexcept : sem_(sem), deadline_(deadline) {}
    bool await_ready() noexcept {
      if (sem_.value_ == 0) return false;
      --sem_.value_;
      return true;
    }
    bool await_suspend(std::coroutine_handle<> h) {
      return suspend_in(sem_.waiters_, h, deadline_);
    }
    void await_resume() {
      if (finish()) throw TimeoutError("Semaphore.acquire: no slot became free in time");
    }

   private:
    Semaphore& sem_;
    TimePoint deadline_;
  };

  explicit Semaphore(size_t value = 1) noexcept : value_(value) {}
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;

  size_t value() const noexcept { return value_; }

  // `co_await sem.acquire(timeout)`: takes one unit, waiting (FIFO) while there is none;
  // TimeoutError if the limit passes first.
  [[nodiscard]] Awaiter acquire(Timeout timeout = {}) {
    return Awaiter(*this, deadline_after(timeout));
  }
  // Gives one unit back: straight to the longest waiter if there is one.
  void release() {
    if (detail::Waiter* w = waiters_.pop_front()) {
      w->wake();
    } else {
      ++value_;
    }
  }

 protected:
  size_t value_;

 private:
  detail::IntrusiveList<detail::Waiter> waiters_;
};

// A semaphore that refuses to be released above its initial value: releasing more often than
// acquiring is a bug, reported as InvalidStateError instead of silently raising the limit.
class BoundedSemaphore : public Semaphore {
 public:
  explicit BoundedSemaphore(size_t value = 1) noexcept : Semaphore(value), initial_(value) {}
  void release() {
    if (value_ >= initial_)
      throw InvalidStateError("BoundedSemaphore.release: released too many times");
    Semaphore::release();
  }

 private:
  size_t initial_;
};

}  // namespace squall
