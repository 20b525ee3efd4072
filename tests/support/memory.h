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

// Whether this build runs under AddressSanitizer, whose shadow memory and quarantine say little
// about what a workload holds, and which runs a big workload several times slower: a bound on
// resident memory is checked in the release tree.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace squall::test
