// AccessLog: one line per request in the combined or Common Log Format, written off the loop.
//
//   AccessLog log("access.log");                   // "-": standard output
//   HttpServerOptions options;
//   options.access_log_sink = log.sink();          // the log outlives the servers using it
//
// The lines are what nginx's `combined` format writes (Apache's combined log, which log
// analysers such as GoAccess and AWStats read):
//   127.0.0.1 - - [01/Dec/2026:13:55:36 +0000] "GET /a.txt HTTP/1.1" 200 2 "-" "curl/7.88.1"
// or, in the Common Log Format, the same without the Referer and User-Agent fields. The time is
// local time with its offset, when the response ended; the user is always "-" (no
// authentication here); the bytes are the body bytes sent (0 for HEAD, as nginx counts). Bytes
// of the request line, Referer and User-Agent that could break a line or a field (control
// bytes, '"', '\', bytes above 0x7e) are written as \xHH, as nginx escapes them, so a client
// cannot forge a line.
//
// Writing: write() formats the line on the caller's thread and appends it to a buffer in
// memory; a thread of the log's own writes whatever the buffer holds as soon as it holds
// something, so a server's loop never waits for a disk or a slow pipe, and lines reach the file
// at once (the destructor writes what is left before it returns). The buffer is bounded
// (`max_buffered`): while it is full, lines are dropped and counted, and once writing catches up
// a warning on standard error (log(), Warning) says how many were lost. A failing write (disk
// full, a closed pipe) is reported the same way, once per run of failures.
//
// Threads: write() and the sink's function may be called from any thread (a mutex guards the
// buffer); make and destroy the log on one thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <ctime>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "squall/http/server.h"

namespace squall::http {

enum class AccessLogFormat { Common, Combined };

// "common" or "combined"; nullopt for anything else.
std::optional<AccessLogFormat> parse_access_log_format(std::string_view name) noexcept;

// Appends the line for `entry` (with its '\n') to `out`, dated `when` in local time.
void format_access_log_line(const AccessLogEntry& entry, AccessLogFormat format, std::time_t when,
                            std::string& out);

class AccessLog {
 public:
  static constexpr size_t kDefaultMaxBuffered = size_t{8} << 20;

  // Appends to the file at `path` (created with mode 0644 if missing); "-" is standard output.
  // Throws SystemError naming the path when it cannot be opened.
  explicit AccessLog(const std::string& path, AccessLogFormat format = AccessLogFormat::Combined,
                     size_t max_buffered = kDefaultMaxBuffered);
  // Writes to `fd`, which the caller keeps open for the log's life (STDERR_FILENO...).
  AccessLog(int fd, AccessLogFormat format, size_t max_buffered = kDefaultMaxBuffered);
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;
  // Writes every line still buffered, stops the writer thread, closes a file it opened.
  ~AccessLog();

  // Queues the line for `entry` (dated now). Never waits for the file.
  void write(const AccessLogEntry& entry);
  // A function that calls write(), for HttpServerOptions::access_log_sink.
  std::function<void(const AccessLogEntry&)> sink();

  // Lines dropped so far because the buffer was full.
  size_t dropped() const;

 private:
  void start();
  void run();

  int fd_;
  bool owned_;
  AccessLogFormat format_;
  size_t max_buffered_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::string pending_;  // lines not yet handed to the writer
  size_t dropped_ = 0;   // total
  size_t dropped_unreported_ = 0;
  bool stopping_ = false;
  std::thread writer_;
};

}  // namespace squall::http
