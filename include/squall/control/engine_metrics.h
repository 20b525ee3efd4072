// EngineMetrics: what the control plane keeps of a running engine's fetches, beside the
// counters the scheduler keeps: pages by status class, bytes and latency per project, a row per
// host, the recent errors, the event loop's lag; and the engine's whole state as Prometheus text.
//
//   EngineMetrics metrics(engine);     // observes every fetch from now on
//   metrics.start();                   // the loop-lag probe
//   std::string text = metrics.prometheus();
//
// Everything here is kept as fetches happen, in memory bounded by the projects and hosts the
// engine met (at most kMaxHosts hosts, the rest counted under "other") and kRecentErrors
// errors; nothing is counted on request. The loop lag is how late a timer set every
// kLagPeriod fires. Belongs to the engine's loop; the engine must outlive it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "squall/control/prometheus.h"
#include "squall/core/loop.h"
#include "squall/core/time.h"

namespace squall {

class Engine;
struct CrawlTask;
struct FetchResult;

class EngineMetrics {
 public:
  static constexpr size_t kMaxHosts = 10'000;
  static constexpr size_t kRecentErrors = 100;
  static constexpr Duration kLagPeriod = std::chrono::milliseconds(250);

  explicit EngineMetrics(Engine& engine);
  ~EngineMetrics();
  EngineMetrics(const EngineMetrics&) = delete;
  EngineMetrics& operator=(const EngineMetrics&) = delete;

  // Starts and stops the loop-lag probe (a timer on the current loop).
  void start();
  void stop() noexcept;

  // A fetched task (what the engine's fetch observer calls).
  void fetched(const CrawlTask& task, const FetchResult& result);

  // The engine's metrics in the text exposition format.
  std::string prometheus() const;

  // Pages fetched in all, by every project (for a pages/s rate).
  uint64_t pages() const noexcept { return pages_; }
  // The per-host table, by host name: fetches, errors (no answer or an error status), mean_ms,
  // last_status and last_error as fetches ended; in_flight, queued, delay (seconds) and robots
  // (unknown, pending, known, unavailable) as the fetch stage holds the host now.
  nlohmann::json hosts() const;
  // The recent errors, newest first: time, project, taskid, url, status_code, error.
  nlohmann::json recent_errors() const;
  // The loop's lag, seconds: the last measured, and the largest since start().
  double loop_lag() const noexcept { return lag_last_; }
  double loop_lag_max() const noexcept { return lag_max_; }

 private:
  struct Project {
    std::map<std::string, uint64_t> pages;  // by status class: 2xx, 3xx, 4xx, 5xx, failed
    uint64_t bytes = 0;
    Histogram latency{Histogram::latency_bounds()};
  };
  struct Host {
    uint64_t fetches = 0, errors = 0;
    double total_ms = 0;
    int last_status = 0;
    std::string last_error;
  };
  struct ErrorEntry {
    double time;
    std::string project, taskid, url, error;
    int status;
  };
  void probe();

  Engine& engine_;
  std::map<std::string, Project> projects_;
  std::map<std::string, Host> hosts_;
  std::deque<ErrorEntry> errors_;
  uint64_t pages_ = 0;
  Histogram lag_{{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5}};
  double lag_last_ = 0, lag_max_ = 0;
  TimePoint lag_due_{};
  TimerHandle lag_timer_;
  bool running_ = false;
  // What the engine's observer reaches this through: cleared when this goes first.
  std::shared_ptr<EngineMetrics*> self_;
};

}  // namespace squall
