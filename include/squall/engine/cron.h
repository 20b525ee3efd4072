// Cron: pyspider's @every, periodic jobs of a project driven by the engine's clock.
//
//   class Watcher : public Handler {
//    public:
//     Watcher() : Handler("watch") {
//       every(10 * 60, [this] { crawl("http://127.0.0.1:8000/news", {{"age", 600}}); });
//     }
//   };
//
// As in pyspider, ticks are whole Unix seconds, and a job of interval N runs at the ticks that
// are multiples of N (every(3600) runs on the hour). The engine sends a project the
// "_on_cronjob" task when one of its jobs is due (never stored by the embedded engine; over
// Redis, the last tick is kept in the store, cluster.h); the processor runs each job that is.
// Unlike pyspider, which counts ticks one second at a time and so, behind after a pause, sends
// every tick it missed, a tick here carries the one before it: a job runs once when any multiple of
// its interval passed since, not once for each.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace squall {

struct CronJob {
  std::string name;   // for logs and errors
  int64_t every = 0;  // seconds, > 0
  std::function<void()> run;
};

// True when a multiple of `every` lies in (last_tick, tick].
bool cron_due(int64_t every, int64_t last_tick, int64_t tick) noexcept;

// The first multiple of `every` after `last_tick`.
int64_t next_cron_tick(int64_t every, int64_t last_tick) noexcept;

// The earliest tick after `last_tick` at which one of `jobs` is due; nullopt for none.
std::optional<int64_t> next_cron_tick(const std::vector<CronJob>& jobs, int64_t last_tick) noexcept;

}  // namespace squall
