// The dashboard in a real browser: Debian's headless Chromium, driven through the DevTools
// protocol by squall's own WebSocket client, loads the page of a running `squall crawl --port`,
// sees the counters move and the chart drawn, presses Pause and sees the fetches stop (the
// server's log says so, and the site's access log stops growing), and saves a screenshot
// (test-artifacts/dashboard.png in the test's working directory); and on a `squall run --port`
// project, steps its debugger pane (test-artifacts/debugger.png), clicks a follow and steps again
// (test-artifacts/debugger-result.png); and, served by `squall status --port` beside a crawl split
// over five component processes and a real redis-server, shows every component and queue in its
// cluster pane and a fetcher killed -9 as dead (test-artifacts/cluster.png).
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "cli/run_peer.h"
#include "squall/http/client.h"
#include "squall/http/websocket_client.h"
#include "squall/url/base64.h"
#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/redis_server.h"
#include "support/site.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Runtime.evaluate's parameters, and the value it returned (GCC 12 cannot build these braced
// initializers inside a coroutine).
json evaluate(const std::string& expression) {
  return {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}};
}
json value_of(const json& reply) {
  return reply["result"].value("value", json());
}
// Page.navigate's parameters.
json navigation(const std::string& url) {
  return {{"url", url}};
}

// One page's DevTools session.
class DevTools {
 public:
  explicit DevTools(http::WebSocket ws) : ws_(std::move(ws)) {}

  // Sends a command and returns its result (events that come meanwhile are dropped).
  Task<json> call(std::string method, json params = json::object()) {
    int id = ++next_id_;
    json command = {{"id", id}, {"method", method}, {"params", params}};
    co_await ws_.write_message(command.dump());
    for (;;) {
      std::optional<http::WsMessage> m = co_await ws_.read_message();
      if (!m) throw std::runtime_error("DevTools closed during " + method);
      json reply = json::parse(m->data);
      if (!reply.contains("id") || reply["id"] != id) continue;
      if (reply.contains("error")) throw std::runtime_error(method + ": " + reply["error"].dump());
      co_return reply["result"];
    }
  }

  // The value of a JavaScript expression in the page.
  Task<json> eval(std::string expression) {
    json r = co_await call("Runtime.evaluate", evaluate(expression));
    co_return value_of(r);
  }

  Task<void> close() { co_await ws_.close(); }

  // The page of the Chromium whose DevTools listen on `port`, its events enabled, navigated to
  // `url`.
  static Task<DevTools> open(int port, std::string url) {
    http::HttpResponse list = co_await http::HttpClient::shared().fetch(
        "http://127.0.0.1:" + std::to_string(port) + "/json/list");
    std::string target;
    for (const json& t : json::parse(list.body))
      if (t.contains("type") && t["type"] == "page") target = t["webSocketDebuggerUrl"];
    if (target.empty()) throw std::runtime_error("no page target: " + list.body);
    DevTools page(co_await http::websocket_connect(target));
    co_await page.call("Page.enable");
    co_await page.call("Page.navigate", navigation(url));
    co_return std::move(page);
  }

 private:
  http::WebSocket ws_;
  int next_id_ = 0;
};

// Headless Chromium with a scratch profile; the DevTools port it chose.
struct Chromium {
  test::TempDir profile;
  test::Process process;
  int port = 0;

  Chromium() {
    // The same Chromium the browser layer renders with, kept off the network as it is: no
    // background traffic, and no name but loopback resolves.
    process = test::Process::start({"chromium-headless-shell",
                                    "--headless",
                                    "--no-sandbox",
                                    "--disable-gpu",
                                    "--no-first-run",
                                    "--no-default-browser-check",
                                    "--disable-extensions",
                                    "--disable-background-networking",
                                    "--disable-component-update",
                                    "--disable-sync",
                                    "--disable-breakpad",
                                    "--disable-crash-reporter",
                                    "--disable-domain-reliability",
                                    "--disable-client-side-phishing-detection",
                                    "--no-pings",
                                    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                                    "--remote-debugging-port=0",
                                    "--window-size=1400,1500",
                                    "--user-data-dir=" + profile.path().string(),
                                    "about:blank"});
    for (int i = 0; i < 600 && port == 0; ++i) {
      std::ifstream in(profile.path() / "DevToolsActivePort");
      if (!(in >> port)) port = 0;
      if (port == 0) std::this_thread::sleep_for(50ms);
    }
  }
  // Debian's chromium-headless-shell is a shell script that runs the browser as its child:
  // the browser is ended first (it takes its own children with it), then the script.
  ~Chromium() {
    std::ifstream children("/proc/" + std::to_string(process.pid()) + "/task/" +
                           std::to_string(process.pid()) + "/children");
    std::vector<pid_t> browsers;
    for (pid_t child; children >> child;) browsers.push_back(child);
    for (pid_t browser : browsers) ::kill(browser, SIGTERM);
    process.wait(10s);
  }
};

// Saves a screenshot (a PNG) at `path`, under the test's working directory: the page's
// viewport, or only the element `id` when one is named.
Task<void> screenshot(DevTools& page, std::string path, std::string id = "") {
  json params = {{"format", "png"}};
  if (!id.empty()) {
    json box = co_await page.eval("(() => { const r = document.getElementById('" + id +
                                  "').getBoundingClientRect(); return {x: r.x + scrollX, "
                                  "y: r.y + scrollY, width: r.width, height: r.height, "
                                  "scale: 1}; })()");
    params["clip"] = box;
    params["captureBeyondViewport"] = true;
  }
  json shot = co_await page.call("Page.captureScreenshot", params);
  std::optional<std::string> png = forgiving_base64_decode(shot["data"].get<std::string>());
  EXPECT_TRUE(png && png->starts_with("\x89PNG"));
  if (png) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << *png;
  }
}

int total_hits(const test::GeneratedSite& site) {
  int n = 0;
  for (const auto& [path, count] : site.hits()) n += count;
  return n;
}

class DashboardTest : public test::LoopTest {};

TEST_F(DashboardTest, ThePageShowsTheCrawlLiveAndItsPauseButtonStopsTheFetches) {
  // 1,000 pages at 40 a second: the crawl runs for about 25 s, long enough to watch and pause.
  test::GeneratedSite site(1000, 40);
  test::TempDir work;
  test::Process crawl =
      test::Process::start({test::squall_binary(), "crawl", site.origin + "/index.html", "--port",
                            "0", "--per-host", "4", "--state", (work.path() / "c.db").string()},
                           work.path());
  int port = 0;
  for (int i = 0; i < 600 && (port = test::dashboard_port(crawl.output())) == 0; ++i)
    std::this_thread::sleep_for(50ms);
  ASSERT_GT(port, 0) << crawl.output();
  std::string dashboard = "http://127.0.0.1:" + std::to_string(port) + "/";
  Chromium chromium;
  ASSERT_GT(chromium.port, 0) << chromium.process.output();

  auto body = [&]() -> Task<void> {
    DevTools page = co_await DevTools::open(chromium.port, dashboard);

    // The live feed's updates come in and the page count grows between them.
    int updates = 0, first_pages = -1, pages = -1;
    for (int i = 0; i < 400; ++i) {
      json u = co_await page.eval("+(document.body.dataset.updates || 0)");
      json p = co_await page.eval("+(document.body.dataset.pages || -1)");
      // Null while the page is still loading.
      updates = u.is_number() ? u.get<int>() : 0;
      pages = p.is_number() ? p.get<int>() : -1;
      if (updates >= 1 && first_pages < 0) first_pages = pages;
      if (updates >= 10 && pages > first_pages) break;
      co_await sleep(100ms);
    }
    EXPECT_GE(updates, 10);
    EXPECT_GT(pages, first_pages) << "the page count did not move";
    // The chart has a line: pixels of its blue (#3b6fd8).
    json line_pixels = co_await page.eval(R"((() => {
        const c = document.getElementById("chart");
        const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4)
          if (d[i + 3] > 0 && d[i] < 110 && d[i + 2] > 170) n++;
        return n;
      })())");
    EXPECT_GT(line_pixels.is_number() ? line_pixels.get<int>() : 0, 100);
    json status = co_await page.eval(
        R"(document.querySelector('#projects tr[data-name="crawl"] .status').textContent)");
    EXPECT_EQ(status, "RUNNING");
    json bars = co_await page.eval(R"(document.querySelectorAll("#projects .bar").length)");
    EXPECT_EQ(bars, 4);  // 5m, 1h, 1d, all
    // The crawl's built-in project has no script: the debugger pane says so.
    json note = co_await page.eval("document.getElementById('debug-note').textContent");
    EXPECT_TRUE(test::contains(note.dump(), "crawl has no script runtime")) << note;
    co_await page.eval("loadTasks(0)");
    co_await sleep(300ms);
    json task_rows = co_await page.eval(R"(document.querySelectorAll("#tasks tbody tr").length)");
    EXPECT_GT(task_rows.is_number() ? task_rows.get<int>() : 0, 1);

    co_await screenshot(page, "test-artifacts/dashboard.png");

    // Pause: the server says so, and once the fetches in flight have ended no more come.
    co_await page.eval(
        R"(document.querySelector('#projects tr[data-name="crawl"] .pause').click())");
    for (int i = 0; i < 100 && !test::contains(crawl.output(), "project crawl set to STOP"); ++i)
      co_await sleep(100ms);
    EXPECT_TRUE(test::contains(crawl.output(), "control: project crawl set to STOP"))
        << crawl.output();
    int before = -1, after = total_hits(site);
    for (int i = 0; i < 20 && before != after; ++i) {
      before = after;
      co_await sleep(500ms);
      after = total_hits(site);
    }
    co_await sleep(1s);
    EXPECT_EQ(total_hits(site), after) << "fetches went on after the pause";
    EXPECT_LT(after, 900) << "the crawl ended before the pause";
    for (int i = 0; i < 30; ++i) {
      status = co_await page.eval(
          R"(document.querySelector('#projects tr[data-name="crawl"] .status').textContent)");
      if (status == "STOP") break;
      co_await sleep(100ms);
    }
    EXPECT_EQ(status, "STOP");
    co_await page.close();
    http::HttpClient::shared().close();
  };
  run(body(), 120s);
  // Stopped while paused: the crawl was not over, so Ctrl-C ends it as a stopped crawl.
  EXPECT_EQ(test::exit_status(crawl.stop(SIGINT)), 130) << crawl.output();
}

// A project for the debugger pane: an index whose links are followed to detail pages.
constexpr const char* kDebuggedProject = R"(from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        self.crawl('{ORIGIN}/page/index?links=a', callback=self.index_page)

    def index_page(self, response):
        print('index has', len(response.doc('a')), 'links')
        for a in response.doc('a').items():
            self.crawl(a.attr.href, callback=self.detail_page, save={'from': response.url})

    def detail_page(self, response):
        return {'title': response.doc('title').text(), 'from': response.save['from']}
)";

TEST_F(DashboardTest, TheDebuggerPaneStepsAPythonProjectAndAClickedFollowIsTheNextStep) {
  test::RunPeer site;
  test::TempDir work;
  work.write("site.py", test::with_origin(kDebuggedProject, site.origin));
  test::Process project =
      test::Process::start({test::squall_binary(), "run", "site.py", "--port", "0"}, work.path());
  int port = test::dashboard_port(test::await_output(project, "until Ctrl-C\n"));
  ASSERT_GT(port, 0) << project.output();
  std::string dashboard = "http://127.0.0.1:" + std::to_string(port) + "/";
  const std::string index = site.origin + "/page/debug?links=x,y";
  Chromium chromium;
  ASSERT_GT(chromium.port, 0) << chromium.process.output();

  auto body = [&]() -> Task<void> {
    DevTools page = co_await DevTools::open(chromium.port, dashboard);
    // The pane offers the project's callbacks once the page has its projects.
    json callbacks;
    for (int i = 0; i < 200; ++i) {
      callbacks = co_await page.eval(
          R"([...document.querySelectorAll("#debug-callback option")].map(o => o.value))");
      if (callbacks.is_array() && !callbacks.empty()) break;
      co_await sleep(100ms);
    }
    EXPECT_EQ(callbacks, (json{"detail_page", "index_page", "on_start"}));
    auto steps = [&]() -> Task<int> {
      json n = co_await page.eval("+(document.body.dataset.debugSteps || 0)");
      co_return n.is_number() ? n.get<int>() : 0;
    };
    auto await_step = [&](int n) -> Task<void> {
      for (int i = 0; i < 300 && co_await steps() < n; ++i) co_await sleep(100ms);
    };

    // Filled and run as a user does: the URL typed, the callback picked, Run pressed.
    co_await page.eval("document.getElementById('debug-url').value = " + json(index).dump() +
                       "; document.getElementById('debug-url').dispatchEvent(new Event('input'));"
                       "document.getElementById('debug-callback').value = 'index_page';"
                       "document.getElementById('debug-run').click()");
    co_await await_step(1);
    EXPECT_EQ(co_await steps(), 1);
    json follows = co_await page.eval(
        R"([...document.querySelectorAll("#debug-follows a.follow")].map(a => a.textContent))");
    EXPECT_EQ(follows, (json{site.origin + "/page/x", site.origin + "/page/y"}));
    json summary = co_await page.eval("document.getElementById('debug-summary').textContent");
    EXPECT_TRUE(test::contains(summary.dump(), "200")) << summary;
    EXPECT_TRUE(test::contains(summary.dump(), "index_page: ok")) << summary;
    json logs = co_await page.eval("document.getElementById('debug-logs').textContent");
    EXPECT_EQ(logs, "index has 2 links\n");
    // The page is shown as text: its markup is escaped, never parsed into the dashboard.
    json html = co_await page.eval("document.getElementById('debug-html').innerHTML");
    EXPECT_TRUE(test::contains(html.dump(), "&lt;title&gt;debug&lt;/title&gt;")) << html;
    json titles = co_await page.eval("document.getElementsByTagName('title').length");
    EXPECT_EQ(titles, 1);

    co_await screenshot(page, "test-artifacts/debugger.png", "debugger");

    // A follow clicked fills the next step, which runs with its fetch options.
    co_await page.eval("document.querySelector('#debug-follows a.follow').click()");
    json filled = co_await page.eval(
        "[document.getElementById('debug-url').value, "
        "document.getElementById('debug-callback').value, "
        "document.getElementById('debug-carry').textContent]");
    EXPECT_EQ(filled[0], site.origin + "/page/x");
    EXPECT_EQ(filled[1], "detail_page");
    EXPECT_TRUE(test::contains(filled[2].dump(), "save")) << filled;
    co_await page.eval("document.getElementById('debug-run').click()");
    co_await await_step(2);
    EXPECT_EQ(co_await steps(), 2);
    json result = co_await page.eval("document.getElementById('debug-output').textContent");
    json shown =
        json::parse(result.is_string() ? result.get<std::string>() : "null", nullptr, false);
    EXPECT_EQ(shown, (json{{"title", "x"}, {"from", index}})) << result;

    co_await screenshot(page, "test-artifacts/debugger-result.png", "debugger");
    co_await page.close();
    http::HttpClient::shared().close();
  };
  run(body(), 120s);
  EXPECT_TRUE(
      test::contains(project.output(), "control: debug step of site: " + index + " -> index_page"))
      << project.output();
  EXPECT_EQ(site.requests_for("/page/x").size(), 1u);
  EXPECT_TRUE(site.requests_for("/page/y").empty()) << "a follow is fetched only when stepped";
  EXPECT_EQ(test::exit_status(project.stop(SIGINT)), 0) << project.output();
}

// A chain of pages that never ends within the test: each links to ten more.
constexpr const char* kClusterProject = R"(from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        self.crawl('{ORIGIN}/chain/0?to=1000000', callback=self.chain_page)

    def chain_page(self, response):
        for each in response.doc('a[href^="http"]').items():
            self.crawl(each.attr.href, callback=self.chain_page)
        return {'title': response.doc('title').text()}
)";

TEST_F(DashboardTest, TheClusterPaneShowsEveryComponentAndQueueAndAKilledFetcherAsDead) {
  test::RunPeer site;
  test::TempDir work;
  work.write("chain.py", test::with_origin(kClusterProject, site.origin));
  test::RedisServer redis;
  // A lease of 1 s: a heartbeat every third of a second, dead after 3 s of silence. The
  // fetchers share one slot on the site and 50 ms between two fetches: about 20 pages a second.
  std::vector<std::string> common = {"--redis", redis.url(), "--namespace", "dash", "--lease", "1"};
  auto start = [&](std::vector<std::string> argv) {
    argv.insert(argv.begin(), test::squall_binary());
    argv.insert(argv.end(), common.begin(), common.end());
    return test::Process::start(argv, work.path());
  };
  std::vector<test::Process> fetchers;
  for (int i = 0; i < 2; ++i)
    fetchers.push_back(start({"fetcher", "-c", "2", "--per-host", "1", "--delay", "0.05"}));
  test::Process processor = start({"processor", "chain.py"});
  test::Process worker =
      start({"result-worker", "--taskdb", "sqlite:///" + (work.path() / "results.db").string()});
  test::Process scheduler = start(
      {"scheduler", "chain.py", "--taskdb", "sqlite:///" + (work.path() / "tasks.db").string()});
  test::Process status = test::Process::start({test::squall_binary(), "status", "--redis",
                                               redis.url(), "--namespace", "dash", "--port", "0"},
                                              work.path());
  int port = test::dashboard_port(test::await_output(status, "until Ctrl-C\n"));
  ASSERT_GT(port, 0) << status.output();
  std::string origin = "http://127.0.0.1:" + std::to_string(port);
  Chromium chromium;
  ASSERT_GT(chromium.port, 0) << chromium.process.output();

  auto body = [&]() -> Task<void> {
    DevTools page = co_await DevTools::open(chromium.port, origin + "/");

    // The rows of the components' table: role, host, pid, state, handled, rate.
    const std::string rows_js = R"([...document.querySelectorAll("#components tbody tr[data-id]")]
        .map(tr => [...tr.cells].map(td => td.textContent)))";
    json rows;
    // Every component live, and each fetcher with a rate (two heartbeats seen) and pages.
    auto ready = [](const json& r) {
      if (!r.is_array() || r.size() != 5) return false;
      for (const json& row : r) {
        if (row[3] != "live") return false;
        if (row[0] == "fetcher" && (row[6] == "—" || row[5] == "0")) return false;
      }
      return true;
    };
    for (int i = 0; i < 300 && !ready(rows); ++i) {
      rows = co_await page.eval(rows_js);
      if (!ready(rows)) co_await sleep(100ms);
    }
    if (!ready(rows)) throw std::runtime_error("the cluster pane never showed it: " + rows.dump());
    std::vector<std::string> roles;
    for (const json& row : rows) roles.push_back(row[0]);
    EXPECT_EQ(roles, (std::vector<std::string>{"scheduler", "fetcher", "fetcher", "processor",
                                               "result-worker"}));
    std::set<std::string> pids;
    for (const json& row : rows) pids.insert(row[2].get<std::string>());
    for (const test::Process* p : {&scheduler, &fetchers[0], &fetchers[1], &processor, &worker})
      EXPECT_TRUE(pids.contains(std::to_string(p->pid()))) << rows.dump();
    json streams = co_await page.eval(
        R"([...document.querySelectorAll("#streams tbody tr")].map(tr => tr.dataset.stream))");
    EXPECT_EQ(streams, (json{"fetch", "process", "outcome", "result"}));
    json summary = co_await page.eval("document.getElementById('cluster-summary').textContent");
    EXPECT_TRUE(test::contains(summary.dump(), "namespace dash")) << summary;
    // No engine here: the engine's panes are hidden, and the chart follows the fetchers.
    json hidden = co_await page.eval(
        R"([...document.querySelectorAll("section.engine")].every(
            s => getComputedStyle(s).display === "none"))");
    EXPECT_EQ(hidden, true);
    json pages = co_await page.eval("+(document.body.dataset.pages || 0)");
    EXPECT_GT(pages.is_number() ? pages.get<int>() : 0, 0);

    // A fetcher killed -9: its row turns dead once 3 of its leases pass without a heartbeat.
    std::string dead_pid = std::to_string(fetchers[1].pid());
    fetchers[1].stop(SIGKILL);
    const std::string state_js =
        R"((() => { const tr = [...document.querySelectorAll("#components tbody tr")].find(
            tr => tr.cells[2].textContent === ")" +
        dead_pid + R"("); return tr ? tr.cells[3].textContent : null; })())";
    json state;
    for (int i = 0; i < 300 && state != "dead"; ++i) {
      state = co_await page.eval(state_js);
      if (state != "dead") co_await sleep(100ms);
    }
    EXPECT_EQ(state, "dead");
    rows = co_await page.eval(rows_js);
    int live = 0;
    for (const json& row : rows) live += row[3] == "live" ? 1 : 0;
    EXPECT_EQ(live, 4) << rows.dump();
    summary = co_await page.eval("document.getElementById('cluster-summary').textContent");
    EXPECT_TRUE(test::contains(summary.dump(), "4 live, 1 dead")) << summary;
    // The page as far as it goes: the cluster pane and the chart.
    co_await page.eval("document.body.id = 'page'");
    co_await screenshot(page, "test-artifacts/cluster.png", "page");

    // The API and /metrics say the same.
    http::HttpResponse api = co_await http::HttpClient::shared().fetch(origin + "/api/cluster");
    json cluster = json::parse(api.body);
    EXPECT_EQ(cluster["live"], 4);
    EXPECT_EQ(cluster["dead"], 1);
    for (const json& c : cluster["components"])
      if (std::to_string(c["pid"].get<int64_t>()) == dead_pid) {
        EXPECT_EQ(c["alive"], false);
        EXPECT_EQ(c["rate"], 0.0);
      }
    http::HttpResponse metrics = co_await http::HttpClient::shared().fetch(origin + "/metrics");
    EXPECT_TRUE(test::contains(metrics.body,
                               "squall_cluster_components{namespace=\"dash\",state=\"dead\"} 1"))
        << metrics.body;
    http::HttpRequest tasks;
    tasks.url = origin + "/api/tasks";
    tasks.raise_error = false;
    http::HttpResponse no_engine = co_await http::HttpClient::shared().fetch(std::move(tasks));
    EXPECT_EQ(no_engine.code, 501);
    EXPECT_TRUE(test::contains(no_engine.body, "runs no engine")) << no_engine.body;
    co_await page.close();
    http::HttpClient::shared().close();
  };
  run(body(), 120s);
  EXPECT_EQ(test::exit_status(status.stop(SIGTERM)), 0) << status.output();
  for (test::Process* p : {&scheduler, &fetchers[0], &processor, &worker}) p->stop(SIGTERM);
}

}  // namespace
}  // namespace squall
