// KnownTaskids: which taskids a project's scheduler has seen, in about 13 bytes a taskid.
//
// The scheduler drops a follow whose taskid it knows without a store read, so at 10 M tasks
// this set is the largest thing it holds. It keeps a 64-bit hash of each taskid (SeenSet's hash,
// with the same accepted chance of two taskids sharing one: n^2 / 2^65, one in 370,000 at 10 M)
// in 256 open-addressing tables picked by the hash's top byte, each at most 80% full. A single
// table half full at most would take 16 bytes a taskid and, while it doubles, 24 (256 then
// 384 MiB at 10 M); here a table grows alone, so growing costs 1/256 of the whole, and 10 M
// taskids take 128 MiB. Not thread-safe: one scheduler owns it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace squall {

class KnownTaskids {
 public:
  // Inserts `taskid`; true if it was not there yet.
  bool insert(std::string_view taskid);
  bool contains(std::string_view taskid) const noexcept;
  // The same by a taskid's SeenSet::hash. A hash of 0 (the empty slot's mark) is kept as 1: the
  // two share a slot, as any two taskids whose hashes agree do.
  bool insert_hash(uint64_t h);
  bool contains_hash(uint64_t h) const noexcept;
  // Starts loading the slot of the hash `h` into the cache, for a lookup soon after: at 10 M
  // taskids every lookup is a cache miss, which a caller with a batch to judge can overlap.
  void prefetch_hash(uint64_t h) const noexcept;
  size_t size() const noexcept { return size_; }
  // Bytes the tables hold.
  size_t memory() const noexcept;
  // Forgets every taskid and frees the tables.
  void clear() noexcept;

 private:
  struct Table {
    std::vector<uint64_t> slots;  // 0 = empty; the size is a power of two
    size_t size = 0;
  };
  static Table& table_of(std::array<Table, 256>& tables, uint64_t h) noexcept {
    return tables[h >> 56];
  }
  static bool insert_into(Table& t, uint64_t h);
  static void grow(Table& t);

  std::array<Table, 256> tables_;
  size_t size_ = 0;
};

}  // namespace squall
