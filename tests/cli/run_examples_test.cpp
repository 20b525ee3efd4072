// examples/projects: each pyspider-style script runs under `squall run` against a local site.
#include <gtest/gtest.h>

#include <set>

#include "cli/run_peer.h"

namespace squall {
namespace {

using nlohmann::json;
using test::contains;
using test::RunPeer;
using test::TempDir;

test::CommandResult run_example(const TempDir& work, const RunPeer& site, const std::string& name,
                                std::vector<std::string> args,
                                std::vector<std::pair<std::string, std::string>> env = {}) {
  std::vector<std::string> argv = {test::squall_binary(),
                                   "run",
                                   SQUALL_SOURCE_DIR "/examples/projects/" + name,
                                   "--db",
                                   "state.db",
                                   "--results",
                                   "out.jsonl"};
  argv.insert(argv.end(), args.begin(), args.end());
  env.emplace_back("SITE", site.origin);
  return test::run_command(argv, work.path(), env);
}

TEST(RunExamples, IndexDetailReturnsATitleForEachDetailPage) {
  RunPeer site;
  TempDir work;
  test::CommandResult r = run_example(work, site, "index_detail.py", {});
  ASSERT_EQ(r.status, 0) << r.err;
  std::set<std::string> titles;
  for (const auto& [taskid, line] : test::results_by_taskid(work.path() / "out.jsonl"))
    titles.insert(line["result"]["title"]);
  EXPECT_EQ(titles, (std::set<std::string>{"first", "second", "third"}));
  for (const json& request : site.requests()) {
    if (request["path"] == "/robots.txt") continue;
    EXPECT_EQ(request["headers"]["accept-language"], "en") << request.dump();
  }
}

TEST(RunExamples, JsonApiLogsInAndPostsWithItsCookie) {
  RunPeer site;
  TempDir work;
  test::CommandResult r = run_example(work, site, "json_api.py", {});
  ASSERT_EQ(r.status, 0) << r.err;
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 3u);
  for (const auto& [taskid, line] : results) {
    const json& result = line["result"];
    EXPECT_EQ(result["answer"]["form"]["page"], std::to_string(result["page"].get<int>()));
    EXPECT_TRUE(contains(result["answer"]["cookie"].get<std::string>(), "session=s3cret"));
  }
  EXPECT_EQ(site.requests_for("/login").size(), 1u);
  EXPECT_EQ(site.requests_for("/items").size(), 3u);
}

TEST(RunExamples, RecrawlAsksEveryTickAndFetchesOnlyWhatAgeAndItagAllow) {
  RunPeer site;
  TempDir work;
  test::CommandResult r =
      run_example(work, site, "recrawl.py", {"--timeout", "8"}, {{"EVERY_SECONDS", "1"}});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(site.requests_for("/page/news").size(), 1u);
  EXPECT_EQ(site.requests_for("/page/today").size(), 1u);
  auto tagged = site.requests_for("/etag");
  ASSERT_GE(tagged.size(), 2u) << "age 0: fetched again at every tick";
  EXPECT_EQ(tagged[1]["headers"]["if-none-match"], "\"v1\"");
  EXPECT_EQ(test::results_by_taskid(work.path() / "out.jsonl").size(), 3u);
}

}  // namespace
}  // namespace squall
