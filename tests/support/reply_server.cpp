// ReplyServer: fixed answers, one per connection, from a thread of its own.
#include "support/reply_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace squall::test {

ReplyServer::ReplyServer(std::vector<std::string> replies, bool wait_for_close)
    : replies_(std::move(replies)),
      requests_(replies_.size()),
      wait_for_close_(wait_for_close),
      closed_by_client_(replies_.size(), false) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(listener_, 4) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(listener_);
    throw std::runtime_error("ReplyServer: cannot listen");
  }
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { serve(); });
}

ReplyServer::~ReplyServer() {
  stop();
  ::close(listener_);
}

const std::string& ReplyServer::request(size_t n) {
  stop();
  return requests_.at(n);
}

bool ReplyServer::closed_by_client(size_t n) {
  stop();
  return closed_by_client_.at(n);
}

void ReplyServer::stop() {
  ::shutdown(listener_, SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
}

void ReplyServer::serve() {
  for (size_t i = 0; i < replies_.size(); ++i) {
    int fd = ::accept(listener_, nullptr, nullptr);
    if (fd < 0) return;
    std::string request;
    char buf[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      request.append(buf, static_cast<size_t>(n));
    }
    if (!replies_[i].empty()) (void)!::write(fd, replies_[i].data(), replies_[i].size());
    if (wait_for_close_) {
      pollfd p{fd, POLLIN, 0};
      closed_by_client_[i] = ::poll(&p, 1, 10000) == 1 && ::read(fd, buf, sizeof buf) == 0;
    }
    ::close(fd);
    requests_[i] = std::move(request);
  }
}

}  // namespace squall::test
