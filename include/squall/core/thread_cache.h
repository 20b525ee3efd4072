// ThreadCache: a few owned things that are dear to make (read buffers, decoder contexts) kept
// per thread for the next user, instead of a round trip through the allocator each time.
//
// Bounded: at most Keep are kept; what is given beyond that is destroyed. T is an owning handle
// (std::unique_ptr with the thing's deleter), so whatever the cache does not keep, and all it
// keeps when the thread ends, is freed by T's own destructor. An owner destroyed by another
// thread_local's destructor after this thread's cache may still give its thing back: it is then
// destroyed at once (gone() is a plain flag, valid to the thread's end).
#pragma once

#include <cstddef>
#include <utility>

namespace squall {

template <typename T, size_t Keep>
class ThreadCache {
 public:
  // The thing given back last on this thread, or an empty T when none is kept.
  static T take() noexcept {
    if (gone()) return T();
    ThreadCache& cache = instance();
    return cache.count_ > 0 ? std::move(cache.kept_[--cache.count_]) : T();
  }
  // Keeps `thing` for the next take() on this thread, or destroys it when Keep are kept.
  static void give(T thing) noexcept {
    if (gone() || !thing) return;
    ThreadCache& cache = instance();
    if (cache.count_ < Keep) cache.kept_[cache.count_++] = std::move(thing);
  }

  ThreadCache(const ThreadCache&) = delete;
  ThreadCache& operator=(const ThreadCache&) = delete;

 private:
  ThreadCache() noexcept = default;
  ~ThreadCache() { gone() = true; }

  static ThreadCache& instance() noexcept {
    thread_local ThreadCache cache;
    return cache;
  }
  static bool& gone() noexcept {
    thread_local bool flag = false;
    return flag;
  }

  T kept_[Keep] = {};
  size_t count_ = 0;
};

}  // namespace squall
