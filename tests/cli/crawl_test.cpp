// `squall crawl` as users run it: the built command against a generated site served by nginx,
// killed with SIGKILL at random points and run again until it finishes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "squall/cli/crawl_command.h"
#include "support/crawl_state.h"
#include "support/process.h"
#include "support/site.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using test::Process;
using test::TempDir;
using namespace std::chrono_literals;

using test::exit_status;
using test::jsonl_urls;
const std::string& kSquall = test::squall_binary();

// The targets of the GET requests in nginx's access log, in order.
std::vector<std::string> site_requests(const test::GeneratedSite& site) {
  std::vector<std::string> out;
  std::istringstream log(test::read_file(site.dir.path() / "access.log"));
  for (std::string line; std::getline(log, line);) {
    size_t start = line.find("\"GET ");
    size_t end = line.find(" HTTP/", start);
    if (start != std::string::npos && end != std::string::npos)
      out.push_back(line.substr(start + 5, end - start - 5));
  }
  return out;
}

// URLs the state file has finished (done, failed or skipped) as far as its last commit, read
// beside a running crawl (WAL mode lets a reader in while the crawler writes); 0 while the
// file cannot be read yet.
int64_t committed_urls(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return 0;
  try {
    test::CrawlStateCounts c = test::crawl_state_counts(path);
    return c.total() - c.queued;
  } catch (const std::exception&) {
    return 0;
  }
}

// Waits until the state file holds more than `finished` finished URLs, `crawl` has exited, or
// a minute has passed.
void wait_for_commit(Process& crawl, const std::filesystem::path& state, int64_t finished) {
  auto give_up = std::chrono::steady_clock::now() + 60s;
  while (crawl.running() && committed_urls(state) <= finished &&
         std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(5ms);
}

TEST(CrawlCommand, CrawlsASiteAndPrintsTheSummary) {
  test::GeneratedSite site(150);
  TempDir work;
  Process crawl =
      Process::start({kSquall, "crawl", site.origin + "/", "--concurrency", "8", "--per-host", "8",
                      "--jsonl", "out.jsonl", "--warc", "out.warc.gz"},
                     work.path());
  int status = crawl.wait(120s);
  ASSERT_EQ(exit_status(status), 0) << crawl.output();
  std::string err = crawl.output();
  EXPECT_NE(err.find("Done in "), std::string::npos) << err;
  EXPECT_NE(err.find("fetched " + std::to_string(site.with_robots.size()) + " URLs."),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("\033[K"), std::string::npos) << "no progress line when not on a terminal";
  EXPECT_TRUE(std::filesystem::exists(work.path() / "crawl.db")) << "the default state file";
  auto urls = jsonl_urls(work.path() / "out.jsonl");
  EXPECT_EQ(std::set<std::string>(urls.begin(), urls.end()), site.with_robots);
  EXPECT_EQ(urls.size(), site.with_robots.size());
}

TEST(CrawlCommand, SigkillAtRandomPointsThenResumeLosesAndRepeatsNothing) {
  // nginx answers the site's 1,100-odd URLs at 600 a second at most: a crawl of it takes almost
  // 2 s however fast the machine is, so a run is still going when its first commit (at 500 ms)
  // lands and a late kill comes after it.
  test::GeneratedSite site(400, 600);
  TempDir work;
  std::filesystem::path state = work.path() / "crawl.db";
  std::vector<std::string> argv = {
      kSquall, "crawl",   site.origin + "/", "--concurrency", "4",           "--per-host",
      "4",     "--jsonl", "out.jsonl",       "--warc",        "out.warc.gz", "--quiet"};
  std::mt19937 rng(std::random_device{}());
  int kills = 0, kills_after_a_commit = 0;
  int64_t finished = 0;  // URLs the state file had finished at the last kill
  // After each kill: the targets the state file holds a result for, and how long nginx's log
  // was then. No later request may ask for one of them again. (The site's redirect targets,
  // /d/<n>/, are reached only through their redirects, so they are never stored themselves.)
  std::map<std::string, size_t> stored_at;
  // Ten runs killed, half early and half late, then one to the end: each late kill keeps what
  // its run committed, so the last run finds part of the crawl stored.
  constexpr int kKilledRuns = 10;
  for (int round = 0; round <= kKilledRuns; ++round) {
    Process crawl = Process::start(argv, work.path());
    if (round < kKilledRuns) {
      if (round % 2 == 0) {
        // Early: at start-up, or around the first commit (every 500 ms).
        std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 400));
      } else {
        // Late: once this run has committed results, at once or a little later.
        wait_for_commit(crawl, state, finished);
        std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 200));
      }
      if (crawl.running()) {
        crawl.stop(SIGKILL);
        ++kills;
        // Killed before it made its state file (a slow start: ASan, a loaded machine): nothing
        // was stored.
        if (!std::filesystem::exists(state)) continue;
        size_t log_lines = site_requests(site).size();
        int64_t now_finished = 0;
        for (const test::CrawlStatePage& r : test::crawl_state_pages(state)) {
          if (r.state == test::CrawlStatePage::State::Queued) continue;
          ++now_finished;
          if (r.state != test::CrawlStatePage::State::Skipped)
            stored_at.try_emplace(r.url.substr(site.origin.size()), log_lines);
        }
        if (now_finished > finished) ++kills_after_a_commit;
        finished = now_finished;
        continue;
      }
    }
    int status = crawl.wait(120s);
    ASSERT_EQ(exit_status(status), 0) << crawl.output();
    break;
  }
  EXPECT_GT(kills, 0) << "the crawl should have been killed at least once";
  EXPECT_GT(kills_after_a_commit, 0) << "no kill came after a run had stored results";
  std::vector<std::string> requests = site_requests(site);
  for (size_t i = 0; i < requests.size(); ++i) {
    auto it = stored_at.find(requests[i]);
    EXPECT_FALSE(it != stored_at.end() && i >= it->second)
        << requests[i] << " was fetched again after its result was stored";
  }
  auto urls = jsonl_urls(work.path() / "out.jsonl");
  std::set<std::string> unique(urls.begin(), urls.end());
  EXPECT_EQ(unique.size(), urls.size()) << "a JSON line repeated after a resume";
  EXPECT_EQ(unique, site.with_robots) << "pages lost across kills";
  Process gzip = Process::start({"gzip", "-t", (work.path() / "out.warc.gz").string()});
  EXPECT_EQ(gzip.wait(30s), 0) << gzip.output();
}

TEST(CrawlCommand, SigintStopsWithStateKeptAndTheSameCommandResumes) {
  test::GeneratedSite site(300);
  TempDir work;
  std::vector<std::string> argv = {
      kSquall,   "crawl", site.origin + "/", "--concurrency", "2", "--per-host", "1",
      "--delay", "0.02",  "--jsonl",         "out.jsonl"};
  Process crawl = Process::start(argv, work.path());
  // Once results are committed, the command is past its start-up and handles SIGINT (a fixed
  // sleep could end first on a loaded machine, and SIGINT's default action kill it).
  wait_for_commit(crawl, work.path() / "crawl.db", 0);
  ASSERT_TRUE(crawl.running());
  kill(crawl.pid(), SIGINT);
  int status = crawl.wait(30s);
  EXPECT_EQ(exit_status(status), 130) << crawl.output();
  EXPECT_NE(crawl.output().find("run the same command again to resume"), std::string::npos)
      << crawl.output();
  argv[8] = "0";  // no delay for the rest
  Process again = Process::start(argv, work.path());
  ASSERT_EQ(exit_status(again.wait(120s)), 0) << again.output();
  EXPECT_NE(again.output().find("resumed"), std::string::npos) << again.output();
  auto urls = jsonl_urls(work.path() / "out.jsonl");
  EXPECT_EQ(std::set<std::string>(urls.begin(), urls.end()), site.with_robots);
  EXPECT_EQ(urls.size(), site.with_robots.size());
}

TEST(CrawlCommand, TimeoutEndsTheCrawlWithStatusThree) {
  test::GeneratedSite site(100);
  TempDir work;
  Process crawl = Process::start(
      {kSquall, "crawl", site.origin + "/", "--per-host", "1", "--delay", "0.3", "--timeout", "1"},
      work.path());
  int status = crawl.wait(60s);
  EXPECT_EQ(exit_status(status), 3) << crawl.output();
  EXPECT_NE(crawl.output().find("Timed out after "), std::string::npos) << crawl.output();
  EXPECT_EQ(crawl.output().find("Done in "), std::string::npos) << crawl.output();
}

TEST(CrawlCommand, UsageErrorsExitWithStatusTwo) {
  TempDir work;
  for (std::vector<std::string> argv :
       {std::vector<std::string>{kSquall, "crawl", "not a url"},
        std::vector<std::string>{kSquall, "crawl", "http://127.0.0.1/", "--scope", "planet"},
        std::vector<std::string>{kSquall, "crawl", "http://127.0.0.1/", "--include", "("},
        std::vector<std::string>{kSquall, "crawl", "http://127.0.0.1/", "--concurrency", "x"},
        std::vector<std::string>{kSquall, "crawl"}}) {
    Process crawl = Process::start(argv, work.path());
    int status = crawl.wait(30s);
    EXPECT_EQ(exit_status(status), 2) << argv.back() << ": " << crawl.output();
    EXPECT_FALSE(crawl.output().empty());
  }
}

TEST(CrawlCommand, AStateFileThatCannotBeOpenedIsStatusOne) {
  TempDir work;
  Process crawl = Process::start(
      {kSquall, "crawl", "http://127.0.0.1:9/", "--state", "/nonexistent-dir/crawl.db"},
      work.path());
  EXPECT_EQ(exit_status(crawl.wait(30s)), 1) << crawl.output();
  EXPECT_NE(crawl.output().find("/nonexistent-dir/crawl.db"), std::string::npos) << crawl.output();
}

}  // namespace
}  // namespace squall
