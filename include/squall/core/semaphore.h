// Semaphore and BoundedSemaphore for tasks (Tornado's locks.Semaphore). One loop; no atomics.
#pragma once

#include <coroutine>
#include <cstddef>
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
  // Gives one unit back: straight to the longest waiter if there is one. InvalidStateError,
  // changing nothing, if that would raise a BoundedSemaphore above its initial value (also
  // when it is released through a Semaphore&).
  void release() {
    if (detail::Waiter* w = waiters_.pop_front()) {
      w->wake();
    } else if (value_ < bound_) {
      ++value_;
    } else {
      throw InvalidStateError("BoundedSemaphore.release: released too many times");
    }
  }

 protected:
  Semaphore(size_t value, size_t bound) noexcept : value_(value), bound_(bound) {}

 private:
  size_t value_;
  size_t bound_ = static_cast<size_t>(-1);  // the most value_ may reach
  detail::IntrusiveList<detail::Waiter> waiters_;
};

// A semaphore that refuses to be released above its initial value: releasing more often than
// acquiring is a bug, reported as InvalidStateError instead of silently raising the limit
// (gevent's BoundedSemaphore raises ValueError). The bound lives in the Semaphore itself, so
// every release is checked, whether the caller holds a BoundedSemaphore or a Semaphore&.
class BoundedSemaphore : public Semaphore {
 public:
  explicit BoundedSemaphore(size_t value = 1) noexcept : Semaphore(value, value) {}
};

}  // namespace squall
