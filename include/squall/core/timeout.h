// with_timeout / with_deadline: bound how long an awaitable may take (gevent's Timeout).
//
//   std::string body = co_await with_timeout(2s, fetch(url));   // TimeoutError after 2 s
//
// When the limit passes, TimeoutError is delivered to the current task at its suspension point
// inside the awaitable, as a kill is: the awaitable's waits release what they hold and its
// code may clean up. Scopes nest: the first limit to pass wins.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "squall/core/detail/task_state.h"
#include "squall/core/loop.h"
#include "squall/core/task.h"
#include "squall/core/time.h"

namespace squall {

namespace detail {

// Arms a timer that kills the current task with TimeoutError; disarms (and takes back a kill
// not yet delivered) when the scope ends first.
class TimeoutScope final : private TimerEntry {
 public:
  TimeoutScope(TimePoint deadline, Duration limit);
  ~TimeoutScope();
  TimeoutScope(const TimeoutScope&) = delete;
  TimeoutScope& operator=(const TimeoutScope&) = delete;

 private:
  void fire() override;
  TaskState* task_;
  Loop* loop_;
  Duration limit_;
};

// A time limit that one task sets again and again for its waits (a server connection's idle
// and header deadlines, once per request). Arming it only moves a deadline: the timer heap is
// touched when the new deadline comes before the timer's place, or when the timer fires early
// and moves on to the deadline. At the deadline, while armed, it kills the task with
// TimeoutError, as TimeoutScope does.
class RollingTimeout final : private TimerEntry {
 public:
  RollingTimeout() = default;
  ~RollingTimeout();
  RollingTimeout(const RollingTimeout&) = delete;
  RollingTimeout& operator=(const RollingTimeout&) = delete;

  // Arms it for the current task until `deadline`; `limit` is what the error message names.
  // Throws InvalidStateError outside a task.
  void arm(TimePoint deadline, Duration limit);
  // No kill after this; one delivered but not yet taken by the task is taken back.
  void disarm() noexcept;

  // Armed for the life of a scope.
  class Armed {
   public:
    Armed(RollingTimeout& t, TimePoint deadline, Duration limit) : t_(t) {
      t_.arm(deadline, limit);
    }
    ~Armed() { t_.disarm(); }
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;

   private:
    RollingTimeout& t_;
  };

 private:
  void fire() override;
  TaskState* task_ = nullptr;
  Loop* loop_ = nullptr;
  TimePoint deadline_{};
  Duration limit_{};
  bool armed_ = false;
};

template <class A>
using await_result_t = decltype(std::declval<A>().operator co_await().await_resume());

}  // namespace detail

// Awaits `task` with a deadline; TimeoutError if it passes first.
template <class T>
Task<T> with_deadline(TimePoint deadline, Task<T> task) {
  detail::TimeoutScope scope(deadline, deadline - Clock::now());
  co_return co_await std::move(task);
}

// Awaits `task` for at most `limit`; TimeoutError if it takes longer.
template <class T>
Task<T> with_timeout(Duration limit, Task<T> task) {
  detail::TimeoutScope scope(Clock::now() + limit, limit);
  co_return co_await std::move(task);
}

}  // namespace squall
