// wait_idle: a wait the loop completes once nothing else is left to run.
#include "squall/core/wait.h"

#include "squall/core/loop.h"

namespace squall {

namespace {

// Joins the loop's idle waiters; the loop wakes it (see Loop's phases), or its time limit does.
class IdleAwaiter final : public detail::Waiter {
 public:
  explicit IdleAwaiter(TimePoint deadline) noexcept : deadline_(deadline) {}
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    return suspend_in(Loop::current().idle_waiters(), h, deadline_);
  }
  // True if the loop went idle.
  bool await_resume() { return !finish(); }

 private:
  TimePoint deadline_;
};

}  // namespace

Task<bool> wait_idle(Timeout timeout) {
  co_return co_await IdleAwaiter(deadline_after(timeout));
}

}  // namespace squall
