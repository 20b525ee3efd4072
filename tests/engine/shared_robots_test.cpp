// SharedRobots against a real redis-server and real nginx sites, with several clients on loops
// of their own threads: one robots.txt request per host in the servers' own logs, lock holders
// that die, errors cached too, bounded bodies.
#include "squall/engine/shared_robots.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "squall/core.h"
#include "squall/engine/fetcher.h"
#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::Process;
using test::RedisServer;
using test::TempDir;

// A site of its own on a free port whose access log counts its robots.txt requests.
struct Site {
  explicit Site(const std::string& robots) {
    dir.write("robots.txt", robots);
    port = test::free_port();
    nginx = test::start_nginx(dir, "", port);
  }
  std::string host() const { return "127.0.0.1:" + std::to_string(port); }
  Url robots_url() const { return *Url::parse("http://" + host() + "/robots.txt"); }
  // Stops nginx first: it writes a request's line after the response has gone, so a client may
  // read the log before the line of the answer it got is there.
  size_t robots_requests() {
    nginx.stop();
    std::string log = test::read_file(dir.path() / "access.log");
    size_t n = 0;
    for (size_t at = log.find("GET /robots.txt"); at != std::string::npos;
         at = log.find("GET /robots.txt", at + 1))
      ++n;
    return n;
  }
  TempDir dir;
  uint16_t port = 0;
  Process nginx;
};

// The fetch a lock holder runs: robots.txt through the engine's Fetcher, after `slow` (so that
// the other callers are sure to find the lock taken).
SharedRobots::Fetch fetch_with(Fetcher& fetcher, Url url, Duration slow = {}) {
  return [&fetcher, url = std::move(url), slow]() -> Task<SharedRobotsEntry> {
    if (slow > Duration{}) co_await sleep(slow);
    CrawlTask like;  // named: GCC 12 frees a temporary of a co_await expression twice
    FetchResult r = co_await fetcher.fetch_robots(url, like);
    co_return SharedRobotsEntry{
        .status = r.status_code, .body = r.content, .error_kind = r.error_kind, .error = r.error};
  };
}

SharedRobots::Fetch never_fetch() {
  return []() -> Task<SharedRobotsEntry> {
    ADD_FAILURE() << "a cached entry was fetched again";
    co_return SharedRobotsEntry{};
  };
}

class SharedRobotsTest : public test::LoopTest {
 protected:
  RedisOptions redis_options() {
    RedisOptions o = parse_redis_url(server_.url());
    o.command_timeout = 10s;
    return o;
  }

  RedisServer server_;
};

TEST_F(SharedRobotsTest, ManyFetchersOnSeveralClientsFetchEachHostsRobotsTxtOnce) {
  Site one("User-agent: *\nDisallow: /one/\nCrawl-delay: 2\n");
  Site two("User-agent: *\nDisallow: /two/\n");
  std::mutex lock;
  std::vector<std::string> failures;
  std::atomic<int> fetched_here{0};
  std::atomic<int> entries{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < 3; ++c) {
    threads.emplace_back([&] {
      try {
        Loop loop;
        RedisClient redis(redis_options(), loop);
        SharedRobots robots(redis);
        Fetcher fetcher;
        // Four callers per client and host, all at once.
        auto caller = [](SharedRobots& robots, Fetcher& fetcher, const Site& site,
                         std::atomic<int>& fetched_here, std::atomic<int>& entries,
                         std::string expected) -> Task<void> {
          SharedRobotsEntry e =
              co_await robots.get(site.host(), fetch_with(fetcher, site.robots_url(), 200ms));
          EXPECT_EQ(e.status, 200);
          EXPECT_EQ(e.body, expected);
          fetched_here += e.fetched_here;
          ++entries;
        };
        run_sync(
            [&]() -> Task<void> {
              std::vector<TaskHandle<void>> callers;
              for (int i = 0; i < 4; ++i) {
                callers.push_back(
                    spawn(caller(robots, fetcher, one, fetched_here, entries,
                                 "User-agent: *\nDisallow: /one/\nCrawl-delay: 2\n")));
                callers.push_back(spawn(caller(robots, fetcher, two, fetched_here, entries,
                                               "User-agent: *\nDisallow: /two/\n")));
              }
              for (auto& c : callers) co_await c;
            }(),
            60s);
        redis.close();
      } catch (const std::exception& e) {
        std::lock_guard hold(lock);
        failures.emplace_back(e.what());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& f : failures) ADD_FAILURE() << "a client failed: " << f;
  EXPECT_EQ(entries.load(), 24);
  EXPECT_EQ(fetched_here.load(), 2) << "one fetch per host";
  EXPECT_EQ(one.robots_requests(), 1u);
  EXPECT_EQ(two.robots_requests(), 1u);
}

TEST_F(SharedRobotsTest, AnEntryLivesAsLongAsItsPolicySaysAndIsReadBackWithWhatIsLeft) {
  Site site("User-agent: *\nDisallow: /private\n");
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    SharedRobots robots(redis, {.ns = "c1"});
    Fetcher fetcher;
    SharedRobotsEntry first =
        co_await robots.get(site.host(), fetch_with(fetcher, site.robots_url()));
    EXPECT_TRUE(first.fetched_here);
    EXPECT_EQ(first.ttl, std::chrono::duration_cast<Duration>(RobotsPolicy::kMaxAge));
    RedisReply pttl = co_await redis.command("PTTL", "squall:c1:robots:" + site.host());
    EXPECT_GT(pttl.integer, 86'000'000) << "RFC 9309: kept for 24 hours";
    EXPECT_LE(pttl.integer, 86'400'000);
    SharedRobotsEntry again = co_await robots.get(site.host(), never_fetch());
    EXPECT_FALSE(again.fetched_here);
    EXPECT_EQ(again.body, first.body);
    EXPECT_GT(again.max_age().value_or(0s), 86'000s);
    EXPECT_LE(again.max_age().value_or(0s), RobotsPolicy::kMaxAge);
    RobotsPolicy policy = RobotsPolicy::from_response(again.status, again.body, again.max_age());
    EXPECT_FALSE(policy.rules_for("squall").allowed("/private/x"));
    EXPECT_EQ(site.robots_requests(), 1u);
    redis.close();
  }());
}

TEST_F(SharedRobotsTest, AnUnreachableRobotsTxtIsCachedTooUntilItsTtl) {
  uint16_t closed = test::free_port();
  Url url = *Url::parse("http://127.0.0.1:" + std::to_string(closed) + "/robots.txt");
  std::string host = "127.0.0.1:" + std::to_string(closed);
  run([&]() -> Task<void> {
    RedisClient redis_a(redis_options());
    RedisClient redis_b(redis_options());
    SharedRobots a(redis_a);
    SharedRobots b(redis_b);
    Fetcher fetcher;
    SharedRobotsEntry failed = co_await a.get(host, fetch_with(fetcher, url));
    EXPECT_EQ(failed.status, 599);
    EXPECT_EQ(failed.error_kind, "connect");
    EXPECT_EQ(failed.ttl, std::chrono::duration_cast<Duration>(RobotsPolicy::kUnreachableRetry));
    SharedRobotsEntry cached = co_await b.get(host, never_fetch());
    EXPECT_EQ(cached.status, 599);
    EXPECT_EQ(cached.error_kind, "connect");
    EXPECT_EQ(cached.error, failed.error);
    // A fetch may ask for a shorter life (a retry due sooner); once it is over the next caller
    // fetches again.
    co_await redis_a.command("DEL", a.entry_key(host));
    int fetches = 0;
    auto counted = [&]() -> SharedRobots::Fetch {
      return [&fetches]() -> Task<SharedRobotsEntry> {
        ++fetches;
        co_return SharedRobotsEntry{.status = 503, .ttl = 100ms};
      };
    };
    co_await a.get(host, counted());
    co_await b.get(host, counted());
    EXPECT_EQ(fetches, 1);
    co_await sleep(150ms);
    SharedRobotsEntry refetched = co_await b.get(host, counted());
    EXPECT_TRUE(refetched.fetched_here);
    EXPECT_EQ(fetches, 2);
    redis_a.close();
    redis_b.close();
  }());
}

TEST_F(SharedRobotsTest, ALockHolderThatDiedLetsTheNextCallerFetchAfterTheLockExpires) {
  Site site("User-agent: *\nAllow: /\n");
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    SharedRobots robots(redis, {.poll_initial = 10ms, .poll_max = 50ms});
    Fetcher fetcher;
    // A fetcher took the lock and was killed before it stored anything.
    co_await redis.command("SET", robots.lock_key(site.host()), "dead fetcher", "PX", 300);
    std::string lock_at_fetch;
    SharedRobots::Fetch fetch = fetch_with(fetcher, site.robots_url());
    SharedRobotsEntry e = co_await robots.get(
        site.host(), [&redis, &robots, &site, &lock_at_fetch, &fetch]() -> Task<SharedRobotsEntry> {
          lock_at_fetch = (co_await redis.command("GET", robots.lock_key(site.host()))).str;
          co_return co_await fetch();
        });
    EXPECT_TRUE(e.fetched_here);
    EXPECT_EQ(e.status, 200);
    EXPECT_FALSE(lock_at_fetch.empty());
    EXPECT_NE(lock_at_fetch, "dead fetcher") << "fetched while the dead fetcher's lock held";
    RedisReply lock = co_await redis.command("EXISTS", robots.lock_key(site.host()));
    EXPECT_EQ(lock.integer, 0) << "the lock is dropped with the store";
    EXPECT_EQ(site.robots_requests(), 1u);
    redis.close();
  }());
}

TEST_F(SharedRobotsTest, AFetchThatThrowsDropsTheLockAndTheNextCallerFetches) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    SharedRobots robots(redis);
    bool threw = false;
    try {
      co_await robots.get("example.com:80", []() -> Task<SharedRobotsEntry> {
        throw InvalidArgumentError("no robots.txt URL for example.com:80");
        co_return SharedRobotsEntry{};
      });
    } catch (const InvalidArgumentError&) {
      threw = true;
    }
    EXPECT_TRUE(threw);
    RedisReply lock = co_await redis.command("EXISTS", robots.lock_key("example.com:80"));
    EXPECT_EQ(lock.integer, 0);
    SharedRobotsEntry e = co_await robots.get("example.com:80", []() -> Task<SharedRobotsEntry> {
      co_return SharedRobotsEntry{.status = 404};
    });
    EXPECT_TRUE(e.fetched_here);
    redis.close();
  }());
}

TEST_F(SharedRobotsTest, BodiesAreStoredUpToRfc9309sParseLimit) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    SharedRobots robots(redis);
    std::string huge(kRobotsParseLimit * 2, '#');
    SharedRobotsEntry e =
        co_await robots.get("big.example:80", [&huge]() -> Task<SharedRobotsEntry> {
          co_return SharedRobotsEntry{.status = 200, .body = huge};
        });
    EXPECT_EQ(e.body.size(), kRobotsParseLimit);
    RedisReply stored =
        co_await redis.command("HSTRLEN", robots.entry_key("big.example:80"), "body");
    EXPECT_EQ(stored.integer, static_cast<int64_t>(kRobotsParseLimit));
    redis.close();
  }());
}

}  // namespace
}  // namespace squall
