// KnownTaskids: 256 linear-probing tables of 64-bit taskid hashes.
#include "squall/engine/known_taskids.h"

#include "squall/crawl/seen.h"

namespace squall {

namespace {

constexpr size_t kFirstSlots = 64;

// At most 4 slots in 5 used: a lookup of a taskid not in the table probes about 13 slots, two
// cache lines, where half full it would probe 2.5 slots in one.
bool too_full(size_t used, size_t slots) noexcept {
  return used * 5 > slots * 4;
}

// The slot value of a hash: 0 marks an empty slot.
uint64_t slot_of(uint64_t h) noexcept {
  return h == 0 ? 1 : h;
}

}  // namespace

bool KnownTaskids::insert(std::string_view taskid) {
  return insert_hash(SeenSet::hash(taskid));
}

bool KnownTaskids::contains(std::string_view taskid) const noexcept {
  return contains_hash(SeenSet::hash(taskid));
}

bool KnownTaskids::insert_hash(uint64_t h) {
  h = slot_of(h);
  if (!insert_into(table_of(tables_, h), h)) return false;
  ++size_;
  return true;
}

bool KnownTaskids::insert_into(Table& t, uint64_t h) {
  if (too_full(t.size + 1, t.slots.size())) grow(t);
  size_t mask = t.slots.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (t.slots[i] == h) return false;
    if (t.slots[i] == 0) {
      t.slots[i] = h;
      ++t.size;
      return true;
    }
  }
}

bool KnownTaskids::contains_hash(uint64_t h) const noexcept {
  h = slot_of(h);
  const Table& t = tables_[h >> 56];
  if (t.slots.empty()) return false;
  size_t mask = t.slots.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (t.slots[i] == h) return true;
    if (t.slots[i] == 0) return false;
  }
}

void KnownTaskids::prefetch_hash(uint64_t h) const noexcept {
  h = slot_of(h);
  const Table& t = tables_[h >> 56];
  if (!t.slots.empty()) __builtin_prefetch(&t.slots[h & (t.slots.size() - 1)]);
}

void KnownTaskids::grow(Table& t) {
  std::vector<uint64_t> old = std::move(t.slots);
  t.slots.assign(old.empty() ? kFirstSlots : old.size() * 2, 0);
  t.size = 0;
  for (uint64_t h : old)
    if (h != 0) insert_into(t, h);
}

size_t KnownTaskids::memory() const noexcept {
  size_t bytes = 0;
  for (const Table& t : tables_) bytes += t.slots.size() * sizeof(uint64_t);
  return bytes;
}

void KnownTaskids::clear() noexcept {
  for (Table& t : tables_) t = Table();
  size_ = 0;
}

}  // namespace squall
