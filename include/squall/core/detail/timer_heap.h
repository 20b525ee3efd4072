// The loop's timers: a binary min-heap ordered by deadline, ties broken by insertion order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "squall/core/time.h"

namespace squall::detail {

// A timer lives wherever its owner puts it (often inside a coroutine frame); the heap only
// points at it. Each entry knows its heap slot, so removal is O(log n) with no search.
class TimerEntry {
 public:
  static constexpr size_t kInactive = static_cast<size_t>(-1);

  bool active() const noexcept { return index_ != kInactive; }
  TimePoint when() const noexcept { return when_; }

  // Called by the loop after the entry left the heap because its deadline passed.
  virtual void fire() = 0;

 protected:
  TimerEntry() = default;
  TimerEntry(const TimerEntry&) = delete;
  TimerEntry& operator=(const TimerEntry&) = delete;
  ~TimerEntry() = default;

 private:
  friend class TimerHeap;
  TimePoint when_{};
  uint64_t seq_ = 0;
  size_t index_ = kInactive;
};

class TimerHeap {
 public:
  void push(TimerEntry& entry, TimePoint when);
  // Removes an active entry; no effect on an inactive one.
  void remove(TimerEntry& entry) noexcept;
  // The earliest entry, or nullptr.
  TimerEntry* top() const noexcept { return heap_.empty() ? nullptr : heap_.front(); }
  void pop() noexcept { remove(*heap_.front()); }
  size_t size() const noexcept { return heap_.size(); }
  bool empty() const noexcept { return heap_.empty(); }

 private:
  static bool before(const TimerEntry* a, const TimerEntry* b) noexcept {
    return a->when_ < b->when_ || (a->when_ == b->when_ && a->seq_ < b->seq_);
  }
  void place(size_t i, TimerEntry* e) noexcept {
    heap_[i] = e;
    e->index_ = i;
  }
  void sift_up(size_t i) noexcept;
  void sift_down(size_t i) noexcept;

  std::vector<TimerEntry*> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace squall::detail
