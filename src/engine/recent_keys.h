// RecentKeys: the keys of a run of consecutive task rows (first_row(), first_row() + 1, ...),
// each with its project, found by key through an open-addressing index of their positions. About
// 18 to 23 bytes a row, where a node-based multimap took about 56: it is SqliteStore's recent
// level (sqlite_store.cpp), held in memory for every task stored since the last merge.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace squall::detail {

class RecentKeys {
 public:
  size_t size() const noexcept { return keys_.size(); }
  bool empty() const noexcept { return keys_.empty(); }
  int64_t first_row() const noexcept { return first_; }
  // Whether `row` continues the run (any row starts an empty one).
  bool continues(int64_t row) const noexcept {
    return keys_.empty() || row == first_ + static_cast<int64_t>(keys_.size());
  }

  // Room for `rows` without moving the run: its pages are only taken as rows fill them, where
  // doubling as it grows would leave each smaller copy behind.
  void reserve(size_t rows) {
    keys_.reserve(rows);
    projects_.reserve(rows);
  }

  // Adds `row`, which continues() the run.
  void add(int64_t row, int64_t key, int64_t project) {
    if (keys_.empty()) first_ = row;
    if ((keys_.size() + 1) * 4 > slots_.size() * 3) grow();
    keys_.push_back(key);
    projects_.push_back(static_cast<uint32_t>(project));
    place(keys_.size() - 1);
  }

  // Calls `f(row)` for each row of `project` with `key` until it returns true; whether one did.
  template <class F>
  bool find(int64_t key, int64_t project, F f) const {
    if (slots_.empty()) return false;
    for (size_t s = slot_of(key);; s = (s + 1) & (slots_.size() - 1)) {
      uint32_t at = slots_[s];
      if (at == 0) return false;
      --at;
      if (keys_[at] == key && projects_[at] == static_cast<uint32_t>(project) &&
          f(first_ + static_cast<int64_t>(at)))
        return true;
    }
  }

  // Calls `f(project, key, row)` for every row, in row order.
  template <class F>
  void each(F f) const {
    for (size_t i = 0; i < keys_.size(); ++i)
      f(static_cast<int64_t>(projects_[i]), keys_[i], first_ + static_cast<int64_t>(i));
  }

  // Empties the run; its memory is kept for the next one, which grows as large.
  void clear() noexcept {
    keys_.clear();
    projects_.clear();
    std::fill(slots_.begin(), slots_.end(), 0u);
  }

 private:
  // Fibonacci hashing of the key's bits into a slot (the keys are MD5 bits already, but a
  // taskid that is not one is hashed by SeenSet, and either way this spreads them evenly).
  size_t slot_of(int64_t key) const noexcept {
    return static_cast<size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void place(size_t position) {
    size_t s = slot_of(keys_[position]);
    while (slots_[s] != 0) s = (s + 1) & (slots_.size() - 1);
    slots_[s] = static_cast<uint32_t>(position + 1);
  }
  // Doubles the index (at least 1,024 slots), so that it stays at most three quarters full:
  // lookups are rare (the scheduler knows its taskids), and the index is most of the memory.
  void grow() {
    size_t capacity = std::max<size_t>(1024, slots_.size() * 2);
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    slots_.assign(capacity, 0u);
    for (size_t i = 0; i < keys_.size(); ++i) place(i);
  }

  std::vector<int64_t> keys_;       // keys_[i]: the key of row first_ + i
  std::vector<uint32_t> projects_;  // projects_[i]: its project id
  std::vector<uint32_t> slots_;     // a position + 1, or 0 for an empty slot
  int64_t first_ = 0;
  int shift_ = 64;
};

}  // namespace squall::detail
