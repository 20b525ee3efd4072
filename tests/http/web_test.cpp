// Tests for Application and RequestHandler, over a real server with curl and raw sockets.
#include "squall/http/web.h"

#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "http/web_peers.h"
#include "squall/core.h"
#include "squall/net/address.h"
#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall::http {
namespace {

using test::curl;
using test::Reply;

Task<std::string> service_method() {
  co_return "abc";
}

// The seed's handler: an asynchronous get that awaits a coroutine and writes its result.
struct NoBlockHandler : RequestHandler {
  Task<void> get() override { co_await write(co_await service_method()); }
};

// A handler class with several methods, a prepare() and constructor arguments.
struct ItemHandler : RequestHandler {
  explicit ItemHandler(std::string prefix) : prefix_(std::move(prefix)) {}
  Task<void> prepare() override {
    if (request().header("X-Deny")) co_await response().send_error(403);
  }
  Task<void> get() override {
    co_await write(prefix_);
    co_await write(*path_param("id"));
  }
  Task<void> del() override {
    set_status(204);
    co_return;
  }

 private:
  std::string prefix_;
};

// Everything a test's application needs that lives on the worker's loop.
struct WorkerState {
  Queue<std::string> released{1};
  int waiting = 0;
};

Application make_app(ApplicationOptions options = {}) {
  auto state = std::make_shared<WorkerState>();
  Application app(
      {
          {"/api/noblock", handler<NoBlockHandler>()},
          {"/items/{id}", handler<ItemHandler>(std::string("item "))},
          {"^/posts/(\\d+)-([a-z]+)$",
           [](Request& req, Response& resp) -> Task<void> {
             co_await resp.finish(req.path_params()[0] + "|" + req.path_params()[1]);
           }},
          {"/echo",
           [](Request& req, Response& resp) -> Task<void> {
             nlohmann::json out;
             out["method"] = req.method();
             out["q"] = req.query_argument("q").value_or("-");
             out["tags"] = req.query_arguments().get_all("tag");
             out["sid"] = req.cookie("sid").value_or("-");
             out["theme"] = req.cookie("theme").value_or("-");
             co_await resp.json(out);
           }},
          {"/json",
           [](Request& req, Response& resp) -> Task<void> {
             nlohmann::json in = co_await req.json();
             in["seen"] = true;
             co_await resp.json(in);
           },
           "POST"},
          {"/form",
           [](Request& req, Response& resp) -> Task<void> {
             co_await req.read_form();
             std::string out = "title=";
             out.append(req.form().get("title").value_or("-"));
             for (const auto& f : req.files()) {
               out.append(" file=").append(f.name).append(":").append(f.filename);
               out.append(":").append(std::to_string(f.body.size()));
             }
             co_await resp.finish(out);
           },
           "POST"},
          {"/boom",
           [](Request&, Response&) -> Task<void> {
             throw std::runtime_error("secret internals");
             co_return;
           }},
          {"/teapot",
           [](Request&, Response&) -> Task<void> {
             throw StatusError(418, "short and stout");
             co_return;
           }},
          {"/redirect",
           [](Request& req, Response& resp) -> Task<void> {
             int code = std::stoi(std::string(req.query_argument("code").value_or("302")));
             co_await resp.redirect("/target?x=1", code);
           }},
          {"/cookie",
           [](Request& req, Response& resp) -> Task<void> {
             resp.set_cookie("sid", "abc",
                             {.max_age = std::chrono::seconds(60), .http_only = true});
             try {
               resp.set_cookie("evil", std::string(req.query_argument("v").value_or("")));
             } catch (const InvalidArgumentError&) {
               resp.set_header("X-Refused", "yes");
             }
             co_await resp.finish("ok");
           }},
          {"/stream",
           [](Request&, Response& resp) -> Task<void> {
             co_await resp.write("first;");
             co_await resp.flush();
             co_await sleep(std::chrono::milliseconds(10));
             co_await resp.write("second");
           }},
          {"/wait",
           [state](Request&, Response& resp) -> Task<void> {
             ++state->waiting;
             std::string value = co_await state->released.get();
             --state->waiting;
             co_await resp.finish(value);
           }},
          {"/waiting",
           [state](Request&, Response& resp) -> Task<void> {
             co_await resp.finish(std::to_string(state->waiting));
           }},
          {"/release",
           [state](Request& req, Response& resp) -> Task<void> {
             co_await state->released.put(std::string(req.query_argument("v").value_or("")));
             co_await resp.finish("released");
           }},
      },
      std::move(options));
  return app;
}

// One worker thread serving make_app() on an ephemeral loopback port, with the access log
// collected.
class WebTest : public ::testing::Test {
 protected:
  void start(ApplicationOptions options = {}) {
    HttpServerOptions server;
    server.access_log_sink = [this](const AccessLogEntry& e) {
      std::lock_guard lock(mu_);
      std::string line(e.method);
      line.append(" ").append(e.target).append(" ").append(std::to_string(e.status));
      line.append(" ").append(std::to_string(e.bytes));
      access_.push_back(line);
    };
    workers_ = std::make_unique<HttpWorkers>(
        1, Address::parse("127.0.0.1:0"), [options] { return make_app(options).handler(); },
        server);
  }
  void TearDown() override {
    if (workers_) workers_->stop(std::chrono::seconds(5));
  }
  std::string url(std::string_view path) const {
    std::string u = "http://127.0.0.1:";
    u.append(std::to_string(workers_->port())).append(path);
    return u;
  }
  std::vector<std::string> access_lines() {
    std::lock_guard lock(mu_);
    return access_;
  }

  std::unique_ptr<HttpWorkers> workers_;
  std::mutex mu_;
  std::vector<std::string> access_;
};

TEST_F(WebTest, AnAsynchronousHandlerClassAnswersTheNoBlockRoute) {
  start();
  Reply r = curl({url("/api/noblock")});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "abc");
  EXPECT_EQ(r.header("Content-Length"), "3");
}

TEST_F(WebTest, HeadGoesToGetWithTheBodyDropped) {
  start();
  Reply r = curl({"-I", url("/api/noblock")});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("Content-Length"), "3");
  EXPECT_EQ(r.body, "");
}

TEST_F(WebTest, HandlerClassesGetPathParametersAndConstructorArguments) {
  start();
  EXPECT_EQ(curl({url("/items/a%20b")}).body, "item a b");
  EXPECT_EQ(curl({"-X", "DELETE", url("/items/7")}).status, 204);
  Reply denied = curl({"-H", "X-Deny: 1", url("/items/7")});
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body.find("item"), std::string::npos);
}

TEST_F(WebTest, UnknownPathsAre404AndUnservedMethods405WithAllow) {
  start();
  Reply missing = curl({url("/nowhere")});
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("404: Not Found"), std::string::npos);
  Reply post = curl({"-X", "POST", url("/items/1")});
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("Allow"), "GET, HEAD, DELETE");
  Reply get_json = curl({url("/json")});
  EXPECT_EQ(get_json.status, 405);
  EXPECT_EQ(get_json.header("Allow"), "POST");
}

TEST_F(WebTest, RegexRoutesPassTheirGroups) {
  start();
  EXPECT_EQ(curl({url("/posts/12-hello")}).body, "12|hello");
  EXPECT_EQ(curl({url("/posts/x-hello")}).status, 404);
}

TEST_F(WebTest, QueryArgumentsAndCookiesAreDecoded) {
  start();
  Reply r = curl({"--cookie", "sid=s%201; theme=\"dark\"",
                  url("/echo?q=hello+world%21&tag=a&tag=b&tag=%C3%A9")});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("Content-Type"), "application/json");
  auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["q"], "hello world!");
  EXPECT_EQ(j["tags"], (nlohmann::json{"a", "b", "\xc3\xa9"}));
  EXPECT_EQ(j["sid"], "s%201");
  EXPECT_EQ(j["theme"], "dark");
}

TEST_F(WebTest, JsonBodiesRoundTripAndMalformedOnesAre400) {
  start();
  Reply ok =
      curl({"-H", "Content-Type: application/json", "--data", R"({"n": [1, 2]})", url("/json")});
  ASSERT_EQ(ok.status, 200);
  EXPECT_EQ(nlohmann::json::parse(ok.body), (nlohmann::json{{"n", {1, 2}}, {"seen", true}}));
  EXPECT_EQ(curl({"--data", "{not json", url("/json")}).status, 400);
}

TEST_F(WebTest, UrlencodedAndMultipartFormsIncludingUploads) {
  start();
  EXPECT_EQ(curl({"--data", "title=Hello+there&x=1", url("/form")}).body, "title=Hello there");
  test::TempDir dir;
  auto file = dir.write("upload.bin", std::string(100000, 'u'));
  Reply r = curl({"-F", "title=Multi part", "-F", test::cat("doc=@", file.string()), url("/form")});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "title=Multi part file=doc:upload.bin:100000");
}

TEST_F(WebTest, AThrowingHandlerIsA500WithALogLineAndNoDetailsOutsideDebug) {
  start();
  test::LogCapture logs;
  Reply r = curl({url("/boom")});
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body.find("secret internals"), std::string::npos);
  EXPECT_TRUE(logs.contains("500 GET /boom: secret internals"));
}

TEST_F(WebTest, DebugModeShowsTheExceptionInThePage) {
  start({.debug = true});
  test::LogCapture logs;
  Reply r = curl({url("/boom")});
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("secret internals"), std::string::npos);
}

TEST_F(WebTest, StatusErrorsAnswerTheirStatus) {
  start();
  test::LogCapture logs;
  Reply r = curl({url("/teapot")});
  EXPECT_EQ(r.status, 418);
  EXPECT_EQ(r.body.find("short and stout"), std::string::npos);
  EXPECT_TRUE(logs.contains("418 GET /teapot: short and stout"));
}

TEST_F(WebTest, RedirectsWithEachPermittedStatus) {
  start();
  for (int code : {301, 302, 303, 307, 308}) {
    Reply r = curl({url(test::cat("/redirect?code=", std::to_string(code)))});
    EXPECT_EQ(r.status, code);
    EXPECT_EQ(r.header("Location"), "/target?x=1");
  }
  test::LogCapture logs;
  EXPECT_EQ(curl({url("/redirect?code=200")}).status, 500);
}

TEST_F(WebTest, CookiesAreSetWithAttributesAndInjectionIsRefused) {
  start();
  Reply ok = curl({url("/cookie?v=fine")});
  EXPECT_EQ(ok.headers.get_all("Set-Cookie"),
            (std::vector<std::string_view>{"sid=abc; Path=/; Max-Age=60; HttpOnly",
                                           "evil=fine; Path=/"}));
  Reply bad = curl({url("/cookie?v=x%0D%0ASet-Cookie:%20admin=1")});
  EXPECT_EQ(bad.status, 200);
  EXPECT_EQ(bad.header("X-Refused"), "yes");
  EXPECT_EQ(bad.headers.get_all("Set-Cookie").size(), 1u);
}

TEST_F(WebTest, FlushedResponsesStreamChunked) {
  start();
  Reply r = curl({"--raw", url("/stream")});
  EXPECT_EQ(r.header("Transfer-Encoding"), "chunked");
  EXPECT_NE(r.body.find("first;"), std::string::npos);
  EXPECT_NE(r.body.find("second"), std::string::npos);
  EXPECT_EQ(curl({url("/stream")}).body, "first;second");
}

TEST_F(WebTest, AWaitingHandlerDoesNotHoldUpOtherConnections) {
  start();
  // /wait parks on a queue that only /release fills: with one worker, /release can only be
  // answered if the waiting handler leaves the loop free.
  test::Process parked = test::Process::start({"curl", "-sS", "--max-time", "20", url("/wait")});
  // Each poll is answered while /wait is parked: that is the point.
  std::string waiting;
  for (int i = 0; i < 500 && waiting != "1"; ++i) {
    waiting = curl({url("/waiting")}).body;
    if (waiting != "1") std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(waiting, "1");
  EXPECT_EQ(curl({url("/api/noblock")}).body, "abc");
  EXPECT_EQ(curl({url("/release?v=done")}).body, "released");
  EXPECT_EQ(parked.wait(std::chrono::seconds(25)), 0);
  EXPECT_EQ(parked.output(), "done");
}

TEST_F(WebTest, EveryRequestGetsOneAccessLogEntry) {
  start();
  (void)curl({url("/api/noblock")});
  (void)curl({url("/nowhere?x=1")});
  // The entry is made after the response leaves: give it a moment on the worker.
  for (int i = 0; i < 200 && access_lines().size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto lines = access_lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "GET /api/noblock 200 3");
  EXPECT_EQ(lines[1].substr(0, 21), "GET /nowhere?x=1 404 ");
  EXPECT_GT(lines[1].size(), 21u);
}

TEST(Application, RefusesConflictingOrMalformedRoutes) {
  Application app;
  app.add("GET", "/a", [](Request&, Response&) -> Task<void> { co_return; });
  EXPECT_THROW(app.add("GET", "/a", [](Request&, Response&) -> Task<void> { co_return; }),
               InvalidArgumentError);
  EXPECT_THROW(app.add(Route{"/a", handler<NoBlockHandler>()}), InvalidArgumentError);
  EXPECT_THROW(app.add("BREW", "/b", [](Request&, Response&) -> Task<void> { co_return; }),
               InvalidArgumentError);
  EXPECT_THROW(app.add(Route{"/c/{", handler<NoBlockHandler>()}), InvalidArgumentError);
  EXPECT_THROW(app.add(Route{"^/(", handler<NoBlockHandler>()}), InvalidArgumentError);
}

TEST(Application, ListenServesOnTheCurrentLoop) {
  Loop loop;
  Application app({{"/api/noblock", handler<NoBlockHandler>()}});
  uint16_t port = app.listen(0).port();
  std::string got;
  auto exchange = [](Loop& loop, Application& app, uint16_t port, std::string& got) -> Task<void> {
    // The client runs on a thread, since raw_exchange blocks; it wakes the loop when done.
    Event done;
    Loop::KeepAlive keep(loop);
    std::thread client([&] {
      got = test::raw_exchange(port,
                               "GET /api/noblock HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      loop.call_soon_threadsafe([&] { done.set(); });
    });
    co_await done.wait();
    client.join();
    co_await app.stop();
  };
  run_sync(exchange(loop, app, port, got), std::chrono::seconds(30));
  EXPECT_NE(got.find("\r\n\r\nabc"), std::string::npos) << got;
}

}  // namespace
}  // namespace squall::http
