// PeriodicCallback scheduling: fixed rate, missed ticks skipped, no overlapping coroutines.
#include "squall/core/periodic.h"

#include <string>

#include "squall/core/error.h"
#include "squall/core/log.h"

namespace squall {

PeriodicCallback::PeriodicCallback(Functions fns, Duration period)
    : loop_(Loop::current()),
      plain_(std::move(fns.plain)),
      coroutine_(std::move(fns.coroutine)),
      period_(period) {
  if (period <= Duration::zero())
    throw InvalidArgumentError("PeriodicCallback: the period must be positive");
}

PeriodicCallback::~PeriodicCallback() {
  stop();
}

void PeriodicCallback::start() {
  if (running_) return;
  running_ = true;
  next_ = Loop::time();
  schedule_next();
}

void PeriodicCallback::stop() noexcept {
  running_ = false;
  timer_.cancel();
}

void PeriodicCallback::schedule_next() {
  TimePoint now = Loop::time();
  next_ += period_;
  if (next_ <= now) {
    // The loop was busy past one or more ticks: skip them and keep the original phase.
    auto missed = (now - next_) / period_ + 1;
    ticks_missed_ += static_cast<size_t>(missed);
    next_ += missed * period_;
  }
  timer_ = loop_.call_at(next_, [this] { tick(); });
}

void PeriodicCallback::tick() {
  if (!running_) return;
  if (plain_) {
    try {
      plain_();
    } catch (const std::exception& e) {
      log(LogLevel::Error, std::string("exception in a periodic callback: ") + e.what());
    }
  } else if (current_ && !current_->done()) {
    ++overlaps_skipped_;
  } else {
    if (current_ && current_->done()) {
      if (auto e = current_->exception()) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          log(LogLevel::Error, std::string("exception in a periodic coroutine: ") + ex.what());
        } catch (...) {
          log(LogLevel::Error, "unknown exception in a periodic coroutine");
        }
      }
    }
    current_ = spawn(coroutine_(), loop_);
  }
  if (running_) schedule_next();
}

}  // namespace squall
