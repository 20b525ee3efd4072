// `squall crawl --port`: the dashboard's URL at the start, the API while the crawl runs and after
// it until Ctrl-C, --exit-when-done, and --bind beyond loopback only with --auth.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/process.h"
#include "support/site.h"
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

test::CommandResult curl(const TempDir& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"/usr/bin/curl", "-sS"});
  return test::run_command(args, dir.path());
}

TEST(CrawlControl, WithAPortTheCrawlServesItsStateAfterItEndsUntilCtrlC) {
  test::GeneratedSite site(40);
  TempDir work;
  Process crawl = Process::start({squall_binary(), "crawl", site.origin + "/index.html", "--port",
                                  "0", "--state", (work.path() / "c.db").string()},
                                 work.path());
  std::string out = await_output(crawl, "until Ctrl-C\n");
  int port = dashboard_port(out);
  ASSERT_GT(port, 0) << out;
  EXPECT_TRUE(contains(out, "Done in ")) << out;
  EXPECT_TRUE(contains(out, "Serving http://127.0.0.1:" + std::to_string(port) + "/ until Ctrl-C"))
      << out;
  std::string base = "http://127.0.0.1:" + std::to_string(port);
  test::CommandResult projects = curl(work, {base + "/api/projects"});
  ASSERT_EQ(projects.status, 0) << projects.err;
  json p = json::parse(projects.out)["projects"].at(0);
  EXPECT_EQ(p["name"], "crawl");
  EXPECT_GT(p["counters"]["all"]["success"].get<int>(), 40) << p.dump();
  EXPECT_EQ(p["counters"]["all"]["pending"], 0) << p.dump();
  test::CommandResult tasks = curl(work, {base + "/api/tasks?limit=5"});
  EXPECT_EQ(json::parse(tasks.out)["tasks"].size(), 5u) << tasks.out;
  EXPECT_TRUE(crawl.running());
  int status = crawl.stop(SIGINT);
  EXPECT_EQ(exit_status(status), 0) << crawl.output();
  // The summary is printed once.
  out = crawl.output();
  EXPECT_EQ(out.find("Done in "), out.rfind("Done in ")) << out;
}

TEST(CrawlControl, ExitWhenDoneLeavesAsSoonAsTheCrawlEnds) {
  test::GeneratedSite site(20);
  TempDir work;
  Process crawl =
      Process::start({squall_binary(), "crawl", site.origin + "/index.html", "--port", "0",
                      "--exit-when-done", "--state", (work.path() / "c.db").string()},
                     work.path());
  int status = crawl.wait(120s);
  EXPECT_EQ(exit_status(status), 0) << crawl.output();
  EXPECT_GT(dashboard_port(crawl.output()), 0) << crawl.output();
  EXPECT_FALSE(contains(crawl.output(), "until Ctrl-C")) << crawl.output();
}

TEST(CrawlControl, WithoutAPortNoDashboardIsPrinted) {
  test::GeneratedSite site(5);
  TempDir work;
  Process crawl = test::run_crawl(work.path(), {site.origin + "/index.html"});
  EXPECT_EQ(exit_status(crawl.wait(0ms)), 0) << crawl.output();
  EXPECT_FALSE(contains(crawl.output(), "Dashboard")) << crawl.output();
}

TEST(CrawlControl, AnAddressBeyondLoopbackNeedsAuthAndAuthGuardsEveryRoute) {
  TempDir work;
  test::CommandResult open = test::run_command(
      {squall_binary(), "crawl", "http://127.0.0.1:9/", "--port", "0", "--bind", "0.0.0.0"},
      work.path());
  EXPECT_EQ(open.status, 2);
  EXPECT_TRUE(contains(open.err,
                       "--bind 0.0.0.0 serves beyond this machine: it needs --auth "
                       "user:password"))
      << open.err;

  test::GeneratedSite site(10);
  Process crawl =
      Process::start({squall_binary(), "crawl", site.origin + "/index.html", "--port", "0",
                      "--auth", "admin:s3cret", "--state", (work.path() / "c.db").string()},
                     work.path());
  std::string out = await_output(crawl, "until Ctrl-C\n");
  int port = dashboard_port(out);
  ASSERT_GT(port, 0) << out;
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/api/counters";
  EXPECT_EQ(curl(work, {"-o", "/dev/null", "-w", "%{http_code}", url}).out, "401");
  EXPECT_EQ(curl(work, {"-o", "/dev/null", "-w", "%{http_code}", "-u", "admin:wrong", url}).out,
            "401");
  EXPECT_EQ(curl(work, {"-o", "/dev/null", "-w", "%{http_code}", "-u", "admin:s3cret", url}).out,
            "200");
  EXPECT_EQ(exit_status(crawl.stop(SIGINT)), 0) << crawl.output();
}

}  // namespace
}  // namespace squall
