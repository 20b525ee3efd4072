// ComponentRegistry against a real redis-server: joining, heartbeats carrying reports, a
// component that stops heartbeating marked dead, leaving, forgetting, and Redis going away.
#include "squall/engine/component_registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "squall/core.h"
#include "support/loop_fixture.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

class ComponentRegistryTest : public test::LoopTest {
 protected:
  RedisOptions options() {
    RedisOptions o = parse_redis_url(server_.url());
    o.command_timeout = 10s;
    o.backoff_max = 100ms;
    return o;
  }
  static ComponentRegistryOptions registry_options(int64_t pid, Duration lease = 30s) {
    ComponentRegistryOptions o;
    o.ns = "t";
    o.host = "host-a";
    o.pid = pid;
    o.lease = lease;
    return o;
  }

  test::RedisServer server_;
};

const ComponentStatus* find(const std::vector<ComponentStatus>& all, const std::string& id) {
  for (const auto& c : all) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

TEST_F(ComponentRegistryTest, AJoinedComponentIsListedLiveWithWhatItReports) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    ComponentRegistry registry(redis, registry_options(1234));
    co_await registry.join(ComponentRole::Fetcher, [] { return ComponentReport{7, 3}; });
    EXPECT_EQ(registry.id(), "fetcher@host-a:1234");
    std::vector<ComponentStatus> all = co_await registry.components();
    EXPECT_EQ(all.size(), 1u);
    if (!all.empty()) {
      const ComponentStatus& c = all[0];
      EXPECT_EQ(c.id, "fetcher@host-a:1234");
      EXPECT_EQ(c.role, "fetcher");
      EXPECT_EQ(c.host, "host-a");
      EXPECT_EQ(c.pid, 1234);
      EXPECT_EQ(c.report.pages, 7u);
      EXPECT_EQ(c.report.lag, 3u);
      EXPECT_EQ(c.lease, 30s);
      EXPECT_FALSE(c.dead);
      EXPECT_LT(c.age, 30s);
      EXPECT_GT(c.started, 1.6e9);
    }
    // Its keys are under the namespace.
    RedisReply keys = co_await redis.command("KEYS", "squall:t:*");
    EXPECT_EQ(keys.elements.size(), 2u);
    co_await registry.leave();
    redis.close();
  }());
}

TEST_F(ComponentRegistryTest, HeartbeatsCarryTheLatestReport) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    ComponentRegistry registry(redis, registry_options(1, 300ms));
    uint64_t pages = 0;
    co_await registry.join(ComponentRole::Processor, [&] { return ComponentReport{++pages, 0}; });
    // Heartbeats come every 100 ms; each asks for a fresh report.
    co_await sleep(350ms);
    std::vector<ComponentStatus> all = co_await registry.components();
    EXPECT_EQ(all.size(), 1u);
    if (!all.empty()) {
      EXPECT_GE(all[0].report.pages, 2u);
      EXPECT_EQ(all[0].report.pages, pages);
    }
    co_await registry.leave();
    redis.close();
  }());
}

TEST_F(ComponentRegistryTest, AComponentThatStopsHeartbeatingIsMarkedDeadAfterThreeLeases) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    ComponentRegistry watcher(redis, registry_options(2));
    co_await watcher.join(ComponentRole::Scheduler);
    {
      ComponentRegistry doomed(redis, registry_options(3, 100ms));
      co_await doomed.join(ComponentRole::Fetcher);
      std::vector<ComponentStatus> alive = co_await watcher.components();
      const ComponentStatus* before = find(alive, "fetcher@host-a:3");
      EXPECT_TRUE(before && !before->dead);
    }  // destroyed: no more heartbeats, its record stays
    co_await sleep(400ms);
    std::vector<ComponentStatus> all = co_await watcher.components();
    EXPECT_EQ(all.size(), 2u);
    const ComponentStatus* dead = find(all, "fetcher@host-a:3");
    const ComponentStatus* live = find(all, "scheduler@host-a:2");
    EXPECT_TRUE(dead && dead->dead);
    if (dead) {
      EXPECT_GE(dead->age, 300ms);
    }
    EXPECT_TRUE(live && !live->dead);
    // Listed by role: the scheduler before the fetcher.
    if (all.size() == 2) {
      EXPECT_EQ(all[0].role, "scheduler");
    }
    co_await watcher.leave();
    redis.close();
  }());
}

TEST_F(ComponentRegistryTest, LeavingRemovesTheRecordAtOnce) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    ComponentRegistry a(redis, registry_options(4));
    ComponentRegistry b(redis, registry_options(5));
    co_await a.join(ComponentRole::ResultWorker);
    co_await b.join(ComponentRole::Fetcher);
    co_await a.leave();
    EXPECT_EQ(a.id(), "");
    std::vector<ComponentStatus> all = co_await b.components();
    EXPECT_EQ(all.size(), 1u);
    EXPECT_EQ(find(all, "result-worker@host-a:4"), nullptr);
    // Leaving twice does nothing; joining again is allowed.
    co_await a.leave();
    co_await a.join(ComponentRole::ResultWorker);
    std::vector<ComponentStatus> back = co_await b.components();
    EXPECT_EQ(back.size(), 2u);
    co_await a.leave();
    co_await b.leave();
    redis.close();
  }());
}

TEST_F(ComponentRegistryTest, ARecordSilentPastForgetAfterIsRemovedByAnotherHeartbeat) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    {
      ComponentRegistry gone(redis, registry_options(6));
      co_await gone.join(ComponentRole::Fetcher);
    }
    ComponentRegistryOptions o = registry_options(7);
    o.forget_after = 200ms;
    ComponentRegistry keeper(redis, o);
    co_await keeper.join(ComponentRole::Fetcher);
    std::vector<ComponentStatus> both = co_await keeper.components();
    EXPECT_EQ(both.size(), 2u);
    co_await sleep(300ms);
    co_await keeper.beat();
    std::vector<ComponentStatus> one = co_await keeper.components();
    EXPECT_EQ(one.size(), 1u);
    EXPECT_NE(find(one, "fetcher@host-a:7"), nullptr);
    co_await keeper.leave();
    redis.close();
  }());
}

TEST_F(ComponentRegistryTest, HeartbeatsThatFailWhileRedisIsDownAreLoggedAndResumeAfter) {
  test::LogCapture logs;
  run([&]() -> Task<void> {
    RedisClient redis(options());
    ComponentRegistry registry(redis, registry_options(8, 150ms));
    co_await registry.join(ComponentRole::Fetcher);
    server_.stop();
    co_await sleep(300ms);
    EXPECT_TRUE(logs.contains("component fetcher@host-a:8: heartbeat failed"));
    server_.start();
    // Redis lost everything (no persistence): the next heartbeat registers it again.
    std::vector<ComponentStatus> all;
    for (int i = 0; i < 100 && all.empty(); ++i) {
      co_await sleep(50ms);
      all = co_await registry.components();
    }
    EXPECT_EQ(all.size(), 1u);
    co_await registry.leave();
    redis.close();
  }());
}

TEST_F(ComponentRegistryTest, JoiningFailsWhenRedisCannotBeReached) {
  run([&]() -> Task<void> {
    RedisOptions o = options();
    server_.stop();
    o.connect_attempts = 1;
    RedisClient redis(o);
    ComponentRegistry registry(redis, registry_options(9));
    bool failed = false;
    try {
      co_await registry.join(ComponentRole::Fetcher);
    } catch (const NetError&) {
      failed = true;
    }
    EXPECT_TRUE(failed);
    EXPECT_EQ(registry.id(), "");
    redis.close();
  }());
}

TEST(ComponentRoleTest, NamesEachRoleAsItsCommandIsNamed) {
  EXPECT_EQ(component_role_name(ComponentRole::ResultWorker), "result-worker");
  EXPECT_EQ(parse_component_role("processor"), ComponentRole::Processor);
  EXPECT_EQ(parse_component_role("worker"), std::nullopt);
}

}  // namespace
}  // namespace squall
