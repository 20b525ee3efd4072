// Memory: VmHWM and VmRSS read from /proc/self/status.
#include "support/memory.h"

#include <fstream>
#include <string>
#include <string_view>

namespace squall::test {

namespace {

size_t status_kib(std::string_view field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with(field)) return std::stoul(line.substr(field.size()));
  return 0;
}

}  // namespace

void reset_peak_rss() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

size_t peak_rss_kib() {
  return status_kib("VmHWM:");
}

size_t rss_kib() {
  return status_kib("VmRSS:");
}

}  // namespace squall::test
