// TcpTransport's zero-copy file sending.
#include "squall/net/transport.h"

#include <sys/sendfile.h>

#include <csignal>
#include <ctime>

namespace squall {

namespace {

// sendfile(2) has no MSG_NOSIGNAL: a peer that reset would raise SIGPIPE and end the process.
// Block it on this thread for the call, and swallow the one the call raised, if any (a SIGPIPE
// already pending before the call is left for its owner).
class NoSigpipe {
 public:
  NoSigpipe() noexcept {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~NoSigpipe() {
    if (raised_ && !was_pending_) {
      timespec zero{};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  void raised() noexcept { raised_ = true; }

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
  bool raised_ = false;
};

}  // namespace

IoResult TcpTransport::send_file(int file_fd, off_t offset, size_t count) noexcept {
  NoSigpipe guard;
  for (;;) {
    ssize_t n = ::sendfile(socket_.fd(), file_fd, &offset, count);
    if (n >= 0) return {static_cast<size_t>(n), 0};
    int error = errno;
    if (error == EINTR) continue;  // sendfile is not one of Socket's calls: it retries here
    if (error == EPIPE) guard.raised();
    return {0, error == EWOULDBLOCK ? EAGAIN : error};
  }
}

}  // namespace squall
