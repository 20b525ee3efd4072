// The event loop (the hub): one per thread, driving every task, timer and descriptor on it.
//
// Phases of one iteration (run_once), in order:
//   1. timers whose deadline has passed fire, earliest first (ties in the order they were set);
//   2. ready callbacks run in FIFO order, including ones queued while they run, until the queue
//      is empty or a budget of 256 has run (so polling is never starved);
//   3. the poll timeout is computed: 0 if callbacks are still ready or stop() was called, else
//      the time to the earliest timer rounded up to whole milliseconds, else no limit; never
//      past the caller's wait limit;
//   4. epoll waits for that long, unless callbacks are still ready and fewer than 1024 ran since
//      the last poll, and the handlers of ready descriptors run;
//   5. callbacks queued from other threads move to the ready queue.
// Between 2 and 3, if tasks wait in wait_idle() and nothing else is pending (no ready callback,
// watched descriptor, cross-thread callback or KeepAlive, and no timer but their own time
// limits), they are woken: the loop went idle.
//
// Threads: a Loop and everything on it (tasks, primitives, handlers) belong to the thread that
// runs it. The only member another thread may call is call_soon_threadsafe().
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "squall/core/callback.h"
#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/poller.h"
#include "squall/core/detail/ready_queue.h"
#include "squall/core/detail/timer_heap.h"
#include "squall/core/time.h"

namespace squall {

namespace detail {
class TaskState;
class CallbackTimer;
class Waiter;
}  // namespace detail

// Readiness bits for descriptors. Error and Hangup are always reported; Edge asks for
// edge-triggered notification (the handler must then drain until EAGAIN).
enum class IoEvents : uint32_t { None = 0, Read = 1, Write = 2, Error = 4, Hangup = 8, Edge = 16 };
constexpr IoEvents operator|(IoEvents a, IoEvents b) {
  return static_cast<IoEvents>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr IoEvents operator&(IoEvents a, IoEvents b) {
  return static_cast<IoEvents>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}
constexpr bool any(IoEvents e) {
  return e != IoEvents::None;
}

using IoHandler = std::function<void(IoEvents)>;

// A timer set by call_later/call_at. Copies refer to the same timer. cancel() before it fires
// means the callback never runs; after it fired (or on an empty handle) it does nothing.
class TimerHandle {
 public:
  TimerHandle() = default;
  TimerHandle(const TimerHandle& other) noexcept;
  TimerHandle& operator=(TimerHandle other) noexcept;
  ~TimerHandle();

  void cancel() noexcept;
  // True until the timer fires or is cancelled.
  bool active() const noexcept;

 private:
  friend class Loop;
  explicit TimerHandle(detail::CallbackTimer* timer) noexcept : timer_(timer) {}
  detail::CallbackTimer* timer_ = nullptr;
};

class Loop {
 public:
  // A new loop becomes its thread's current loop until it is destroyed (then the one that
  // was current before it is again).
  Loop();
  // Destroys the frames of tasks still suspended on this loop (their awaiters release what
  // they hold) and drops queued callbacks without running them.
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  // This thread's loop: the one made current, or a per-thread default created on first use.
  static Loop& current();

  // Monotonic now.
  static TimePoint time() noexcept { return Clock::now(); }

  // Runs `cb` on a later iteration, after every callback already queued (FIFO).
  void call_soon(Callback cb) { ready_.push(std::move(cb)); }

  // The one thread-safe member: queues `cb` and wakes the loop through its eventfd.
  void call_soon_threadsafe(Callback cb);

  TimerHandle call_later(Duration delay, Callback cb) {
    return call_at(time() + delay, std::move(cb));
  }
  TimerHandle call_at(TimePoint when, Callback cb);

  // Watches `fd` for `events`; `handler` runs on the loop with the events that occurred.
  // One handler per descriptor; throws SystemError if epoll refuses the descriptor.
  void add_handler(int fd, IoEvents events, IoHandler handler);
  void update_handler(int fd, IoEvents events);
  // Stops watching; safe to call from inside the handler, and for an unwatched fd.
  void remove_handler(int fd) noexcept;

  // Runs iterations until stop() is called (from a callback or task on this loop).
  void run_forever();
  // Makes run_forever return after the current iteration, and run_once not block for I/O
  // until run_forever (or run_sync) starts again.
  void stop() noexcept { stopping_ = true; }
  bool stopping() const noexcept { return stopping_; }
  void clear_stop() noexcept { stopping_ = false; }
  // One iteration (see the phases above); blocks for I/O at most until `wait_limit`, and not
  // at all when there is no pending work and `block_when_idle` is false (run_sync's case).
  void run_once(TimePoint wait_limit = TimePoint::max(), bool block_when_idle = true);

  // While a KeepAlive lives, the loop counts as having pending work: hold one while another
  // thread is expected to call_soon_threadsafe, or run_sync could decide nothing can happen.
  class KeepAlive {
   public:
    explicit KeepAlive(Loop& loop) noexcept : loop_(&loop) { ++loop_->keep_alive_; }
    KeepAlive(KeepAlive&& other) noexcept : loop_(std::exchange(other.loop_, nullptr)) {}
    KeepAlive& operator=(KeepAlive&&) = delete;
    ~KeepAlive() {
      if (loop_) --loop_->keep_alive_;
    }

   private:
    Loop* loop_;
  };

  // True if anything could still make progress: ready callbacks, timers, watched descriptors,
  // callbacks from other threads, a KeepAlive, or tasks in wait_idle() (which the loop wakes
  // when nothing else is left). run_sync's "would block forever" test.
  bool has_pending_work() const noexcept;

  size_t ready_count() const noexcept { return ready_.size(); }
  size_t timer_count() const noexcept { return timers_.size(); }
  size_t handler_count() const noexcept { return handler_count_; }
  // Spawned tasks on this loop that have not finished.
  size_t task_count() const noexcept { return tasks_.size(); }

  // For awaiters inside squall: timers embedded in their own storage.
  void add_timer(detail::TimerEntry& entry, TimePoint when) { timers_.push(entry, when); }
  void remove_timer(detail::TimerEntry& entry) noexcept {
    if (entry.active()) timers_.remove(entry);
  }
  // For spawn: the list of live tasks, destroyed with the loop.
  void attach(detail::TaskState& task) noexcept;
  void detach(detail::TaskState& task) noexcept;
  // For wait_idle(): the waiters woken once the loop is idle but for them.
  detail::IntrusiveList<detail::Waiter>& idle_waiters() noexcept { return idle_waiters_; }

 private:
  struct Handler {
    IoHandler fn;
    IoEvents events = IoEvents::None;
    uint32_t registration = 0;  // changes with every add_handler on this descriptor
    bool active = false;
  };

  void fire_due_timers();
  void run_ready();
  void wake_idle_waiters();
  void poll(TimePoint wait_limit, bool block_when_idle);
  void take_threadsafe_callbacks();

  detail::ReadyQueue ready_;
  detail::TimerHeap timers_;
  detail::Poller poller_;
  std::vector<Handler> handlers_;  // indexed by descriptor
  size_t handler_count_ = 0;
  uint32_t registrations_ = 0;
  size_t ran_since_poll_ = 0;
  bool stopping_ = false;
  size_t keep_alive_ = 0;

  detail::IntrusiveList<detail::TaskState> tasks_;  // live spawned tasks
  detail::IntrusiveList<detail::Waiter> idle_waiters_;
  std::vector<IoHandler> removed_;  // handlers removed while handlers were running

  Loop* previous_;  // the thread's current loop before this one
  int wake_fd_;
  std::mutex threadsafe_mutex_;
  std::vector<Callback> threadsafe_;
  std::atomic<bool> threadsafe_pending_{false};
};

}  // namespace squall
