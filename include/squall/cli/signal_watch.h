// SignalWatch: SIGINT and SIGTERM read on a loop, so a command stops between two of its steps.
//
//   SignalWatch signals(loop, [&](int sig) { engine.stop(); });
//
// While it lives, the two signals are blocked in the calling thread (and in the threads it
// starts) and read from a signalfd the loop watches: `on_signal` runs on the loop, never inside
// a signal handler. The destructor restores the thread's signal mask.
#pragma once

#include <signal.h>

#include <functional>

#include "squall/core/loop.h"

namespace squall::cli {

class SignalWatch {
 public:
  SignalWatch(Loop& loop, std::function<void(int)> on_signal);
  ~SignalWatch();
  SignalWatch(const SignalWatch&) = delete;
  SignalWatch& operator=(const SignalWatch&) = delete;

 private:
  Loop& loop_;
  int fd_ = -1;
  sigset_t previous_;
};

}  // namespace squall::cli
