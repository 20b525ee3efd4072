// PeriodicCallback: run a function every period (Tornado's PeriodicCallback), done right for
// coroutines: an invocation still running when the next tick comes makes that tick skipped,
// never a second concurrent run (the pitfall of pyspider's fetcher). Missed ticks are skipped,
// not run in a burst. Belongs to the loop current when it was made; not copyable or movable.
#pragma once

#include <functional>
#include <optional>
#include <type_traits>

#include "squall/core/loop.h"
#include "squall/core/spawn.h"
#include "squall/core/task.h"
#include "squall/core/time.h"

namespace squall {

class PeriodicCallback {
 public:
  // `fn` is a plain function, run on the loop at every tick, or a function returning
  // Task<void>, spawned at every tick unless the previous one is still running. Exceptions
  // are logged. InvalidArgumentError if the period is not positive.
  template <class F, class = std::enable_if_t<std::is_invocable_v<F&>>>
  PeriodicCallback(F fn, Duration period) : PeriodicCallback(functions(std::move(fn)), period) {}
  // Stops; a coroutine invocation still running is left to finish.
  ~PeriodicCallback();
  PeriodicCallback(const PeriodicCallback&) = delete;
  PeriodicCallback& operator=(const PeriodicCallback&) = delete;

  // The first tick comes one period after start().
  void start();
  void stop() noexcept;
  bool is_running() const noexcept { return running_; }

  // Ticks that found the previous coroutine invocation still running.
  size_t overlaps_skipped() const noexcept { return overlaps_skipped_; }
  // Ticks that were missed because the loop was busy past them.
  size_t ticks_missed() const noexcept { return ticks_missed_; }

 private:
  struct Functions {
    std::function<void()> plain;
    std::function<Task<void>()> coroutine;
  };
  template <class F>
  static Functions functions(F fn) {
    if constexpr (std::is_same_v<std::invoke_result_t<F&>, Task<void>>) {
      return {nullptr, std::move(fn)};
    } else {
      return {std::move(fn), nullptr};
    }
  }
  PeriodicCallback(Functions fns, Duration period);
  void tick();
  void schedule_next();

  Loop& loop_;
  std::function<void()> plain_;
  std::function<Task<void>()> coroutine_;
  Duration period_;
  TimePoint next_{};
  TimerHandle timer_;
  std::optional<TaskHandle<void>> current_;
  bool running_ = false;
  size_t overlaps_skipped_ = 0;
  size_t ticks_missed_ = 0;
};

}  // namespace squall
