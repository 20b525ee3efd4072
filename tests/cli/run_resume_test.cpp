// `squall run` stopped and run again: kill -9, --timeout and Ctrl-C each leave a store that the
// same command resumes, losing and duplicating nothing.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <set>
#include <thread>

#include "cli/run_peer.h"

namespace squall {
namespace {

using nlohmann::json;
using test::contains;
using test::exit_status;
using test::Process;
using test::RunPeer;
using test::TempDir;
using test::with_origin;
using namespace std::chrono_literals;

// A tree of `pages` pages under /chain/0, each a task whose result is its title; `pause` seconds
// in each callback make a run long enough to stop in the middle.
std::string chain_project(const std::string& origin, int pages, double pause) {
  std::string script = R"(
import time
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/chain/0?to=PAGES", callback=self.page)

    def page(self, response):
        time.sleep(PAUSE)
        for each in response.doc("a").items():
            self.crawl(each.attr.href, callback=self.page)
        return {"title": response.doc("title").text()}
)";
  script.replace(script.find("PAGES"), 5, std::to_string(pages));
  script.replace(script.find("PAUSE"), 5, std::to_string(pause));
  return with_origin(script, origin);
}

size_t line_count(const std::filesystem::path& file) {
  std::ifstream in(file);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

// Waits until `file` has at least `lines` lines, or the process ended, or a minute passed.
void wait_for_lines(const std::filesystem::path& file, size_t lines, Process& process) {
  for (int i = 0; i < 1200 && process.running() && line_count(file) < lines; ++i)
    std::this_thread::sleep_for(50ms);
}

Process start_run(const TempDir& work, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {test::squall_binary(), "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  return Process::start(argv, work.path());
}

// Every page of the chain has its result once, in the store and in the export, and no task is
// left active.
void expect_complete(const TempDir& work, const RunPeer& site, int pages) {
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  EXPECT_EQ(results.size(), static_cast<size_t>(pages));
  EXPECT_EQ(line_count(work.path() / "out.jsonl"), static_cast<size_t>(pages))
      << "no result twice in the export";
  std::set<std::string> titles;
  for (const auto& [taskid, line] : results) titles.insert(line["result"]["title"]);
  EXPECT_EQ(titles.size(), static_cast<size_t>(pages));
  auto tasks = test::stored_tasks(work.path() / "chain.db");
  size_t done = 0;
  for (const test::StoredTask& t : tasks) {
    EXPECT_NE(t.status, 1) << t.url << " is still active";
    done += t.status == 2 && t.url.find("/chain/") != std::string::npos;
  }
  EXPECT_EQ(done, static_cast<size_t>(pages));
  std::set<std::string> fetched;
  for (const json& r : site.requests())
    if (contains(r["path"].get<std::string>(), "/chain/")) fetched.insert(r["path"]);
  EXPECT_EQ(fetched.size(), static_cast<size_t>(pages)) << "every page fetched";
}

TEST(RunResume, KillNineMidProjectThenARerunLosesAndDuplicatesNothing) {
  RunPeer site;
  TempDir work;
  constexpr int kPages = 300;
  work.write("chain.py", chain_project(site.origin, kPages, 0.002));
  std::vector<std::string> args = {"chain.py", "--results",  "out.jsonl", "--concurrency",
                                   "4",        "--per-host", "4",         "-q"};
  for (size_t at : {40u, 120u}) {
    Process run = start_run(work, args);
    wait_for_lines(work.path() / "out.jsonl", at, run);
    ASSERT_TRUE(run.running()) << "the project ended before the kill: " << run.output();
    ::kill(run.pid(), SIGKILL);
    EXPECT_EQ(exit_status(run.wait(10s)), 128 + SIGKILL);
  }
  test::CommandResult rest = test::squall_run(work, "chain.py", {"--results", "out.jsonl"});
  ASSERT_EQ(rest.status, 0) << rest.err;
  expect_complete(work, site, kPages);
  EXPECT_EQ(site.requests_for("/chain/0?to=300").size(), 1u)
      << "on_start ran on the first run only";
}

TEST(RunResume, TimeoutEndsTheRunWithStatus3AndTheSameCommandResumes) {
  RunPeer site;
  TempDir work;
  constexpr int kPages = 60;
  work.write("chain.py", chain_project(site.origin, kPages, 0.15));
  test::CommandResult first =
      test::squall_run(work, "chain.py", {"--results", "out.jsonl", "--timeout", "4"});
  EXPECT_EQ(first.status, 3) << first.err;
  EXPECT_TRUE(contains(first.err, "Timed out after")) << first.err;
  EXPECT_TRUE(contains(first.err, "run the same command again to resume")) << first.err;
  size_t partial = test::results_by_taskid(work.path() / "out.jsonl").size();
  EXPECT_GT(partial, 0u);
  EXPECT_LT(partial, static_cast<size_t>(kPages));

  test::CommandResult rest = test::squall_run(work, "chain.py", {"--results", "out.jsonl"});
  ASSERT_EQ(rest.status, 0) << rest.err;
  expect_complete(work, site, kPages);
}

TEST(RunResume, CtrlCStopsWithStatus130AndTheSameCommandResumes) {
  RunPeer site;
  TempDir work;
  constexpr int kPages = 60;
  work.write("chain.py", chain_project(site.origin, kPages, 0.1));
  Process run = start_run(work, {"chain.py", "--results", "out.jsonl"});
  wait_for_lines(work.path() / "out.jsonl", 3, run);
  ASSERT_TRUE(run.running()) << run.output();
  ::kill(run.pid(), SIGINT);
  EXPECT_EQ(exit_status(run.wait(30s)), 130) << run.output();
  EXPECT_TRUE(contains(run.output(), "Stopped after")) << run.output();
  EXPECT_TRUE(contains(run.output(), "(Ctrl-C)")) << run.output();

  test::CommandResult rest = test::squall_run(work, "chain.py", {"--results", "out.jsonl"});
  ASSERT_EQ(rest.status, 0) << rest.err;
  expect_complete(work, site, kPages);
}

}  // namespace
}  // namespace squall
