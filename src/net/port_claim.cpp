// PortClaim: the startup lock named after a port, and the probe bind without SO_REUSEPORT.
#include "squall/net/port_claim.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "squall/core/error.h"
#include "squall/net/net_error.h"
#include "squall/net/socket.h"

namespace squall {

namespace {

// The lock: an abstract Unix socket (no file, gone with the process) bound under a name that
// holds the port. Returns its descriptor, -1 with errno EADDRINUSE while another process holds
// it, or -1 with another errno.
int try_lock(uint16_t port) noexcept {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  // sun_path[0] stays NUL: the abstract namespace, per network namespace like the port itself.
  int n = std::snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "squall-port-claim-%u",
                        static_cast<unsigned>(port));
  auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&sa), length) != 0) {
    int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

}  // namespace

PortClaim::PortClaim(const Address& address) {
  if (address.port() == 0) throw InvalidArgumentError("PortClaim: the address needs a port");
  auto fail = [&](int error, std::string_view why) {
    std::string detail = describe_errno(error);
    if (!why.empty()) detail.append(": ").append(why);
    return NetError(ErrorKind::System, NetPhase::Listen, address.to_string(), detail, error);
  };
  // Another process holds the lock only while its listeners bind: milliseconds.
  for (int tries = 0; (lock_fd_ = try_lock(address.port())) < 0; ++tries) {
    if (errno != EADDRINUSE) throw fail(errno, "cannot take the port's startup lock");
    if (tries == 1000) throw fail(EADDRINUSE, "another process is starting on this port");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  try {
    Socket probe = Socket::tcp(address.family());
    int error = probe.set_reuse_address(true);
    if (error == 0 && address.is_v6()) error = probe.set_v6_only(true);
    if (error == 0) error = probe.bind(address);
    if (error != 0) throw fail(error, {});
  } catch (...) {
    ::close(lock_fd_);
    throw;
  }
}

PortClaim::~PortClaim() {
  ::close(lock_fd_);
}

}  // namespace squall
