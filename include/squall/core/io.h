// Waiting for a descriptor to become readable or writable, from a task.
#pragma once

#include <coroutine>

#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/loop.h"
#include "squall/core/time.h"

namespace squall {

namespace detail {
class IoAwaiter : public Waiter {
 public:
  IoAwaiter(int fd, IoEvents events, TimePoint deadline) noexcept
      : fd_(fd), events_(events), deadline_(deadline) {}
  ~IoAwaiter() { unwatch(); }
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h);
  // The events that occurred; TimeoutError if the limit passed first.
  IoEvents await_resume();

 private:
  void on_cancel() noexcept override { unwatch(); }
  void on_timeout() noexcept override;
  void unwatch() noexcept;
  int fd_;
  IoEvents events_;
  TimePoint deadline_;
  IoEvents result_ = IoEvents::None;
  Loop* loop_ = nullptr;
};
}  // namespace detail

// `co_await wait_readable(fd, timeout)`: resumes when fd is readable (or has an error or a
// hang-up, reported in the returned events); TimeoutError if the limit passes first. The
// descriptor is watched only while the task waits; a kill releases it.
[[nodiscard]] inline detail::IoAwaiter wait_readable(int fd, Timeout timeout = {}) {
  return detail::IoAwaiter(fd, IoEvents::Read, deadline_after(timeout));
}
[[nodiscard]] inline detail::IoAwaiter wait_writable(int fd, Timeout timeout = {}) {
  return detail::IoAwaiter(fd, IoEvents::Write, deadline_after(timeout));
}

}  // namespace squall
