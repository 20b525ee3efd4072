// Cron: the arithmetic of ticks.
#include "squall/engine/cron.h"

#include <algorithm>

namespace squall {

namespace {

// floor(a / b) for b > 0, negative a included.
int64_t floor_div(int64_t a, int64_t b) noexcept {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

}  // namespace

bool cron_due(int64_t every, int64_t last_tick, int64_t tick) noexcept {
  return every > 0 && floor_div(tick, every) > floor_div(last_tick, every);
}

int64_t next_cron_tick(int64_t every, int64_t last_tick) noexcept {
  return (floor_div(last_tick, every) + 1) * every;
}

std::optional<int64_t> next_cron_tick(const std::vector<CronJob>& jobs,
                                      int64_t last_tick) noexcept {
  std::optional<int64_t> next;
  for (const CronJob& job : jobs)
    if (job.every > 0) {
      int64_t at = next_cron_tick(job.every, last_tick);
      next = next ? std::min(*next, at) : at;
    }
  return next;
}

}  // namespace squall
