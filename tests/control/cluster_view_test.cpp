// ClusterView against a real redis-server: components with their rates from successive
// heartbeats, a dead one, reads shared within fresh_for, its Prometheus metrics, and a Redis
// that cannot be reached.
#include "squall/control/cluster_view.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "squall/core.h"
#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::contains;

class ClusterViewTest : public test::LoopTest {
 protected:
  ComponentRegistryOptions member(int64_t pid, Duration lease) {
    ComponentRegistryOptions o;
    o.ns = "view";
    o.host = "host-a";
    o.pid = pid;
    o.lease = lease;
    return o;
  }
  ClusterViewOptions view_options(Duration fresh_for = Duration{}) {
    return {.redis = server_.url(), .ns = "view", .fresh_for = fresh_for};
  }

  test::RedisServer server_;
};

TEST_F(ClusterViewTest, AComponentsRateIsWhatItHandledBetweenItsLastTwoHeartbeats) {
  run([&]() -> Task<void> {
    RedisClient redis(server_.url());
    uint64_t handled = 0;
    ComponentRegistry fetcher(redis, member(1, 300ms));  // a heartbeat every 100 ms
    co_await fetcher.join(ComponentRole::Fetcher, [&] {
      return ComponentReport{handled += 10, 0};
    });
    ClusterView view(view_options());
    nlohmann::ordered_json first = co_await view.read();
    EXPECT_EQ(first["redis"], view.peer());
    EXPECT_EQ(first["namespace"], "view");
    EXPECT_EQ(first["live"], 1);
    EXPECT_EQ(first["dead"], 0);
    EXPECT_TRUE(first["components"][0]["rate"].is_null()) << "one heartbeat seen: no rate yet";
    nlohmann::ordered_json later;
    for (int i = 0; i < 100; ++i) {
      co_await sleep(50ms);
      later = co_await view.read();
      if (later["components"][0]["rate"].is_number()) break;
    }
    // 10 more at each heartbeat: a rate above zero, whatever the heartbeats' exact spacing.
    EXPECT_TRUE(later["components"][0]["rate"].is_number()) << later.dump();
    EXPECT_GT(later["components"][0]["rate"].get<double>(), 0) << later.dump();
    EXPECT_EQ(later["streams"].size(), 4u);
    co_await fetcher.leave();
    view.close();
    redis.close();
  }());
}

TEST_F(ClusterViewTest, ADeadComponentHasNoRateLeftAndReadsWithinFreshForAreShared) {
  run([&]() -> Task<void> {
    RedisClient redis(server_.url());
    {
      ComponentRegistry processor(redis, member(2, 10ms));
      co_await processor.join(ComponentRole::Processor, [] { return ComponentReport{4, 0}; });
    }
    co_await sleep(100ms);
    ClusterView view(view_options(1h));
    nlohmann::ordered_json j = co_await view.read();
    EXPECT_EQ(j["live"], 0);
    EXPECT_EQ(j["dead"], 1);
    EXPECT_EQ(j["components"][0]["alive"], false);
    EXPECT_EQ(j["components"][0]["rate"], 0.0);
    StreamQueue fetch(redis, cluster_key("view", "fetch"), {.group = "fetchers"});
    std::vector<std::string> tasks = {"a"};
    co_await fetch.push(tasks);
    nlohmann::ordered_json again = co_await view.read();
    EXPECT_EQ(again["streams"][0]["length"], 0) << "read again within fresh_for: not re-read";
    ClusterView fresh(view_options());
    nlohmann::ordered_json now = co_await fresh.read();
    EXPECT_EQ(now["streams"][0]["length"], 1);
    fetch.close();
    view.close();
    fresh.close();
    redis.close();
  }());
}

TEST_F(ClusterViewTest, ItsMetricsGiveEachComponentAndStreamUnderTheNamespace) {
  run([&]() -> Task<void> {
    RedisClient redis(server_.url());
    ComponentRegistry fetcher(redis, member(3, 30s));
    co_await fetcher.join(ComponentRole::Fetcher, [] { return ComponentReport{12, 5}; });
    ClusterView view(view_options());
    PrometheusText out;
    co_await view.prometheus(out);
    const std::string& text = out.text();
    for (const char* line : {
             "squall_cluster_up{namespace=\"view\"} 1\n",
             "squall_cluster_components{namespace=\"view\",state=\"live\"} 1\n",
             "squall_component_up{namespace=\"view\",id=\"fetcher@host-a:3\",role=\"fetcher\","
             "host=\"host-a\"} 1\n",
             "squall_component_handled_total{namespace=\"view\",id=\"fetcher@host-a:3\","
             "role=\"fetcher\",host=\"host-a\"} 12\n",
             "squall_component_lag{namespace=\"view\",id=\"fetcher@host-a:3\",role=\"fetcher\","
             "host=\"host-a\"} 5\n",
             "squall_stream_length{namespace=\"view\",stream=\"fetch\"} 0\n",
             "squall_stream_dead_letters{namespace=\"view\",stream=\"result\"} 0\n",
             "# TYPE squall_component_handled_total counter\n",
         })
      EXPECT_TRUE(contains(text, line)) << line << "\n" << text;
    co_await fetcher.leave();
    view.close();
    redis.close();
  }());
}

TEST_F(ClusterViewTest, ARedisThatCannotBeReachedIsThrownAndItsMetricsSayDown) {
  run([&]() -> Task<void> {
    ClusterView view(
        {.redis = "redis://127.0.0.1:" + std::to_string(test::free_port()) + "/0", .timeout = 2s});
    bool thrown = false;
    try {
      co_await view.read();
    } catch (const Error&) {
      thrown = true;
    }
    EXPECT_TRUE(thrown);
    PrometheusText out;
    thrown = false;
    try {
      co_await view.prometheus(out);
    } catch (const Error&) {
      thrown = true;
    }
    EXPECT_TRUE(thrown);
    EXPECT_TRUE(contains(out.text(), "squall_cluster_up{namespace=\"squall\"} 0\n")) << out.text();
    view.close();
  }());
}

TEST_F(ClusterViewTest, ABadUrlOrNamespaceIsRefusedAtOnce) {
  EXPECT_THROW(ClusterView({.redis = "http://127.0.0.1/"}), InvalidArgumentError);
  EXPECT_THROW(ClusterView({.redis = server_.url(), .ns = "a b"}), InvalidArgumentError);
}

}  // namespace
}  // namespace squall
