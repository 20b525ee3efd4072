// `squall run` with the control plane and the browser: --port serves the project's state after
// it ends until Ctrl-C, and a Python project's fetch_type='js' task is rendered in Chromium.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/run_peer.h"
#include "squall/browser/chromium.h"
#include "support/process.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using nlohmann::json;
using test::await_output;
using test::contains;
using test::dashboard_port;
using test::exit_status;
using test::Process;
using test::squall_binary;
using test::TempDir;
using namespace std::chrono_literals;

// A site of three pages: an index whose heading only JavaScript writes, linking two others.
struct JsSite {
  TempDir dir;
  uint16_t port = test::free_port();
  Process nginx;

  JsSite() {
    dir.write("index.html", R"(<!doctype html><title>index</title><body><h1 id=h></h1>
      <a href="/a.html">a</a> <a href="/b.html">b</a>
      <script>document.getElementById('h').textContent = 'made by ' + 'script';</script>)");
    dir.write("a.html", "<!doctype html><title>page a</title>");
    dir.write("b.html", "<!doctype html><title>page b</title>");
    nginx = test::start_nginx(dir, "", port);
  }
  std::string origin() const { return "http://127.0.0.1:" + std::to_string(port); }
};

// The project: its index (rendered when `js`) gives the heading, each page its title.
std::string project_script(const std::string& origin, bool js) {
  return "from pyspider.libs.base_handler import *\n\n\nclass Handler(BaseHandler):\n"
         "    def on_start(self):\n"
         "        self.crawl('" +
         origin + "/index.html', callback=self.index_page" + (js ? ", fetch_type='js'" : "") +
         ")\n\n"
         "    def index_page(self, response):\n"
         "        for a in response.doc('a').items():\n"
         "            self.crawl(a.attr.href, callback=self.detail_page)\n"
         "        return {'heading': response.doc('h1').text()}\n\n"
         "    def detail_page(self, response):\n"
         "        return {'title': response.doc('title').text()}\n";
}

test::CommandResult curl(const TempDir& dir, const std::string& url) {
  return test::run_command({"/usr/bin/curl", "-sS", url}, dir.path());
}

TEST(RunControl, WithAPortTheProjectsStateIsServedAfterItEndsUntilCtrlC) {
  test::suppress_interpreter_leaks();
  JsSite site;
  TempDir work;
  work.write("site.py", project_script(site.origin(), false));
  Process run = Process::start({squall_binary(), "run", "site.py", "--port", "0"}, work.path());
  std::string out = await_output(run, "until Ctrl-C\n");
  int port = dashboard_port(out);
  ASSERT_GT(port, 0) << out;
  std::string base = "http://127.0.0.1:" + std::to_string(port);
  test::CommandResult projects = curl(work, base + "/api/projects");
  ASSERT_EQ(projects.status, 0) << projects.err;
  json p = json::parse(projects.out)["projects"].at(0);
  EXPECT_EQ(p["name"], "site");
  EXPECT_EQ(p["counters"]["all"]["pending"], 0) << p.dump();
  test::CommandResult results = curl(work, base + "/api/results?project=site");
  json r = json::parse(results.out);
  EXPECT_EQ(r["results"].size(), 3u) << results.out;
  EXPECT_TRUE(contains(results.out, "page a")) << results.out;
  EXPECT_TRUE(run.running());
  EXPECT_EQ(exit_status(run.stop(SIGINT)), 0) << run.output();
}

TEST(RunControl, AJsTaskOfAPythonProjectIsRenderedInChromium) {
  if (browser::find_chromium().empty()) GTEST_SKIP() << browser::no_chromium_message();
  test::suppress_interpreter_leaks();
  JsSite site;
  TempDir work;
  work.write("plain.py", project_script(site.origin(), false));
  work.write("rendered.py", project_script(site.origin(), true));
  for (std::string name : {"plain", "rendered"}) {
    test::CommandResult done = test::run_command(
        {squall_binary(), "run", name + ".py", "--results", name + ".jsonl"}, work.path());
    EXPECT_EQ(done.status, 0) << name << ": " << done.err;
  }
  // Without the browser the heading is empty; rendered, it is what the page's script wrote.
  std::string plain = test::read_file(work.path() / "plain.jsonl");
  std::string rendered = test::read_file(work.path() / "rendered.jsonl");
  EXPECT_TRUE(contains(plain, "\"heading\":\"\"")) << plain;
  EXPECT_TRUE(contains(rendered, "\"heading\":\"made by script\"")) << rendered;
  EXPECT_TRUE(contains(rendered, "page b")) << rendered;
}

}  // namespace
}  // namespace squall
