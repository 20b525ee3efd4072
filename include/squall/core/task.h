// Task<T>: the lazy coroutine type every squall API returns. Awaiting a task runs it.
//
//   Task<int> answer() { co_await sleep(10ms); co_return 42; }
//   Task<void> main_task() { int x = co_await answer(); }
//
// A Task is move-only and does nothing until awaited (or given to spawn/run_sync). An
// exception escaping the coroutine is rethrown to the awaiter. Control passes between a task
// and the one awaiting it by symmetric transfer through a trampoline, so a chain of any length
// of tasks that complete without suspending does not grow the stack.
#pragma once

#include <coroutine>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include "squall/core/detail/frame_pool.h"
#include "squall/core/detail/task_state.h"

namespace squall {

template <class T = void>
class Task;

namespace detail {

class PromiseBase {
 public:
  PromiseBase() noexcept { ++live_frames(); }
  ~PromiseBase() { --live_frames(); }
  PromiseBase(const PromiseBase&) = delete;
  PromiseBase& operator=(const PromiseBase&) = delete;

  // Frames come from the per-thread pool.
  static void* operator new(size_t size) { return pool_allocate(size); }
  static void operator delete(void* frame, size_t size) noexcept { pool_deallocate(frame, size); }

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    void await_suspend(std::coroutine_handle<P> h) noexcept {
      h.promise().on_final();
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }

  void unhandled_exception() noexcept { error_ = std::current_exception(); }

  // Spawned tasks: the state that receives the result when the root frame ends.
  void set_root(TaskState* root) noexcept { root_ = root; }
  std::exception_ptr& error() noexcept { return error_; }

 protected:
  // Runs at final suspension. Either hands control back to the awaiting coroutine, or, for a
  // spawned root, gives the outcome to the task state, which then destroys this frame.
  void on_final() noexcept;

 private:
  template <class T>
  friend class squall::Task;
  std::coroutine_handle<> continuation_;
  TaskState* root_ = nullptr;
  std::exception_ptr error_;
};

template <class T>
class TaskPromise final : public PromiseBase {
 public:
  Task<T> get_return_object() noexcept;

  template <class U = T>
  void return_value(U&& value) noexcept(std::is_nothrow_constructible_v<T, U&&>) {
    value_.emplace(std::forward<U>(value));
  }

  // The value, or the exception rethrown.
  T result() {
    if (error()) std::rethrow_exception(error());
    return std::move(*value_);
  }

 private:
  std::optional<T> value_;
};

template <>
class TaskPromise<void> final : public PromiseBase {
 public:
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void result() {
    if (error()) std::rethrow_exception(error());
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::TaskPromise<T>;
  using value_type = T;

  Task() noexcept = default;
  Task(Task&& other) noexcept : h_(std::exchange(other.h_, nullptr)) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      if (h_) h_.destroy();
      h_ = std::exchange(other.h_, nullptr);
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  // Destroying a task that never ran, or that finished, frees its frame.
  ~Task() {
    if (h_) h_.destroy();
  }

  // A Task<void> that has already finished and has no coroutine frame: what a function on a
  // hot path returns when it has nothing to wait for. Awaiting it costs nothing; spawning it
  // gives a task that finishes at once.
  static Task ready() noexcept requires std::is_void_v<T> { return Task(); }

  // True while the task owns a coroutine frame (false for ready() and moved-from tasks).
  explicit operator bool() const noexcept { return static_cast<bool>(h_); }

  class Awaiter {
   public:
    explicit Awaiter(std::coroutine_handle<promise_type> h) noexcept : h_(h) {}
    bool await_ready() const noexcept {
      if constexpr (std::is_void_v<T>) return !h_;
      return false;
    }
    void await_suspend(std::coroutine_handle<> awaiting) noexcept {
      h_.promise().continuation_ = awaiting;
      detail::transfer_to(h_);
    }
    T await_resume() {
      if constexpr (std::is_void_v<T>) {
        if (h_) h_.promise().result();
      } else {
        return h_.promise().result();
      }
    }

   private:
    std::coroutine_handle<promise_type> h_;
  };

  // Runs the task to completion inside the awaiting one; its result or exception comes back.
  Awaiter operator co_await() && noexcept { return Awaiter{h_}; }
  Awaiter operator co_await() & noexcept { return Awaiter{h_}; }

  // For spawn: gives up ownership of the frame.
  std::coroutine_handle<promise_type> release() noexcept { return std::exchange(h_, nullptr); }

 private:
  friend class detail::TaskPromise<T>;
  explicit Task(std::coroutine_handle<promise_type> h) noexcept : h_(h) {}
  std::coroutine_handle<promise_type> h_;
};

namespace detail {

template <class T>
Task<T> TaskPromise<T>::get_return_object() noexcept {
  return Task<T>{std::coroutine_handle<TaskPromise<T>>::from_promise(*this)};
}

inline Task<void> TaskPromise<void>::get_return_object() noexcept {
  return Task<void>{std::coroutine_handle<TaskPromise<void>>::from_promise(*this)};
}

// What spawn runs for a Task<void>::ready().
inline Task<void> finished_task() {
  co_return;
}

}  // namespace detail
}  // namespace squall
