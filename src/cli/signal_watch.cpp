// SignalWatch: a signalfd on the loop for SIGINT and SIGTERM.
#include "squall/cli/signal_watch.h"

#include <sys/signalfd.h>
#include <unistd.h>

namespace squall::cli {

SignalWatch::SignalWatch(Loop& loop, std::function<void(int)> on_signal) : loop_(loop) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, &previous_);
  fd_ = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ >= 0)
    loop_.add_handler(fd_, IoEvents::Read, [this, on_signal](IoEvents) {
      signalfd_siginfo info;
      while (::read(fd_, &info, sizeof info) == sizeof info)
        on_signal(static_cast<int>(info.ssi_signo));
    });
}

SignalWatch::~SignalWatch() {
  if (fd_ >= 0) {
    loop_.remove_handler(fd_);
    ::close(fd_);
  }
  sigprocmask(SIG_SETMASK, &previous_, nullptr);
}

}  // namespace squall::cli
