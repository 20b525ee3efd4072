// `squall crawl` and its state file: one crawl per state (another crawl is refused, --fresh
// starts over), --max-pages counted across resumes, one process per state, and outputs that
// belong to their crawl.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "support/crawl_state.h"
#include "support/process.h"
#include "support/site.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using test::contains;
using test::exit_status;
using test::Process;
using test::run_crawl;
using test::squall_binary;
using test::TempDir;
using namespace std::chrono_literals;

// Pages the state file has a result for (done or given up), skipped ones left out.
size_t stored_pages(const std::filesystem::path& state) {
  test::CrawlStateCounts c = test::crawl_state_counts(state);
  return static_cast<size_t>(c.done + c.failed);
}

TEST(CrawlState, AStateOfAnotherCrawlIsRefusedAndFreshStartsOver) {
  test::GeneratedSite site(30);
  TempDir work;
  Process first = run_crawl(work.path(), {site.origin + "/p/1.html", "--max-depth", "0"});
  ASSERT_EQ(exit_status(first.wait(0ms)), 0) << first.output();

  Process other = run_crawl(work.path(), {site.origin + "/", "--max-depth", "0"});
  EXPECT_EQ(exit_status(other.wait(0ms)), 2) << other.output();
  EXPECT_TRUE(contains(other.output(), "crawl.db belongs to another crawl (start URLs " +
                                           site.origin + "/p/1.html, not " + site.origin + "/)"))
      << other.output();
  EXPECT_TRUE(contains(other.output(), "--state FILE")) << other.output();
  EXPECT_TRUE(contains(other.output(), "--fresh")) << other.output();

  Process flags = run_crawl(work.path(), {site.origin + "/p/1.html", "--max-depth", "1"});
  EXPECT_EQ(exit_status(flags.wait(0ms)), 2) << flags.output();
  EXPECT_TRUE(contains(flags.output(), "with --max-depth 0, not --max-depth 1")) << flags.output();

  Process fresh = run_crawl(work.path(), {site.origin + "/", "--max-depth", "0", "--fresh"});
  EXPECT_EQ(exit_status(fresh.wait(0ms)), 0) << fresh.output();
  EXPECT_FALSE(contains(fresh.output(), "resumed")) << fresh.output();
  auto results = test::crawl_state_pages(work.path() / "crawl.db");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].url, site.origin + "/");
  EXPECT_EQ(results[0].state, test::CrawlStatePage::State::Done);
}

TEST(CrawlState, MaxPagesFetchesExactlyThatManyCountedAcrossResumes) {
  test::GeneratedSite site(300);
  TempDir work;
  std::vector<std::string> args = {
      site.origin + "/", "--concurrency", "8",           "--per-host", "8",
      "--jsonl",         "out.jsonl",     "--max-pages", "30"};
  Process first = run_crawl(work.path(), args);
  ASSERT_EQ(exit_status(first.wait(0ms)), 0) << first.output();
  EXPECT_TRUE(contains(first.output(), "fetched 30 URLs.")) << first.output();
  EXPECT_EQ(test::jsonl_urls(work.path() / "out.jsonl").size(), 30u);
  EXPECT_EQ(stored_pages(work.path() / "crawl.db"), 30u);

  Process again = run_crawl(work.path(), args);
  EXPECT_EQ(exit_status(again.wait(0ms)), 0) << again.output();
  EXPECT_TRUE(contains(again.output(), "fetched 0 URLs.")) << "the crawl has its 30 already";

  args.back() = "75";
  Process more = run_crawl(work.path(), args);
  EXPECT_EQ(exit_status(more.wait(0ms)), 0) << more.output();
  EXPECT_TRUE(contains(more.output(), "fetched 45 URLs.")) << more.output();
  auto urls = test::jsonl_urls(work.path() / "out.jsonl");
  EXPECT_EQ(urls.size(), 75u);
  EXPECT_EQ(std::set<std::string>(urls.begin(), urls.end()).size(), 75u);
  EXPECT_EQ(stored_pages(work.path() / "crawl.db"), 75u);
}

TEST(CrawlState, ASecondCrawlOnTheSameStateRefusesAtOnceAndTheFirstGoesOn) {
  test::GeneratedSite site(100);
  TempDir work;
  std::vector<std::string> args = {squall_binary(), "crawl", site.origin + "/", "--per-host", "1",
                                   "--delay",       "0.02",  "--jsonl",         "out.jsonl"};
  Process first = Process::start(args, work.path());
  while (first.running() &&
         test::read_file(work.path() / "out.jsonl").find('\n') == std::string::npos)
    std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(first.running()) << first.output();
  Process second = Process::start(args, work.path());
  EXPECT_EQ(exit_status(second.wait(30s)), 1) << second.output();
  EXPECT_TRUE(contains(second.output(), "crawl state crawl.db is in use by another process"))
      << second.output();
  EXPECT_TRUE(first.running()) << "the first crawl is not disturbed";
  ASSERT_EQ(exit_status(first.wait(120s)), 0) << first.output();
  auto urls = test::jsonl_urls(work.path() / "out.jsonl");
  EXPECT_EQ(std::set<std::string>(urls.begin(), urls.end()), site.with_robots);
  EXPECT_EQ(urls.size(), site.with_robots.size()) << "one line per page, none from the second";
}

TEST(CrawlState, AnOutputOfAnotherCrawlIsRefusedAndAResumeAppends) {
  test::GeneratedSite site(60);
  TempDir work;
  std::vector<std::string> args = {site.origin + "/", "--jsonl",     "out.jsonl", "--warc",
                                   "out.warc.gz",     "--max-pages", "10"};
  Process first = run_crawl(work.path(), args);
  ASSERT_EQ(exit_status(first.wait(0ms)), 0) << first.output();
  std::string jsonl = test::read_file(work.path() / "out.jsonl");
  std::string warc = test::read_file(work.path() / "out.warc.gz");

  for (const char* output : {"--jsonl", "--warc"}) {
    std::vector<std::string> other = {
        site.origin + "/", "--state", "other.db", output,
        std::string(output) == "--jsonl" ? "out.jsonl" : "out.warc.gz"};
    Process p = run_crawl(work.path(), other);
    EXPECT_EQ(exit_status(p.wait(0ms)), 2) << p.output();
    EXPECT_TRUE(contains(p.output(),
                         "holds records that are not this crawl's (other.db did not "
                         "write them): give another " +
                             std::string(output) + " path, or --fresh"))
        << p.output();
  }
  EXPECT_EQ(test::read_file(work.path() / "out.jsonl"), jsonl) << "left as it was";
  EXPECT_EQ(test::read_file(work.path() / "out.warc.gz"), warc) << "left as it was";

  args.back() = "25";
  Process resume = run_crawl(work.path(), args);
  ASSERT_EQ(exit_status(resume.wait(0ms)), 0) << resume.output();
  std::string appended = test::read_file(work.path() / "out.jsonl");
  EXPECT_TRUE(appended.starts_with(jsonl)) << "a resume of the same crawl appends";
  EXPECT_EQ(test::jsonl_urls(work.path() / "out.jsonl").size(), 25u);
  Process gzip = Process::start({"gzip", "-t", (work.path() / "out.warc.gz").string()});
  EXPECT_EQ(gzip.wait(30s), 0) << gzip.output();

  Process fresh = run_crawl(work.path(), {site.origin + "/", "--state", "other.db", "--jsonl",
                                          "out.jsonl", "--max-pages", "5", "--fresh"});
  ASSERT_EQ(exit_status(fresh.wait(0ms)), 0) << fresh.output();
  EXPECT_EQ(test::jsonl_urls(work.path() / "out.jsonl").size(), 5u) << "overwritten";
}

}  // namespace
}  // namespace squall
