// Frontier: work handed out by host readiness, per-host limits, delays, holds and back-offs.
#include "squall/crawl/frontier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

namespace squall {
namespace {

using namespace std::chrono_literals;

// a + b by append: GCC 12 at -O3 reports a false -Wrestrict on "lit" + std::string.
std::string cat(std::string a, const std::string& b) {
  a.append(b);
  return a;
}

CrawlUrl url(const std::string& u) {
  CrawlUrl c;
  c.url = u;
  return c;
}

const TimePoint t0 = TimePoint{} + 1000s;

TEST(Frontier, HandsOutOneHostInOrderUpToItsLimit) {
  Frontier f({.per_host = 2});
  f.push("a", url("a/1"));
  f.push("a", url("a/2"));
  f.push("a", url("a/3"));
  EXPECT_EQ(f.queued(), 3u);
  auto l1 = f.take(t0);
  auto l2 = f.take(t0);
  ASSERT_TRUE(l1 && l2);
  EXPECT_EQ(l1->url.url, "a/1");
  EXPECT_EQ(l2->url.url, "a/2");
  EXPECT_FALSE(f.take(t0)) << "per_host = 2 reached";
  EXPECT_EQ(f.in_flight(), 2u);
  f.release("a", t0);
  auto l3 = f.take(t0);
  ASSERT_TRUE(l3);
  EXPECT_EQ(l3->url.url, "a/3");
  EXPECT_EQ(f.queued(), 0u);
  EXPECT_FALSE(f.take(t0));
}

TEST(Frontier, RoundRobinAcrossHosts) {
  Frontier f({.per_host = 10});
  for (int i = 0; i < 3; ++i) {
    f.push("a", url(cat("a", std::to_string(i))));
    f.push("b", url(cat("b", std::to_string(i))));
  }
  std::string order;
  while (auto l = f.take(t0)) order += l->url.url + " ";
  EXPECT_EQ(order, "a0 b0 a1 b1 a2 b2 ");
}

TEST(Frontier, ABusyOrDelayedHostNeverBlocksAReadyOne) {
  Frontier f({.per_host = 1, .delay = 2s});
  for (int i = 0; i < 100; ++i) f.push("slow", url(cat("slow", std::to_string(i))));
  f.push("fast", url("fast0"));
  auto first = f.take(t0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->url.url, "slow0");
  auto second = f.take(t0);
  ASSERT_TRUE(second) << "slow is at its limit, fast is ready";
  EXPECT_EQ(second->url.url, "fast0");
  EXPECT_FALSE(f.take(t0));
}

TEST(Frontier, DelayIsBetweenStartsOfFetchesFromOneHost) {
  Frontier f({.per_host = 4, .delay = 1s});
  f.push("a", url("a0"));
  f.push("a", url("a1"));
  ASSERT_TRUE(f.take(t0));
  EXPECT_FALSE(f.take(t0 + 999ms));
  ASSERT_TRUE(f.next_ready());
  EXPECT_EQ(*f.next_ready(), t0 + 1s);
  auto l = f.take(t0 + 1s);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->url.url, "a1");
}

TEST(Frontier, CrawlDelayFromRobotsOnlyLengthensTheDelay) {
  Frontier f({.per_host = 4, .delay = 1s});
  f.set_delay("a", 5s, t0);
  f.set_delay("b", 100ms, t0);
  for (auto h : {"a", "b"}) {
    f.push(h, url(cat(h, "0")));
    f.push(h, url(cat(h, "1")));
  }
  ASSERT_TRUE(f.take(t0));
  ASSERT_TRUE(f.take(t0));
  EXPECT_FALSE(f.take(t0 + 900ms));
  auto b1 = f.take(t0 + 1s);
  ASSERT_TRUE(b1);
  EXPECT_EQ(b1->url.url, "b1") << "b's 100 ms became the default 1 s";
  EXPECT_FALSE(f.take(t0 + 4s));
  auto a1 = f.take(t0 + 5s);
  ASSERT_TRUE(a1);
  EXPECT_EQ(a1->url.url, "a1");
}

TEST(Frontier, AHeldHostWaitsForItsRobots) {
  Frontier f;
  f.hold("a");
  f.push("a", url("a0"));
  f.push("b", url("b0"));
  auto l = f.take(t0);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->url.url, "b0");
  EXPECT_FALSE(f.take(t0));
  EXPECT_FALSE(f.ready());
  f.unhold("a", t0);
  EXPECT_TRUE(f.ready());
  l = f.take(t0);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->url.url, "a0");
}

TEST(Frontier, BackOffPausesAHost) {
  Frontier f;
  f.push("a", url("a0"));
  f.push("a", url("a1"));
  ASSERT_TRUE(f.take(t0));
  f.back_off("a", t0 + 30s);
  f.release("a", t0 + 1s);
  EXPECT_FALSE(f.take(t0 + 29s));
  EXPECT_EQ(f.next_ready(), t0 + 30s);
  EXPECT_TRUE(f.take(t0 + 30s));
}

TEST(Frontier, BackOffOfAHostInTheReadyList) {
  Frontier f;
  f.push("a", url("a0"));
  f.back_off("a", t0 + 10s);
  EXPECT_FALSE(f.take(t0));
  EXPECT_TRUE(f.take(t0 + 10s));
}

TEST(Frontier, DropRemovesAHostsQueue) {
  Frontier f;
  f.push("a", url("a0"));
  f.push("a", url("a1"));
  f.push("b", url("b0"));
  auto dropped = f.drop("a");
  EXPECT_EQ(dropped.size(), 2u);
  EXPECT_EQ(f.queued(), 1u);
  auto l = f.take(t0);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->url.url, "b0");
  EXPECT_FALSE(f.take(t0));
  EXPECT_TRUE(f.drop("nobody").empty());
}

TEST(Frontier, ManyHostsManyUrlsAllComeOutExactlyOnce) {
  Frontier f({.per_host = 2, .delay = 10ms});
  std::map<std::string, int> expected;
  for (int i = 0; i < 5000; ++i) {
    std::string host = cat("h", std::to_string(i % 37));
    std::string u = cat(cat(host, "/"), std::to_string(i));
    f.push(host, url(u));
    expected[u] = 1;
  }
  TimePoint now = t0;
  std::vector<FrontierLease> flying;
  size_t got = 0;
  while (f.queued() > 0 || !flying.empty()) {
    while (auto l = f.take(now)) {
      EXPECT_EQ(expected.erase(l->url.url), 1u) << l->url.url;
      flying.push_back(std::move(*l));
      ++got;
    }
    for (auto& l : flying) f.release(l.host, now);
    flying.clear();
    now += 5ms;
  }
  EXPECT_EQ(got, 5000u);
  EXPECT_TRUE(expected.empty());
}

TEST(Frontier, AnIdleHostIsForgottenOnlyOnceItsDelayIsOver) {
  Frontier f({.per_host = 1, .delay = 1s});
  f.push("a", url("a0"));
  EXPECT_FALSE(f.forget("a", t0)) << "a URL is queued";
  auto l = f.take(t0);
  ASSERT_TRUE(l);
  EXPECT_FALSE(f.forget("a", t0)) << "a fetch is in flight";
  f.release("a", t0 + 100ms);
  EXPECT_FALSE(f.forget("a", t0 + 999ms)) << "its delay is not over";
  EXPECT_TRUE(f.forget("a", t0 + 1s));
  EXPECT_EQ(f.hosts(), 0u);
  EXPECT_FALSE(f.host("a"));
  EXPECT_FALSE(f.forget("a", t0 + 1s));
  EXPECT_FALSE(f.forget("nobody", t0));
  // Met again, it is new: its URL goes at once.
  f.push("a", url("a1"));
  l = f.take(t0 + 1s);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->url.url, "a1");
}

TEST(Frontier, ABackedOffHostIsKeptUntilTheBackOffEnds) {
  Frontier f;
  f.push("a", url("a0"));
  auto l = f.take(t0);
  ASSERT_TRUE(l);
  f.release("a", t0);
  f.back_off("a", t0 + 30s);
  EXPECT_FALSE(f.forget("a", t0 + 29s));
  EXPECT_TRUE(f.forget("a", t0 + 30s));
}

TEST(Frontier, AForgottenHostsRowServesANewHostWithoutItsOldTimers) {
  Frontier f({.per_host = 1, .delay = 1s});
  f.push("a", url("a0"));
  ASSERT_TRUE(f.take(t0));
  f.push("a", url("a1"));  // waits in the heap for t0 + 1s
  ASSERT_EQ(f.drop("a").size(), 1u);
  f.release("a", t0);
  ASSERT_TRUE(f.forget("a", t0 + 1s));
  f.push("b", url("b0"));  // takes a's row
  f.push("b", url("b1"));
  auto l = f.take(t0 + 1s);  // a's heap entry comes due here, and is passed over
  ASSERT_TRUE(l);
  EXPECT_EQ(l->url.url, "b0");
  EXPECT_EQ(l->host, "b");
  EXPECT_FALSE(f.take(t0 + 1s)) << "b's delay holds b1";
  f.release("b", t0 + 1s);
  l = f.take(t0 + 2s);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->url.url, "b1");
  EXPECT_EQ(f.hosts(), 1u);
  EXPECT_FALSE(f.host("a"));
}

TEST(Frontier, HostsForgottenAsTheyGoIdleLoseNoUrl) {
  Frontier f({.per_host = 2, .delay = 10ms});
  std::map<std::string, int> expected;
  TimePoint now = t0;
  size_t got = 0, most_hosts = 0;
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 50; ++i) {
      std::string host = cat("h", std::to_string((round * 7 + i) % 400));
      std::string u = cat(cat(host, "/"), std::to_string(round * 50 + i));
      f.push(host, url(u));
      expected[u] = 1;
    }
    std::vector<FrontierLease> flying;
    while (auto l = f.take(now)) {
      EXPECT_EQ(expected.erase(l->url.url), 1u) << l->url.url;
      flying.push_back(std::move(*l));
      ++got;
    }
    for (auto& l : flying) f.release(l.host, now);
    now += 5ms;
    for (int i = 0; i < 400; ++i) f.forget(cat("h", std::to_string(i)), now);
    most_hosts = std::max(most_hosts, f.hosts());
  }
  while (f.queued() > 0) {
    while (auto l = f.take(now)) {
      EXPECT_EQ(expected.erase(l->url.url), 1u) << l->url.url;
      f.release(l->host, now);
      ++got;
    }
    now += 5ms;
  }
  EXPECT_EQ(got, 10000u);
  EXPECT_TRUE(expected.empty());
  EXPECT_LT(most_hosts, 400u) << "idle hosts were never forgotten";
}

}  // namespace
}  // namespace squall
