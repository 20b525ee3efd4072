// `squall status` run as a process against a real redis-server that components and queues of a
// distributed crawl have written to: tables, JSON, namespaces, serving them with --port, and the
// errors a user meets.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "squall/core.h"
#include "squall/engine/cluster_keys.h"
#include "squall/engine/component_registry.h"
#include "squall/engine/stream_queue.h"
#include "squall/http/client.h"
#include "support/loop_fixture.h"
#include "support/redis_server.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::contains;

class StatusCommandTest : public test::LoopTest {
 protected:
  // A fetcher that heartbeats, a processor that stopped (dead), three tasks in the fetch stream
  // of which one is taken, and a poison result in the result stream's dead letters.
  void write_cluster() {
    run([&]() -> Task<void> {
      RedisClient redis(server_.url());
      {
        ComponentRegistryOptions live;
        live.ns = "shop";
        live.host = "host-a";
        live.pid = 101;
        ComponentRegistry fetcher(redis, live);
        co_await fetcher.join(ComponentRole::Fetcher, [] { return ComponentReport{42, 2}; });
        ComponentRegistryOptions short_lease = live;
        short_lease.host = "host-b";
        short_lease.pid = 202;
        short_lease.lease = 10ms;
        ComponentRegistry processor(redis, short_lease);
        co_await processor.join(ComponentRole::Processor);
      }  // both stop heartbeating; their records stay

      StreamQueueOptions fetchers;
      fetchers.group = "fetchers";
      fetchers.consumer = "fetcher@host-a:101";
      StreamQueue fetch(redis, cluster_key("shop", "fetch"), fetchers);
      std::vector<std::string> tasks = {"a", "b", "c"};
      co_await fetch.push(tasks);
      co_await fetch.take(1);

      StreamQueueOptions workers;
      workers.group = "result-workers";
      workers.consumer = "rw";
      workers.lease = 1ms;
      workers.max_deliveries = 1;
      StreamQueue results(redis, cluster_key("shop", "result"), workers);
      std::vector<std::string> poison = {"poison"};
      co_await results.push(poison);
      co_await results.take(1);
      co_await sleep(100ms);
      co_await results.take(1);
      redis.close();
    }());
  }

  test::CommandResult status(std::vector<std::string> args) {
    args.insert(args.begin(), {test::squall_binary(), "status"});
    return test::run_command(args, dir_.path());
  }

  test::RedisServer server_;
  test::TempDir dir_;
};

TEST_F(StatusCommandTest, PrintsEveryComponentAndTheDepthOfEachStream) {
  write_cluster();
  test::CommandResult r = status({"--redis", server_.url(), "--namespace", "shop"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "namespace \"shop\"")) << r.out;
  EXPECT_TRUE(contains(r.out, "Components: 1 live, 1 dead")) << r.out;
  // A row per component, in role order: fetcher, then processor.
  size_t fetcher = r.out.find("fetcher    host-a  101  live");
  size_t processor = r.out.find("processor  host-b  202  dead");
  EXPECT_NE(fetcher, std::string::npos) << r.out;
  EXPECT_NE(processor, std::string::npos) << r.out;
  EXPECT_LT(fetcher, processor);
  EXPECT_TRUE(contains(
      r.out,
      "squall:shop:fetch    scheduler  fetcher             3        1    2     0          1"))
      << r.out;
  EXPECT_TRUE(contains(
      r.out,
      "squall:shop:result   processor  result-worker       1        0    0     1          1"))
      << r.out;
}

TEST_F(StatusCommandTest, PrintsOneJsonObjectForScripts) {
  write_cluster();
  test::CommandResult r = status({"--redis", server_.url(), "--namespace", "shop", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["namespace"], "shop");
  ASSERT_EQ(j["components"].size(), 2u);
  EXPECT_EQ(j["components"][0]["id"], "fetcher@host-a:101");
  EXPECT_EQ(j["components"][0]["state"], "live");
  EXPECT_EQ(j["components"][0]["handled"], 42);
  EXPECT_EQ(j["components"][0]["alive"], true);
  EXPECT_EQ(j["components"][0]["lag"], 2);
  EXPECT_EQ(j["components"][0]["lease"], 30.0);
  EXPECT_EQ(j["components"][1]["role"], "processor");
  EXPECT_EQ(j["components"][1]["state"], "dead");
  EXPECT_GE(j["components"][1]["heartbeat_age"].get<double>(), 0.03);
  ASSERT_EQ(j["streams"].size(), 4u);
  EXPECT_EQ(j["streams"][0]["key"], "squall:shop:fetch");
  EXPECT_EQ(j["streams"][0]["group"], "fetchers");
  EXPECT_EQ(j["streams"][0]["length"], 3);
  EXPECT_EQ(j["streams"][0]["pending"], 1);
  EXPECT_EQ(j["streams"][0]["lag"], 2);
  EXPECT_EQ(j["streams"][3]["name"], "result");
  EXPECT_EQ(j["streams"][3]["dead"], 1);
}

TEST_F(StatusCommandTest, ANamespaceShowsOnlyItsOwnCrawl) {
  write_cluster();
  test::CommandResult r = status({"--redis", server_.url(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["namespace"], "squall");
  EXPECT_TRUE(j["components"].empty());
  EXPECT_EQ(j["streams"][0]["key"], "squall:squall:fetch");
  EXPECT_EQ(j["streams"][0]["length"], 0);
  test::CommandResult table = status({"--redis", server_.url()});
  EXPECT_TRUE(contains(table.out, "none has registered in this namespace")) << table.out;
}

TEST_F(StatusCommandTest, WithPortItServesTheClusterAndTheDashboardUntilStopped) {
  write_cluster();
  test::Process served = test::Process::start({test::squall_binary(), "status", "--redis",
                                               server_.url(), "--namespace", "shop", "--port", "0"},
                                              dir_.path());
  int port = test::dashboard_port(test::await_output(served, "until Ctrl-C\n"));
  ASSERT_GT(port, 0) << served.output();
  EXPECT_TRUE(contains(served.output(), "Serving the cluster in namespace \"shop\""))
      << served.output();
  std::string origin = "http://127.0.0.1:" + std::to_string(port);
  run([&]() -> Task<void> {
    http::HttpResponse cluster = co_await http::HttpClient::shared().fetch(origin + "/api/cluster");
    nlohmann::json j = nlohmann::json::parse(cluster.body);
    EXPECT_EQ(j["namespace"], "shop");
    EXPECT_EQ(j["live"], 1);
    EXPECT_EQ(j["dead"], 1);
    EXPECT_EQ(j["components"][0]["id"], "fetcher@host-a:101");
    EXPECT_EQ(j["streams"][0]["pending"], 1);
    http::HttpResponse page = co_await http::HttpClient::shared().fetch(origin + "/");
    EXPECT_TRUE(contains(page.body, "id=\"cluster\"")) << "the dashboard, with its cluster pane";
    http::HttpClient::shared().close();
  }());
  EXPECT_EQ(test::exit_status(served.stop(SIGTERM)), 0) << served.output();
}

TEST_F(StatusCommandTest, APortThatCannotBeBoundIsAUsageError) {
  test::Process holder = test::Process::start(
      {test::squall_binary(), "status", "--redis", server_.url(), "--port", "0"}, dir_.path());
  int port = test::dashboard_port(test::await_output(holder, "until Ctrl-C\n"));
  ASSERT_GT(port, 0) << holder.output();
  test::CommandResult r = status({"--redis", server_.url(), "--port", std::to_string(port)});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "squall status: ")) << r.err;
  test::CommandResult open = status({"--redis", server_.url(), "--port", "0", "--bind", "0.0.0.0"});
  EXPECT_EQ(open.status, 2);
  EXPECT_TRUE(contains(open.err, "requires --auth")) << open.err;
  holder.stop(SIGTERM);
}

TEST_F(StatusCommandTest, AnUnreachableRedisIsAClearError) {
  uint16_t nobody = test::free_port();
  test::CommandResult r =
      status({"--redis", "redis://127.0.0.1:" + std::to_string(nobody) + "/0", "--timeout", "2"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "connection refused")) << r.err;
  EXPECT_TRUE(contains(r.err, "is redis-server running there?")) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(StatusCommandTest, AWrongUrlOrNamespaceIsAUsageError) {
  test::CommandResult url = status({"--redis", "http://127.0.0.1:6379/"});
  EXPECT_EQ(url.status, 2);
  EXPECT_TRUE(contains(url.err, "redis://[[user]:password@]host[:port][/db]")) << url.err;
  test::CommandResult ns = status({"--redis", server_.url(), "--namespace", "a:b"});
  EXPECT_EQ(ns.status, 2);
  EXPECT_TRUE(contains(ns.err, "--namespace")) << ns.err;
  test::CommandResult missing = status({});
  EXPECT_EQ(missing.status, 2);
  EXPECT_TRUE(contains(missing.err, "--redis")) << missing.err;
}

class StatusCommandAuthTest : public ::testing::Test {
 protected:
  test::RedisServer server_{{"--requirepass", "right"}};
  test::TempDir dir_;
};

TEST_F(StatusCommandAuthTest, AWrongPasswordSaysToCheckIt) {
  test::CommandResult r = test::run_command(
      {test::squall_binary(), "status", "--redis", server_.url(0, "wrong")}, dir_.path());
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "check the password")) << r.err;
  test::CommandResult ok = test::run_command(
      {test::squall_binary(), "status", "--redis", server_.url(0, "right")}, dir_.path());
  EXPECT_EQ(ok.status, 0) << ok.err;
}

}  // namespace
}  // namespace squall
