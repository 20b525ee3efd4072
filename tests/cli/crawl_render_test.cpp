// `squall crawl --render` and `squall fetch --render` as users run them: links only JavaScript
// makes, the browser killed in the middle of a crawl, robots.txt, and a missing browser.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "squall/browser/chromium.h"
#include "support/process.h"
#include "support/socket_watch.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::Process;
using test::TempDir;

// The browsers squall started with their profile under `dir` (their pids are their process
// groups), and every process of those groups.
std::vector<pid_t> browser_groups(const std::filesystem::path& dir) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = test::read_file(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find("--user-data-dir=" + dir.string()) != std::string::npos &&
        cmdline.find("--type=") == std::string::npos)
      out.push_back(std::stoi(name));
  }
  return out;
}

std::vector<pid_t> browser_processes(const std::filesystem::path& dir) {
  std::vector<pid_t> out;
  for (pid_t group : browser_groups(dir))
    for (pid_t p : test::process_group_members(group)) out.push_back(p);
  return out;
}

class CrawlRenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (browser::find_chromium().empty()) GTEST_SKIP() << browser::no_chromium_message();
    std::filesystem::create_directories(site_.path() / "tmp");
    // squall's browsers make their profiles under TMPDIR: the test's, so it finds them.
    ::setenv("TMPDIR", (site_.path() / "tmp").c_str(), 1);
  }
  void TearDown() override {
    EXPECT_EQ(watch_.outside(), std::vector<std::string>{});
    EXPECT_EQ(test::wait_until_gone([this] { return browser_processes(site_.path() / "tmp"); }),
              std::vector<pid_t>{});
    ::unsetenv("TMPDIR");
  }

  void serve(const std::string& server_body = "") {
    nginx_ = test::start_nginx(site_, server_body, port_, "",
                               "types { text/html html; application/json json; }");
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // The request targets in nginx's log.
  std::vector<std::string> requests() const {
    std::vector<std::string> out;
    std::istringstream log(test::read_file(site_.path() / "access.log"));
    for (std::string line; std::getline(log, line);) {
      size_t start = line.find("\"GET ");
      size_t end = line.find(" HTTP/", start);
      if (start != std::string::npos && end != std::string::npos)
        out.push_back(line.substr(start + 5, end - start - 5));
    }
    return out;
  }

  TempDir site_;
  TempDir work_;
  uint16_t port_ = test::free_port();
  Process nginx_;
  test::SocketWatch watch_{[this] { return browser_processes(site_.path() / "tmp"); }, 50ms};
};

// A start page whose links come from a timer, from a local JSON API and from a shadow root.
void write_js_site(const TempDir& site) {
  site.write("index.html", R"(<!doctype html><title>start</title><body>
    <a href="/plain.html">plain</a><script>
    setTimeout(() => { const a = document.createElement('a'); a.href = '/timer.html';
      document.body.append(a); }, 200);
    fetch('/api/links.json').then(r => r.json()).then(links => { for (const href of links) {
      const a = document.createElement('a'); a.href = href; document.body.append(a); } });
    const host = document.createElement('div'); document.body.append(host);
    host.attachShadow({mode: 'open'}).innerHTML = '<a href="/shadow.html">shadow</a>';
  </script></body>)");
  site.write("api/links.json", R"(["/from-api.html"])");
  for (const char* page : {"plain", "timer", "from-api", "shadow"})
    site.write(std::string(page) + ".html",
               "<!doctype html><title>" + std::string(page) + "</title>");
}

TEST_F(CrawlRenderTest, LinksOnlyJavaScriptMakesAreFoundWithRenderAndMissedWithout) {
  write_js_site(site_);
  serve();
  Process plain = test::run_crawl(
      work_.path(), {url("/index.html"), "--state", "plain.db", "--jsonl", "plain.jsonl", "-q"});
  ASSERT_EQ(test::exit_status(plain.wait(0ms)), 0) << plain.output();
  std::vector<std::string> without = test::jsonl_urls(work_.path() / "plain.jsonl");
  std::sort(without.begin(), without.end());
  EXPECT_EQ(without, (std::vector<std::string>{url("/index.html"), url("/plain.html")}));

  Process rendered = test::run_crawl(work_.path(), {url("/index.html"), "--render", "--state",
                                                    "render.db", "--jsonl", "render.jsonl", "-q"});
  ASSERT_EQ(test::exit_status(rendered.wait(0ms)), 0) << rendered.output();
  std::vector<std::string> with = test::jsonl_urls(work_.path() / "render.jsonl");
  std::sort(with.begin(), with.end());
  EXPECT_EQ(with,
            (std::vector<std::string>{url("/from-api.html"), url("/index.html"), url("/plain.html"),
                                      url("/shadow.html"), url("/timer.html")}));
}

TEST_F(CrawlRenderTest, ARenderCrawlWhoseBrowserIsKilledRendersEveryPageExactlyOnce) {
  // 80 pages whose links only a script writes, each page slow enough to be caught rendering.
  constexpr int kPages = 80;
  auto page = [](int i) {
    std::string name = "p";
    name += std::to_string(i);
    return name;
  };
  std::string links;
  for (int i = 1; i < kPages; ++i) {
    links += "'/";
    links += page(i);
    links += ".html',";
  }
  std::string index = "<!doctype html><body><script>for (const h of [";
  index += links;
  index += "]) { const a = document.createElement('a'); a.href = h; document.body.append(a); }";
  index += "</script></body>";
  site_.write("index.html", index);
  for (int i = 1; i < kPages; ++i) {
    std::string html = "<!doctype html><title>";
    html += page(i);
    html += "</title><body><script>setTimeout(() => document.title += ' done', 100)</script>";
    site_.write(page(i) + ".html", html);
  }
  serve();
  Process crawl = Process::start({test::squall_binary(), "crawl", url("/index.html"), "--render",
                                  "--browsers", "2", "--concurrency", "4", "--per-host", "4",
                                  "--state", "kill.db", "--jsonl", "kill.jsonl", "-q"},
                                 work_.path());
  // Kill the browsers once some pages are done, and again later.
  for (size_t after : {20u, 50u}) {
    auto give_up = std::chrono::steady_clock::now() + 60s;
    while (crawl.running() && requests().size() < after &&
           std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(20ms);
    std::vector<pid_t> browsers = browser_groups(site_.path() / "tmp");
    ASSERT_FALSE(browsers.empty()) << "no browser running after " << requests().size() << " pages";
    for (pid_t browser : browsers) ::kill(browser, SIGKILL);
  }
  int status = crawl.wait(120s);
  ASSERT_EQ(test::exit_status(status), 0) << crawl.output();
  std::map<std::string, int> times;
  for (const std::string& u : test::jsonl_urls(work_.path() / "kill.jsonl")) ++times[u];
  EXPECT_EQ(times.size(), static_cast<size_t>(kPages));
  for (const auto& [u, n] : times) EXPECT_EQ(n, 1) << u;
  std::ifstream jsonl(work_.path() / "kill.jsonl");
  for (std::string line; std::getline(jsonl, line);)
    EXPECT_EQ(nlohmann::json::parse(line)["status"], 200) << line;
}

TEST_F(CrawlRenderTest, RobotsTxtIsObeyedForRenderedPages) {
  site_.write("robots.txt", "User-agent: *\nDisallow: /private\n");
  site_.write("index.html", R"(<!doctype html><body><script>
    for (const h of ['/private.html', '/public.html']) { const a = document.createElement('a');
      a.href = h; document.body.append(a); }</script></body>)");
  site_.write("private.html", "<!doctype html>private");
  site_.write("public.html", "<!doctype html>public");
  serve();
  Process crawl = test::run_crawl(work_.path(), {url("/index.html"), "--render", "--state",
                                                 "robots.db", "--jsonl", "robots.jsonl", "-q"});
  ASSERT_EQ(test::exit_status(crawl.wait(0ms)), 0) << crawl.output();
  std::vector<std::string> seen = requests();
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "/public.html"), 1);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "/private.html"), 0);
}

TEST_F(CrawlRenderTest, FetchRenderPrintsTheRenderedHtml) {
  write_js_site(site_);
  serve();
  test::CommandResult r =
      test::run_command({test::squall_binary(), "fetch", "--render", url("/index.html")},
                        work_.path(), {{"TMPDIR", (site_.path() / "tmp").string()}});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* link : {"/timer.html", "/from-api.html", "/shadow.html"})
    EXPECT_TRUE(test::contains(r.out, std::string("href=\"") + link + "\"")) << r.out;

  test::CommandResult refused =
      test::run_command({test::squall_binary(), "fetch", "--render", url("/")}, work_.path(),
                        {{"TMPDIR", (site_.path() / "tmp").string()}});
  EXPECT_EQ(refused.status, 0) << refused.err;  // nginx's index.html

  test::CommandResult missing =
      test::run_command({test::squall_binary(), "fetch", "--render", url("/nothing.html")},
                        work_.path(), {{"TMPDIR", (site_.path() / "tmp").string()}});
  EXPECT_EQ(missing.status, 22) << missing.err;
}

TEST_F(CrawlRenderTest, AMissingBrowserNamesThePackageToInstall) {
  for (const char* command : {"fetch", "crawl"}) {
    test::CommandResult r =
        test::run_command({test::squall_binary(), command, "--render", "http://127.0.0.1:1/"},
                          work_.path(), {{"SQUALL_CHROMIUM", "/nonexistent/chromium"}});
    EXPECT_EQ(r.status, 1) << command;
    EXPECT_TRUE(test::contains(r.err, "apt-get install chromium-headless-shell")) << r.err;
  }
}

}  // namespace
}  // namespace squall
