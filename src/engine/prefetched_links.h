// PrefetchedLinks: a page's new links held a few at a time between the prefetch of their slot in
// the crawl's SeenSet and its lookup.
//
// A large crawl's seen set outgrows the cache, and a lookup that waits on memory took 4% of the
// crawl's CPU. Each link's slot is asked for when the link is queued and looked up when it
// leaves, kDepth links later, so the wait overlaps with the parsing of the links between. Links
// leave in the order they came; the held URLs' buffers are kept from page to page.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "squall/crawl/seen.h"

namespace squall::detail {

class PrefetchedLinks {
 public:
  static constexpr size_t kDepth = 8;

  // Drops what an earlier page left held (its processing stopped with an exception).
  void clear() noexcept { first_ = held_ = 0; }

  // Queues `url` and, when the queue was full, gives its oldest URL that `seen` did not hold
  // yet to `follow` (a std::string).
  template <class Follow>
  void push(SeenSet& seen, std::string_view url, Follow&& follow) {
    uint64_t hash = SeenSet::hash(url);
    seen.prefetch(hash);
    if (held_ == kDepth) pop(seen, follow);
    Held& slot = slots_[(first_ + held_) % kDepth];
    slot.url.assign(url);
    slot.hash = hash;
    ++held_;
  }

  // Gives every URL still queued, in order, as push() does.
  template <class Follow>
  void drain(SeenSet& seen, Follow&& follow) {
    while (held_ > 0) pop(seen, follow);
  }

 private:
  struct Held {
    std::string url;
    uint64_t hash = 0;
  };

  template <class Follow>
  void pop(SeenSet& seen, Follow& follow) {
    Held& oldest = slots_[first_];
    first_ = (first_ + 1) % kDepth;
    --held_;
    if (seen.insert_hash(oldest.hash)) follow(oldest.url);
  }

  std::array<Held, kDepth> slots_;
  size_t first_ = 0;
  size_t held_ = 0;
};

}  // namespace squall::detail
