// run_sync's driving loop and task done-callbacks.
#include "squall/core/spawn.h"

#include <string>

namespace squall::detail {

namespace {
std::string format_duration(Duration d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return std::to_string(ms) + " ms";
}

// Kills the task and lets it unwind for as long as the loop can make progress. run_sync
// throws the error itself, so the task ending with it is not logged as well.
void kill_and_drain(Loop& loop, TaskState& task, const std::exception_ptr& error) {
  task.kill(error);
  while (!task.done() && loop.has_pending_work()) loop.run_once();
  if (task.ended_with(error)) task.mark_retrieved();
}

class CallbackLink final : public Link {
 public:
  CallbackLink(Loop& loop, std::function<void()> fn) : loop_(loop), fn_(std::move(fn)) {}
  void on_ready() noexcept override {
    loop_.call_soon([fn = std::move(fn_)] { fn(); });
    delete this;
  }
  void on_dropped() noexcept override { delete this; }

 private:
  Loop& loop_;
  std::function<void()> fn_;
};
}  // namespace

// Stops the loop when the task ends, so the iteration that ends it does not block in poll.
class StopOnDone final : public Link {
 public:
  StopOnDone(TaskState& task) : loop_(task.loop()) { task.link(*this); }
  ~StopOnDone() { ListHook<Link>::unlink(); }
  void on_ready() noexcept override { loop_.stop(); }

 private:
  Loop& loop_;
};

void run_until_done(Loop& loop, TaskState& task, Timeout timeout) {
  TimePoint deadline = deadline_after(timeout);
  StopOnDone stopper(task);
  loop.clear_stop();
  while (!task.done()) {
    // Without a limit, no clock read per iteration (about 1% of a busy echo loop's time).
    if (deadline != TimePoint::max() && Clock::now() >= deadline) {
      auto message = "run_sync: the task did not finish within " + format_duration(*timeout);
      kill_and_drain(loop, task, std::make_exception_ptr(TimeoutError(message)));
      throw TimeoutError(message);
    }
    if (!loop.has_pending_work()) {
      const char* message =
          "run_sync: the task is waiting, but the loop has no ready callbacks, timers, watched "
          "descriptors or other threads that could wake it: this operation would block forever";
      kill_and_drain(loop, task, std::make_exception_ptr(WouldBlockForeverError(message)));
      throw WouldBlockForeverError(message);
    }
    loop.run_once(deadline, /*block_when_idle=*/false);
  }
  loop.clear_stop();
}

void add_done_callback(TaskState& task, std::function<void()> fn) {
  if (task.done()) {
    task.loop().call_soon([fn = std::move(fn)] { fn(); });
  } else {
    task.link(*new CallbackLink(task.loop(), std::move(fn)));
  }
}

}  // namespace squall::detail

namespace squall {

void AnyTaskHandle::kill(std::exception_ptr error) const {
  if (!error) error = std::make_exception_ptr(CancelledError("the task was killed"));
  state_->kill(std::move(error));
}

}  // namespace squall
