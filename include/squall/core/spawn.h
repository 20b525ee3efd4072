// spawn, task handles and run_sync: gevent's greenlet verbs for squall tasks.
//
//   auto h = spawn(fetch_page(url));      // starts on the next loop iteration
//   co_await h.join(5s);                  // true if it finished within 5 s
//   h.kill();                             // CancelledError at its current suspension point
//   std::string page = co_await h;        // its value, or its exception rethrown
//   auto later = spawn_later(2s, retry());  // first runs 2 s from now
//
// Handles belong to the loop's thread. A spawned task keeps running when every handle is gone;
// if it then fails and nobody retrieved its exception, the error is logged, never lost.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/loop.h"
#include "squall/core/task.h"
#include "squall/core/time.h"

namespace squall {

namespace detail {

template <class T>
class TypedTaskState final : public TaskState {
 public:
  using TaskState::TaskState;
  std::optional<T>& value() noexcept { return value_; }

 private:
  void take_result(PromiseBase& promise) noexcept override {
    auto& p = static_cast<TaskPromise<T>&>(promise);
    if (!p.error()) value_.emplace(p.result());
  }
  std::optional<T> value_;
};

template <>
class TypedTaskState<void> final : public TaskState {
 public:
  using TaskState::TaskState;

 private:
  void take_result(PromiseBase&) noexcept override {}
};

// Waits for a task to finish, with an optional time limit; kill-safe.
class JoinAwaiter : public Waiter, public Link {
 public:
  JoinAwaiter(TaskRef task, TimePoint deadline) noexcept
      : task_(std::move(task)), deadline_(deadline) {}
  bool await_ready() const noexcept { return task_->done(); }
  bool await_suspend(std::coroutine_handle<> h) {
    if (!suspend(h, deadline_)) return false;
    task_->link(*this);
    return true;
  }
  // True if the task finished.
  bool await_resume() {
    finish();
    return task_->done();
  }

 private:
  void on_ready() noexcept override { wake(); }
  void on_cancel() noexcept override { ListHook<Link>::unlink(); }
  void on_timeout() noexcept override {
    ListHook<Link>::unlink();
    Waiter::on_timeout();
  }
  TaskRef task_;
  TimePoint deadline_;
};

void run_until_done(Loop& loop, TaskState& task, Timeout timeout);
void add_done_callback(TaskState& task, std::function<void()> fn);

}  // namespace detail

template <class T>
class TaskHandle;

namespace detail {
// Starts `task` on `loop` at monotonic time `at` (TimePoint::min(): on the next iteration).
template <class T>
TaskHandle<T> spawn_at(TimePoint at, Task<T> task, Loop& loop);
}  // namespace detail

// A spawned task, whatever its value type: what wait(), iwait() and joinall() work with.
class AnyTaskHandle {
 public:
  AnyTaskHandle() = default;

  // Finished (with a value, an exception, or killed before it started).
  bool done() const noexcept { return state_->done(); }
  // Finished without an exception.
  bool successful() const noexcept { return state_->done() && !state_->failed(); }
  // The exception it ended with, or null; reading it counts as handling it.
  std::exception_ptr exception() const noexcept { return state_->exception(); }

  // Delivers `error` (by default CancelledError) at the task's current suspension point,
  // or at its next one if the current wait has already completed; the task may catch it to
  // clean up. A task that has not started (spawned, or spawn_later's delay still running)
  // never runs, and is done at once. Killing a finished task does nothing; of two kills
  // before the task runs again, the first is delivered. Returns at once: join() to wait for
  // the task to end (gevent's kill(block=False)).
  //
  // gevent's kill(greenlet, exception=GreenletExit), with two differences. A task that ends
  // with CancelledError (the default kill) was cancelled: it is never logged, as a greenlet
  // that ends with GreenletExit is never reported, but it is not successful() and awaiting
  // it rethrows the CancelledError (where gevent calls it successful and get() returns the
  // GreenletExit), so no value is made up. Any other exception (kill(make_exception_ptr(
  // MyError(...)))) ending the task is a failure like one the task threw itself: its
  // exception(), rethrown by co_await, and logged if nobody retrieves it, as gevent's hub
  // reports every exception but GreenletExit. Throw a subclass of CancelledError to give a
  // reason without making it a failure.
  void kill(std::exception_ptr error = nullptr) const;

  // `co_await h.join(timeout)`: waits until the task finishes or the time limit passes;
  // yields true if it finished. Never throws the task's exception. A kill of the *waiting*
  // task interrupts it like any wait.
  [[nodiscard]] detail::JoinAwaiter join(Timeout timeout = {}) const {
    return detail::JoinAwaiter(state_, deadline_after(timeout));
  }

  // Runs `fn` on the loop once the task is done (soon, if it already is): gevent's link.
  void add_done_callback(std::function<void()> fn) const {
    detail::add_done_callback(*state_.get(), std::move(fn));
  }

  // What makes a handle Waitable (see wait.h): `link` runs when the task finishes. Returns
  // false, linking nothing, if it already has.
  bool rawlink(detail::Link& link) const noexcept {
    if (state_->done()) return false;
    state_->link(link);
    return true;
  }

  bool operator==(const AnyTaskHandle& other) const noexcept { return state_ == other.state_; }
  detail::TaskState& state() const noexcept { return *state_.get(); }

 protected:
  explicit AnyTaskHandle(detail::TaskRef state) noexcept : state_(std::move(state)) {}
  detail::TaskRef state_;
};

template <class T>
class TaskHandle : public AnyTaskHandle {
 public:
  TaskHandle() = default;

  // The value of a finished task; rethrows its exception. InvalidStateError if not done.
  std::add_lvalue_reference_t<T> value() const {
    if (!done()) throw InvalidStateError("value() of a task that has not finished");
    if (auto e = state_->exception()) std::rethrow_exception(e);
    if constexpr (!std::is_void_v<T>) return *typed().value();
  }

  class GetAwaiter : public detail::JoinAwaiter {
   public:
    GetAwaiter(const TaskHandle& h, TimePoint deadline)
        : JoinAwaiter(detail::TaskRef(&h.state()), deadline), handle_(h) {}
    T await_resume() {
      if (!JoinAwaiter::await_resume()) throw TimeoutError("the task did not finish in time");
      if constexpr (std::is_void_v<T>) {
        handle_.value();
      } else {
        return std::move(handle_.value());
      }
    }

   private:
    TaskHandle handle_;
  };

  // `co_await h`: waits for the task and yields its value, or rethrows its exception.
  GetAwaiter operator co_await() const { return GetAwaiter(*this, TimePoint::max()); }
  // `co_await h.get(timeout)`: the same, with TimeoutError if it does not finish in time.
  [[nodiscard]] GetAwaiter get(Timeout timeout = {}) const {
    return GetAwaiter(*this, deadline_after(timeout));
  }

 private:
  template <class U>
  friend TaskHandle<U> detail::spawn_at(TimePoint at, Task<U> task, Loop& loop);
  explicit TaskHandle(detail::TaskRef state) noexcept : AnyTaskHandle(std::move(state)) {}
  detail::TypedTaskState<T>& typed() const {
    return static_cast<detail::TypedTaskState<T>&>(*state_.get());
  }
};

template <class T>
TaskHandle<T> detail::spawn_at(TimePoint at, Task<T> task, Loop& loop) {
  auto frame = task.root_frame();
  auto* state = new detail::TypedTaskState<T>(loop);
  detail::TaskRef ref(state);
  task.release();
  frame.promise().set_root(state);
  state->start(frame, at);
  return TaskHandle<T>(std::move(ref));
}

// Starts `task` on `loop` (the current loop by default): it first runs on the loop's next
// iteration, after the callbacks already queued, as gevent's spawn does. InvalidStateError,
// starting nothing, if the task is empty (default-constructed, moved from, already spawned) or
// was already awaited.
template <class T>
TaskHandle<T> spawn(Task<T> task, Loop& loop) {
  return detail::spawn_at(TimePoint::min(), std::move(task), loop);
}

template <class T>
TaskHandle<T> spawn(Task<T> task) {
  return spawn(std::move(task), Loop::current());
}

// gevent's spawn_later: as spawn, but the task first runs once `delay` has passed (a timer on
// the loop, which counts as pending work meanwhile; a delay <= 0 starts it as spawn does). A
// kill before then means it never runs, and the handle is done at once.
template <class T>
TaskHandle<T> spawn_later(Duration delay, Task<T> task, Loop& loop) {
  TimePoint at = delay <= Duration::zero() ? TimePoint::min() : Clock::now() + delay;
  return detail::spawn_at(at, std::move(task), loop);
}

template <class T>
TaskHandle<T> spawn_later(Duration delay, Task<T> task) {
  return spawn_later(delay, std::move(task), Loop::current());
}

// Runs the current loop until `task` finishes and returns its value, or rethrows its
// exception. Throws TimeoutError if `timeout` passes first, and WouldBlockForeverError if the
// task waits while the loop has nothing left that could wake it (no ready callbacks, timers,
// watched descriptors, KeepAlive or cross-thread callbacks): gevent's LoopExit. In both cases
// the task is killed first and the loop runs until it has unwound. A task spawn refuses
// (empty, or already awaited) is InvalidStateError, as from spawn.
template <class T>
T run_sync(Task<T> task, Timeout timeout = {}) {
  Loop& loop = Loop::current();
  TaskHandle<T> handle = spawn(std::move(task), loop);
  detail::run_until_done(loop, handle.state(), timeout);
  if constexpr (std::is_void_v<T>) {
    handle.value();
  } else {
    return std::move(handle.value());
  }
}

}  // namespace squall
