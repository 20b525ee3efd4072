// ClusterStatus against a real redis-server: the components and the streams' depths of one
// namespace, and the JSON that `squall status --json` and GET /api/cluster both give.
#include "squall/engine/cluster_status.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "squall/core.h"
#include "support/loop_fixture.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

class ClusterStatusTest : public test::LoopTest {
 protected:
  ComponentRegistryOptions member(std::string host, int64_t pid, Duration lease = 30s) {
    ComponentRegistryOptions o;
    o.ns = "shop";
    o.host = std::move(host);
    o.pid = pid;
    o.lease = lease;
    return o;
  }

  test::RedisServer server_;
};

TEST_F(ClusterStatusTest, ReadsTheComponentsAndEachStreamOfItsNamespaceOnly) {
  run([&]() -> Task<void> {
    RedisClient redis(server_.url());
    ComponentRegistry fetcher(redis, member("host-a", 11));
    co_await fetcher.join(ComponentRole::Fetcher, [] { return ComponentReport{5, 1}; });
    ComponentRegistryOptions elsewhere = member("host-z", 99);
    elsewhere.ns = "other";
    ComponentRegistry other(redis, elsewhere);
    co_await other.join(ComponentRole::Scheduler);
    StreamQueueOptions fetchers;
    fetchers.group = "fetchers";
    fetchers.consumer = "c";
    StreamQueue fetch(redis, cluster_key("shop", "fetch"), fetchers);
    std::vector<std::string> tasks = {"a", "b"};
    co_await fetch.push(tasks);
    co_await fetch.take(1);

    ClusterStatus status = co_await read_cluster_status(redis, "shop");
    EXPECT_EQ(status.ns, "shop");
    EXPECT_EQ(status.live(), 1u);
    EXPECT_EQ(status.components.size(), 1u);
    if (!status.components.empty()) {
      EXPECT_EQ(status.components[0].id, "fetcher@host-a:11");
    }
    EXPECT_EQ(status.streams.size(), 4u);
    if (status.streams.size() == 4) {
      EXPECT_EQ(status.streams[0].key, "squall:shop:fetch");
      EXPECT_EQ(status.streams[0].depth.length, 2u);
      EXPECT_EQ(status.streams[0].depth.pending, 1u);
      EXPECT_EQ(status.streams[0].depth.lag, 1u);
      EXPECT_EQ(status.streams[3].stream.name, "result");
      EXPECT_EQ(status.streams[3].depth.length, 0u);
    }
    co_await fetcher.leave();
    co_await other.leave();
    fetch.close();
    redis.close();
  }());
}

TEST_F(ClusterStatusTest, ItsJsonSaysWhoIsAliveAndWhatEachStreamHolds) {
  run([&]() -> Task<void> {
    RedisClient redis(server_.url());
    {
      ComponentRegistry processor(redis, member("host-b", 22, 10ms));
      co_await processor.join(ComponentRole::Processor, [] { return ComponentReport{3, 0}; });
    }  // stops heartbeating: dead after 3 leases
    co_await sleep(100ms);
    ComponentRegistry worker(redis, member("host-c", 33));
    co_await worker.join(ComponentRole::ResultWorker, [] { return ComponentReport{8, 2}; });
    nlohmann::ordered_json j = cluster_status_json(co_await read_cluster_status(redis, "shop"));
    EXPECT_EQ(j["namespace"], "shop");
    EXPECT_EQ(j["components"].size(), 2u);
    const auto& dead = j["components"][0];
    EXPECT_EQ(dead["id"], "processor@host-b:22");
    EXPECT_EQ(dead["state"], "dead");
    EXPECT_EQ(dead["alive"], false);
    EXPECT_GE(dead["heartbeat_age"].get<double>(), 0.03);
    EXPECT_EQ(dead["handled"], 3);
    const auto& live = j["components"][1];
    EXPECT_EQ(live["role"], "result-worker");
    EXPECT_EQ(live["host"], "host-c");
    EXPECT_EQ(live["pid"], 33);
    EXPECT_EQ(live["alive"], true);
    EXPECT_EQ(live["lease"], 30.0);
    EXPECT_EQ(live["handled"], 8);
    EXPECT_EQ(live["lag"], 2);
    EXPECT_EQ(j["streams"].size(), 4u);
    EXPECT_EQ(j["streams"][1]["name"], "process");
    EXPECT_EQ(j["streams"][1]["group"], "processors");
    EXPECT_EQ(j["streams"][1]["from"], "fetcher");
    EXPECT_EQ(j["streams"][1]["to"], "processor");
    EXPECT_EQ(j["streams"][1]["length"], 0);
    EXPECT_EQ(j["streams"][1]["dead"], 0);
    co_await worker.leave();
    redis.close();
  }());
}

TEST_F(ClusterStatusTest, ABadNamespaceIsRefusedBeforeAnythingIsSent) {
  run([&]() -> Task<void> {
    RedisClient redis(server_.url());
    EXPECT_THROW(co_await read_cluster_status(redis, "a:b"), InvalidArgumentError);
    redis.close();
  }());
}

}  // namespace
}  // namespace squall
