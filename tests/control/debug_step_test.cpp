// DebugStep: one task fetched from a local server and run through a project's callback (a C++
// Handler's, whose runtime is the Processor): what the step shows, the page's body bounded and
// cut at a character, and the requests it refuses.
#include "squall/control/debug_step.h"

#include <gtest/gtest.h>

#include <string>

#include "squall/core/error.h"
#include "squall/engine/processor.h"
#include "squall/http/server.h"
#include "support/loop_fixture.h"

namespace squall {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// /index links to /a and /b; /big is a page of 300,001 bytes of "é" after one "x"; /missing is
// a 404.
struct PageServer {
  int hits = 0;
  http::HttpServer server{
      [this](http::ServerRequest& req, http::ServerResponse& resp) { return serve(req, resp); }};
  std::string origin;

  PageServer() {
    server.listen(Address::parse("127.0.0.1:0"));
    origin = "http://127.0.0.1:" + std::to_string(server.port());
  }
  Task<void> serve(http::ServerRequest& req, http::ServerResponse& resp) {
    ++hits;
    std::string path(req.path());
    resp.headers().set("Content-Type", "text/html; charset=utf-8");
    if (path == "/index") {
      co_await resp.write("<title>index</title><a href=/a>a</a> <a href=/b>b</a>");
    } else if (path == "/big") {
      std::string body = "x";
      for (int i = 0; i < 150000; ++i) body += "\xc3\xa9";
      co_await resp.write(body);
    } else {
      resp.set_status(404);
      co_await resp.write("<title>missing</title>");
    }
  }
};

class Spider : public Handler {
 public:
  Spider() : Handler("spider") {
    callback("index", [this](Response& r) -> std::optional<json> {
      log_line("index has " + std::to_string(r.links().size()) + " links");
      for (const std::string& link : r.links()) crawl(link, {{"callback", "detail"}, {"age", 60}});
      send_message("other", json{{"seen", r.url}});
      return json{{"title", r.xpath("string(//title)").values().at(0)}};
    });
    callback("detail", [](Response&) -> std::optional<json> { return std::nullopt; });
  }
  void on_start() override { crawl("http://127.0.0.1:1/start", {{"callback", "index"}}); }
};

class DebugStepTest : public test::LoopTest {
 protected:
  // Runs one step of `request` against the page server; its JSON, and the server's hit count.
  json step(const DebugRequest& request, int* hits = nullptr,
            size_t html_limit = DebugStep::kHtmlLimit) {
    auto body = [&]() -> Task<json> {
      PageServer pages;
      Spider spider;
      Processor runtime(spider);
      Fetcher fetcher;
      DebugRequest r = request;
      if (r.url.starts_with("/")) r.url = pages.origin + r.url;
      origin_ = pages.origin;
      DebugStep s = co_await run_debug_step(runtime, fetcher, debug_task(runtime, r));
      if (hits) *hits = pages.hits;
      co_await pages.server.stop(1s);
      co_return s.to_json(html_limit);
    };
    return run(body());
  }
  std::string origin_;
};

TEST_F(DebugStepTest, AStepShowsTheFetchFollowsMessagesResultAndLogs) {
  int hits = 0;
  json s = step({.url = "/index", .callback = "index"}, &hits);
  EXPECT_EQ(hits, 1) << "the follows are not fetched";
  EXPECT_EQ(s["ok"], true) << s.dump();
  EXPECT_EQ(s["callback"], "index");
  EXPECT_EQ(s["fetch"]["status_code"], 200);
  EXPECT_EQ(s["fetch"]["url"], origin_ + "/index");
  ASSERT_EQ(s["follows"].size(), 2u) << s.dump();
  EXPECT_EQ(s["follows"][0]["url"], origin_ + "/a");
  EXPECT_EQ(s["follows"][0]["callback"], "detail");
  EXPECT_EQ(s["follows"][0]["schedule"]["age"], 60);
  EXPECT_EQ(s["follows"][1]["url"], origin_ + "/b");
  EXPECT_EQ(s["messages"],
            (json{{{"project", "other"}, {"message", {{"seen", origin_ + "/index"}}}}}));
  EXPECT_EQ(s["result"], (json{{"title", "index"}}));
  EXPECT_TRUE(s["logs"].get<std::string>().find("index has 2 links") != std::string::npos)
      << s.dump();
  EXPECT_TRUE(s["exception"].is_null());
  EXPECT_EQ(s["html"], "<title>index</title><a href=/a>a</a> <a href=/b>b</a>");
  EXPECT_EQ(s["html_truncated"], false);
}

TEST_F(DebugStepTest, TheStartTaskRunsOnStart) {
  json s = step({.url = "on_start"});
  EXPECT_EQ(s["callback"], "on_start");
  EXPECT_EQ(s["ok"], true) << s.dump();
  ASSERT_EQ(s["follows"].size(), 1u);
  EXPECT_EQ(s["follows"][0]["url"], "http://127.0.0.1:1/start");
  EXPECT_EQ(s["follows"][0]["callback"], "index");
}

TEST_F(DebugStepTest, ANon2xxPageFailsTheStepWithItsStatusAndPage) {
  json s = step({.url = "/missing", .callback = "detail"});
  EXPECT_EQ(s["fetch"]["status_code"], 404);
  EXPECT_EQ(s["ok"], false);
  EXPECT_TRUE(s["exception"].is_string()) << s.dump();
  EXPECT_EQ(s["html"], "<title>missing</title>");
}

TEST_F(DebugStepTest, ABigPageIsShownUpToTheLimitCutAtACharacter) {
  json s = step({.url = "/big", .callback = "detail"}, nullptr, 1000);
  EXPECT_EQ(s["html_length"], 300001);
  EXPECT_EQ(s["html_truncated"], true);
  // "x" and 499 "é" are 999 bytes; the 1000th byte would split the next "é".
  std::string html = s["html"];
  EXPECT_EQ(html.size(), 999u);
  EXPECT_TRUE(html.ends_with("\xc3\xa9"));
  // The default limit, 256 KiB, falls inside a character too.
  json bounded = step({.url = "/big", .callback = "detail"});
  EXPECT_EQ(bounded["html"].get<std::string>().size(), DebugStep::kHtmlLimit - 1);
  EXPECT_EQ(bounded["html_truncated"], true);
}

TEST_F(DebugStepTest, ARequestWithNoUsableUrlIsRefused) {
  Spider spider;
  Processor runtime(spider);
  EXPECT_THROW(debug_task(runtime, {.callback = "index"}), InvalidArgumentError);
  EXPECT_THROW(debug_task(runtime, {.url = "ftp://127.0.0.1/x", .callback = "index"}),
               InvalidArgumentError);
  EXPECT_THROW(debug_task(runtime, {.url = "not a url", .callback = "index"}),
               InvalidArgumentError);
  EXPECT_THROW(debug_task(runtime, {.url = "on_start", .callback = "index"}), InvalidArgumentError);
  CrawlTask start = debug_task(runtime, {.callback = "on_start"});
  EXPECT_EQ(start.callback(), "on_start");
  CrawlTask post = debug_task(runtime, {.url = "http://127.0.0.1:1/form",
                                        .callback = "detail",
                                        .fetch = {{"method", "POST"}, {"data", "a=1"}}});
  EXPECT_EQ(post.fetch["method"], "POST");
  EXPECT_EQ(post.callback(), "detail");
  EXPECT_EQ(post.project, "spider");
}

}  // namespace
}  // namespace squall
