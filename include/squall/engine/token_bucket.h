// TokenBucket: a project's dispatch rate (pyspider's `rate` tasks a second, `burst` at once).
//
//   TokenBucket bucket(2, 20);         // burst defaults to rate × 10
//   if (bucket.take(now)) dispatch();  // false: wait until bucket.next_token(now)
//
// The bucket starts full, refills continuously at `rate` up to `burst`, and each dispatch takes
// one token. A rate of 0 dispatches nothing (a project that is not running); an infinite rate
// never waits. Times are seconds on any clock the caller keeps.
#pragma once

#include <algorithm>
#include <limits>

namespace squall {

class TokenBucket {
 public:
  static constexpr double kUnlimited = std::numeric_limits<double>::infinity();

  explicit TokenBucket(double rate = kUnlimited, double burst = -1) { configure(rate, burst); }

  // New limits; a negative burst means rate × 10. The tokens held are capped at the new burst.
  void configure(double rate, double burst = -1) {
    rate_ = std::max(rate, 0.0);
    burst_ = burst < 0 ? rate_ * 10 : burst;
    tokens_ = started_ ? std::min(tokens_, burst_) : burst_;
  }

  double rate() const noexcept { return rate_; }
  double burst() const noexcept { return burst_; }

  // Takes a token if one is there at `now`.
  bool take(double now) {
    if (rate_ == kUnlimited) return true;
    refill(now);
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

  // Tokens available at `now`.
  double tokens(double now) {
    if (rate_ == kUnlimited) return kUnlimited;
    refill(now);
    return tokens_;
  }

  // When the next token is there: `now` if one is, infinity at rate 0.
  double next_token(double now) {
    if (rate_ == kUnlimited) return now;
    refill(now);
    if (tokens_ >= 1) return now;
    if (rate_ <= 0 || burst_ < 1) return kUnlimited;
    return now + (1 - tokens_) / rate_;
  }

 private:
  void refill(double now) {
    if (!started_) {
      started_ = true;
      last_ = now;
    }
    if (now > last_) tokens_ = std::min(burst_, tokens_ + (now - last_) * rate_);
    last_ = std::max(last_, now);
  }

  double rate_ = kUnlimited;
  double burst_ = kUnlimited;
  double tokens_ = 0;
  double last_ = 0;
  bool started_ = false;
};

}  // namespace squall
