// HostLeases against a real redis-server, with several clients on loops of their own threads:
// per_host and the delay hold across them, leases expire, Crawl-delay and back-offs are shared.
#include "squall/engine/host_leases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "squall/core.h"
#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::RedisServer;

// The server time (µs) of a grant, which its lease id begins with ("<sec><usec>-<n>").
int64_t granted_at_us(const HostLease& lease) {
  return std::stoll(lease.id.substr(0, lease.id.find('-')));
}

class HostLeasesTest : public test::LoopTest {
 protected:
  RedisOptions redis_options() {
    RedisOptions o = parse_redis_url(server_->url());
    o.command_timeout = 10s;
    return o;
  }

  // Runs `body` on `clients` threads at once, each with its own loop, RedisClient and
  // HostLeases (made with `options`), and waits for them all.
  void on_clients(int clients, const HostLeasesOptions& options,
                  const std::function<Task<void>(HostLeases&)>& body) {
    std::vector<std::thread> threads;
    std::mutex failures_lock;
    std::vector<std::string> failures;
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        try {
          Loop loop;
          RedisOptions o = redis_options();
          o.client_name = "fetcher-" + std::to_string(c);
          RedisClient redis(o, loop);
          HostLeases leases(redis, options);
          run_sync(body(leases), 60s);
          redis.close();
        } catch (const std::exception& e) {
          std::lock_guard hold(failures_lock);
          failures.emplace_back(e.what());
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (const std::string& f : failures) ADD_FAILURE() << "a client failed: " << f;
  }

  // Acquires a lease on `host`, sleeping out each wait it is given.
  static Task<HostLease> acquire_waiting(HostLeases& leases, std::string host) {
    for (;;) {
      LeaseGrant g = co_await leases.acquire(host);
      if (g.lease) co_return *std::move(g.lease);
      co_await sleep(g.wait);
    }
  }

  // None in the skewed fetcher's process (see the last test): it uses the test's own.
  std::unique_ptr<RedisServer> server_ =
      std::getenv("SQUALL_SKEWED_FETCHER") ? nullptr : std::make_unique<RedisServer>();
};

class PerHostTest : public HostLeasesTest, public ::testing::WithParamInterface<size_t> {};

TEST_P(PerHostTest, PerHostHoldsAcrossManyConcurrentAcquirersOnSeveralClients) {
  const size_t per_host = GetParam();
  std::atomic<int> in_flight{0};
  std::atomic<int> most{0};
  std::atomic<int> grants{0};
  HostLeasesOptions options{.per_host = per_host, .busy_retry = 2ms};
  on_clients(4, options, [&](HostLeases& leases) -> Task<void> {
    // Eight acquirers per client, each taking 6 leases: 192 fetches of one host in all.
    // The closure's state goes in as arguments: a coroutine lambda's captures die with it.
    auto acquirer = [](HostLeases& leases, std::atomic<int>& in_flight, std::atomic<int>& most,
                       std::atomic<int>& grants) -> Task<void> {
      for (int i = 0; i < 6; ++i) {
        HostLease lease = co_await acquire_waiting(leases, "example.com:80");
        // What this process sees in flight lies within what the server granted.
        int now = ++in_flight;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        ++grants;
        co_await sleep(1ms);
        --in_flight;
        co_await leases.release(std::move(lease));
      }
    };
    std::vector<TaskHandle<void>> acquirers;
    for (int a = 0; a < 8; ++a)
      acquirers.push_back(spawn(acquirer(leases, in_flight, most, grants)));
    for (auto& a : acquirers) co_await a;
  });
  EXPECT_EQ(grants.load(), 4 * 8 * 6);
  EXPECT_LE(most.load(), static_cast<int>(per_host)) << "more leases in flight than per_host";
  EXPECT_EQ(most.load(), static_cast<int>(per_host)) << "the slots were never all used at once";
}

INSTANTIATE_TEST_SUITE_P(OneAndTwo, PerHostTest, ::testing::Values(size_t{1}, size_t{2}));

TEST_F(HostLeasesTest, GrantsOfAHostAreTheDelayApartOnTheServersClockAcrossClients) {
  std::mutex lock;
  std::vector<int64_t> granted;
  HostLeasesOptions options{.per_host = 3, .delay = 0.05};
  on_clients(3, options, [&](HostLeases& leases) -> Task<void> {
    auto acquirer = [](HostLeases& leases, std::mutex& lock,
                       std::vector<int64_t>& granted) -> Task<void> {
      for (int i = 0; i < 3; ++i) {
        HostLease lease = co_await acquire_waiting(leases, "slow.example:443");
        {
          std::lock_guard hold(lock);
          granted.push_back(granted_at_us(lease));
        }
        co_await leases.release(std::move(lease));
      }
    };
    std::vector<TaskHandle<void>> acquirers;
    for (int a = 0; a < 3; ++a) acquirers.push_back(spawn(acquirer(leases, lock, granted)));
    for (auto& a : acquirers) co_await a;
  });
  ASSERT_EQ(granted.size(), 27u);
  std::sort(granted.begin(), granted.end());
  int64_t closest = INT64_MAX;
  for (size_t i = 1; i < granted.size(); ++i)
    closest = std::min(closest, granted[i] - granted[i - 1]);
  // The script keeps time in whole ms: a gap of 50 ms may read as 49.001 in µs.
  EXPECT_GE(closest, 49'000) << "two grants of one host closer than the delay";
}

TEST_F(HostLeasesTest, OtherHostsAreNotHeldByABusyOne) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, {.per_host = 1, .delay = 10});
    LeaseGrant a = co_await leases.acquire("a.example:80");
    LeaseGrant a_again = co_await leases.acquire("a.example:80");
    LeaseGrant b = co_await leases.acquire("b.example:80");
    EXPECT_TRUE(a.lease);
    EXPECT_FALSE(a_again.lease);
    EXPECT_GT(a_again.wait, 9s) << "a.example waits out its delay of 10 s";
    EXPECT_TRUE(b.lease) << "b.example is not a.example";
    redis.close();
  }());
}

// The calls of EVALSHA the server counted since its last CONFIG RESETSTAT.
Task<int64_t> evalsha_calls(RedisClient& redis) {
  RedisReply info = co_await redis.command("INFO", "commandstats");
  std::string_view text = info.str;
  size_t at = text.find("cmdstat_evalsha:calls=");
  if (at == std::string_view::npos) co_return 0;
  co_return std::stoll(std::string(text.substr(at + 22, text.find(',', at) - at - 22)));
}

TEST_F(HostLeasesTest, AcquiresAndReleasesAskedTogetherGoAsOneScriptCallInTheirOrder) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, {.per_host = 1});
    // The script is in the server's cache before the count starts.
    LeaseGrant first = co_await leases.acquire("warm.example:80");
    EXPECT_TRUE(first.lease);
    if (!first.lease) co_return;
    co_await redis.command("CONFIG", "RESETSTAT");
    std::vector<TaskHandle<LeaseGrant>> asked;
    for (int i = 0; i < 20; ++i) {
      std::string host = std::to_string(i % 10);
      host.append(".example:80");
      asked.push_back(spawn(leases.acquire(std::move(host))));
    }
    TaskHandle<void> released = spawn(leases.release(*first.lease));
    TaskHandle<LeaseGrant> after_release = spawn(leases.acquire("warm.example:80"));
    int granted = 0;
    for (int i = 0; i < 20; ++i) {
      LeaseGrant g = co_await asked[i];
      // Each host's first ask (i < 10) takes its one slot; the second finds it taken.
      EXPECT_EQ(bool(g.lease), i < 10) << i;
      granted += g.lease ? 1 : 0;
    }
    co_await released;
    EXPECT_TRUE((co_await after_release).lease) << "asked after the release, in the same batch";
    EXPECT_EQ(granted, 10);
    EXPECT_EQ(co_await evalsha_calls(redis), 1) << "22 asks, one round trip";
    redis.close();
  }());
}

TEST_F(HostLeasesTest, AReleaseCalledBeforeAnAcquireFreesItsSlotFirstHoweverTheyAreAwaited) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, {.per_host = 1});
    LeaseGrant first = co_await leases.acquire("one.example:80");
    EXPECT_TRUE(first.lease);
    if (!first.lease) co_return;
    // A fetch ended: its release is called, and the next acquire after it, but the acquire's
    // task runs first (the release's is spawned, as a fetch worker's is).
    Task<void> release = leases.release(*first.lease);
    Task<LeaseGrant> next = leases.acquire("one.example:80");
    TaskHandle<LeaseGrant> asked = spawn(std::move(next));
    TaskHandle<void> released = spawn(std::move(release));
    LeaseGrant g = co_await asked;
    co_await released;
    EXPECT_TRUE(g.lease) << "the release was called first: the slot was free";
    if (g.lease) co_await leases.release(*g.lease);
    redis.close();
  }());
}

TEST_F(HostLeasesTest, AReleaseOfALeaseWithoutAnIdFailsAndQueuesNothing) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, {.per_host = 1});
    LeaseGrant first = co_await leases.acquire("one.example:80");
    EXPECT_TRUE(first.lease);
    HostLease no_id{"one.example:80", ""};
    EXPECT_THROW(co_await leases.release(no_id), InvalidArgumentError);
    EXPECT_FALSE((co_await leases.acquire("one.example:80")).lease) << "the slot is still held";
    redis.close();
  }());
}

TEST_F(HostLeasesTest, ALeaseNeverReleasedFreesItsSlotWhenItExpires) {
  run([&]() -> Task<void> {
    RedisClient dead_redis(redis_options());
    RedisClient live_redis(redis_options());
    HostLeasesOptions options{.per_host = 1, .lease_ttl = 300ms, .busy_retry = 20ms};
    HostLeases dead(dead_redis, options);
    HostLeases live(live_redis, options);
    LeaseGrant held = co_await dead.acquire("example.com:80");
    EXPECT_TRUE(held.lease);
    dead_redis.close();  // its fetcher is gone without a release
    LeaseGrant refused = co_await live.acquire("example.com:80");
    EXPECT_FALSE(refused.lease);
    EXPECT_LE(refused.wait, 20ms) << "a full host is asked again after busy_retry at most";
    HostLease next = co_await acquire_waiting(live, "example.com:80");
    EXPECT_GE(granted_at_us(next) - granted_at_us(*held.lease), 299'000)
        << "the slot was given again before the lease expired";
    co_await live.release(std::move(next));
    // A late release of the expired lease frees nothing of another's.
    LeaseGrant again = co_await live.acquire("example.com:80");
    EXPECT_TRUE(again.lease);
    co_await live.release(*held.lease);
    LeaseGrant third = co_await live.acquire("example.com:80");
    EXPECT_FALSE(third.lease) << "the expired lease's release freed the live lease's slot";
    live_redis.close();
  }());
}

TEST_F(HostLeasesTest, ARenewedLeaseOutlivesItsTtlAndAnExpiredOneIsNotRenewed) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, {.per_host = 1, .lease_ttl = 1s, .busy_retry = 20ms});
    LeaseGrant g = co_await leases.acquire("example.com:80");
    EXPECT_TRUE(g.lease);
    if (!g.lease) co_return;
    // Renewed every 50 ms for 1.25 s: only a stall of most of a second between two could lose it.
    for (int i = 0; i < 25; ++i) {
      co_await sleep(50ms);
      EXPECT_TRUE(co_await leases.renew(*g.lease));
    }
    LeaseGrant refused = co_await leases.acquire("example.com:80");
    EXPECT_FALSE(refused.lease) << "a lease renewed for 1.25 s expired after its 1 s";
    co_await sleep(1100ms);
    EXPECT_FALSE(co_await leases.renew(*g.lease)) << "an expired lease came back";
    LeaseGrant next = co_await leases.acquire("example.com:80");
    EXPECT_TRUE(next.lease);
    redis.close();
  }());
}

TEST_F(HostLeasesTest, ACrawlDelaySetByOneFetcherIsObeyedByAnother) {
  run([&]() -> Task<void> {
    RedisClient redis_a(redis_options());
    RedisClient redis_b(redis_options());
    HostLeases a(redis_a, {.per_host = 2, .delay = 0});
    HostLeases b(redis_b, {.per_host = 2, .delay = 0});
    co_await a.set_delay("polite.example:80", 400ms);
    LeaseGrant first = co_await b.acquire("polite.example:80");
    EXPECT_TRUE(first.lease);
    EXPECT_EQ(first.delay, 400ms);
    LeaseGrant second = co_await b.acquire("polite.example:80");
    EXPECT_FALSE(second.lease) << "a free slot, but the host's Crawl-delay has not passed";
    EXPECT_GT(second.wait, 300ms);
    HostLease next = co_await acquire_waiting(b, "polite.example:80");
    EXPECT_GE(granted_at_us(next) - granted_at_us(*first.lease), 399'000);
    // A delay of 0 removes it: options.delay applies to the next grant (the ready time the last
    // grant set stays).
    co_await a.set_delay("polite.example:80", 0ms);
    co_await b.release(*first.lease);
    co_await b.release(std::move(next));
    LeaseGrant after = co_await b.acquire("polite.example:80");
    EXPECT_EQ(after.delay, 0ms);
    if (after.lease) co_await b.release(*after.lease);
    redis_a.close();
    redis_b.close();
  }());
}

TEST_F(HostLeasesTest, TheDelayAlsoCountsFromTheRelease) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, {.per_host = 1, .delay = 0.3});
    LeaseGrant g = co_await leases.acquire("example.com:80");
    EXPECT_TRUE(g.lease);
    if (!g.lease) co_return;
    co_await sleep(400ms);  // a fetch longer than the delay
    co_await leases.release(*g.lease);
    LeaseGrant right_after = co_await leases.acquire("example.com:80");
    EXPECT_FALSE(right_after.lease) << "the next start came at the end of the last fetch";
    EXPECT_GT(right_after.wait, 200ms);
    redis.close();
  }());
}

TEST_F(HostLeasesTest, ABackOffByOneFetcherKeepsEveryFetcherOff) {
  run([&]() -> Task<void> {
    RedisClient redis_a(redis_options());
    RedisClient redis_b(redis_options());
    HostLeases a(redis_a, {.per_host = 2});
    HostLeases b(redis_b, {.per_host = 2});
    co_await a.back_off("failing.example:80", 5s);
    LeaseGrant g = co_await b.acquire("failing.example:80");
    EXPECT_FALSE(g.lease);
    EXPECT_GT(g.wait, 4s);
    // A shorter back-off does not shorten a longer one.
    co_await a.back_off("failing.example:80", 1s);
    LeaseGrant still = co_await b.acquire("failing.example:80");
    EXPECT_GT(still.wait, 4s);
    redis_a.close();
    redis_b.close();
  }());
}

TEST_F(HostLeasesTest, KeysLiveUnderTheNamespaceAndLeasesKeysExpire) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, {.ns = "crawl7", .per_host = 1, .lease_ttl = 30s});
    LeaseGrant g = co_await leases.acquire("example.com:80");
    EXPECT_TRUE(g.lease);
    EXPECT_EQ(leases.leases_key("example.com:80"), "squall:crawl7:host:example.com:80:leases");
    RedisReply keys = co_await redis.command("KEYS", "*");
    for (const RedisReply& k : keys.elements) EXPECT_TRUE(k.str.starts_with("squall:crawl7:"));
    RedisReply ttl = co_await redis.command("PTTL", leases.leases_key("example.com:80"));
    EXPECT_GT(ttl.integer, 0);
    EXPECT_LE(ttl.integer, 30000);
    redis.close();
  }());
}

TEST_F(HostLeasesTest, AHostWithoutADelayHasAReadyTimeOnlyWhileBackedOff) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, {.per_host = 1});
    LeaseGrant g = co_await leases.acquire("plain.example:80");
    EXPECT_TRUE(g.lease);
    if (!g.lease) co_return;
    co_await leases.release(*g.lease);
    RedisReply ready = co_await redis.command("ZSCORE", leases.ready_key(), "plain.example:80");
    EXPECT_TRUE(ready.is_nil()) << ready.to_string();
    co_await leases.back_off("plain.example:80", 1h);
    ready = co_await redis.command("ZSCORE", leases.ready_key(), "plain.example:80");
    EXPECT_FALSE(ready.is_nil());
    EXPECT_FALSE((co_await leases.acquire("plain.example:80")).lease) << "backed off";
    co_await leases.set_delay("slow.example:80", 1h);
    g = co_await leases.acquire("slow.example:80");
    EXPECT_TRUE(g.lease);
    ready = co_await redis.command("ZSCORE", leases.ready_key(), "slow.example:80");
    EXPECT_FALSE(ready.is_nil()) << "its Crawl-delay keeps the next grant off";
    redis.close();
  }());
}

TEST_F(HostLeasesTest, ScriptsFlushedFromTheServersCacheAreLoadedAgain) {
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, {.per_host = 1});
    LeaseGrant g = co_await leases.acquire("example.com:80");
    EXPECT_TRUE(g.lease);
    co_await redis.command("SCRIPT", "FLUSH");
    co_await leases.release(*g.lease);
    LeaseGrant again = co_await leases.acquire("example.com:80");
    EXPECT_TRUE(again.lease) << "the release ran after SCRIPT FLUSH";
    redis.close();
  }());
}

// Acquires and releases five leases on `host`, pushing each grant's server time (µs) to
// `list`; what both the skewed fetcher and the test's own run.
Task<void> take_five(HostLeases& leases, RedisClient& redis, std::string host, std::string list) {
  for (int i = 0; i < 5; ++i) {
    HostLease lease;
    for (;;) {
      LeaseGrant g = co_await leases.acquire(host);
      if (g.lease) {
        lease = *std::move(g.lease);
        break;
      }
      co_await sleep(g.wait);
    }
    co_await redis.command("RPUSH", list, granted_at_us(lease));
    co_await sleep(5ms);
    co_await leases.release(std::move(lease));
  }
}

// The test runs this binary again as a second fetcher under faketime, its wall clock two hours
// ahead and its monotonic clock shifted with it; in that process SQUALL_SKEWED_FETCHER holds
// the Redis URL and this test plays the fetcher's part only.
TEST_F(HostLeasesTest, AFetcherWhoseClocksAreHoursOffKeepsTheSameRules) {
  HostLeasesOptions options{.per_host = 1, .delay = 0.1};
  if (const char* url = std::getenv("SQUALL_SKEWED_FETCHER")) {
    run([&]() -> Task<void> {
      RedisClient redis{std::string_view(url)};
      HostLeases leases(redis, options);
      auto wall = std::chrono::duration_cast<std::chrono::seconds>(
          std::chrono::system_clock::now().time_since_epoch());
      co_await redis.command("SET", "skewed:wall", wall.count());
      co_await take_five(leases, redis, "example.com:80", "skewed:grants");
      redis.close();
    }());
    return;
  }
  std::string asan = std::getenv("ASAN_OPTIONS") ? std::getenv("ASAN_OPTIONS") : "";
  // libfaketime is preloaded, so ASan's runtime cannot come first in the library list.
  test::Process skewed = test::Process::start(
      {"env", "SQUALL_SKEWED_FETCHER=" + server_->url(),
       "ASAN_OPTIONS=" + asan + (asan.empty() ? "" : ":") + "verify_asan_link_order=0", "faketime",
       "-m", "-f", "+2h", std::filesystem::read_symlink("/proc/self/exe").string(),
       "--gtest_filter=HostLeasesTest.AFetcherWhoseClocksAreHoursOffKeepsTheSameRules"});
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    HostLeases leases(redis, options);
    co_await take_five(leases, redis, "example.com:80", "local:grants");
    redis.close();
  }());
  EXPECT_EQ(skewed.wait(60s), 0) << skewed.output();
  run([&]() -> Task<void> {
    RedisClient redis(redis_options());
    RedisReply time = co_await redis.command("TIME");
    RedisReply wall = co_await redis.command("GET", "skewed:wall");
    int64_t server_now = std::stoll(time.elements.at(0).str);
    EXPECT_GT(std::stoll(wall.str.empty() ? "0" : wall.str), server_now + 7000)
        << "the second fetcher's clock was not two hours ahead";
    std::vector<int64_t> grants;
    for (const char* list : {"local:grants", "skewed:grants"}) {
      RedisReply r = co_await redis.command("LRANGE", list, 0, -1);
      EXPECT_EQ(r.elements.size(), 5u) << list;
      for (const RedisReply& g : r.elements) grants.push_back(std::stoll(g.str));
    }
    std::sort(grants.begin(), grants.end());
    for (size_t i = 1; i < grants.size(); ++i)
      EXPECT_GE(grants[i] - grants[i - 1], 99'000) << "two grants closer than the delay";
    redis.close();
  }());
}

}  // namespace
}  // namespace squall
