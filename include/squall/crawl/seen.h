// SeenSet: which normalised URLs a crawl has already taken in, in 8 bytes a URL.
//
// A crawl of millions of pages cannot keep every URL string in memory; it keeps a 64-bit hash
// of each (the full strings live in the crawl's SQLite state). An open-addressing table at most
// half full: 1,000,000 URLs take 16 MiB. Two different URLs share a hash with probability
// about n^2 / 2^65 (one in 37 million for a million URLs), and the crawler would then skip
// the second one: an accepted cost, the same one wget2's and Heritrix's hash-based seen
// sets take.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace squall {

class SeenSet {
 public:
  SeenSet() = default;
  // Inserts `url`; true if it was not there yet.
  bool insert(std::string_view url);
  bool contains(std::string_view url) const noexcept;
  size_t size() const noexcept { return size_; }
  // Bytes the table holds.
  size_t memory() const noexcept { return slots_.size() * sizeof(uint64_t); }

  // The hash the set keeps for a URL (never 0, which marks an empty slot).
  static uint64_t hash(std::string_view url) noexcept;
  // Inserts a URL by its hash(); true if it was not there yet.
  bool insert_hash(uint64_t h);
  // Starts loading the slot where the URL of hash `h` would be looked for. A crawl's table
  // outgrows the cache, so each lookup waits on memory; asking early lets it wait less.
  void prefetch(uint64_t h) const noexcept {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
  }

 private:
  void grow();

  std::vector<uint64_t> slots_;  // 0 = empty; the size is a power of two
  size_t size_ = 0;
};

}  // namespace squall
