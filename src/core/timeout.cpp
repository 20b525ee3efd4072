// Timeout scopes: a timer that kills the current task with TimeoutError.
#include "squall/core/timeout.h"

#include "squall/core/error.h"

namespace squall::detail {

TimeoutScope::TimeoutScope(TimePoint deadline, Duration limit)
    : task_(current_task()), loop_(task_ ? &task_->loop() : &Loop::current()), limit_(limit) {
  if (task_) loop_->add_timer(*this, deadline);
}

TimeoutScope::~TimeoutScope() {
  loop_->remove_timer(*this);
  // Our kill may have been deferred (the wait it hit had already completed): take it back.
  if (task_ && task_->pending_source() == this) task_->take_pending();
}

namespace {

std::exception_ptr timed_out(Duration limit) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(limit).count();
  return std::make_exception_ptr(
      TimeoutError("the operation did not finish within " + std::to_string(ms) + " ms"));
}

}  // namespace

void TimeoutScope::fire() {
  task_->kill(timed_out(limit_), this);
}

RollingTimeout::~RollingTimeout() {
  if (loop_) loop_->remove_timer(*this);
  disarm();
}

void RollingTimeout::arm(TimePoint deadline, Duration limit) {
  TaskState* task = current_task();
  if (!task) throw InvalidStateError("RollingTimeout::arm outside a task");
  task_ = task;
  loop_ = &task->loop();
  deadline_ = deadline;
  limit_ = limit;
  armed_ = true;
  if (active() && when() <= deadline) return;  // it fires early and moves on
  loop_->remove_timer(*this);
  loop_->add_timer(*this, deadline);
}

void RollingTimeout::disarm() noexcept {
  armed_ = false;
  // Our kill may have been deferred (the wait it hit had already completed): take it back.
  if (task_ && task_->pending_source() == this) task_->take_pending();
  task_ = nullptr;  // the task may end before this timeout does (one kept by a pooled connection)
}

void RollingTimeout::fire() {
  if (!armed_) return;
  if (Loop::time() < deadline_) {
    loop_->add_timer(*this, deadline_);
    return;
  }
  armed_ = false;
  task_->kill(timed_out(limit_), this);
}

}  // namespace squall::detail
