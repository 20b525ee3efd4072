// FailurePause: pyspider's pause of a project whose tasks keep failing.
//
// After 10 failed tasks in a row the project is paused for 5 minutes: nothing of it is
// dispatched (its requests are still taken in). Then it is checking: 3 tasks are let through;
// one success among them resumes the project, 3 failures pause it again. Times are seconds.
#pragma once

#include <cstddef>

namespace squall {

struct FailurePauseOptions {
  int failures = 10;      // in a row, to pause (0 never pauses)
  double pause = 5 * 60;  // seconds paused before checking
  int checks = 3;         // tasks let through while checking
};

class FailurePause {
 public:
  enum class State { Running, Paused, Checking };

  explicit FailurePause(FailurePauseOptions options = {}) : options_(options) {}

  State state(double now) {
    if (state_ == State::Paused && now >= paused_at_ + options_.pause) {
      state_ = State::Checking;
      checks_sent_ = checks_failed_ = 0;
    }
    return state_;
  }

  // How many tasks may be dispatched at `now` (SIZE_MAX when running).
  size_t allowance(double now) {
    switch (state(now)) {
      case State::Running:
        return static_cast<size_t>(-1);
      case State::Paused:
        return 0;
      case State::Checking:
        return checks_sent_ < options_.checks ? static_cast<size_t>(options_.checks - checks_sent_)
                                              : 0;
    }
    return 0;
  }

  // A task was dispatched (counts against the checking allowance).
  void dispatched(double now) {
    if (state(now) == State::Checking) ++checks_sent_;
  }

  // A task's outcome came in.
  void outcome(bool ok, double now) {
    State s = state(now);
    if (ok) {
      state_ = State::Running;
      in_a_row_ = 0;
      return;
    }
    if (s == State::Checking) {
      if (++checks_failed_ >= options_.checks) pause(now);
      return;
    }
    if (s == State::Running && options_.failures > 0 && ++in_a_row_ >= options_.failures)
      pause(now);
  }

  // When a paused project starts checking (meaningful in State::Paused).
  double resumes_at() const noexcept { return paused_at_ + options_.pause; }

 private:
  void pause(double now) {
    state_ = State::Paused;
    paused_at_ = now;
    in_a_row_ = 0;
  }

  FailurePauseOptions options_;
  State state_ = State::Running;
  int in_a_row_ = 0;
  int checks_sent_ = 0;
  int checks_failed_ = 0;
  double paused_at_ = 0;
};

}  // namespace squall
