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

void TimeoutScope::fire() {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(limit_).count();
  task_->kill(std::make_exception_ptr(TimeoutError("the operation did not finish within " +
                                                   std::to_string(ms) + " ms")),
              this);
}

}  // namespace squall::detail
