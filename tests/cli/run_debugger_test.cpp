// The debugger's route, POST /api/debug, driven with curl against a `squall run --port` process
// (and a `squall crawl --port` one for its built-in project): one step shows the fetch, the
// follows, the result, the logs, an exception's traceback and the page, and stores nothing.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/run_peer.h"
#include "support/process.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using nlohmann::json;
using test::contains;
using test::Process;
using test::RunPeer;
using test::squall_binary;
using test::TempDir;

constexpr const char* kProject = R"(from pyspider.libs.base_handler import *
import logging
import os
import time


class Handler(BaseHandler):
    def on_start(self):
        self.crawl('{ORIGIN}/page/index?links=a,b', callback=self.index_page)

    def index_page(self, response):
        print('index has', len(response.doc('a')), 'links')
        logging.warning('a warning from index_page')
        for a in response.doc('a').items():
            self.crawl(a.attr.href, callback=self.detail_page, priority=3,
                       save={'from': response.url})

    def detail_page(self, response):
        return {'title': response.doc('title').text(), 'from': response.save}

    def broken(self, response):
        raise ValueError('no such element')

    @catch_status_code_error
    def any_status(self, response):
        return {'status': response.status_code}

    def slow(self, response):
        while not os.path.exists('release'):
            time.sleep(0.02)
)";

// An answer of the control plane: its status and its JSON body (null when it is not JSON).
struct Answer {
  int status = 0;
  std::string text;
  json body;
};

Answer call(const TempDir& dir, const std::string& method, const std::string& url,
            const std::string& body = "", const std::string& user = "") {
  std::vector<std::string> argv = {"/usr/bin/curl",  "-sS", "-m", "60", "-X", method, "-w",
                                   "\n%{http_code}", url};
  if (!body.empty()) {
    argv.push_back("-H");
    argv.push_back("Content-Type: application/json");
    argv.push_back("--data-binary");
    argv.push_back(body);
  }
  if (!user.empty()) {
    argv.push_back("-u");
    argv.push_back(user);
  }
  test::CommandResult r = test::run_command(argv, dir.path());
  Answer a;
  size_t last = r.out.rfind('\n');
  if (r.status != 0 || last == std::string::npos) {
    a.text = r.err;
    return a;
  }
  a.status = std::atoi(r.out.c_str() + last + 1);
  a.text = r.out.substr(0, last);
  a.body = json::parse(a.text, nullptr, false);
  return a;
}

// `squall run site.py --port 0 ARGS...` over the peer, once its own run has ended.
struct ServedProject {
  RunPeer site;
  TempDir work;
  Process run;
  std::string base;

  explicit ServedProject(std::vector<std::string> args = {}) {
    test::suppress_interpreter_leaks();
    work.write("site.py", test::with_origin(kProject, site.origin));
    std::vector<std::string> argv = {squall_binary(), "run", "site.py", "--port", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    run = Process::start(argv, work.path());
    std::string out = test::await_output(run, "until Ctrl-C\n");
    base = "http://127.0.0.1:" + std::to_string(test::dashboard_port(out));
  }
  Answer step(const json& body, const std::string& user = "") {
    return call(work, "POST", base + "/api/debug", body.dump(), user);
  }
  Answer get(const std::string& path, const std::string& user = "") {
    return call(work, "GET", base + path, "", user);
  }
};

std::vector<std::string> follow_urls(const json& step) {
  std::vector<std::string> out;
  for (const json& f : step["follows"]) out.push_back(f["url"]);
  return out;
}

TEST(RunDebugger, AStepShowsTheFetchFollowsLogsAndPageAndStoresNothing) {
  ServedProject p;
  ASSERT_TRUE(p.run.running()) << p.run.output();
  Answer projects = p.get("/api/projects");
  ASSERT_EQ(projects.status, 200) << projects.text;
  json counters = projects.body["projects"][0]["counters"];
  size_t tasks = test::stored_tasks(p.work.path() / "site.db").size();
  size_t results = p.get("/api/results?project=site&limit=1000").body["results"].size();
  ASSERT_GE(tasks, 3u);  // on_start, the index and its two pages
  ASSERT_EQ(results, 2u);
  const std::string index = p.site.origin + "/page/debug?links=x,y";

  Answer a = p.step({{"project", "site"}, {"url", index}, {"callback", "index_page"}});
  ASSERT_EQ(a.status, 200) << a.text;
  const json& s = a.body;
  EXPECT_EQ(s["ok"], true) << a.text;
  EXPECT_EQ(s["callback"], "index_page");
  EXPECT_EQ(s["fetch"]["status_code"], 200);
  EXPECT_EQ(s["fetch"]["url"], index);
  EXPECT_GT(s["fetch"]["time"].get<double>(), 0);
  EXPECT_EQ(follow_urls(s),
            (std::vector<std::string>{p.site.origin + "/page/x", p.site.origin + "/page/y"}));
  EXPECT_EQ(s["follows"][0]["callback"], "detail_page");
  EXPECT_EQ(s["follows"][0]["schedule"]["priority"], 3);
  EXPECT_EQ(s["follows"][0]["fetch"]["save"]["from"], index);
  EXPECT_TRUE(s["result"].is_null());
  EXPECT_TRUE(contains(s["logs"].get<std::string>(), "index has 2 links")) << a.text;
  EXPECT_TRUE(contains(s["logs"].get<std::string>(), "a warning from index_page")) << a.text;
  EXPECT_TRUE(s["exception"].is_null());
  EXPECT_TRUE(contains(s["html"].get<std::string>(), "<title>debug</title>")) << a.text;
  EXPECT_EQ(s["html_length"], s["html"].get<std::string>().size());
  EXPECT_EQ(s["html_truncated"], false);

  // A follow stepped next, with its own fetch options (its save): the result it would store.
  json follow = s["follows"][0];
  Answer b = p.step(
      {{"url", follow["url"]}, {"callback", follow["callback"]}, {"fetch", follow["fetch"]}});
  ASSERT_EQ(b.status, 200) << b.text;
  EXPECT_EQ(b.body["result"], (json{{"title", "x"}, {"from", {{"from", index}}}})) << b.text;
  EXPECT_EQ(b.body["follows"].size(), 0u);

  // on_start: its crawl() call.
  Answer c = p.step({{"url", "on_start"}});
  ASSERT_EQ(c.status, 200) << c.text;
  EXPECT_EQ(c.body["callback"], "on_start");
  EXPECT_EQ(follow_urls(c.body), std::vector<std::string>{p.site.origin + "/page/index?links=a,b"});

  // Fetched, and only what was stepped: no follow was fetched, nothing was stored or counted.
  EXPECT_EQ(p.site.requests_for("/page/debug?links=x,y").size(), 1u);
  EXPECT_EQ(p.site.requests_for("/page/x").size(), 1u);
  EXPECT_TRUE(p.site.requests_for("/page/y").empty());
  EXPECT_EQ(test::stored_tasks(p.work.path() / "site.db").size(), tasks);
  EXPECT_TRUE(test::stored_task(p.work.path() / "site.db", index).url.empty());
  EXPECT_EQ(p.get("/api/results?project=site&limit=1000").body["results"].size(), results);
  EXPECT_EQ(p.get("/api/projects").body["projects"][0]["counters"], counters);
  EXPECT_EQ(test::exit_status(p.run.stop(SIGINT)), 0) << p.run.output();
}

TEST(RunDebugger, ACallbackThatRaisesShowsItsTracebackAndTheProcessGoesOn) {
  ServedProject p;
  Answer a = p.step({{"url", p.site.origin + "/page/z"}, {"callback", "broken"}});
  ASSERT_EQ(a.status, 200) << a.text;
  EXPECT_EQ(a.body["ok"], false);
  std::string traceback = a.body["exception"].get<std::string>();
  EXPECT_TRUE(contains(traceback, "Traceback (most recent call last)")) << traceback;
  EXPECT_TRUE(contains(traceback, "in broken")) << traceback;
  EXPECT_TRUE(contains(traceback, "ValueError: no such element")) << traceback;
  EXPECT_TRUE(a.body["result"].is_null());

  Answer b = p.step({{"url", p.site.origin + "/page/z"}, {"callback", "detail_page"}});
  ASSERT_EQ(b.status, 200) << b.text;
  EXPECT_EQ(b.body["ok"], true) << b.text;
  EXPECT_EQ(b.body["result"]["title"], "z");
  EXPECT_TRUE(p.run.running()) << p.run.output();
  EXPECT_EQ(test::exit_status(p.run.stop(SIGINT)), 0) << p.run.output();
}

TEST(RunDebugger, ANon2xxPageFailsTheCallbackUnlessItCatchesTheStatus) {
  ServedProject p;
  Answer a = p.step({{"url", p.site.origin + "/status/404"}, {"callback", "detail_page"}});
  ASSERT_EQ(a.status, 200) << a.text;
  EXPECT_EQ(a.body["fetch"]["status_code"], 404);
  EXPECT_EQ(a.body["ok"], false);
  EXPECT_TRUE(contains(a.body["exception"].get<std::string>(), "404")) << a.text;
  EXPECT_TRUE(contains(a.body["html"].get<std::string>(), "status 404")) << a.text;

  Answer b = p.step({{"url", p.site.origin + "/status/503"}, {"callback", "any_status"}});
  ASSERT_EQ(b.status, 200) << b.text;
  EXPECT_EQ(b.body["ok"], true) << b.text;
  EXPECT_EQ(b.body["result"], (json{{"status", 503}}));
  EXPECT_EQ(test::exit_status(p.run.stop(SIGINT)), 0) << p.run.output();
}

TEST(RunDebugger, BadRequestsGetTheirStatusAndReason) {
  ServedProject p;
  const std::string page = p.site.origin + "/page/a";
  auto error_of = [](const Answer& a) { return a.body.value("error", std::string()); };
  Answer a = call(p.work, "POST", p.base + "/api/debug", "{not json");
  EXPECT_EQ(a.status, 400);
  EXPECT_TRUE(contains(error_of(a), "not valid JSON")) << a.text;
  a = p.step(json::array({page}));
  EXPECT_EQ(a.status, 400);
  EXPECT_TRUE(contains(error_of(a), "must be an object")) << a.text;
  a = p.step({{"url", page}, {"callback", "detail_page"}, {"priority", 1}});
  EXPECT_EQ(a.status, 400);
  EXPECT_TRUE(contains(error_of(a), "unknown field 'priority'")) << a.text;
  a = p.step({{"callback", "detail_page"}});
  EXPECT_EQ(a.status, 400);
  EXPECT_TRUE(contains(error_of(a), "url is required")) << a.text;
  a = p.step({{"url", page}});
  EXPECT_EQ(a.status, 400);
  EXPECT_TRUE(contains(error_of(a), "callback is required")) << a.text;
  a = p.step({{"url", "ftp://127.0.0.1/x"}, {"callback", "detail_page"}});
  EXPECT_EQ(a.status, 400);
  EXPECT_TRUE(contains(error_of(a), "not an http, https or data URL")) << a.text;
  a = p.step({{"url", page}, {"callback", "detail_page"}, {"fetch", "GET"}});
  EXPECT_EQ(a.status, 400);
  EXPECT_TRUE(contains(error_of(a), "fetch must be an object")) << a.text;
  a = p.step({{"url", page}, {"callback", 3}});
  EXPECT_EQ(a.status, 400);
  EXPECT_TRUE(contains(error_of(a), "callback must be a string")) << a.text;
  a = p.step({{"project", "other"}, {"url", page}, {"callback", "detail_page"}});
  EXPECT_EQ(a.status, 404);
  EXPECT_TRUE(contains(error_of(a), "no project 'other'")) << a.text;
  a = p.step({{"url", page}, {"callback", "detail"}});
  EXPECT_EQ(a.status, 404);
  EXPECT_TRUE(contains(error_of(a),
                       "no callback 'detail' (callbacks: any_status, broken, detail_page, "
                       "index_page, on_start, slow)"))
      << a.text;
  EXPECT_EQ(p.site.requests_for("/page/a").size(), 1u) << "only the project's own run";
  EXPECT_EQ(test::exit_status(p.run.stop(SIGINT)), 0) << p.run.output();
}

TEST(RunDebugger, AFifthStepWhileFourRunIsRefusedAndTheOtherRoutesAnswer) {
  ServedProject p;
  // Its callback runs until the test writes the file `release`.
  json slow = {{"url", p.site.origin + "/page/s"}, {"callback", "slow"}};
  std::vector<Process> running;
  for (int i = 0; i < 4; ++i)
    running.push_back(Process::start({"/usr/bin/curl", "-sS", "-m", "60", "--noproxy", "*", "-X",
                                      "POST", "--data-binary", slow.dump(), p.base + "/api/debug"},
                                     p.work.path()));
  // Each step says so in the server's log before it fetches.
  auto logged = [&] {
    std::string out = p.run.output();
    size_t n = 0;
    for (size_t at = 0; (at = out.find("control: debug step of site", at)) != std::string::npos;
         ++at)
      ++n;
    return n;
  };
  for (int i = 0; i < 3000 && logged() < 4; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(logged(), 4u) << p.run.output();
  Answer refused = p.step({{"url", p.site.origin + "/page/r"}, {"callback", "detail_page"}});
  EXPECT_EQ(refused.status, 503) << refused.text;
  EXPECT_TRUE(contains(refused.body.value("error", std::string()), "4 debug steps are running"))
      << refused.text;
  // The callbacks run on the interpreter's thread: the loop answers meanwhile.
  Answer projects = p.get("/api/projects");
  EXPECT_EQ(projects.status, 200) << projects.text;
  p.work.write("release", "");  // the slow callbacks end
  for (Process& r : running) {
    EXPECT_EQ(test::exit_status(r.wait(std::chrono::seconds(60))), 0) << r.output();
    EXPECT_TRUE(contains(r.output(), "\"callback\":\"slow\"")) << r.output();
  }
  Answer after = p.step({{"url", p.site.origin + "/page/r"}, {"callback", "detail_page"}});
  EXPECT_EQ(after.status, 200) << after.text;
  EXPECT_EQ(test::exit_status(p.run.stop(SIGINT)), 0) << p.run.output();
}

TEST(RunDebugger, WithAuthTheStepAsksForCredentials) {
  ServedProject p({"--auth", "admin:s3cret"});
  json body = {{"url", p.site.origin + "/page/q"}, {"callback", "detail_page"}};
  Answer a = p.step(body);
  EXPECT_EQ(a.status, 401) << a.text;
  a = p.step(body, "admin:wrong");
  EXPECT_EQ(a.status, 401) << a.text;
  EXPECT_TRUE(p.site.requests_for("/page/q").empty());
  a = p.step(body, "admin:s3cret");
  ASSERT_EQ(a.status, 200) << a.text;
  EXPECT_EQ(a.body["result"]["title"], "q");
  EXPECT_EQ(test::exit_status(p.run.stop(SIGINT)), 0) << p.run.output();
}

TEST(RunDebugger, ACrawlsBuiltInProjectHasNoScriptToStep) {
  RunPeer site;
  TempDir work;
  Process crawl = Process::start({squall_binary(), "crawl", site.origin + "/page/index?links=a",
                                  "--port", "0", "--state", (work.path() / "c.db").string()},
                                 work.path());
  std::string out = test::await_output(crawl, "until Ctrl-C\n");
  std::string base = "http://127.0.0.1:" + std::to_string(test::dashboard_port(out));
  json body = {{"url", site.origin + "/page/a"}, {"callback", "index_page"}};
  Answer a = call(work, "POST", base + "/api/debug", body.dump());
  EXPECT_EQ(a.status, 409) << a.text;
  EXPECT_TRUE(contains(a.body.value("error", std::string()),
                       "project 'crawl' has no script runtime: the debugger steps the callbacks "
                       "of a Python project"))
      << a.text;
  Answer projects = call(work, "GET", base + "/api/projects");
  EXPECT_TRUE(projects.body["projects"][0]["callbacks"].is_null()) << projects.text;
  EXPECT_EQ(test::exit_status(crawl.stop(SIGINT)), 0) << crawl.output();
}

}  // namespace
}  // namespace squall
