// Logging to stderr or to a sink installed by the application or a test.
#include "squall/core/log.h"

#include <cstdio>
#include <string>

namespace squall {

namespace {
LogSink& sink() {
  static LogSink s;
  return s;
}
LogLevel threshold = LogLevel::Info;

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warning:
      return "warning";
    case LogLevel::Error:
      return "error";
  }
  return "log";
}
}  // namespace

void log(LogLevel level, std::string_view message) {
  if (level < threshold) return;
  if (sink()) {
    sink()(level, message);
    return;
  }
  std::string line = "squall: ";
  line += level_name(level);
  line += ": ";
  line += message;
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
}

LogSink set_log_sink(LogSink s) {
  LogSink previous = std::move(sink());
  sink() = std::move(s);
  return previous;
}

void set_log_threshold(LogLevel level) {
  threshold = level;
}

}  // namespace squall
