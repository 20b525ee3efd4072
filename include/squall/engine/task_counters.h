// TaskCounters: a project's counts as pyspider's scheduler keeps them, for the last 5 minutes,
// hour and day and in all, split into pending, success, retry and failed.
//
// The windows count events (a task taken in, one done, one retried, one failed) in buckets of
// 10 s, 1 min and 10 min, as pyspider's do; "all" holds the tasks in each state now (pending =
// active, failed = failed or bad), which a recount of the task store equals. The scheduler
// updates them as it works and saves them with the task changes they describe, in the same
// transaction, so they survive a restart or a kill and never need a COUNT(*).
#pragma once

#include <array>
#include <cstdint>
#include <deque>

#include <nlohmann/json_fwd.hpp>

namespace squall {

enum class CounterKind { Pending = 0, Success = 1, Retry = 2, Failed = 3 };

using CounterValues = std::array<int64_t, 4>;  // indexed by CounterKind

// Events in a sliding window of `buckets` buckets of `width` seconds.
class WindowCounter {
 public:
  WindowCounter(double width, size_t buckets) : width_(width), buckets_(buckets) {}

  void add(CounterKind kind, int64_t delta, double now);
  // The sums over the window that ends at `now`.
  CounterValues sums(double now) const;

  nlohmann::json save() const;
  void restore(const nlohmann::json& json);

 private:
  struct Bucket {
    int64_t index = 0;  // floor(time / width)
    CounterValues values{};
  };
  double width_;
  size_t buckets_;
  std::deque<Bucket> ring_;  // oldest first, at most buckets_
};

class TaskCounters {
 public:
  TaskCounters();

  // The window events.
  void event(CounterKind kind, double now, int64_t delta = 1);
  // The state totals ("all"): a task moved between states (Pending, Success, Failed).
  void total(CounterKind kind, int64_t delta) { all_[static_cast<size_t>(kind)] += delta; }
  void set_totals(const CounterValues& all) { all_ = all; }
  const CounterValues& totals() const noexcept { return all_; }

  // {"5m": {"pending": n, "success": n, "retry": n, "failed": n}, "1h": ..., "1d": ..., "all": ...}
  nlohmann::json report(double now) const;

  // Everything, for the store; restore() takes what save() gave.
  nlohmann::json save() const;
  void restore(const nlohmann::json& json);

 private:
  WindowCounter m5_, h1_, d1_;
  CounterValues all_{};
};

}  // namespace squall
