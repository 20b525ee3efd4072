// A component process given --port (`squall fetcher --port 0`) serves its cluster's control
// routes while it runs, against a real redis-server, and stops serving when it ends.
#include "squall/cli/component_command.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "squall/http/client.h"
#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using test::contains;

class ComponentCommandTest : public test::LoopTest {
 protected:
  test::RedisServer server_;
  test::TempDir dir_;
};

TEST_F(ComponentCommandTest, AFetcherGivenPortServesItsClusterWhileItRuns) {
  test::Process fetcher =
      test::Process::start({test::squall_binary(), "fetcher", "--redis", server_.url(),
                            "--namespace", "crawl2", "--keep-running", "--port", "0"},
                           dir_.path());
  // The line's end may come in a later read than its start.
  int port = test::dashboard_port(test::await_output(fetcher, "Dashboard: "));
  for (int i = 0; i < 100 && port == 0 && fetcher.running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    port = test::dashboard_port(fetcher.output());
  }
  ASSERT_GT(port, 0) << fetcher.output();
  std::string origin = "http://127.0.0.1:" + std::to_string(port);
  run([&]() -> Task<void> {
    // The fetcher registers once it has started: the view lists it when it has.
    nlohmann::json j;
    for (int i = 0; i < 100; ++i) {
      http::HttpResponse r = co_await http::HttpClient::shared().fetch(origin + "/api/cluster");
      j = nlohmann::json::parse(r.body);
      if (!j["components"].empty()) break;
      co_await sleep(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(j["namespace"], "crawl2");
    EXPECT_EQ(j["components"].size(), 1u) << j.dump();
    if (!j["components"].empty()) {
      EXPECT_EQ(j["components"][0]["role"], "fetcher");
      EXPECT_EQ(j["components"][0]["pid"], fetcher.pid());
      EXPECT_EQ(j["components"][0]["alive"], true);
    }
    http::HttpClient::shared().close();
  }());
  EXPECT_EQ(test::exit_status(fetcher.stop(SIGTERM)), 130) << fetcher.output();
  EXPECT_TRUE(contains(fetcher.output(), "squall fetcher: stopped")) << fetcher.output();
}

TEST_F(ComponentCommandTest, APortBeyondLoopbackWithoutAuthIsAUsageError) {
  test::CommandResult r = test::run_command({test::squall_binary(), "fetcher", "--redis",
                                             server_.url(), "--port", "0", "--bind", "0.0.0.0"},
                                            dir_.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "requires --auth")) << r.err;
}

}  // namespace
}  // namespace squall
