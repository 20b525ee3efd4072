// Condition: tasks wait until notified (Tornado's locks.Condition). One loop; no atomics.
#pragma once

#include <coroutine>
#include <cstddef>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/time.h"

namespace squall {

class Condition {
 public:
  class Awaiter : public detail::Waiter {
   public:
    Awaiter(Condition& cond, TimePoint deadline) noexcept : cond_(cond), deadline_(deadline) {}
    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h) {
      return suspend_in(cond_.waiters_, h, deadline_);
    }
    // True if notified, false if the time limit passed (Tornado's contract: no exception).
    bool await_resume() { return !finish(); }

   private:
    Condition& cond_;
    TimePoint deadline_;
  };

  Condition() = default;
  Condition(const Condition&) = delete;
  Condition& operator=(const Condition&) = delete;

  // `co_await cond.wait(timeout)`: true when notified, false when the limit passed.
  [[nodiscard]] Awaiter wait(Timeout timeout = {}) {
    return Awaiter(*this, deadline_after(timeout));
  }
  // Wakes up to `n` waiters, longest-waiting first.
  void notify(size_t n = 1) noexcept {
    for (; n > 0; --n) {
      detail::Waiter* w = waiters_.pop_front();
      if (!w) break;
      w->wake();
    }
  }
  void notify_all() noexcept { notify(waiters_.size()); }
  size_t waiting() const noexcept { return waiters_.size(); }

 private:
  detail::IntrusiveList<detail::Waiter> waiters_;
};

}  // namespace squall
