// One-shot descriptor waits for tasks.
#include "squall/core/io.h"

namespace squall::detail {

bool IoAwaiter::await_suspend(std::coroutine_handle<> h) {
  if (!suspend(h, deadline_)) return false;
  loop_ = &Loop::current();
  loop_->add_handler(fd_, events_, [this](IoEvents happened) {
    result_ = happened;
    unwatch();
    wake();
  });
  return true;
}

IoEvents IoAwaiter::await_resume() {
  if (finish()) throw TimeoutError("wait for descriptor " + std::to_string(fd_) + ": timed out");
  return result_;
}

void IoAwaiter::on_timeout() noexcept {
  unwatch();
  Waiter::on_timeout();
}

void IoAwaiter::unwatch() noexcept {
  if (loop_) std::exchange(loop_, nullptr)->remove_handler(fd_);
}

}  // namespace squall::detail
