// Politeness: robots.txt per host, its Crawl-delay and expiry, failing hosts backed off, all
// carried out by the frontier.
#include "squall/crawl/politeness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/parsed_url.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

const TimePoint t0 = TimePoint{} + 1000s;

using test::url;

CrawlUrl crawl_url(std::string_view text) {
  CrawlUrl c;
  c.url = std::string(text);
  return c;
}

// The URLs the frontier hands out at `now`, in order, until it has none ready.
std::vector<std::string> take_all(Frontier& f, TimePoint now) {
  std::vector<std::string> out;
  while (auto lease = f.take(now)) out.push_back(lease->url.url);
  return out;
}

// Queues `text` as the crawler does: the host is met, then the URL pushed.
void queue(Politeness& p, Frontier& f, std::string_view text) {
  Url u = url(text);
  std::string host = u.host_port();
  p.meet(host, u);
  f.push(host, crawl_url(text));
}

TEST(Politeness, AHostWaitsForItsRobotsTxtWhichIsAskedForOnce) {
  Frontier f({.per_host = 4});
  Politeness p(f, {});
  queue(p, f, "http://user:secret@a.test:8080/x/1?q");
  queue(p, f, "http://a.test:8080/x/2");
  EXPECT_FALSE(f.take(t0)) << "held until its robots.txt comes";
  EXPECT_TRUE(p.robots_pending());

  auto due = p.next_robots(t0);
  ASSERT_TRUE(due);
  EXPECT_EQ(*due, "a.test:8080");
  EXPECT_FALSE(p.next_robots(t0)) << "one robots.txt per host";
  const Url* robots = p.robots_fetch_started(*due);
  ASSERT_TRUE(robots);
  EXPECT_EQ(robots->href(), "http://a.test:8080/robots.txt") << "the origin: no userinfo";
  EXPECT_TRUE(p.robots_pending()) << "while it is fetched";

  p.robots_fetched(*due, RobotsPolicy::from_response(404, ""), t0);
  EXPECT_FALSE(p.robots_pending());
  EXPECT_TRUE(f.take(t0));
  EXPECT_TRUE(f.take(t0));
}

TEST(Politeness, TheRulesForTheUserAgentDecideAndNameTheRule) {
  Frontier f;
  Politeness p(f, {.user_agent = "squall-crawler/1.0"});
  queue(p, f, "http://a.test/");
  std::string host = *p.next_robots(t0);
  p.robots_fetch_started(host);
  p.robots_fetched(host,
                   RobotsPolicy::from_response(200,
                                               "User-agent: *\nDisallow: /\n\n"
                                               "User-agent: squall-crawler\nDisallow: /private/\n"),
                   t0);
  EXPECT_TRUE(p.allows(host, url("http://a.test/public")).allowed);
  RobotsMatch m = p.allows(host, url("http://a.test/private/1?q"));
  EXPECT_FALSE(m.allowed);
  ASSERT_TRUE(m.rule);
  EXPECT_EQ(m.rule->text, "Disallow: /private/");
}

TEST(Politeness, AnUnreachableRobotsTxtDisallowsTheHost) {
  Frontier f;
  Politeness p(f, {});
  queue(p, f, "http://a.test/page");
  std::string host = *p.next_robots(t0);
  p.robots_fetch_started(host);
  p.robots_fetched(host, RobotsPolicy::unreachable(), t0);
  EXPECT_FALSE(p.allows(host, url("http://a.test/page")).allowed);
  EXPECT_FALSE(p.robots_expired(host, t0 + RobotsPolicy::kUnreachableRetry - 1s));
  EXPECT_TRUE(p.robots_expired(host, t0 + RobotsPolicy::kUnreachableRetry));
}

TEST(Politeness, CrawlDelayBecomesTheHostsDelayWhenLonger) {
  Frontier f({.per_host = 4, .delay = 100ms});
  Politeness p(f, {});
  for (std::string_view u :
       {"http://slow.test/1", "http://slow.test/2", "http://fast.test/1", "http://fast.test/2"})
    queue(p, f, u);
  for (auto [host, robots] : {std::pair{"slow.test:80", "User-agent: *\nCrawl-delay: 2\n"},
                              std::pair{"fast.test:80", "User-agent: *\nCrawl-delay: 0.01\n"}}) {
    EXPECT_EQ(*p.next_robots(t0), host);
    p.robots_fetch_started(host);
    p.robots_fetched(host, RobotsPolicy::from_response(200, robots), t0);
  }
  using Urls = std::vector<std::string>;
  EXPECT_EQ(take_all(f, t0), (Urls{"http://slow.test/1", "http://fast.test/1"}));
  EXPECT_EQ(take_all(f, t0 + 99ms), Urls{});
  EXPECT_EQ(take_all(f, t0 + 100ms), Urls{"http://fast.test/2"})
      << "fast.test's 10 ms is below the default: 100 ms it is";
  EXPECT_EQ(take_all(f, t0 + 1999ms), Urls{});
  EXPECT_EQ(take_all(f, t0 + 2s), Urls{"http://slow.test/2"});
}

TEST(Politeness, RobotsTxtIsFetchedAgainWhenItsPolicyExpires) {
  Frontier f;
  Politeness p(f, {});
  queue(p, f, "http://a.test/");
  std::string host = *p.next_robots(t0);
  EXPECT_FALSE(p.robots_expired(host, t0 + 48h)) << "not known yet: it is on its way";
  p.robots_fetch_started(host);
  p.robots_fetched(host, RobotsPolicy::from_response(200, "User-agent: *\nAllow: /\n"), t0);
  EXPECT_FALSE(p.robots_expired(host, t0 + RobotsPolicy::kMaxAge - 1s));
  EXPECT_TRUE(p.robots_expired(host, t0 + RobotsPolicy::kMaxAge));
  EXPECT_FALSE(p.robots_expired("b.test:80", t0 + 48h)) << "a host never met";
}

TEST(Politeness, IgnoringRobotsTxtHoldsNothingAndAllowsEverything) {
  Frontier f;
  Politeness p(f, {.obey_robots = false});
  queue(p, f, "http://a.test/private/");
  EXPECT_FALSE(p.next_robots(t0));
  EXPECT_FALSE(p.robots_pending());
  EXPECT_TRUE(p.allows("a.test:80", url("http://a.test/private/")).allowed);
  EXPECT_FALSE(p.robots_expired("a.test:80", t0 + 48h));
  EXPECT_TRUE(f.take(t0));
}

TEST(Politeness, AHostFailingFiveTimesInARowIsBackedOffLongerEachTime) {
  Frontier f({.per_host = 1});
  Politeness p(f, {.obey_robots = false});
  const std::string host = "a.test:80";
  for (int i = 0; i < 20; ++i) queue(p, f, "http://a.test/" + std::to_string(i));
  auto fail_one = [&](TimePoint now) {
    auto lease = f.take(now);
    ASSERT_TRUE(lease) << "at +" << std::chrono::duration_cast<std::chrono::seconds>(now - t0);
    p.fetched(host, true, 10, now);
    f.release(host, now);
  };
  for (int i = 0; i < 4; ++i) fail_one(t0);
  EXPECT_FALSE(f.next_ready()) << "four failures: not yet";
  fail_one(t0);
  EXPECT_FALSE(f.take(t0 + 999ms));
  EXPECT_EQ(f.next_ready(), t0 + 1s);
  fail_one(t0 + 1s);
  EXPECT_EQ(f.next_ready(), t0 + 3s) << "the sixth: two seconds";

  // One that does not fail ends the streak: the next failures start from none again.
  ASSERT_TRUE(f.take(t0 + 3s));
  p.fetched(host, false, 10, t0 + 3s);
  f.release(host, t0 + 3s);
  for (int i = 0; i < 4; ++i) fail_one(t0 + 3s);
  EXPECT_TRUE(f.take(t0 + 3s));
}

TEST(Politeness, TheBackOffDoublesUpToAMinute) {
  Frontier f({.per_host = 1});
  Politeness p(f, {.obey_robots = false});
  const std::string host = "a.test:80";
  for (int i = 0; i < 20; ++i) queue(p, f, "http://a.test/" + std::to_string(i));
  std::vector<Duration> pauses;
  TimePoint now = t0;
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(f.take(now)) << i;
    p.fetched(host, true, 10, now);
    f.release(host, now);
    if (auto next = f.next_ready()) {
      pauses.push_back(*next - now);
      now = *next;
    }
  }
  EXPECT_EQ(pauses, (std::vector<Duration>{1s, 2s, 4s, 8s, 16s, 32s, 60s, 60s}));
}

TEST(Politeness, AnUnreachableRobotsTxtIsRetriedThenTheHostIsUnavailableNotDisallowed) {
  Frontier f;
  Politeness p(f, {});
  queue(p, f, "http://a.test/x");
  std::string host = *p.next_robots(t0);
  p.robots_fetch_started(host);
  p.robots_unreachable(host, t0 + 2s, t0);
  EXPECT_TRUE(p.robots_pending()) << "a retry waits";
  EXPECT_EQ(p.next_robots_retry(), t0 + 2s);
  EXPECT_FALSE(p.next_robots(t0 + 1s)) << "not before it is due";
  EXPECT_FALSE(f.take(t0 + 1s)) << "held while robots.txt is unknown";
  ASSERT_EQ(p.next_robots(t0 + 2s), host);
  EXPECT_FALSE(p.next_robots_retry());
  p.robots_fetch_started(host);
  p.robots_unreachable(host, std::nullopt, t0 + 2s);
  EXPECT_FALSE(p.robots_pending());
  EXPECT_TRUE(p.unavailable(host));
  EXPECT_FALSE(f.take(t0 + 3s)) << "nothing of an unavailable host is fetched";
  EXPECT_EQ(f.drop(host).size(), 1u);
}

TEST(Politeness, AHostWithRulesKeepsThemWhenItsRobotsTxtBecomesUnreachable) {
  Frontier f;
  Politeness p(f, {});
  queue(p, f, "http://a.test/x");
  std::string host = *p.next_robots(t0);
  p.robots_fetch_started(host);
  p.robots_fetched(host, RobotsPolicy::from_response(200, "User-agent: *\nDisallow: /p\n"), t0);
  TimePoint later = t0 + RobotsPolicy::kMaxAge;
  ASSERT_TRUE(p.robots_expired(host, later));
  p.robots_fetch_started(host);
  p.robots_unreachable(host, later + 1s, later);
  EXPECT_FALSE(p.unavailable(host));
  EXPECT_FALSE(p.robots_expired(host, later)) << "kept for RobotsPolicy::kUnreachableRetry";
  EXPECT_TRUE(p.robots_expired(host, later + RobotsPolicy::kUnreachableRetry));
  EXPECT_FALSE(p.allows(host, url("http://a.test/p")).allowed);
}

TEST(Politeness, TheSlowestHostsComeFirstByMeanFetchTime) {
  Frontier f;
  Politeness p(f, {.obey_robots = false});
  p.fetched("a:80", false, 10, t0);
  p.fetched("a:80", false, 30, t0);
  p.fetched("b:80", true, 50, t0);
  p.fetched("c:80", false, 5, t0);
  using Slow = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(p.slowest_hosts(5), (Slow{{"b:80", 50}, {"a:80", 20}, {"c:80", 5}}));
  EXPECT_EQ(p.slowest_hosts(1), (Slow{{"b:80", 50}}));
}

// Fetches the robots.txt of every host waiting for one at `now`, allowing everything.
void robots_all_allowed(Politeness& p, TimePoint now) {
  while (auto host = p.next_robots(now)) {
    p.robots_fetch_started(*host);
    p.robots_fetched(*host, RobotsPolicy::from_response(200, "User-agent: *\nAllow: /\n"), now);
  }
}

TEST(Politeness, IdleHostsAreForgottenOnceMoreThanMaxHostsAreRemembered) {
  Frontier f({.per_host = 1, .delay = 1s});
  Politeness p(f, {.max_hosts = 3});
  for (const char* u : {"http://a.test/", "http://b.test/", "http://c.test/"}) queue(p, f, u);
  robots_all_allowed(p, t0);
  for (const auto& lease : std::vector<FrontierLease>{*f.take(t0), *f.take(t0), *f.take(t0)}) {
    p.fetched(lease.host, false, 10, t0);
    f.release(lease.host, t0);
  }
  EXPECT_TRUE(p.forget_idle(t0 + 1s).empty()) << "three hosts: not over the bound";
  queue(p, f, "http://d.test/");       // its robots.txt is waited for
  queue(p, f, "http://a.test/again");  // a has a URL queued
  queue(p, f, "http://e.test/");       // e: given up on
  std::string e = url("http://e.test/").host_port();
  ASSERT_EQ(p.next_robots(t0), url("http://d.test/").host_port());
  ASSERT_EQ(p.next_robots(t0), e);
  p.robots_fetch_started(e);
  p.robots_unreachable(e, std::nullopt, t0);
  ASSERT_TRUE(p.unavailable(e));
  EXPECT_TRUE(p.forget_idle(t0 + 500ms).empty()) << "b and c are inside their delay";
  EXPECT_TRUE(p.forget_idle(t0 + 1s).empty()) << "a sweep a second at most, with no new host";
  std::vector<std::string> gone = p.forget_idle(t0 + 1500ms);
  std::sort(gone.begin(), gone.end());
  EXPECT_EQ(gone, (std::vector<std::string>{"b.test:80", "c.test:80"}));
  EXPECT_EQ(p.hosts(), 3u);
  EXPECT_EQ(f.hosts(), 3u);
  EXPECT_EQ(p.robots_state("b.test:80"), "unknown");
  EXPECT_EQ(p.robots_state("a.test:80"), "known");
  EXPECT_EQ(p.robots_state("d.test:80"), "pending");
  EXPECT_TRUE(p.unavailable(e));
  // Met again, b is new: held until its robots.txt is fetched again.
  queue(p, f, "http://b.test/back");
  EXPECT_EQ(p.robots_state("b.test:80"), "pending");
  EXPECT_EQ(take_all(f, t0 + 2s), (std::vector<std::string>{"http://a.test/again"}));
  ASSERT_EQ(p.next_robots(t0 + 2s), "b.test:80");
}

TEST(Politeness, TheSlowestHostsIncludeTheForgottenOnes) {
  Frontier f;
  Politeness p(f, {.obey_robots = false, .max_hosts = 1});
  p.fetched("a:80", false, 10, t0);
  p.fetched("b:80", false, 50, t0);
  p.fetched("c:80", false, 5, t0);
  EXPECT_EQ(p.forget_idle(t0).size(), 3u) << "the frontier holds nothing of them";
  EXPECT_EQ(p.hosts(), 0u);
  p.fetched("d:80", false, 20, t0);
  using Slow = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(p.slowest_hosts(3), (Slow{{"b:80", 50}, {"d:80", 20}, {"a:80", 10}}));
}

// Gives up on the robots.txt of every host waiting for one at `now`.
void robots_all_unreachable(Politeness& p, TimePoint now) {
  while (auto host = p.next_robots(now)) {
    p.robots_fetch_started(*host);
    p.robots_unreachable(*host, std::nullopt, now);
  }
}

TEST(Politeness, TheHostsGivenUpOnAreBoundedTheLongestGivenUpForgottenFirst) {
  Frontier f;
  Politeness p(f, {.max_hosts = 100, .max_unavailable = 2});
  for (const char* u : {"http://a.test/", "http://b.test/", "http://c.test/"}) {
    queue(p, f, u);
    robots_all_unreachable(p, t0);
  }
  EXPECT_EQ(p.unavailable_count(), 3u);
  EXPECT_TRUE(p.unavailable("a.test:80")) << "remembered until forget_idle() trims";
  // The fetch stage parks the URLs of a host given up on: the frontier holds none of them.
  for (const char* host : {"a.test:80", "b.test:80", "c.test:80"}) f.drop(host);
  EXPECT_EQ(p.forget_idle(t0), (std::vector<std::string>{"a.test:80"}));
  EXPECT_EQ(p.hosts(), 2u);
  EXPECT_EQ(f.hosts(), 2u) << "the frontier forgets it too";
  EXPECT_FALSE(p.unavailable("a.test:80"));
  EXPECT_EQ(p.robots_state("a.test:80"), "unknown");
  EXPECT_TRUE(p.unavailable("b.test:80"));
  EXPECT_TRUE(p.unavailable("c.test:80"));
  EXPECT_TRUE(p.forget_idle(t0).empty()) << "at the bound";
  // Met again, a is new: its robots.txt is asked for once more.
  queue(p, f, "http://a.test/back");
  EXPECT_EQ(p.robots_state("a.test:80"), "pending");
  ASSERT_EQ(p.next_robots(t0), "a.test:80");
  p.robots_fetch_started("a.test:80");
  p.robots_unreachable("a.test:80", std::nullopt, t0);
  f.drop("a.test:80");
  EXPECT_EQ(p.unavailable_count(), 4u);
  EXPECT_EQ(p.forget_idle(t0), (std::vector<std::string>{"b.test:80"}));
  EXPECT_TRUE(p.unavailable("a.test:80"));
  EXPECT_TRUE(p.unavailable("c.test:80"));
}

TEST(Politeness, AHostGivenUpOnWhoseUrlsTheFrontierStillHoldsIsKept) {
  Frontier f;
  Politeness p(f, {.max_unavailable = 0});
  queue(p, f, "http://a.test/");
  robots_all_unreachable(p, t0);
  EXPECT_TRUE(p.forget_idle(t0).empty()) << "its URL is still queued";
  EXPECT_TRUE(p.unavailable("a.test:80"));
  EXPECT_EQ(f.drop("a.test:80").size(), 1u);
  EXPECT_EQ(p.forget_idle(t0), (std::vector<std::string>{"a.test:80"}));
  EXPECT_FALSE(p.unavailable("a.test:80"));
}

}  // namespace
}  // namespace squall
