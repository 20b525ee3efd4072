// The event loop: timers, ready callbacks, epoll and the cross-thread door, in that order.
#include "squall/core/loop.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "squall/core/detail/frame_pool.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/log.h"
#include "squall/core/loop_local.h"

namespace squall {

namespace detail {

// A timer set by call_later: owned jointly by the loop (while pending) and by handles.
class CallbackTimer final : public TimerEntry {
 public:
  CallbackTimer(Loop& loop, Callback cb) : loop_(&loop), cb_(std::move(cb)) {}
  static void* operator new(size_t size) { return pool_allocate(size); }
  static void operator delete(void* p, size_t size) noexcept { pool_deallocate(p, size); }
  void ref() noexcept { ++refs_; }
  void unref() noexcept {
    if (--refs_ == 0) delete this;
  }
  void cancel() noexcept {
    if (active()) {
      loop_->remove_timer(*this);
      cb_.reset();
      unref();  // the loop's reference
    }
  }
  void fire() override {
    Callback cb = std::move(cb_);
    unref();  // the loop's reference; `cb` is ours now
    cb();
  }

 private:
  ~CallbackTimer() = default;
  Loop* loop_;
  Callback cb_;
  uint32_t refs_ = 1;
};

}  // namespace detail

namespace {
// Callbacks one iteration runs before it looks at timers again.
constexpr size_t kReadyBudget = 256;
// Callbacks run between two looks at the descriptors while callbacks keep becoming ready: an
// epoll_wait costs as much as dozens of callbacks, and I/O still waits at most microseconds.
constexpr size_t kPollEvery = 1024;
thread_local Loop* current_loop = nullptr;

void log_callback_error(const char* where) {
  try {
    throw;
  } catch (const std::exception& e) {
    log(LogLevel::Error, std::string("exception in ") + where + ": " + e.what());
  } catch (...) {
    log(LogLevel::Error, std::string("unknown exception in ") + where);
  }
}
}  // namespace

// --- TimerHandle ----------------------------------------------------------------------------

TimerHandle::TimerHandle(const TimerHandle& other) noexcept : timer_(other.timer_) {
  if (timer_) timer_->ref();
}
TimerHandle& TimerHandle::operator=(TimerHandle other) noexcept {
  std::swap(timer_, other.timer_);
  return *this;
}
TimerHandle::~TimerHandle() {
  if (timer_) timer_->unref();
}
void TimerHandle::cancel() noexcept {
  if (timer_) timer_->cancel();
}
bool TimerHandle::active() const noexcept {
  return timer_ && timer_->active();
}

// --- Loop -------------------------------------------------------------------------------------

Loop::Loop() : wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (wake_fd_ < 0) throw SystemError("eventfd", errno);
  poller_.add(wake_fd_, static_cast<uint32_t>(IoEvents::Read));
  previous_ = std::exchange(current_loop, this);
}

Loop::~Loop() {
  // Frames first: their awaiters unregister from the timers and lists below.
  while (detail::TaskState* task = tasks_.front()) task->abandon();
  ready_.clear();
  // The layers' per-loop objects (loop_local.h), while timers and descriptors can still go.
  detail::destroy_loop_locals(*this);
  while (detail::TimerEntry* t = timers_.top()) {
    timers_.pop();
    if (auto* cb = dynamic_cast<detail::CallbackTimer*>(t)) cb->unref();
  }
  poller_.remove(wake_fd_);
  ::close(wake_fd_);
  if (current_loop == this) current_loop = previous_;
}

Loop& Loop::current() {
  if (!current_loop) {
    thread_local std::unique_ptr<Loop> default_loop;
    default_loop = std::make_unique<Loop>();
  }
  return *current_loop;
}

void Loop::call_soon_threadsafe(Callback cb) {
  {
    std::lock_guard lock(threadsafe_mutex_);
    threadsafe_.push_back(std::move(cb));
  }
  if (!threadsafe_pending_.exchange(true, std::memory_order_acq_rel)) {
    uint64_t one = 1;
    ssize_t n;
    do n = ::write(wake_fd_, &one, sizeof one);
    while (n < 0 && errno == EINTR);
  }
}

TimerHandle Loop::call_at(TimePoint when, Callback cb) {
  auto* timer = new detail::CallbackTimer(*this, std::move(cb));
  timers_.push(*timer, when);
  timer->ref();  // the handle's
  return TimerHandle(timer);
}

void Loop::add_handler(int fd, IoEvents events, IoHandler handler) {
  if (fd < 0) throw InvalidArgumentError("add_handler: negative file descriptor");
  if (static_cast<size_t>(fd) >= handlers_.size()) handlers_.resize(fd + 1);
  Handler& h = handlers_[fd];
  if (h.active)
    throw InvalidStateError("add_handler: fd " + std::to_string(fd) + " is already watched");
  uint32_t registration = ++registrations_;
  poller_.add(fd, static_cast<uint32_t>(events), registration);
  h = Handler{std::move(handler), events, registration, true};
  ++handler_count_;
}

void Loop::update_handler(int fd, IoEvents events) {
  if (fd < 0 || static_cast<size_t>(fd) >= handlers_.size() || !handlers_[fd].active)
    throw InvalidStateError("update_handler: fd " + std::to_string(fd) + " is not watched");
  poller_.modify(fd, static_cast<uint32_t>(events), handlers_[fd].registration);
  handlers_[fd].events = events;
}

void Loop::remove_handler(int fd) noexcept {
  if (fd < 0 || static_cast<size_t>(fd) >= handlers_.size() || !handlers_[fd].active) return;
  poller_.remove(fd);
  handlers_[fd].active = false;
  // The function may be running right now (a handler removing itself): free it after poll.
  removed_.push_back(std::move(handlers_[fd].fn));
  --handler_count_;
}

void Loop::attach(detail::TaskState& task) noexcept {
  tasks_.push_back(task);
}

void Loop::detach(detail::TaskState& task) noexcept {
  tasks_.remove(task);
}

bool Loop::has_pending_work() const noexcept {
  return !ready_.empty() || !timers_.empty() || handler_count_ > 0 || keep_alive_ > 0 ||
         !idle_waiters_.empty() || threadsafe_pending_.load(std::memory_order_acquire);
}

void Loop::run_forever() {
  stopping_ = false;
  while (!stopping_) run_once();
  stopping_ = false;
}

void Loop::run_once(TimePoint wait_limit, bool block_when_idle) {
  fire_due_timers();
  run_ready();
  if (!idle_waiters_.empty()) wake_idle_waiters();
  if (ready_.empty() || ran_since_poll_ >= kPollEvery) poll(wait_limit, block_when_idle);
  take_threadsafe_callbacks();
}

void Loop::wake_idle_waiters() {
  if (!ready_.empty() || handler_count_ > 0 || keep_alive_ > 0 ||
      threadsafe_pending_.load(std::memory_order_acquire))
    return;
  // Idle but for the waiters' own time limits: every timer left must be one of theirs. O(n)
  // in the waiters, a handful at most, and only once everything else is quiet.
  size_t limits = 0;
  for (detail::Waiter* w = idle_waiters_.front(); w; w = idle_waiters_.next(*w))
    limits += w->has_time_limit();
  if (limits != timers_.size()) return;
  while (detail::Waiter* w = idle_waiters_.pop_front()) w->wake();
}

void Loop::fire_due_timers() {
  if (timers_.empty()) return;
  TimePoint now = time();
  while (detail::TimerEntry* t = timers_.top()) {
    if (t->when() > now) break;
    timers_.pop();
    try {
      t->fire();
    } catch (...) {
      log_callback_error("a timer callback");
    }
  }
}

void Loop::run_ready() {
  for (size_t budget = kReadyBudget; budget > 0 && !ready_.empty(); --budget) {
    Callback cb = ready_.pop();
    ++ran_since_poll_;
    try {
      cb();
    } catch (...) {
      log_callback_error("a callback");
    }
  }
}

void Loop::poll(TimePoint wait_limit, bool block_when_idle) {
  int timeout_ms = -1;
  if (!ready_.empty() || stopping_ || (!block_when_idle && !has_pending_work())) {
    timeout_ms = 0;
  } else {
    TimePoint until = wait_limit;
    if (auto* t = timers_.top()) until = std::min(until, t->when());
    if (until != TimePoint::max()) {
      TimePoint now = time();
      // Round up: waking a little late is harmless, waking early spins.
      auto ms =
          until <= now ? 0 : std::chrono::ceil<std::chrono::milliseconds>(until - now).count();
      timeout_ms = static_cast<int>(std::min<int64_t>(ms, 24 * 3600 * 1000));
    }
  }
  ran_since_poll_ = 0;
  detail::PollEvent events[128];
  int n = poller_.wait(events, timeout_ms);
  for (int i = 0; i < n; ++i) {
    int fd = events[i].fd;
    if (fd == wake_fd_) {
      uint64_t count;
      while (::read(wake_fd_, &count, sizeof count) > 0) {
      }
      continue;
    }
    // Skip events for a registration that is gone, even if the descriptor number came back.
    if (static_cast<size_t>(fd) >= handlers_.size() || !handlers_[fd].active ||
        handlers_[fd].registration != events[i].tag)
      continue;
    try {
      handlers_[fd].fn(static_cast<IoEvents>(events[i].events));
    } catch (...) {
      log_callback_error("an I/O handler");
    }
  }
  removed_.clear();
}

void Loop::take_threadsafe_callbacks() {
  if (!threadsafe_pending_.load(std::memory_order_acquire)) return;
  std::vector<Callback> batch;
  {
    std::lock_guard lock(threadsafe_mutex_);
    batch.swap(threadsafe_);
    threadsafe_pending_.store(false, std::memory_order_release);
  }
  for (auto& cb : batch) ready_.push(std::move(cb));
}

}  // namespace squall
