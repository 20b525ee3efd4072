// ControlServer: every route driven by real HTTP requests against a running engine, with a
// project fetching from a local site, bad inputs and Basic auth; /metrics read back by
// Prometheus's own text parser (python3-prometheus-client); and a server without an engine
// watching a cluster in a real redis-server.
#include "squall/control/control_server.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "squall/control/prometheus.h"
#include "squall/engine/component_registry.h"
#include "squall/engine/engine.h"
#include "squall/http/client.h"
#include "squall/http/server.h"
#include "squall/http/websocket_client.h"
#include "squall/url/base64.h"
#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// A chain of pages: /p/N links to /p/N+1 up to /p/<last>, and to /missing (a 404).
struct ChainSite {
  int last = 30;
  int hits = 0;
  http::HttpServer server{
      [this](http::ServerRequest& req, http::ServerResponse& resp) { return serve(req, resp); }};
  std::string origin;

  ChainSite() {
    server.listen(Address::parse("127.0.0.1:0"));
    origin = "http://127.0.0.1:" + std::to_string(server.port());
  }
  Task<void> serve(http::ServerRequest& req, http::ServerResponse& resp) {
    ++hits;
    std::string path(req.path());
    if (!path.starts_with("/p/")) {
      resp.set_status(404);
      co_return;
    }
    int n = std::stoi(path.substr(3));
    std::string body = "<title>page " + std::to_string(n) + "</title><a href=/missing>m</a>";
    if (n < last) body += "<a href=/p/" + std::to_string(n + 1) + ">next</a>";
    resp.headers().set("Content-Type", "text/html");
    co_await resp.write(body);
  }
};

// Follows the chain; a result per page, {"title", "n"}.
class ChainSpider : public Handler {
 public:
  explicit ChainSpider(std::string origin) : Handler("chain"), origin_(std::move(origin)) {
    retry_delay = RetryDelays({}, 0);
    callback("page", [this](Response& r) -> std::optional<json> {
      for (const std::string& link : r.links()) crawl(link, {{"callback", "page"}, {"retries", 0}});
      std::string title = r.xpath("string(//title)").values().at(0);
      return json{{"title", title}, {"comma, \"quoted\"", "x,y"}};
    });
  }
  void on_start() override { crawl(origin_ + "/p/0", {{"callback", "page"}, {"retries", 0}}); }

 private:
  std::string origin_;
};

struct Reply {
  int code = 0;
  std::string body;
  http::Headers headers;
  json value() const { return json::parse(body); }
};

class ControlServerTest : public test::LoopTest {
 protected:
  EngineOptions engine_options() {
    EngineOptions o;
    o.store = dir_.path() / "engine.db";
    o.commit_interval = 0.05;
    o.exit_when_done = false;
    o.concurrency = 2;
    o.hosts.obey_robots = true;  // the chain site's /robots.txt is a 404: everything allowed
    return o;
  }

  Task<Reply> call(std::string method, std::string path, std::string body = {},
                   std::string content_type = "application/json",
                   std::optional<std::string> auth = std::nullopt) {
    http::HttpRequest req;
    req.url = base_ + path.substr(1);
    req.method = method;
    if (!body.empty() || method == "POST" || method == "PATCH") {
      req.body = body;
      req.headers.set("Content-Type", content_type);
    }
    if (auth) req.headers.set("Authorization", "Basic " + base64_encode(*auth));
    req.raise_error = false;
    req.decompress_response = true;
    http::HttpResponse r = co_await http::HttpClient::shared().fetch(std::move(req));
    co_return Reply{r.code, r.body, r.headers};
  }

  // Runs `body` with an engine over the chain site and a control server on it, both started.
  void with_engine(std::function<Task<void>(Engine&, ChainSite&, ControlServer&)> body,
                   ControlOptions control_options = {}, int last_page = 30, double host_delay = 0) {
    auto main = [&]() -> Task<void> {
      ChainSite site;
      site.last = last_page;
      ChainSpider spider(site.origin);
      EngineOptions o = engine_options();
      o.hosts.delay = host_delay;
      Engine engine(o);
      engine.add_project(spider);
      ControlServer control(engine, control_options);
      control.start();
      base_ = control.url();
      TaskHandle<EngineSummary> running = spawn(engine.run());
      while (!engine.scheduler()) co_await sleep(1ms);
      std::exception_ptr failed;
      try {
        co_await body(engine, site, control);
      } catch (...) {
        failed = std::current_exception();
      }
      engine.stop();
      co_await running.join();
      co_await control.stop();
      http::HttpClient::shared().close();
      co_await site.server.stop(1s);
      if (failed) std::rethrow_exception(failed);
    };
    run(main(), 60s);
  }

  // Waits (bounded) until the chain project has nothing pending and `success` tasks done: by
  // default its on_start, its 31 pages and its on_finished.
  static Task<void> until_done(Engine& engine, int success = 33) {
    for (int i = 0; i < 3000; ++i) {
      json all = engine.scheduler()->counters("chain")["all"];
      if (all["pending"] == 0 && all["success"].get<int>() >= success && engine.in_flight() == 0)
        co_return;
      co_await sleep(10ms);
    }
    ADD_FAILURE() << "the project did not finish: " << engine.scheduler()->counters("chain");
  }

  test::TempDir dir_;
  std::string base_;
};

TEST_F(ControlServerTest, ProjectsCountersAndQueuesDescribeTheRunningProject) {
  with_engine([&](Engine& engine, ChainSite&, ControlServer& control) -> Task<void> {
    EXPECT_EQ(control.url(), "http://127.0.0.1:" + std::to_string(control.port()) + "/");
    co_await until_done(engine);
    Reply projects = co_await call("GET", "/api/projects");
    EXPECT_EQ(projects.code, 200) << projects.body;
    json p = projects.value()["projects"].at(0);
    EXPECT_EQ(p["name"], "chain");
    EXPECT_EQ(p["status"], "RUNNING");
    EXPECT_TRUE(p["rate"].is_null());  // no limit
    // on_start, /p/0../p/30, on_finished and /missing: 34 tasks; /missing failed (a 404, no
    // retries).
    EXPECT_EQ(p["counters"]["all"]["success"], 33) << p.dump();
    EXPECT_EQ(p["counters"]["all"]["failed"], 1) << p.dump();
    Reply counters = co_await call("GET", "/api/counters");
    EXPECT_EQ(counters.code, 200);
    json c = counters.value()["chain"];
    for (const char* window : {"5m", "1h", "1d", "all"})
      for (const char* kind : {"pending", "success", "retry", "failed"})
        EXPECT_TRUE(c[window][kind].is_number()) << window << " " << kind << " " << c.dump();
    EXPECT_GE(c["5m"]["success"], 32);
    Reply queues = co_await call("GET", "/api/queues");
    EXPECT_EQ(queues.code, 200);
    json q = queues.value();
    EXPECT_EQ(q["scheduler"]["chain"]["ready"], 0);
    EXPECT_EQ(q["fetcher"]["fetching"], 0);
    EXPECT_EQ(q["processor"]["queued"], 0);
    EXPECT_EQ(q["in_flight"], 0);
    Reply hosts = co_await call("GET", "/api/hosts");
    json h = hosts.value()["hosts"].at(0);
    EXPECT_EQ(h["fetches"], 32);  // 31 pages and /missing
    EXPECT_EQ(h["errors"], 1);
    EXPECT_EQ(h["in_flight"], 0);
    EXPECT_EQ(h["queued"], 0);
    EXPECT_EQ(h["robots"], "known");
    Reply errors = co_await call("GET", "/api/errors");
    json e = errors.value()["errors"].at(0);
    EXPECT_EQ(e["status_code"], 404);
    EXPECT_EQ(e["taskid"], default_taskid(e["url"].get<std::string>()));
  });
}

TEST_F(ControlServerTest, ProjectsArePagedInNameOrderWithACursor) {
  auto main = [&]() -> Task<void> {
    EngineOptions o = engine_options();
    Engine engine(o);
    std::vector<std::unique_ptr<Handler>> idle;
    for (const char* name : {"delta", "alpha", "echo", "charlie", "bravo"}) {
      idle.push_back(std::make_unique<Handler>(name));
      engine.add_project(*idle.back());
    }
    ControlServer control(engine);
    control.start();
    base_ = control.url();
    TaskHandle<EngineSummary> running = spawn(engine.run());
    while (!engine.scheduler()) co_await sleep(1ms);
    std::vector<std::string> names;
    std::vector<json> cursors;
    for (std::string after;;) {
      Reply page = co_await call("GET", "/api/projects?limit=2&after=" + after);
      EXPECT_EQ(page.code, 200) << page.body;
      json v = page.value();
      EXPECT_LE(v["projects"].size(), 2u);
      for (const json& p : v["projects"]) {
        names.push_back(p["name"]);
        EXPECT_TRUE(p["counters"]["all"].is_object()) << p.dump();
        EXPECT_TRUE(p["callbacks"].is_null()) << "a C++ Handler has no script to step";
      }
      cursors.push_back(v["next"]);
      if (!v["next"].is_string() || cursors.size() > 5) break;
      after = v["next"].get<std::string>();
    }
    EXPECT_EQ(names, (std::vector<std::string>{"alpha", "bravo", "charlie", "delta", "echo"}));
    EXPECT_EQ(cursors, (std::vector<json>{"bravo", "delta", nullptr}));
    Reply all = co_await call("GET", "/api/projects");
    EXPECT_EQ(all.value()["projects"].size(), 5u);
    EXPECT_TRUE(all.value()["next"].is_null());
    // A cursor is a name: the page after it, whether or not a project has it.
    Reply from_b = co_await call("GET", "/api/projects?after=b&limit=1");
    EXPECT_EQ(from_b.value()["projects"].at(0)["name"], "bravo");
    EXPECT_EQ(from_b.value()["next"], "bravo");
    Reply past = co_await call("GET", "/api/projects?after=zulu");
    EXPECT_EQ(past.value()["projects"].size(), 0u);
    EXPECT_TRUE(past.value()["next"].is_null());
    Reply zero = co_await call("GET", "/api/projects?limit=0");
    EXPECT_EQ(zero.code, 400);
    EXPECT_TRUE(test::contains(zero.body, "limit= must be a whole number from 1 to 1000"))
        << zero.body;
    engine.stop();
    co_await running.join();
    co_await control.stop();
    http::HttpClient::shared().close();
  };
  run(main(), 60s);
}

TEST_F(ControlServerTest, TasksArePagedFilteredByStatusAndSearchAndShownWithTheirTrack) {
  with_engine([&](Engine& engine, ChainSite& site, ControlServer&) -> Task<void> {
    co_await until_done(engine);
    std::set<std::string> seen;
    std::string after;
    int pages = 0;
    do {
      Reply r = co_await call("GET", "/api/tasks?project=chain&limit=10&after=" + after);
      EXPECT_EQ(r.code, 200) << r.body;
      json page = r.value();
      for (const json& t : page["tasks"]) EXPECT_TRUE(seen.insert(t["taskid"]).second);
      after = page["next"].is_string() ? page["next"].get<std::string>() : "";
      ++pages;
    } while (!after.empty() && pages < 10);
    EXPECT_EQ(seen.size(), 34u);  // on_start, 31 pages, /missing, on_finished
    EXPECT_EQ(pages, 4);

    Reply failed = co_await call("GET", "/api/tasks?status=failed");
    json f = failed.value()["tasks"];
    if (f.size() != 1) {
      ADD_FAILURE() << failed.body;
      co_return;
    }
    EXPECT_EQ(f[0]["url"], site.origin + "/missing");
    EXPECT_EQ(f[0]["status_code"], 404);
    Reply search = co_await call("GET", "/api/tasks?search=/p/1");  // /p/1 and /p/10.. /p/19
    EXPECT_EQ(search.value()["tasks"].size(), 11u) << search.body;

    std::string id = default_taskid(site.origin + "/p/3");
    Reply one = co_await call("GET", "/api/tasks/" + id + "?project=chain");
    EXPECT_EQ(one.code, 200);
    json t = one.value();
    EXPECT_EQ(t["url"], site.origin + "/p/3");
    EXPECT_EQ(t["status"], "success");
    EXPECT_EQ(t["track"]["fetch"]["status_code"], 200) << t.dump();
    EXPECT_TRUE(t["track"].contains("process")) << t.dump();
  });
}

TEST_F(ControlServerTest, ResultsArePagedAndDumpedAsJsonJsonLinesAndCsv) {
  with_engine([&](Engine& engine, ChainSite&, ControlServer&) -> Task<void> {
    co_await until_done(engine);
    co_await engine.scheduler()->commit();
    Reply first = co_await call("GET", "/api/results?limit=20");
    EXPECT_EQ(first.code, 200) << first.body;
    json page = first.value();
    EXPECT_EQ(page["results"].size(), 20u);
    if (!page["next"].is_string()) {
      ADD_FAILURE() << first.body;
      co_return;
    }
    std::string next = page["next"].get<std::string>();
    Reply second = co_await call("GET", "/api/results?limit=20&after=" + next);
    EXPECT_EQ(second.value()["results"].size(), 11u);
    EXPECT_TRUE(second.value()["next"].is_null()) << second.body;
    Reply found = co_await call("GET", "/api/results?search=/p/30");
    if (found.value()["results"].size() != 1) {
      ADD_FAILURE() << found.body;
      co_return;
    }
    EXPECT_EQ(found.value()["results"][0]["result"]["title"], "page 30");

    Reply dump = co_await call("GET", "/api/results/dump/chain.json");
    EXPECT_EQ(dump.code, 200);
    EXPECT_EQ(dump.headers.get("Content-Type").value_or(""), "application/json");
    json all = json::parse(dump.body);
    EXPECT_EQ(all.size(), 31u);
    EXPECT_EQ(all[0]["result"]["title"], "page 0");

    Reply lines = co_await call("GET", "/api/results/dump/chain.jsonl");
    std::istringstream in(lines.body);
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) {
      EXPECT_TRUE(json::parse(line).contains("taskid"));
      ++n;
    }
    EXPECT_EQ(n, 31u);

    Reply csv = co_await call("GET", "/api/results/dump/chain.csv");
    EXPECT_EQ(csv.code, 200);
    // Python's csv module reads it back: a header and a row per result, quoting kept.
    test::TempDir tmp;
    std::filesystem::path file = tmp.write("dump.csv", csv.body);
    test::CommandResult r = test::run_command(
        {"/usr/bin/python3", "-c",
         "import csv,sys,json\n"
         "rows=list(csv.DictReader(open(sys.argv[1],newline='')))\n"
         "print(len(rows)); print(rows[0]['title']); print(rows[0]['comma, \"quoted\"'])",
         file.string()},
        tmp.path());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "31\npage 0\nx,y\n");

    Reply unknown = co_await call("GET", "/api/results/dump/nope.json");
    EXPECT_EQ(unknown.code, 404);
    Reply format = co_await call("GET", "/api/results/dump/chain.xml");
    EXPECT_EQ(format.code, 404);
  });
}

TEST_F(ControlServerTest, PostedTasksRunAndABadOneIsRefusedWithTheReason) {
  with_engine([&](Engine& engine, ChainSite& site, ControlServer&) -> Task<void> {
    co_await until_done(engine);
    json task = {
        {"url", site.origin + "/p/100"}, {"project", "chain"}, {"process", {{"callback", "page"}}}};
    Reply added = co_await call("POST", "/api/tasks", task.dump());
    EXPECT_EQ(added.code, 200) << added.body;
    EXPECT_EQ(added.value()["inserted"], 1);
    co_await until_done(engine, 34);
    Reply one = co_await call("GET", "/api/tasks/" + default_taskid(site.origin + "/p/100"));
    EXPECT_EQ(one.value()["status"], "success") << one.body;

    Reply malformed = co_await call("POST", "/api/tasks", "{\"url\": ");
    EXPECT_EQ(malformed.code, 400);
    EXPECT_NE(malformed.value()["error"].get<std::string>().find("not valid JSON"),
              std::string::npos);
    Reply no_url = co_await call("POST", "/api/tasks", R"({"project": "chain"})");
    EXPECT_EQ(no_url.code, 400);
    EXPECT_NE(no_url.body.find("url"), std::string::npos) << no_url.body;
    Reply unknown =
        co_await call("POST", "/api/tasks", R"([{"url": "http://x/", "project": "nope"}])");
    EXPECT_EQ(unknown.code, 404) << unknown.body;
    Reply empty = co_await call("POST", "/api/tasks", "[]");
    EXPECT_EQ(empty.code, 400);
  });
}

TEST_F(ControlServerTest, FetchReturnsTheResultOfATaskOrACurlCommandLine) {
  with_engine([&](Engine&, ChainSite& site, ControlServer&) -> Task<void> {
    json task = {{"url", site.origin + "/p/2"}, {"fetch", {{"headers", {{"X-Probe", "1"}}}}}};
    Reply r = co_await call("POST", "/api/fetch", task.dump());
    EXPECT_EQ(r.code, 200) << r.body;
    json result = r.value();
    EXPECT_EQ(result["status_code"], 200);
    EXPECT_EQ(result["url"], site.origin + "/p/2");
    EXPECT_NE(result["content"].get<std::string>().find("page 2"), std::string::npos);
    EXPECT_EQ(result["ok"], true);

    Reply curl =
        co_await call("POST", "/api/fetch",
                      "curl -H 'Accept: text/html' " + site.origin + "/missing", "text/plain");
    EXPECT_EQ(curl.code, 200) << curl.body;
    EXPECT_EQ(curl.value()["status_code"], 404);
    EXPECT_EQ(curl.value()["ok"], false);
    json wrapped = {{"curl", "curl -X HEAD " + site.origin + "/p/1"}};
    Reply head = co_await call("POST", "/api/fetch", wrapped.dump());
    EXPECT_EQ(head.value()["status_code"], 200) << head.body;

    Reply bad_flag =
        co_await call("POST", "/api/fetch", "curl --frobnicate http://x/", "text/plain");
    EXPECT_EQ(bad_flag.code, 400);
    EXPECT_NE(bad_flag.body.find("--frobnicate"), std::string::npos);
    Reply no_url = co_await call("POST", "/api/fetch", R"({"fetch": {}})");
    EXPECT_EQ(no_url.code, 400);
    Reply bad_fetch = co_await call("POST", "/api/fetch", R"({"url": "http://x/", "fetch": 3})");
    EXPECT_EQ(bad_fetch.code, 400);
  });
}

TEST_F(ControlServerTest, PausingAProjectStopsItsFetchesAtOnceAndRunningResumesThem) {
  // 200 pages at most 50 a second: the pause comes while most are still to fetch.
  with_engine(
      [&](Engine& engine, ChainSite& site, ControlServer&) -> Task<void> {
        while (site.hits < 5) co_await sleep(5ms);
        Reply paused = co_await call("PATCH", "/api/projects/chain", R"({"status": "STOP"})");
        EXPECT_EQ(paused.code, 200) << paused.body;
        EXPECT_EQ(paused.value()["status"], "STOP");
        // What was in flight ends; then nothing more is fetched.
        for (int i = 0; i < 500 && engine.in_flight() > 0; ++i) co_await sleep(5ms);
        int hits = site.hits;
        co_await sleep(300ms);
        EXPECT_EQ(site.hits, hits);
        EXPECT_LT(hits, 150);
        json all = engine.scheduler()->counters("chain")["all"];
        EXPECT_GT(all["pending"].get<int>(), 0);

        Reply rate = co_await call("PATCH", "/api/projects/chain",
                                   R"({"status": "running", "rate": 1000, "burst": 50})");
        EXPECT_EQ(rate.code, 200) << rate.body;
        EXPECT_EQ(rate.value()["rate"], 1000);
        EXPECT_EQ(rate.value()["burst"], 50);
        co_await until_done(engine, 203);
        EXPECT_GT(site.hits, hits);

        Reply unknown = co_await call("PATCH", "/api/projects/nope", R"({"status": "STOP"})");
        EXPECT_EQ(unknown.code, 404);
        Reply bad_status = co_await call("PATCH", "/api/projects/chain", R"({"status": "PAUSED"})");
        EXPECT_EQ(bad_status.code, 400);
        Reply bad_rate = co_await call("PATCH", "/api/projects/chain", R"({"rate": -1})");
        EXPECT_EQ(bad_rate.code, 400);
        Reply bad_field = co_await call("PATCH", "/api/projects/chain", R"({"speed": 1})");
        EXPECT_EQ(bad_field.code, 400);
        EXPECT_NE(bad_field.body.find("speed"), std::string::npos);
      },
      {}, 200, 0.02);
}

TEST_F(ControlServerTest, AnUnknownTaskOrRouteIs404AndABadArgument400) {
  with_engine([&](Engine&, ChainSite&, ControlServer&) -> Task<void> {
    Reply task = co_await call("GET", "/api/tasks/0123?project=chain");
    EXPECT_EQ(task.code, 404);
    EXPECT_EQ(task.value()["error"], "no task '0123' in project 'chain'");
    Reply project = co_await call("GET", "/api/tasks?project=nope");
    EXPECT_EQ(project.code, 404);
    Reply route = co_await call("GET", "/api/nothing");
    EXPECT_EQ(route.code, 404);
    Reply limit = co_await call("GET", "/api/tasks?limit=0");
    EXPECT_EQ(limit.code, 400);
    Reply big = co_await call("GET", "/api/results?limit=5000");
    EXPECT_EQ(big.code, 400);
    Reply status = co_await call("GET", "/api/tasks?status=sleeping");
    EXPECT_EQ(status.code, 400);
    Reply after = co_await call("GET", "/api/tasks?after=x");
    EXPECT_EQ(after.code, 400);
  });
}

TEST_F(ControlServerTest, WithAuthEveryRouteAsksForBasicCredentials) {
  with_engine(
      [&](Engine&, ChainSite&, ControlServer&) -> Task<void> {
        for (const char* path : {"/api/projects", "/metrics", "/", "/api/nothing"}) {
          Reply none = co_await call("GET", path);
          EXPECT_EQ(none.code, 401) << path;
          EXPECT_EQ(none.headers.get("WWW-Authenticate").value_or(""),
                    "Basic realm=\"squall\", charset=\"UTF-8\"");
          Reply wrong = co_await call("GET", path, {}, {}, "admin:nope");
          EXPECT_EQ(wrong.code, 401) << path;
        }
        Reply right = co_await call("GET", "/api/projects", {}, {}, "admin:s3cret");
        EXPECT_EQ(right.code, 200);
        Reply fetch = co_await call("POST", "/api/fetch", "{}", "application/json");
        EXPECT_EQ(fetch.code, 401);
      },
      {.auth = "admin:s3cret"});
}

TEST_F(ControlServerTest, AnAddressBeyondLoopbackNeedsAuth) {
  Engine engine(engine_options());
  EXPECT_THROW(ControlServer(engine, {.bind = "0.0.0.0"}), InvalidArgumentError);
  EXPECT_THROW(ControlServer(engine, {.auth = "nocolon"}), InvalidArgumentError);
  EXPECT_NO_THROW(ControlServer(engine, {.bind = "0.0.0.0", .auth = "a:b"}));
  EXPECT_NO_THROW(ControlServer(engine, {.bind = "::1"}));
}

TEST_F(ControlServerTest, TheLiveFeedSendsASnapshotEverySecondWhileOpen) {
  with_engine([&](Engine& engine, ChainSite&, ControlServer& control) -> Task<void> {
    co_await until_done(engine);
    std::string url = "ws://127.0.0.1:" + std::to_string(control.port()) + "/api/live";
    http::WebSocket ws = co_await http::websocket_connect(url);
    for (int i = 0; i < 2; ++i) {
      std::optional<http::WsMessage> m = co_await ws.read_message();
      EXPECT_TRUE(m);
      if (!m) break;
      json s = json::parse(m->data);
      EXPECT_EQ(s["pages"], 32);
      EXPECT_TRUE(s["pages_per_second"].is_number());
      EXPECT_EQ(s["projects"][0]["name"], "chain");
      EXPECT_TRUE(s["queues"].contains("fetcher"));
    }
    co_await ws.close();
    Reply page = co_await call("GET", "/");
    EXPECT_EQ(page.code, 200);
    EXPECT_EQ(page.headers.get("Content-Type").value_or(""), "text/html; charset=utf-8");
    EXPECT_NE(page.body.find("/api/live"), std::string::npos);
    EXPECT_EQ(page.body.find("http://"), std::string::npos);  // nothing from elsewhere
    EXPECT_EQ(page.body.find("https://"), std::string::npos);
  });
}

TEST_F(ControlServerTest, MetricsParseWithPrometheusOwnParserAndCountThePages) {
  with_engine([&](Engine& engine, ChainSite&, ControlServer&) -> Task<void> {
    co_await until_done(engine);
    Reply metrics = co_await call("GET", "/metrics");
    EXPECT_EQ(metrics.code, 200);
    EXPECT_EQ(metrics.headers.get("Content-Type").value_or(""), PrometheusText::kContentType);
    test::TempDir tmp;
    std::filesystem::path file = tmp.write("metrics.txt", metrics.body);
    // Every sample, as "name{sorted labels} value", from the parser we did not write.
    test::CommandResult r =
        test::run_command({"/usr/bin/python3", "-c",
                           "import sys\n"
                           "from prometheus_client.parser import text_string_to_metric_families\n"
                           "for f in text_string_to_metric_families(open(sys.argv[1]).read()):\n"
                           "  for s in f.samples:\n"
                           "    labels=','.join(k+'='+v for k,v in sorted(s.labels.items()))\n"
                           "    print(f.type, s.name+'{'+labels+'}', s.value)\n",
                           file.string()},
                          tmp.path());
    if (r.status != 0) {
      ADD_FAILURE() << r.err << metrics.body;
      co_return;
    }
    auto has = [&](const std::string& line) {
      EXPECT_NE(r.out.find(line + "\n"), std::string::npos) << line << "\n" << r.out;
    };
    has("counter squall_pages_fetched_total{class=2xx,project=chain} 31.0");
    has("counter squall_pages_fetched_total{class=4xx,project=chain} 1.0");
    has("histogram squall_fetch_duration_seconds_count{project=chain} 32.0");
    has("histogram squall_fetch_duration_seconds_bucket{le=+Inf,project=chain} 32.0");
    has("gauge squall_tasks{project=chain,state=success} 33.0");
    has("gauge squall_tasks{project=chain,state=failed} 1.0");
    has("gauge squall_queue_depth{queue=fetching} 0.0");
    has("gauge squall_queue_depth{project=chain,queue=ready} 0.0");
    has("counter squall_robots_txt_fetches_total{} 1.0");
    has("counter squall_robots_txt_cache_hits_total{} 32.0");
    EXPECT_NE(r.out.find("histogram squall_event_loop_lag_seconds_count{} "), std::string::npos);
    EXPECT_NE(r.out.find("counter squall_fetched_bytes_total{project=chain} "), std::string::npos);
  });
}

TEST_F(ControlServerTest, AServerWithoutAClusterSaysHowToGetOneAtApiCluster) {
  with_engine([&](Engine&, ChainSite&, ControlServer&) -> Task<void> {
    Reply cluster = co_await call("GET", "/api/cluster");
    EXPECT_EQ(cluster.code, 404);
    EXPECT_TRUE(test::contains(cluster.value()["error"].get<std::string>(), "--port"))
        << cluster.body;
  });
}

TEST_F(ControlServerTest, WithoutAnEngineItServesTheClusterAndTheEngineRoutesAnswer501) {
  test::RedisServer redis;
  EXPECT_THROW(ControlServer(ControlOptions{}), InvalidArgumentError);
  auto main = [&]() -> Task<void> {
    RedisClient client(redis.url());
    ComponentRegistryOptions member;
    member.ns = "shop";
    member.host = "host-a";
    member.pid = 7;
    ComponentRegistry fetcher(client, member);
    co_await fetcher.join(ComponentRole::Fetcher, [] { return ComponentReport{3, 1}; });
    ControlServer control({.cluster_redis = redis.url(), .cluster_namespace = "shop"});
    control.start();
    base_ = control.url();

    Reply cluster = co_await call("GET", "/api/cluster");
    EXPECT_EQ(cluster.code, 200) << cluster.body;
    json j = cluster.value();
    EXPECT_EQ(j["namespace"], "shop");
    EXPECT_EQ(j["live"], 1);
    EXPECT_EQ(j["components"][0]["id"], "fetcher@host-a:7");
    EXPECT_EQ(j["components"][0]["handled"], 3);
    EXPECT_EQ(j["streams"][0]["key"], "squall:shop:fetch");
    for (const char* path : {"/api/projects", "/api/tasks", "/api/results", "/api/counters",
                             "/api/queues", "/api/hosts", "/api/errors"}) {
      Reply r = co_await call("GET", path);
      EXPECT_EQ(r.code, 501) << path;
      EXPECT_TRUE(test::contains(r.body, "runs no engine of its own")) << path << r.body;
    }
    Reply fetch = co_await call("POST", "/api/fetch", R"({"url": "http://127.0.0.1:1/"})");
    EXPECT_EQ(fetch.code, 501) << fetch.body;
    Reply metrics = co_await call("GET", "/metrics");
    EXPECT_EQ(metrics.code, 200);
    EXPECT_TRUE(test::contains(metrics.body, "squall_cluster_up{namespace=\"shop\"} 1\n"))
        << metrics.body;
    EXPECT_FALSE(test::contains(metrics.body, "squall_pages_fetched_total")) << metrics.body;
    Reply page = co_await call("GET", "/");
    EXPECT_EQ(page.code, 200);

    // The live feed carries the cluster, and says there is no engine.
    std::string url = "ws://127.0.0.1:" + std::to_string(control.port()) + "/api/live";
    http::WebSocket ws = co_await http::websocket_connect(url);
    std::optional<http::WsMessage> m = co_await ws.read_message();
    EXPECT_TRUE(m);
    if (m) {
      json s = json::parse(m->data);
      EXPECT_EQ(s["engine"], false);
      EXPECT_EQ(s["cluster"]["components"][0]["role"], "fetcher");
      EXPECT_EQ(s["pages"], 3);
      EXPECT_FALSE(s.contains("projects"));
    }
    co_await ws.close();

    // Redis gone: the API says so, and /metrics that the cluster is down.
    co_await fetcher.leave();
    client.close();
    redis.stop();
    co_await sleep(600ms);  // past fresh_for: the next read goes to Redis
    Reply down = co_await call("GET", "/api/cluster");
    EXPECT_EQ(down.code, 503) << down.body;
    EXPECT_TRUE(test::contains(down.body, "is redis-server running there?")) << down.body;
    Reply down_metrics = co_await call("GET", "/metrics");
    EXPECT_EQ(down_metrics.code, 200);
    EXPECT_TRUE(test::contains(down_metrics.body, "squall_cluster_up{namespace=\"shop\"} 0\n"))
        << down_metrics.body;
    co_await control.stop();
    http::HttpClient::shared().close();
  };
  run(main(), 60s);
}

}  // namespace
}  // namespace squall
