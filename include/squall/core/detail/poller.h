// The OS readiness poller behind the loop: the only place that knows it is epoll.
#pragma once

#include <cstdint>
#include <span>

namespace squall::detail {

// Event bits as the loop uses them (see IoEvents in loop.h). `tag` is what the descriptor was
// registered with: the loop stores a registration number in it, so an event queued for a
// descriptor that was closed and registered again in the same batch can be told apart.
struct PollEvent {
  int fd;
  uint32_t events;
  uint32_t tag;
};

class Poller {
 public:
  Poller();  // throws SystemError
  ~Poller();
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  // Interest in `events` (IoEvents bits) on fd; throw SystemError on failure.
  void add(int fd, uint32_t events, uint32_t tag = 0);
  void modify(int fd, uint32_t events, uint32_t tag = 0);
  // Forgets fd; a descriptor already closed is not an error.
  void remove(int fd) noexcept;

  // Waits up to timeout_ms (-1: no limit, 0: just look) and fills `out`; returns how many.
  // EINTR returns 0 events.
  int wait(std::span<PollEvent> out, int timeout_ms);

 private:
  int fd_;
};

}  // namespace squall::detail
