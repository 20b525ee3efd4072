// Socket system calls: the only place in the net layer that calls them, and the one EINTR loop.
#include "squall/net/socket.h"

#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

#include "squall/core/error.h"

namespace squall {

namespace {

// Runs `call` until it does not fail with EINTR; the one place EINTR is retried. Returns the
// call's result; errno is left as the call set it.
template <class F>
auto retry_eintr(F call) {
  decltype(call()) result;
  do result = call();
  while (result < 0 && errno == EINTR);
  return result;
}

int status(int result) noexcept {
  return result < 0 ? errno : 0;
}

int set_flag(int fd, int level, int name, bool on) noexcept {
  int value = on ? 1 : 0;
  return status(::setsockopt(fd, level, name, &value, sizeof value));
}

}  // namespace

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Socket Socket::tcp(int family) {
  int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
  if (fd < 0) throw SystemError("socket", errno);
  return Socket(fd);
}

void Socket::close() noexcept {
  // Not retried: after EINTR the descriptor is already gone on Linux.
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
}

int Socket::set_reuse_address(bool on) noexcept {
  return set_flag(fd_, SOL_SOCKET, SO_REUSEADDR, on);
}
int Socket::set_reuse_port(bool on) noexcept {
  return set_flag(fd_, SOL_SOCKET, SO_REUSEPORT, on);
}
int Socket::set_no_delay(bool on) noexcept {
  return set_flag(fd_, IPPROTO_TCP, TCP_NODELAY, on);
}
int Socket::set_v6_only(bool on) noexcept {
  return set_flag(fd_, IPPROTO_IPV6, IPV6_V6ONLY, on);
}

int Socket::bind(const Address& address) noexcept {
  return status(::bind(fd_, address.sockaddr_ptr(), address.length()));
}

int Socket::listen(int backlog) noexcept {
  return status(::listen(fd_, backlog));
}

int Socket::connect(const Address& address) noexcept {
  // An interrupted connect goes on in the background; report it as in progress.
  if (::connect(fd_, address.sockaddr_ptr(), address.length()) == 0) return 0;
  return errno == EINTR ? EINPROGRESS : errno;
}

int Socket::pending_error() noexcept {
  int error = 0;
  socklen_t length = sizeof error;
  if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length) < 0) return errno;
  return error;
}

Socket Socket::accept(int& error, Address* peer) noexcept {
  sockaddr_storage storage;
  socklen_t length = sizeof storage;
  int fd = retry_eintr([&] {
    return ::accept4(fd_, reinterpret_cast<sockaddr*>(&storage), &length,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
  });
  if (fd < 0) {
    error = errno == EWOULDBLOCK ? EAGAIN : errno;
    return Socket();
  }
  error = 0;
  if (peer) {
    if (auto a = Address::from_sockaddr(reinterpret_cast<sockaddr*>(&storage), length)) *peer = *a;
  }
  return Socket(fd);
}

std::optional<Address> Socket::local_address() const noexcept {
  sockaddr_storage storage;
  socklen_t length = sizeof storage;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&storage), &length) < 0) return std::nullopt;
  return Address::from_sockaddr(reinterpret_cast<sockaddr*>(&storage), length);
}

std::optional<Address> Socket::peer_address() const noexcept {
  sockaddr_storage storage;
  socklen_t length = sizeof storage;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&storage), &length) < 0) return std::nullopt;
  return Address::from_sockaddr(reinterpret_cast<sockaddr*>(&storage), length);
}

IoResult Socket::read(std::span<char> into) noexcept {
  // recv, not read: a socket's own call skips the file layer (position lock, fsnotify).
  ssize_t n = retry_eintr([&] { return ::recv(fd_, into.data(), into.size(), 0); });
  if (n < 0) return {0, errno == EWOULDBLOCK ? EAGAIN : errno};
  return {static_cast<size_t>(n), 0};
}

IoResult Socket::read(std::span<const iovec> into) noexcept {
  if (into.size() == 1)
    return read(std::span<char>(static_cast<char*>(into[0].iov_base), into[0].iov_len));
  msghdr message{};
  message.msg_iov = const_cast<iovec*>(into.data());
  message.msg_iovlen = into.size();
  ssize_t n = retry_eintr([&] { return ::recvmsg(fd_, &message, 0); });
  if (n < 0) return {0, errno == EWOULDBLOCK ? EAGAIN : errno};
  return {static_cast<size_t>(n), 0};
}

IoResult Socket::write(std::span<const iovec> from) noexcept {
  if (from.size() == 1) {  // send skips sendmsg's message header and vector import
    ssize_t n =
        retry_eintr([&] { return ::send(fd_, from[0].iov_base, from[0].iov_len, MSG_NOSIGNAL); });
    if (n < 0) return {0, errno == EWOULDBLOCK ? EAGAIN : errno};
    return {static_cast<size_t>(n), 0};
  }
  msghdr message{};
  message.msg_iov = const_cast<iovec*>(from.data());
  message.msg_iovlen = from.size();
  ssize_t n = retry_eintr([&] { return ::sendmsg(fd_, &message, MSG_NOSIGNAL); });
  if (n < 0) return {0, errno == EWOULDBLOCK ? EAGAIN : errno};
  return {static_cast<size_t>(n), 0};
}

int Socket::shutdown_write() noexcept {
  return status(::shutdown(fd_, SHUT_WR));
}

}  // namespace squall
