// Task<T>: the lazy coroutine type every squall API returns. Awaiting a task runs it.
//
//   Task<int> answer() { co_await sleep(10ms); co_return 42; }
//   Task<void> main_task() { int x = co_await answer(); }
//
// A Task is move-only and does nothing until awaited (or given to spawn/run_sync). An
// exception escaping the coroutine is rethrown to the awaiter. Control passes between a task
// and the one awaiting it by symmetric transfer through a trampoline, so a chain of any length
// of tasks that complete without suspending does not grow the stack.
//
// A task runs once. Awaiting or spawning an empty task (default-constructed, moved from, or
// already spawned), or one that was already awaited, throws InvalidStateError in the caller
// and runs nothing. A task is awaited and destroyed on the thread of the loop that runs it.
#pragma once

#include <coroutine>
#include <cstdint>
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

// InvalidStateError for `operation` ("co_await", "spawn") on a task that cannot run: empty,
// or already awaited. Out of line, so that the await path inlines its checks and no more.
[[noreturn]] void throw_empty_task(const char* operation);
[[noreturn]] void throw_task_awaited_again(const char* operation);

Task<void> finished_task();

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

  // An empty task: no coroutine. Something to assign a task to; awaiting or spawning it
  // throws InvalidStateError.
  Task() noexcept = default;
  // The moved-from task is left empty.
  Task(Task&& other) noexcept : h_(std::exchange(other.h_, nullptr)) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      if (owns_frame(h_)) h_.destroy();
      h_ = std::exchange(other.h_, nullptr);
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  // Destroying a task that never ran, or that finished, frees its frame.
  ~Task() {
    if (owns_frame(h_)) h_.destroy();
  }

  // A Task<void> that has already finished and has no coroutine frame: what a function on a
  // hot path returns when it has nothing to wait for. Awaiting it costs nothing, and with no
  // frame to protect it may be awaited any number of times; spawning it gives a task that
  // finishes at once.
  static Task ready() noexcept requires std::is_void_v<T> { return Task(ready_mark()); }

  // True while the task owns a coroutine frame (false for ready() and empty tasks).
  explicit operator bool() const noexcept { return owns_frame(h_); }

  class Awaiter {
   public:
    explicit Awaiter(std::coroutine_handle<promise_type> h) noexcept : h_(h) {}
    // InvalidStateError for an empty task or one already awaited, before anything runs.
    bool await_ready() const {
      if (owns_frame(h_)) [[likely]] {
        if (h_.promise().continuation_) [[unlikely]]
          detail::throw_task_awaited_again("co_await");
        return false;
      }
      if (std::is_void_v<T> && h_) return true;  // ready()
      detail::throw_empty_task("co_await");
    }
    void await_suspend(std::coroutine_handle<> awaiting) noexcept {
      h_.promise().continuation_ = awaiting;
      detail::transfer_to(h_);
    }
    T await_resume() {
      if constexpr (std::is_void_v<T>) {
        if (owns_frame(h_)) h_.promise().result();
      } else {
        return h_.promise().result();
      }
    }

   private:
    std::coroutine_handle<promise_type> h_;
  };

  // Runs the task to completion inside the awaiting one; its result or exception comes back.
  // Throws InvalidStateError, running nothing, if the task is empty or was already awaited.
  Awaiter operator co_await() && noexcept { return Awaiter{h_}; }
  Awaiter operator co_await() & noexcept { return Awaiter{h_}; }

  // For spawn, which takes the frame in two steps so that nothing leaks if it fails between
  // them: root_frame() is the frame a spawned task runs (a ready() task first becomes one that
  // finishes at once) and throws InvalidStateError for an empty task or one already awaited;
  // release() then gives up ownership of it.
  std::coroutine_handle<promise_type> root_frame() {
    if constexpr (std::is_void_v<T>) {
      if (h_ == ready_mark()) *this = detail::finished_task();
    }
    if (!owns_frame(h_)) detail::throw_empty_task("spawn");
    if (h_.promise().continuation_) detail::throw_task_awaited_again("spawn");
    return h_;
  }
  std::coroutine_handle<promise_type> release() noexcept { return std::exchange(h_, nullptr); }

 private:
  friend class detail::TaskPromise<T>;
  explicit Task(std::coroutine_handle<promise_type> h) noexcept : h_(h) {}

  // h_ is null (an empty task), the mark of ready() (Task<void> only), or an owned frame; the
  // mark sits just above null so that one comparison tells a frame from both.
  static std::coroutine_handle<promise_type> ready_mark() noexcept {
    return std::coroutine_handle<promise_type>::from_address(reinterpret_cast<void*>(1));
  }
  static bool owns_frame(std::coroutine_handle<promise_type> h) noexcept {
    return reinterpret_cast<uintptr_t>(h.address()) > 1;
  }

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
