// SeenSet: linear probing over 64-bit URL hashes.
#include "squall/crawl/seen.h"

#include <cstring>

namespace squall {

namespace {

inline uint64_t read64(const char* p) noexcept {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint64_t mix(uint64_t a, uint64_t b) noexcept {
  __uint128_t r = static_cast<__uint128_t>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

}  // namespace

// A multiply-mix hash in the style of wyhash: 8 bytes a step, good avalanche, no allocation.
uint64_t SeenSet::hash(std::string_view url) noexcept {
  constexpr uint64_t k0 = 0xa0761d6478bd642fULL, k1 = 0xe7037ed1a0b428dbULL,
                     k2 = 0x8ebc6af09c88c6e3ULL;
  const char* p = url.data();
  size_t n = url.size();
  uint64_t h = k0 ^ mix(n ^ k1, k2);
  while (n >= 16) {
    h = mix(read64(p) ^ k1 ^ h, read64(p + 8) ^ k2);
    p += 16;
    n -= 16;
  }
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    a = read64(p);
    b = read64(p + n - 8);
  } else if (n > 0) {
    for (size_t i = 0; i < n; ++i) a = (a << 8) | static_cast<unsigned char>(p[i]);
    b = n;
  }
  h = mix(a ^ k1 ^ h, b ^ k2 ^ url.size());
  h = mix(h ^ k0, k1);
  return h == 0 ? 1 : h;
}

bool SeenSet::insert(std::string_view url) {
  return insert_hash(hash(url));
}

bool SeenSet::insert_hash(uint64_t h) {
  if ((size_ + 1) * 2 > slots_.size()) grow();
  size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (slots_[i] == h) return false;
    if (slots_[i] == 0) {
      slots_[i] = h;
      ++size_;
      return true;
    }
  }
}

bool SeenSet::contains(std::string_view url) const noexcept {
  if (slots_.empty()) return false;
  uint64_t h = hash(url);
  size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (slots_[i] == h) return true;
    if (slots_[i] == 0) return false;
  }
}

void SeenSet::grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, 0);
  size_ = 0;
  for (uint64_t h : old)
    if (h != 0) insert_hash(h);
}

}  // namespace squall
