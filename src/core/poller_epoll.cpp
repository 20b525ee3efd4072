// The poller on Linux epoll. Edge- or level-triggered per descriptor, as the caller asks.
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "squall/core/detail/poller.h"
#include "squall/core/error.h"
#include "squall/core/loop.h"

namespace squall::detail {

namespace {
uint32_t to_epoll(uint32_t events) {
  uint32_t e = 0;
  if (events & static_cast<uint32_t>(IoEvents::Read)) e |= EPOLLIN | EPOLLRDHUP;
  if (events & static_cast<uint32_t>(IoEvents::Write)) e |= EPOLLOUT;
  if (events & static_cast<uint32_t>(IoEvents::Edge)) e |= EPOLLET;
  return e;
}

uint32_t from_epoll(uint32_t e) {
  uint32_t events = 0;
  if (e & EPOLLIN) events |= static_cast<uint32_t>(IoEvents::Read);
  if (e & EPOLLOUT) events |= static_cast<uint32_t>(IoEvents::Write);
  if (e & EPOLLERR) events |= static_cast<uint32_t>(IoEvents::Error);
  if (e & (EPOLLHUP | EPOLLRDHUP)) events |= static_cast<uint32_t>(IoEvents::Hangup);
  return events;
}
}  // namespace

Poller::Poller() : fd_(epoll_create1(EPOLL_CLOEXEC)) {
  if (fd_ < 0) throw SystemError("epoll_create1", errno);
}

Poller::~Poller() {
  ::close(fd_);
}

namespace {
uint64_t pack(int fd, uint32_t tag) {
  return (static_cast<uint64_t>(tag) << 32) | static_cast<uint32_t>(fd);
}
}  // namespace

void Poller::add(int fd, uint32_t events, uint32_t tag) {
  epoll_event ev{};
  ev.events = to_epoll(events);
  ev.data.u64 = pack(fd, tag);
  if (epoll_ctl(fd_, EPOLL_CTL_ADD, fd, &ev) < 0) throw SystemError("epoll_ctl(ADD)", errno);
}

void Poller::modify(int fd, uint32_t events, uint32_t tag) {
  epoll_event ev{};
  ev.events = to_epoll(events);
  ev.data.u64 = pack(fd, tag);
  if (epoll_ctl(fd_, EPOLL_CTL_MOD, fd, &ev) < 0) throw SystemError("epoll_ctl(MOD)", errno);
}

void Poller::remove(int fd) noexcept {
  epoll_ctl(fd_, EPOLL_CTL_DEL, fd, nullptr);
}

int Poller::wait(std::span<PollEvent> out, int timeout_ms) {
  epoll_event events[128];
  int max = static_cast<int>(std::min<size_t>(out.size(), 128));
  int n = epoll_wait(fd_, events, max, timeout_ms);
  if (n < 0) {
    if (errno == EINTR) return 0;
    throw SystemError("epoll_wait", errno);
  }
  for (int i = 0; i < n; ++i) {
    uint64_t data = events[i].data.u64;
    out[i] = {static_cast<int>(static_cast<uint32_t>(data)), from_epoll(events[i].events),
              static_cast<uint32_t>(data >> 32)};
  }
  return n;
}

}  // namespace squall::detail
