// Socket: an owned, non-blocking, close-on-exec TCP socket and the system calls made on it.
//
// This is the bottom of the net layer: calls return codes (an errno, or an IoResult), never
// throw for ordinary network conditions, and retry EINTR in one place (socket.cpp). The stream,
// server and client above turn codes into NetError with a peer and a phase. Like everything on
// a loop, a Socket belongs to one thread.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <optional>
#include <span>
#include <utility>

#include "squall/net/address.h"

namespace squall {

// The outcome of a read or write: `bytes` moved, or `error` (an errno; EAGAIN means "not now,
// wait for readiness"). A read with error 0 and bytes 0 is end of stream.
struct IoResult {
  size_t bytes = 0;
  int error = 0;

  bool would_block() const noexcept { return error == EAGAIN; }
};

class Socket {
 public:
  Socket() noexcept = default;
  // Adopts `fd` (which must be non-blocking and close-on-exec).
  explicit Socket(int fd) noexcept : fd_(fd) {}
  Socket(Socket&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() { close(); }

  // A new non-blocking, close-on-exec TCP socket of `family` (AF_INET/AF_INET6). Throws
  // SystemError if the system refuses (EMFILE, EAFNOSUPPORT...).
  static Socket tcp(int family);

  int fd() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  void close() noexcept;
  // Gives up ownership of the descriptor.
  int release() noexcept { return std::exchange(fd_, -1); }

  // Options; each returns 0 or an errno.
  int set_reuse_address(bool on) noexcept;
  int set_reuse_port(bool on) noexcept;
  int set_no_delay(bool on) noexcept;
  int set_v6_only(bool on) noexcept;

  int bind(const Address& address) noexcept;
  int listen(int backlog) noexcept;
  // Starts a connect: 0 if it completed at once, EINPROGRESS if it goes on (wait for
  // writability, then pending_error()), or the errno of an immediate failure.
  int connect(const Address& address) noexcept;
  // SO_ERROR: the outcome of a finished non-blocking connect (0 = connected).
  int pending_error() noexcept;
  // A non-blocking, close-on-exec connection; `error` EAGAIN when none is waiting.
  Socket accept(int& error, Address* peer = nullptr) noexcept;

  std::optional<Address> local_address() const noexcept;
  std::optional<Address> peer_address() const noexcept;

  IoResult read(std::span<char> into) noexcept;
  // A scattered read (readv): fills the buffers in order.
  IoResult read(std::span<const iovec> into) noexcept;
  // A gathered write (sendmsg, so a closed peer gives EPIPE, never SIGPIPE).
  IoResult write(std::span<const iovec> from) noexcept;
  int shutdown_write() noexcept;

 private:
  int fd_ = -1;
};

}  // namespace squall
