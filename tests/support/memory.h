// Memory: this process' resident memory as Linux counts it, for tests that bound what a workload
// holds at its peak.
#pragma once

#include <cstddef>

namespace squall::test {

// Resets the peak (VmHWM) to the memory resident now (/proc/self/clear_refs, Linux 4.0+).
void reset_peak_rss();
// The peak resident memory since the last reset, in KiB (VmHWM).
size_t peak_rss_kib();
// The resident memory now, in KiB (VmRSS).
size_t rss_kib();

}  // namespace squall::test
