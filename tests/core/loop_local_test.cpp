// loop_local: one object per loop, gone with the loop, after its tasks.
#include "squall/core/loop_local.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "squall/core/event.h"
#include "squall/core/loop.h"
#include "squall/core/spawn.h"

namespace squall {
namespace {

std::vector<std::string> destroyed;

struct Counter {
  int n = 0;
};

struct First {
  ~First() { destroyed.push_back("first"); }
};
struct Second {
  ~Second() { destroyed.push_back("second"); }
};

struct Recorder {
  std::string name;
  ~Recorder() { destroyed.push_back(name); }
};

TEST(LoopLocal, EachLoopHasItsOwnObjectMadeOnFirstUse) {
  Loop a;
  loop_local<Counter>(a).n = 3;
  EXPECT_EQ(loop_local<Counter>(a).n, 3);
  EXPECT_EQ(&loop_local<Counter>(a), &loop_local<Counter>(a));
  Loop b;
  EXPECT_EQ(loop_local<Counter>(b).n, 0);
  EXPECT_NE(&loop_local<Counter>(a), &loop_local<Counter>(b));
}

TEST(LoopLocal, ObjectsGoWithTheirLoopNewestFirstAndAfterItsTasksFrames) {
  destroyed.clear();
  {
    Loop loop;
    loop_local<First>(loop);
    loop_local<Second>(loop);
    Event never;
    // A task still suspended when the loop goes: its frame is destroyed before the objects, so
    // it could still use them while it unwinds.
    spawn([](Event& e) -> Task<void> {
      Recorder frame{"frame"};
      co_await e.wait();
    }(never));
    loop.run_once(Loop::time(), false);
    EXPECT_TRUE(destroyed.empty());
  }
  EXPECT_EQ(destroyed, (std::vector<std::string>{"frame", "second", "first"}));
}

TEST(LoopLocal, ALoopOfAnotherThreadHasItsOwnToo) {
  Loop here;
  loop_local<Counter>(here).n = 1;
  int there = -1;
  std::thread t([&] {
    Loop loop;
    there = loop_local<Counter>(loop).n;
  });
  t.join();
  EXPECT_EQ(there, 0);
  EXPECT_EQ(loop_local<Counter>(here).n, 1);
}

}  // namespace
}  // namespace squall
