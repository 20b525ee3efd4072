// The loop's FIFO of callbacks ready to run: a growable ring buffer that never shrinks.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "squall/core/callback.h"

namespace squall::detail {

class ReadyQueue {
 public:
  ReadyQueue() : slots_(std::make_unique<Callback[]>(kInitial)), mask_(kInitial - 1) {}

  bool empty() const noexcept { return head_ == tail_; }
  size_t size() const noexcept { return tail_ - head_; }

  void push(Callback cb) {
    if (size() == mask_ + 1) grow();
    slots_[tail_++ & mask_] = std::move(cb);
  }

  Callback pop() noexcept { return std::move(slots_[head_++ & mask_]); }

  void clear() noexcept {
    while (!empty()) pop();
  }

 private:
  static constexpr size_t kInitial = 1024;

  void grow() {
    size_t capacity = mask_ + 1;
    auto bigger = std::make_unique<Callback[]>(capacity * 2);
    for (size_t i = 0; i < capacity; ++i) bigger[i] = std::move(slots_[(head_ + i) & mask_]);
    slots_ = std::move(bigger);
    head_ = 0;
    tail_ = capacity;
    mask_ = capacity * 2 - 1;
  }

  std::unique_ptr<Callback[]> slots_;
  size_t mask_;
  size_t head_ = 0;  // both only ever grow; the mask maps them into slots_
  size_t tail_ = 0;
};

}  // namespace squall::detail
