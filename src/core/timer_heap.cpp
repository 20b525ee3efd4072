// Binary heap operations for the loop's timers.
#include "squall/core/detail/timer_heap.h"

namespace squall::detail {

void TimerHeap::push(TimerEntry& entry, TimePoint when) {
  entry.when_ = when;
  entry.seq_ = next_seq_++;
  heap_.push_back(&entry);
  entry.index_ = heap_.size() - 1;
  sift_up(entry.index_);
}

void TimerHeap::remove(TimerEntry& entry) noexcept {
  if (!entry.active()) return;
  size_t i = entry.index_;
  entry.index_ = TimerEntry::kInactive;
  TimerEntry* last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;  // it was the last slot
  place(i, last);
  // The moved entry may belong above or below its new slot.
  if (i > 0 && before(last, heap_[(i - 1) / 2])) {
    sift_up(i);
  } else {
    sift_down(i);
  }
}

void TimerHeap::sift_up(size_t i) noexcept {
  TimerEntry* e = heap_[i];
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!before(e, heap_[parent])) break;
    place(i, heap_[parent]);
    i = parent;
  }
  place(i, e);
}

void TimerHeap::sift_down(size_t i) noexcept {
  TimerEntry* e = heap_[i];
  size_t n = heap_.size();
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
    if (!before(heap_[child], e)) break;
    place(i, heap_[child]);
    i = child;
  }
  place(i, e);
}

}  // namespace squall::detail
