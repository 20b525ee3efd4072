// Task life cycle, kill delivery, suspension points and the resume trampoline.
#include "squall/core/detail/task_state.h"

#include <string>

#include "squall/core/error.h"
#include "squall/core/log.h"
#include "squall/core/loop.h"
#include "squall/core/task.h"

namespace squall::detail {

namespace {
thread_local std::coroutine_handle<> next_handle;
thread_local TaskState* running_task = nullptr;

bool is_cancellation(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const CancelledError&) {
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace

void resume(std::coroutine_handle<> h) {
  auto outer = std::exchange(next_handle, nullptr);
  while (h) {
    h.resume();
    h = std::exchange(next_handle, nullptr);
  }
  next_handle = outer;
}

void transfer_to(std::coroutine_handle<> h) noexcept {
  next_handle = h;
}

TaskState* current_task() noexcept {
  return running_task;
}

void throw_empty_task(const char* operation) {
  throw InvalidStateError(std::string(operation) +
                          " of an empty Task (default-constructed, moved from or already "
                          "spawned): it has no coroutine to run");
}

void throw_task_awaited_again(const char* operation) {
  throw InvalidStateError(std::string(operation) +
                          " of a Task that was already awaited: a task runs once, so keep "
                          "the result of the first co_await");
}

void PromiseBase::on_final() noexcept {
  if (continuation_) {
    transfer_to(continuation_);
  } else if (root_) {
    root_->take_result(*this);
    root_->finish(error_);  // destroys this frame: touch nothing after
  }
}

// --- Waiter -------------------------------------------------------------------------------

Waiter::~Waiter() {
  if (loop_) loop_->remove_timer(*this);
  if (task_ && task_->suspended_on_ == this) task_->suspended_on_ = nullptr;
}

bool Waiter::suspend(std::coroutine_handle<> h, TimePoint deadline) {
  task_ = current_task();
  loop_ = task_ ? &task_->loop() : &Loop::current();
  if (task_ && task_->kill_pending()) return false;
  handle_ = h;
  woken_ = timed_out_ = scheduled_ = false;
  if (deadline != TimePoint::max()) loop_->add_timer(*this, deadline);
  if (task_) task_->suspended_on_ = this;
  return true;
}

void Waiter::wake() noexcept {
  if (woken_) return;
  woken_ = true;
  loop_->remove_timer(*this);
  ListHook<Waiter>::unlink();
  if (task_ && task_->suspended_on_ == this) task_->suspended_on_ = nullptr;
  if (!scheduled_) queue_resume();
}

void Waiter::schedule() noexcept {
  if (!scheduled_) queue_resume();
}

bool Waiter::finish() {
  if (task_ && task_->suspended_on_ == this) task_->suspended_on_ = nullptr;
  if (!woken_ && task_ && task_->kill_pending()) std::rethrow_exception(task_->take_pending());
  return timed_out_;
}

void Waiter::on_timeout() noexcept {
  wake();
}

void Waiter::fire() {
  timed_out_ = true;
  on_timeout();
}

void Waiter::cancel() noexcept {
  loop_->remove_timer(*this);
  ListHook<Waiter>::unlink();
  on_cancel();
}

void Waiter::queue_resume() noexcept {
  scheduled_ = true;
  TaskState* task = task_;
  std::coroutine_handle<> h = handle_;
  if (task) {
    loop_->call_soon([task, h] { task->resume(h); });
  } else {
    loop_->call_soon([h] { detail::resume(h); });
  }
}

// --- TaskState ----------------------------------------------------------------------------

TaskState::TaskState(Loop& loop) noexcept : loop_(&loop) {}

TaskState::~TaskState() {
  while (Link* link = links_.pop_front()) link->on_dropped();
  if (exception_ && !retrieved_ && !is_cancellation(exception_)) {
    log(LogLevel::Error,
        "task failed and nobody retrieved its exception: " + exception_message(exception_));
  }
}

void TaskState::start(std::coroutine_handle<> frame, TimePoint at) {
  frame_ = frame;
  loop_->attach(*this);
  auto first_run = [self = TaskRef(this)] {
    if (self->status_ == Status::Scheduled) {
      self->status_ = Status::Running;
      self->resume(self->frame_);
    }
  };
  if (at == TimePoint::min()) {
    loop_->call_soon(std::move(first_run));
  } else {
    start_timer_ = loop_->call_at(at, std::move(first_run));
  }
}

void TaskState::resume(std::coroutine_handle<> h) {
  TaskRef keep(this);
  TaskState* outer = std::exchange(running_task, this);
  detail::resume(h);
  running_task = outer;
}

void TaskState::kill(std::exception_ptr error, const void* source) noexcept {
  if (status_ == Status::Done) return;
  // First kill wins, except that an explicit kill replaces a timeout's undelivered one.
  if (pending_ && (source || !source_)) return;
  if (status_ == Status::Scheduled) {  // never ran: it never will
    start_timer_.cancel();
    frame_.destroy();
    frame_ = {};
    complete(error);
    return;
  }
  pending_ = std::move(error);
  source_ = source;
  if (Waiter* w = std::exchange(suspended_on_, nullptr)) {
    w->cancel();
    if (!w->scheduled_) w->queue_resume();
  }
}

void TaskState::finish(std::exception_ptr error) noexcept {
  frame_.destroy();
  frame_ = {};
  complete(std::move(error));
}

void TaskState::complete(std::exception_ptr error) noexcept {
  TaskRef keep(this);
  status_ = Status::Done;
  exception_ = std::move(error);
  pending_ = nullptr;
  loop_->detach(*this);
  while (Link* link = links_.pop_front()) link->on_ready();
  unref();  // the reference the running task held on itself
}

void TaskState::abandon() noexcept {
  if (status_ == Status::Done) return;
  TaskRef keep(this);
  status_ = Status::Done;
  exception_ = std::make_exception_ptr(
      CancelledError("the task's loop was destroyed before the task finished"));
  retrieved_ = true;
  start_timer_.cancel();  // its callback holds a reference to this state
  loop_->detach(*this);
  if (auto frame = std::exchange(frame_, nullptr)) frame.destroy();
  while (Link* link = links_.pop_front()) link->on_dropped();
  unref();  // the reference the running task held on itself
}

}  // namespace squall::detail
