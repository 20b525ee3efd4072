// What a spawned task is while it runs (gevent's greenlet): its status, the suspension point a
// kill interrupts, the links run when it finishes. And the trampoline that resumes coroutines.
#pragma once

#include <coroutine>
#include <cstdint>
#include <exception>
#include <utility>

#include "squall/core/detail/frame_pool.h"
#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/timer_heap.h"
#include "squall/core/loop.h"
#include "squall/core/time.h"

namespace squall::detail {

// Resumes `h`, then every coroutine handed over with transfer_to(), in a loop: symmetric
// transfer that never grows the stack, whatever the compiler does with tail calls.
void resume(std::coroutine_handle<> h);
// From an await_suspend that returns void/true: run `h` next, once the caller has suspended.
void transfer_to(std::coroutine_handle<> h) noexcept;

class TaskState;
class PromiseBase;

// The task running on this thread right now (nullptr between tasks).
TaskState* current_task() noexcept;

// Live coroutine frames of squall tasks on this thread; tests check it returns to zero.
// Inline, constant-initialised: counting costs an increment, not a call.
inline constinit thread_local int64_t live_frame_count = 0;
inline int64_t& live_frames() noexcept {
  return live_frame_count;
}

// A suspension point: where a task waits, and what a kill or a timeout interrupts.
// Every awaitable squall provides is one, embedded in the awaiter (so in the coroutine frame).
// Life cycle: suspend() or suspend_in() → [wake() | time limit | kill] → the coroutine resumes
// → finish().
class Waiter : public ListHook<Waiter>, private TimerEntry {
 public:
  Waiter() = default;
  ~Waiter();

  // From await_suspend: registers `h` and arms the time limit. Returns false when a kill is
  // already pending: then the caller must not suspend, and finish() throws it.
  bool suspend(std::coroutine_handle<> h, TimePoint deadline = TimePoint::max());
  // From await_suspend, when whoever completes the wait keeps its waiters in a list: suspend(),
  // then join the end of `line`. Returns what suspend() returns; on false the waiter stays out
  // of the line. Waking, a kill or the time limit take it out again. Always inlined: GCC
  // otherwise keeps it out of line from large coroutine bodies, a call more per wait.
  [[gnu::always_inline]] bool suspend_in(IntrusiveList<Waiter>& line, std::coroutine_handle<> h,
                                         TimePoint deadline = TimePoint::max()) {
    if (!suspend(h, deadline)) return false;
    line.push_back(*this);
    return true;
  }
  // The wait completed: stop the timer, leave any list, resume the coroutine on the loop soon.
  void wake() noexcept;
  // Resume soon without completing: still interruptible until it runs (sleep(0)).
  void schedule() noexcept;
  // From await_resume: rethrows the kill that interrupted this wait, if one did. Returns true
  // if the wait ended because its time limit passed.
  bool finish();

  bool woken() const noexcept { return woken_; }
  TaskState* task() const noexcept { return task_; }
  // Its time limit is armed: it sits on the loop's timer heap.
  bool has_time_limit() const noexcept { return TimerEntry::active(); }

 protected:
  // Hook for subclasses: release whatever else the wait holds, when a kill interrupts it.
  virtual void on_cancel() noexcept {}
  // Hook for subclasses: the time limit passed (default: leave the list, resume).
  virtual void on_timeout() noexcept;

 private:
  friend class TaskState;
  void fire() final;
  void cancel() noexcept;
  void queue_resume() noexcept;

  TaskState* task_ = nullptr;
  Loop* loop_ = nullptr;
  std::coroutine_handle<> handle_;
  bool woken_ = false;
  bool timed_out_ = false;
  bool scheduled_ = false;
};

// Something to run once a waitable is ready (a task finished, a future has its result, an
// event is set): a joiner, a wait()/iwait() slot, a done-callback. It runs inside whatever
// made the object ready, so it must only record and wake, never resume a coroutine itself.
class Link : public ListHook<Link> {
 public:
  virtual void on_ready() noexcept = 0;
  // The object went away without becoming ready (a task whose loop was destroyed).
  virtual void on_dropped() noexcept {}

 protected:
  ~Link() = default;
};

class TaskState : public ListHook<TaskState> {
 public:
  enum class Status : uint8_t { Scheduled, Running, Done };

  explicit TaskState(Loop& loop) noexcept;
  static void* operator new(size_t size) { return pool_allocate(size); }
  static void operator delete(void* state, size_t size) noexcept { pool_deallocate(state, size); }
  TaskState(const TaskState&) = delete;
  TaskState& operator=(const TaskState&) = delete;

  void ref() noexcept { ++refs_; }
  void unref() noexcept {
    if (--refs_ == 0) destroy();
  }

  Loop& loop() const noexcept { return *loop_; }
  Status status() const noexcept { return status_; }
  bool done() const noexcept { return status_ == Status::Done; }

  // Takes ownership of the root frame and queues its first run: soon, or at `at` if given.
  void start(std::coroutine_handle<> frame, TimePoint at = TimePoint::min());

  // Delivers `error` at the task's current suspension point (or its next one, if the current
  // wait already completed). A task that has not started never runs (and a delayed start is
  // cancelled). `source` tags the kill so a timeout scope can take back its own undelivered
  // kill.
  void kill(std::exception_ptr error, const void* source = nullptr) noexcept;
  bool kill_pending() const noexcept { return pending_ != nullptr; }
  std::exception_ptr take_pending() noexcept {
    source_ = nullptr;
    return std::exchange(pending_, nullptr);
  }
  const void* pending_source() const noexcept { return source_; }

  // The exception the task ended with; reading it counts as handling it. One nobody read is
  // logged when the state goes away, unless it is a CancelledError (the task was cancelled,
  // which is no failure).
  std::exception_ptr exception() noexcept {
    retrieved_ = true;
    return exception_;
  }
  bool failed() const noexcept { return exception_ != nullptr; }
  bool ended_with(const std::exception_ptr& error) const noexcept {
    return exception_ && exception_ == error;
  }
  void mark_retrieved() noexcept { retrieved_ = true; }

  void link(Link& link) noexcept { links_.push_back(link); }
  void unlink(Link& link) noexcept { links_.remove(link); }

  // Resumes `h` (a coroutine of this task) with this task current.
  void resume(std::coroutine_handle<> h);

  // Called by the root frame's final suspend (the value, if any, is already stored):
  // records `error`, destroys the frame, runs the links.
  void finish(std::exception_ptr error) noexcept;

  // Destroys the frame of a task that never finished (its loop is going away).
  void abandon() noexcept;

 protected:
  virtual ~TaskState();
  // Moves the root coroutine's value (if it returned one) into the typed state.
  virtual void take_result(PromiseBase& promise) noexcept = 0;

 private:
  friend class Waiter;
  friend class PromiseBase;
  void destroy() noexcept { delete this; }
  void complete(std::exception_ptr error) noexcept;

  Loop* loop_;
  std::coroutine_handle<> frame_;
  Waiter* suspended_on_ = nullptr;
  std::exception_ptr pending_;
  const void* source_ = nullptr;
  std::exception_ptr exception_;
  IntrusiveList<Link> links_;
  TimerHandle start_timer_;  // spawn_later's delayed first run
  uint32_t refs_ = 1;
  Status status_ = Status::Scheduled;
  bool retrieved_ = false;
};

// A counted reference to a TaskState.
class TaskRef {
 public:
  TaskRef() = default;
  explicit TaskRef(TaskState* s) noexcept : s_(s) {
    if (s_) s_->ref();
  }
  TaskRef(const TaskRef& o) noexcept : TaskRef(o.s_) {}
  TaskRef(TaskRef&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  TaskRef& operator=(TaskRef o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  ~TaskRef() {
    if (s_) s_->unref();
  }
  TaskState* get() const noexcept { return s_; }
  TaskState* operator->() const noexcept { return s_; }
  explicit operator bool() const noexcept { return s_ != nullptr; }
  bool operator==(const TaskRef& o) const noexcept { return s_ == o.s_; }

 private:
  TaskState* s_ = nullptr;
};

}  // namespace squall::detail
