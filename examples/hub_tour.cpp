// A tour of the hub: the gevent article's calls one by one, printing what happens.
//
// Run: build/release/examples/hub_tour
#include <cstdio>
#include <string>
#include <vector>

#include "squall/core.h"

using namespace squall;
using namespace std::chrono_literals;

namespace {

double ms_since(TimePoint start) {
  return std::chrono::duration<double, std::milli>(Loop::time() - start).count();
}

Task<std::string> worker(std::string name, Duration d) {
  co_await sleep(d);
  co_return name;
}

Task<void> tour() {
  TimePoint start = Loop::time();

  std::puts("1. sleep(0) yields: three tasks take turns, in FIFO order");
  std::string turns;
  auto taker = [&turns](char c) -> Task<void> {
    for (int i = 0; i < 3; ++i) {
      turns += c;
      co_await sleep(0s);
    }
  };
  auto a = spawn(taker('a')), b = spawn(taker('b')), c = spawn(taker('c'));
  co_await a.join(), co_await b.join(), co_await c.join();
  std::printf("   turns: %s\n", turns.c_str());

  std::puts("2. sleep(20ms) suspends on a timer; the loop runs others meanwhile");
  TimePoint t0 = Loop::time();
  co_await sleep(20ms);
  std::printf("   slept %.1f ms\n", ms_since(t0));

  std::puts("3. kill() throws CancelledError at the task's suspension point");
  auto victim = [](std::string* log) -> Task<void> {
    try {
      co_await sleep(10s);
    } catch (const CancelledError& e) {
      *log = e.what();
      throw;
    }
  };
  std::string caught;
  auto v = spawn(victim(&caught));
  co_await sleep(0s);
  v.kill();
  co_await v.join();
  std::printf("   the task caught \"%s\" and cleaned up; done=%d\n", caught.c_str(), v.done());

  std::puts("4. joinall waits for every task (raise_error rethrows the first failure)");
  std::vector<TaskHandle<std::string>> hs{spawn(worker("slow", 30ms)), spawn(worker("fast", 10ms)),
                                          spawn(worker("middle", 20ms))};
  co_await joinall(hs);
  std::printf("   all done: %s, %s, %s\n", hs[0].value().c_str(), hs[1].value().c_str(),
              hs[2].value().c_str());

  std::puts("5. iwait yields tasks in completion order; with count, wait stops early");
  hs = {spawn(worker("slow", 30ms)), spawn(worker("fast", 10ms)), spawn(worker("middle", 20ms))};
  {
    IWait<TaskHandle<std::string>> it(hs);
    std::printf("   order:");
    while (auto h = co_await it.next()) std::printf(" %s", h->value().c_str());
    std::printf("\n");
  }
  hs = {spawn(worker("slow", 30ms)), spawn(worker("fast", 10ms)), spawn(worker("middle", 20ms))};
  auto first_two = co_await wait(hs, {}, 2);
  std::printf("   wait(count=2): %s, %s\n", first_two[0].value().c_str(),
              first_two[1].value().c_str());
  co_await joinall(hs);

  std::puts("6. iwait with a timeout ends when the time is up");
  hs = {spawn(worker("quick", 5ms)), spawn(worker("too slow", 1s))};
  {
    IWait<TaskHandle<std::string>> it(hs, 50ms);
    while (auto h = co_await it.next())
      std::printf("   finished in time: %s\n", h->value().c_str());
  }
  std::printf("   \"%s\" still running after the timeout: done=%d; killing it\n", "too slow",
              hs[1].done());
  hs[1].kill();
  co_await hs[1].join();

  std::puts("7. wait takes any waitable: events, futures, task handles");
  Event go, stop;
  auto setter = [](Event& e) -> Task<void> {
    co_await sleep(5ms);
    e.set();
  };
  auto s = spawn(setter(stop));
  std::vector<Event*> events{&go, &stop};
  auto first = co_await wait(events, {}, 1);
  std::printf("   first set: %s\n", first.size() == 1 && first[0] == &stop ? "stop" : "?");
  co_await s;

  std::puts("8. spawn_later starts a task after a delay; killall kills many and waits");
  hs = {spawn_later(10ms, worker("delayed", 0ms)), spawn(worker("sleeper", 10s))};
  std::printf("   delayed: %s\n", (co_await hs[0]).c_str());
  co_await killall(hs);
  std::printf("   after killall, the sleeper is done=%d\n", hs[1].done());

  std::puts("9. wait_idle waits until nothing is left to run (gevent.wait() with no objects)");
  spawn(worker("background", 15ms));
  bool idle = co_await wait_idle(1s);
  std::printf("   the loop went idle: %d\n", idle);

  std::printf("tour took %.0f ms\n", ms_since(start));
}

Task<void> waits_forever() {
  Event never_set;
  co_await never_set.wait();
}

}  // namespace

int main() {
  run_sync(tour());

  std::puts("10. waiting on something nothing can ever set: gevent's LoopExit");
  try {
    run_sync(waits_forever());
  } catch (const WouldBlockForeverError& e) {
    std::printf("   %s\n", e.what());
  }
  return 0;
}
