// Time as squall's loop sees it: a monotonic clock, durations and deadlines.
#pragma once

#include <chrono>
#include <optional>

namespace squall {

using Clock = std::chrono::steady_clock;  // monotonic: never jumps with the wall clock
using Duration = Clock::duration;         // nanoseconds
using TimePoint = Clock::time_point;

// An optional time limit: no value means "wait as long as it takes". Any std::chrono duration
// converts, so `join(50ms)` and `join()` both read naturally.
using Timeout = std::optional<Duration>;

// The deadline `timeout` from now, or TimePoint::max() for no limit.
inline TimePoint deadline_after(Timeout timeout) {
  if (!timeout) return TimePoint::max();
  TimePoint now = Clock::now();
  // Saturate instead of overflowing for limits like Duration::max().
  return *timeout >= TimePoint::max() - now ? TimePoint::max() : now + *timeout;
}

}  // namespace squall
