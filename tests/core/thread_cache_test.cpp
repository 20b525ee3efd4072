// Tests for ThreadCache: what is given back is taken again on the same thread only, at most Keep
// are kept, and everything not kept (or kept when the thread ends) is freed exactly once.
#include "squall/core/thread_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

namespace squall {
namespace {

// Counts the things freed; each test's things are ints of its own tag.
int freed[4] = {};

template <int Tag>
struct CountingFree {
  void operator()(int* thing) const noexcept {
    ++freed[Tag];
    delete thing;
  }
};

template <int Tag>
using Thing = std::unique_ptr<int, CountingFree<Tag>>;

TEST(ThreadCache, AnEmptyCacheGivesNothingAndWhatIsGivenBackIsTakenAgainNewestFirst) {
  using Cache = ThreadCache<Thing<0>, 4>;
  EXPECT_FALSE(Cache::take());
  int* first = new int(1);
  int* second = new int(2);
  Cache::give(Thing<0>(first));
  Cache::give(Thing<0>(second));
  Thing<0> a = Cache::take();
  Thing<0> b = Cache::take();
  EXPECT_EQ(a.get(), second);
  EXPECT_EQ(b.get(), first);
  EXPECT_FALSE(Cache::take());
  EXPECT_EQ(freed[0], 0);
}

TEST(ThreadCache, WhatIsGivenBeyondKeepIsFreedAtOnce) {
  using Cache = ThreadCache<Thing<1>, 2>;
  for (int i = 0; i < 5; ++i) Cache::give(Thing<1>(new int(i)));
  EXPECT_EQ(freed[1], 3);
  EXPECT_TRUE(Cache::take());  // freed at the end of the statement: the fourth
  EXPECT_TRUE(Cache::take());
  EXPECT_FALSE(Cache::take());
  EXPECT_EQ(freed[1], 5);
  Cache::give(Thing<1>());  // an empty handle is not kept
  EXPECT_FALSE(Cache::take());
}

TEST(ThreadCache, AThreadTakesOnlyWhatItGaveAndWhatItKeptIsFreedWhenItEnds) {
  using Cache = ThreadCache<Thing<2>, 4>;
  Cache::give(Thing<2>(new int(7)));
  bool other_took = true;
  std::thread other([&] {
    other_took = static_cast<bool>(Cache::take());
    Cache::give(Thing<2>(new int(8)));
    Cache::give(Thing<2>(new int(9)));
  });
  other.join();
  EXPECT_FALSE(other_took);
  EXPECT_EQ(freed[2], 2);  // the other thread's two, at its end
  Thing<2> mine = Cache::take();
  ASSERT_TRUE(mine);
  EXPECT_EQ(*mine, 7);
}

// A thread_local destroyed after the thread's cache gives its thing back: it is freed, not kept
// in a cache that is gone.
struct LateOwner {
  Thing<3> thing{new int(3)};
  ~LateOwner() { ThreadCache<Thing<3>, 4>::give(std::move(thing)); }
};

TEST(ThreadCache, AThingGivenBackAfterTheThreadsCacheIsGoneIsFreed) {
  std::thread other([] {
    // Constructed first, so destroyed after the cache the give below makes.
    thread_local LateOwner owner;
    ThreadCache<Thing<3>, 4>::give(Thing<3>(new int(4)));
  });
  other.join();
  EXPECT_EQ(freed[3], 2);
}

}  // namespace
}  // namespace squall
