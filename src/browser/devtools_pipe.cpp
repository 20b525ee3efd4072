// DevToolsPipe: NUL-framed CDP messages over two non-blocking pipes, watched by the loop.
#include "squall/browser/devtools_pipe.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "squall/core/error.h"
#include "squall/core/timeout.h"

namespace squall::browser {

using nlohmann::json;

namespace {

void make_nonblocking(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

Task<json> wait_for(Future<json> reply) {
  co_return co_await reply;
}

}  // namespace

DevToolsPipe::DevToolsPipe(int write_fd, int read_fd, size_t max_message_size)
    : loop_(Loop::current()),
      write_fd_(write_fd),
      read_fd_(read_fd),
      max_message_size_(max_message_size) {
  make_nonblocking(write_fd_);
  make_nonblocking(read_fd_);
  loop_.add_handler(read_fd_, IoEvents::Read, [this](IoEvents) { on_readable(); });
}

DevToolsPipe::~DevToolsPipe() {
  close();
}

void DevToolsPipe::close(std::string_view why) {
  if (closed()) return;
  close_reason_ = why;
  loop_.remove_handler(read_fd_);
  if (watching_write_) loop_.remove_handler(write_fd_);
  ::close(read_fd_);
  ::close(write_fd_);
  read_fd_ = write_fd_ = -1;
  out_.clear();
  in_.clear();
  // Failing a promise only schedules its waiters, so the map may be emptied first.
  auto pending = std::move(pending_);
  pending_.clear();
  handlers_.clear();
  for (auto& [id, promise] : pending)
    promise.set_exception(std::make_exception_ptr(Error(ErrorKind::Closed, close_reason_)));
}

void DevToolsPipe::on_event(const std::string& session_id, EventHandler handler) {
  handlers_[session_id] = std::move(handler);
}

void DevToolsPipe::remove_events(const std::string& session_id) {
  handlers_.erase(session_id);
}

void DevToolsPipe::send(std::string_view method, const json& params, std::string_view session_id,
                        int id) {
  json message = {{"id", id}, {"method", method}, {"params", params}};
  if (!session_id.empty()) message["sessionId"] = session_id;
  out_ += message.dump(-1, ' ', false, json::error_handler_t::replace);
  out_.push_back('\0');
  flush();
}

void DevToolsPipe::post(std::string_view method, json params, std::string_view session_id) {
  if (closed()) return;
  send(method, params, session_id, ++next_id_);
}

Task<json> DevToolsPipe::call(std::string method, json params, std::string session_id,
                              Duration limit) {
  if (closed()) throw Error(ErrorKind::Closed, close_reason_ + " (calling " + method + ")");
  int id = ++next_id_;
  Future<json> reply = pending_[id].future();
  send(method, params, session_id, id);
  try {
    co_return co_await with_timeout(limit, wait_for(reply));
  } catch (const TimeoutError&) {
    pending_.erase(id);
    throw TimeoutError(
        "the browser did not answer " + method + " within " +
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(limit).count()) +
        " ms");
  } catch (...) {
    pending_.erase(id);
    throw;
  }
}

void DevToolsPipe::flush() {
  while (!out_.empty()) {
    ssize_t n = ::write(write_fd_, out_.data(), out_.size());
    if (n > 0) {
      out_.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      if (!watching_write_) {
        watching_write_ = true;
        loop_.add_handler(write_fd_, IoEvents::Write, [this](IoEvents) { flush(); });
      }
      return;
    }
    close("the browser closed its end of the DevTools pipe (it exited or crashed)");
    return;
  }
  if (watching_write_) {
    watching_write_ = false;
    loop_.remove_handler(write_fd_);
  }
}

void DevToolsPipe::on_readable() {
  char buffer[64 * 1024];
  for (;;) {
    ssize_t n = ::read(read_fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      close("the browser closed its end of the DevTools pipe (it exited or crashed)");
      return;
    }
    size_t scanned = in_.size();
    in_.append(buffer, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nul = in_.find('\0', scanned); nul != std::string::npos;
         nul = in_.find('\0', start)) {
      std::string message = in_.substr(start, nul - start);
      start = nul + 1;
      dispatch(message);
      if (closed()) return;
    }
    in_.erase(0, start);
    if (in_.size() > max_message_size_) {
      close("the browser sent a DevTools message larger than " +
            std::to_string(max_message_size_ >> 20) + " MiB");
      return;
    }
  }
}

void DevToolsPipe::dispatch(std::string_view message) {
  json m = json::parse(message, nullptr, false);
  if (m.is_discarded() || !m.is_object()) return;
  if (auto id = m.find("id"); id != m.end() && id->is_number_integer()) {
    auto it = pending_.find(id->get<int>());
    if (it == pending_.end()) return;
    Promise<json> promise = it->second;
    pending_.erase(it);
    if (auto error = m.find("error"); error != m.end())
      promise.set_exception(std::make_exception_ptr(
          Error(ErrorKind::Protocol, error->value("message", std::string("error")))));
    else
      promise.set_value(m.value("result", json::object()));
    return;
  }
  std::string session = m.value("sessionId", std::string());
  auto handler = handlers_.find(session);
  if (handler == handlers_.end()) return;
  // A copy: the handler may remove itself.
  EventHandler run = handler->second;
  run(m);
}

}  // namespace squall::browser
