// Durations given or shown in seconds (flags, options, JSON, summaries) and squall's Duration.
#pragma once

#include <chrono>

#include "squall/core/time.h"

namespace squall {

// `s` seconds as a Duration, fractions kept to the nanosecond.
inline Duration from_seconds(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
}

// `d` in seconds.
inline double to_seconds(Duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace squall
