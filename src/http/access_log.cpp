// AccessLog: the combined and common line formats, and the writer thread behind the buffer.
#include "squall/http/access_log.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "squall/core/error.h"
#include "squall/core/log.h"
#include "squall/net/net_error.h"

namespace squall::http {

namespace {

// The client's address without its port or brackets: "127.0.0.1:5000" → "127.0.0.1",
// "[::1]:5000" → "::1".
std::string_view host_of(std::string_view peer) noexcept {
  if (!peer.empty() && peer.front() == '[') {
    size_t close = peer.find(']');
    if (close != std::string_view::npos) return peer.substr(1, close - 1);
  }
  size_t colon = peer.rfind(':');
  if (colon != std::string_view::npos && peer.find(':') == colon) return peer.substr(0, colon);
  return peer;
}

void append_escaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (char c : text) {
    auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b > 0x7e || c == '"' || c == '\\') {
      out.append("\\x");
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 15]);
    } else {
      out.push_back(c);
    }
  }
}

// A quoted field, "-" when empty, as combined writes a missing Referer.
void append_quoted(std::string& out, std::string_view text) {
  out.push_back('"');
  if (text.empty()) {
    out.push_back('-');
  } else {
    append_escaped(out, text);
  }
  out.push_back('"');
}

void append_number(std::string& out, uint64_t n) {
  char digits[24];
  int len = std::snprintf(digits, sizeof digits, "%llu", static_cast<unsigned long long>(n));
  out.append(digits, static_cast<size_t>(len));
}

// [10/Oct/2000:13:55:36 -0700], month names in English whatever the locale.
void append_time(std::string& out, std::time_t when) {
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  struct tm tm {};
  localtime_r(&when, &tm);
  long offset = tm.tm_gmtoff / 60;
  char sign = offset < 0 ? '-' : '+';
  if (offset < 0) offset = -offset;
  char buf[48];
  int n = std::snprintf(buf, sizeof buf, "[%02d/%s/%04d:%02d:%02d:%02d %c%02ld%02ld]", tm.tm_mday,
                        kMonths[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                        tm.tm_sec, sign, offset / 60, offset % 60);
  out.append(buf, static_cast<size_t>(n));
}

}  // namespace

std::optional<AccessLogFormat> parse_access_log_format(std::string_view name) noexcept {
  if (name == "combined") return AccessLogFormat::Combined;
  if (name == "common") return AccessLogFormat::Common;
  return std::nullopt;
}

void format_access_log_line(const AccessLogEntry& entry, AccessLogFormat format, std::time_t when,
                            std::string& out) {
  out.append(host_of(entry.peer)).append(" - - ");
  append_time(out, when);
  out.append(" \"");
  append_escaped(out, entry.method);
  out.push_back(' ');
  append_escaped(out, entry.target);
  out.append(" HTTP/");
  out.push_back(static_cast<char>('0' + entry.version.major));
  out.push_back('.');
  out.push_back(static_cast<char>('0' + entry.version.minor));
  out.append("\" ");
  append_number(out, static_cast<uint64_t>(entry.status));
  out.push_back(' ');
  append_number(out, entry.method == "HEAD" ? 0 : entry.bytes);
  if (format == AccessLogFormat::Combined) {
    out.push_back(' ');
    append_quoted(out, entry.referer);
    out.push_back(' ');
    append_quoted(out, entry.user_agent);
  }
  out.push_back('\n');
}

AccessLog::AccessLog(const std::string& path, AccessLogFormat format, size_t max_buffered)
    : fd_(STDOUT_FILENO), owned_(false), format_(format), max_buffered_(max_buffered) {
  if (path != "-") {
    fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw SystemError("open access log " + path, errno);
    owned_ = true;
  }
  start();
}

AccessLog::AccessLog(int fd, AccessLogFormat format, size_t max_buffered)
    : fd_(fd), owned_(false), format_(format), max_buffered_(max_buffered) {
  start();
}

void AccessLog::start() {
  try {
    writer_ = std::thread([this] { run(); });
  } catch (...) {
    if (owned_) ::close(fd_);
    throw;
  }
}

AccessLog::~AccessLog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  writer_.join();
  if (owned_) ::close(fd_);
}

void AccessLog::write(const AccessLogEntry& entry) {
  thread_local std::string line;
  line.clear();
  format_access_log_line(entry, format_, std::time(nullptr), line);
  bool was_empty;
  {
    std::lock_guard lock(mutex_);
    if (pending_.size() + line.size() > max_buffered_) {
      ++dropped_;
      ++dropped_unreported_;
      return;
    }
    was_empty = pending_.empty();
    pending_.append(line);
  }
  // The writer sleeps only when the buffer is empty, so only the first line needs to wake it.
  if (was_empty) wake_.notify_one();
}

std::function<void(const AccessLogEntry&)> AccessLog::sink() {
  return [this](const AccessLogEntry& entry) { write(entry); };
}

size_t AccessLog::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void AccessLog::run() {
  // A closed pipe on standard output must end the write with EPIPE, not the process.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  std::string batch;
  bool failing = false;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return !pending_.empty() || stopping_; });
    if (pending_.empty()) break;  // stopping, and everything written
    batch.swap(pending_);
    size_t dropped = std::exchange(dropped_unreported_, 0);
    lock.unlock();
    std::string_view rest = batch;
    int error = 0;
    while (!rest.empty()) {
      ssize_t n = ::write(fd_, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = errno;
        break;
      }
      rest.remove_prefix(static_cast<size_t>(n));
    }
    if (error != 0 && !failing) {
      log(LogLevel::Warning, "access log: write failed: " + describe_errno(error));
    }
    failing = error != 0;
    if (dropped > 0) {
      log(LogLevel::Warning, "access log: " + std::to_string(dropped) +
                                 " lines dropped: the log could not be written fast enough");
    }
    batch.clear();
    lock.lock();
  }
}

}  // namespace squall::http
