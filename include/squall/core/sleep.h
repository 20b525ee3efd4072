// sleep: suspend the current task for a while, or just let everything else ready run first.
#pragma once

#include <coroutine>

#include "squall/core/detail/task_state.h"
#include "squall/core/time.h"

namespace squall {

namespace detail {
class SleepAwaiter : public Waiter {
 public:
  explicit SleepAwaiter(TimePoint until, bool yield_only) noexcept
      : until_(until), yield_only_(yield_only) {}
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    if (yield_only_) {
      if (!suspend(h)) return false;
      schedule();
      return true;
    }
    return suspend(h, until_);
  }
  void await_resume() { finish(); }

 private:
  TimePoint until_;
  bool yield_only_;
};
}  // namespace detail

// `co_await sleep(d)`: resumes after `d`. `sleep(0)` (or any d <= 0) yields: every callback
// and task already ready runs first, in FIFO order, then this one. A kill interrupts both.
[[nodiscard]] inline detail::SleepAwaiter sleep(Duration d) {
  if (d <= Duration::zero()) return detail::SleepAwaiter(TimePoint{}, true);
  return detail::SleepAwaiter(Clock::now() + d, false);
}

// `co_await sleep_until(t)`: resumes at monotonic time `t` (at once, after a yield, if past).
[[nodiscard]] inline detail::SleepAwaiter sleep_until(TimePoint t) {
  return detail::SleepAwaiter(t, false);
}

}  // namespace squall
