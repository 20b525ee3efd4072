// Logging: one line per event on stderr, with a replaceable sink so tests can capture lines.
#pragma once

#include <functional>
#include <string_view>

namespace squall {

enum class LogLevel { Debug, Info, Warning, Error };

// Writes "squall: <level>: <message>" to the sink (stderr by default). Lines below the
// threshold (Info by default) are dropped. Not thread-safe against a concurrent set_log_sink.
void log(LogLevel level, std::string_view message);

using LogSink = std::function<void(LogLevel, std::string_view)>;

// Replaces the sink; an empty function restores stderr. Returns the previous sink.
LogSink set_log_sink(LogSink sink);
void set_log_threshold(LogLevel level);

}  // namespace squall
