// The crawler against real sites on loopback: a generated site with every tricky link form and
// the Tornado and Python documentation (the site the seed's demo crawls), served by nginx and
// checked against the reachable set walked independently.
#include "squall/crawl/crawler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "squall/crawl/store.h"
#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/reachable.h"
#include "support/site.h"

namespace squall {
namespace {

using test::Process;
using test::TempDir;
using namespace std::chrono_literals;

class CrawlerTest : public test::LoopTest {
 protected:
  CrawlerOptions options_for(const test::GeneratedSite& site) {
    CrawlerOptions o;
    o.start_urls = {site.origin + "/"};
    o.state = dir_.path() / "crawl.db";
    o.concurrency = 8;
    o.per_host = 8;
    o.request_timeout = 10s;
    return o;
  }
  std::set<std::string> fetched_urls(const CrawlerOptions& o) {
    std::set<std::string> out;
    CrawlStore store = CrawlStore::open(o.state);
    for (const auto& r : store.results())
      if (r.state != UrlState::Skipped) out.insert(r.url);
    return out;
  }
  TempDir dir_;
};

TEST_F(CrawlerTest, FetchesExactlyTheReachablePagesOfAGeneratedSite) {
  test::GeneratedSite site(300);
  CrawlerOptions o = options_for(site);
  o.jsonl = (dir_.path() / "out.jsonl").string();
  o.warc = dir_.path() / "out.warc.gz";
  Crawler crawler(o);
  CrawlSummary s = run(crawler.run());
  EXPECT_FALSE(s.timed_out);
  EXPECT_FALSE(s.resumed);

  std::set<std::string> got = fetched_urls(o);
  std::vector<std::string> missing, extra;
  std::set_difference(site.with_robots.begin(), site.with_robots.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), site.with_robots.begin(), site.with_robots.end(),
                      std::back_inserter(extra));
  EXPECT_THAT(missing, testing::IsEmpty());
  EXPECT_THAT(extra, testing::IsEmpty());
  EXPECT_EQ(s.fetched, site.with_robots.size());
  EXPECT_GT(s.skipped, 0u) << "links to /private/ are disallowed by robots.txt";
  EXPECT_GT(s.statuses[404], 0u);
  EXPECT_EQ(s.queued_left, 0u);

  // Each page once; robots.txt once; nothing under /private/.
  for (const auto& [path, n] : site.hits()) {
    EXPECT_EQ(n, 1) << path;
    EXPECT_EQ(path.rfind("/private/", 0), std::string::npos) << path;
  }
  EXPECT_EQ(site.hits()["/robots.txt"], 1);

  // One JSON line per stored page, with the fields.
  std::istringstream lines(test::read_file(o.jsonl));
  size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    auto j = nlohmann::json::parse(line);
    for (const char* key : {"url", "final_url", "status", "depth", "parent", "content_type",
                            "length", "fetched_at", "elapsed_ms", "links", "error"})
      EXPECT_TRUE(j.contains(key)) << key << " in " << line;
  }
  EXPECT_EQ(count, s.fetched);
  EXPECT_GT(std::filesystem::file_size(o.warc), 1000u);
}

TEST_F(CrawlerTest, IgnoringRobotsReachesThePrivatePages) {
  test::GeneratedSite site(120);
  CrawlerOptions o = options_for(site);
  o.obey_robots = false;
  Crawler crawler(o);
  CrawlSummary s = run(crawler.run());
  EXPECT_EQ(fetched_urls(o), site.without_robots);
  EXPECT_EQ(s.skipped, 0u);
  EXPECT_EQ(site.hits().count("/robots.txt"), 0u);
}

TEST_F(CrawlerTest, ResumesWithoutFetchingAnythingTwice) {
  test::GeneratedSite site(200);
  CrawlerOptions o = options_for(site);
  o.jsonl = (dir_.path() / "out.jsonl").string();
  o.max_pages = 40;
  {
    Crawler first(o);
    CrawlSummary s = run(first.run());
    EXPECT_GE(s.fetched, 40u);
    EXPECT_GT(s.queued_left, 0u);
  }
  o.max_pages.reset();
  Crawler second(o);
  CrawlSummary s = run(second.run());
  EXPECT_TRUE(s.resumed);
  EXPECT_EQ(fetched_urls(o), site.with_robots);
  for (const auto& [path, n] : site.hits()) {
    if (path != "/robots.txt") {
      EXPECT_EQ(n, 1) << path << " fetched twice";
    }
  }
  std::istringstream lines(test::read_file(o.jsonl));
  std::set<std::string> urls;
  for (std::string line; std::getline(lines, line);)
    EXPECT_TRUE(urls.insert(nlohmann::json::parse(line)["url"]).second) << line;
  EXPECT_EQ(urls, site.with_robots);
}

TEST_F(CrawlerTest, DepthAndScopeLimits) {
  test::GeneratedSite site(100);
  CrawlerOptions o = options_for(site);
  o.max_depth = 1;
  Crawler crawler(o);
  run(crawler.run());
  std::set<std::string> got = fetched_urls(o);
  // The index (depth 0) and the ten pages it links to (depth 1).
  EXPECT_EQ(got.size(), 11u);
  EXPECT_TRUE(got.count(site.origin + "/p/9.html"));
}

TEST_F(CrawlerTest, ExcludePatternsAndLinkFilter) {
  test::GeneratedSite site(100);
  CrawlerOptions o = options_for(site);
  o.exclude = {"\\?v="};
  int filtered = 0;
  o.link_filter = [&](const Url& u, const CrawledPage&) {
    if (u.path().starts_with("/d/")) {
      ++filtered;
      return false;
    }
    return true;
  };
  Crawler crawler(o);
  run(crawler.run());
  for (const std::string& u : fetched_urls(o)) {
    EXPECT_EQ(u.find("?v="), std::string::npos) << u;
    EXPECT_EQ(u.find("/d/"), std::string::npos) << u;
  }
  EXPECT_GT(filtered, 0);
}

TEST_F(CrawlerTest, AnUnreachableStartFailsCleanlyWithRetries) {
  CrawlerOptions o;
  uint16_t port = test::free_port();  // nothing listens there
  o.start_urls = {"http://127.0.0.1:" + std::to_string(port) + "/"};
  o.state = dir_.path() / "crawl.db";
  o.retries = 1;
  o.retry_backoff = 10ms;
  o.obey_robots = false;  // an unreachable robots.txt would disallow the whole host
  Crawler crawler(o);
  CrawlSummary s = run(crawler.run());
  EXPECT_EQ(s.fetched, 0u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.retried, 1u);
  EXPECT_EQ(s.errors.size(), 1u);
}

TEST_F(CrawlerTest, BadOptionsAreClearErrors) {
  CrawlerOptions o;
  EXPECT_THROW(Crawler{o}, InvalidArgumentError);
  o.start_urls = {"not a url"};
  EXPECT_THROW(Crawler{o}, InvalidArgumentError);
  o.start_urls = {"ftp://127.0.0.1/"};
  EXPECT_THROW(Crawler{o}, InvalidArgumentError);
  o.start_urls = {"http://127.0.0.1/"};
  o.include = {"("};
  try {
    Crawler c(o);
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("--include"));
  }
}

// --- real documentation sites --------------------------------------------------------------

// Requests per target in nginx's access log (combined format) made with `user_agent`.
std::map<std::string, int> hits_by(const TempDir& dir, const std::string& user_agent) {
  std::map<std::string, int> out;
  std::istringstream log(test::read_file(dir.path() / "access.log"));
  for (std::string line; std::getline(log, line);) {
    size_t start = line.find("\"GET ");
    size_t end = line.find(" HTTP/", start);
    bool theirs = line.ends_with("\"" + user_agent + "\"");
    if (theirs && start != std::string::npos && end != std::string::npos)
      out[line.substr(start + 5, end - start - 5)]++;
  }
  return out;
}

class DocsCrawlTest : public CrawlerTest {
 protected:
  // Serves `root` with nginx as a web server would (Debian's mime.types), crawls it from its
  // top while reachable.py walks it, and checks that squall fetched exactly the reachable set,
  // each URL once. Returns how many URLs that was.
  size_t crawl_matches_reachable_set(const std::filesystem::path& root) {
    if (!std::filesystem::exists(root / "index.html")) {
      ADD_FAILURE() << root << " is missing: scripts/bootstrap installs the documentation";
      return 0;
    }
    TempDir site;
    uint16_t port = test::free_port();
    Process nginx = test::start_nginx(site, "location / { root " + root.string() + "; }", port, "",
                                      "include /etc/nginx/mime.types;");
    std::string start = "http://127.0.0.1:" + std::to_string(port) + "/";
    test::ReachableWalk walk(start);

    CrawlerOptions o;
    o.start_urls = {start};
    o.state = dir_.path() / "crawl.db";
    o.concurrency = 16;
    o.per_host = 16;
    Crawler crawler(o);
    CrawlSummary s = run(crawler.run(), 600s);
    EXPECT_FALSE(s.timed_out);
    EXPECT_EQ(s.failed, 0u);
    EXPECT_EQ(s.queued_left, 0u);

    test::ReachableSet expected = walk.result();
    std::set<std::string> got = fetched_urls(o);
    // A page that is also a redirect's target is known once the redirect is fetched, so whether
    // it is fetched again under its own URL depends on which link was found first.
    std::set<std::string> must;
    std::set_difference(expected.urls.begin(), expected.urls.end(),
                        expected.redirect_targets.begin(), expected.redirect_targets.end(),
                        std::inserter(must, must.end()));
    std::string missing = test::first_missing(must, got);
    std::string extra = test::first_missing(got, expected.urls);
    EXPECT_TRUE(missing.empty()) << "reachable by links but not fetched:\n" << missing;
    EXPECT_TRUE(extra.empty()) << "fetched but not reachable by links:\n" << extra;

    for (const auto& [target, n] : hits_by(site, o.user_agent)) EXPECT_EQ(n, 1) << target;
    return got.size();
  }
};

TEST_F(DocsCrawlTest, FetchesExactlyTheReachablePagesOfTheTornadoDocs) {
  size_t pages = crawl_matches_reachable_set("/usr/share/doc/python-tornado-doc/html");
  EXPECT_GT(pages, 100u);
}

TEST_F(DocsCrawlTest, FetchesExactlyTheReachablePagesOfThePythonDocs) {
  size_t pages = crawl_matches_reachable_set("/usr/share/doc/python3.11/html");
  EXPECT_GT(pages, 500u);
}

TEST(JsonLines, StringsAreEscapedAndAlwaysValid) {
  auto quoted = [](std::string_view s) {
    std::string out;
    append_json_string(out, s);
    return out;
  };
  EXPECT_EQ(quoted("http://h/a?b=c"), "\"http://h/a?b=c\"");
  EXPECT_EQ(quoted("say \"hi\" \\ bye"), "\"say \\\"hi\\\" \\\\ bye\"");
  EXPECT_EQ(quoted(std::string("a\n\t\x01", 4)), "\"a\\u000a\\u0009\\u0001\"");
  EXPECT_EQ(quoted("caf\xc3\xa9 \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
  // Not UTF-8: a lone byte, a cut sequence, an overlong form, a surrogate, beyond U+10FFFF.
  for (std::string bad : {"\xff", "\xe2\x82", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80"}) {
    std::string input = "x";
    input.append(bad).append("y");
    std::string out = quoted(input);
    EXPECT_EQ(out.substr(0, 2), "\"x");
    EXPECT_NE(out.find("\\ufffd"), std::string::npos) << out;
    EXPECT_NO_THROW(nlohmann::json::parse(out)) << out;
  }
  EXPECT_EQ(nlohmann::json::parse(quoted(std::string("\0\"\\\x7f", 4))).get<std::string>(),
            std::string("\0\"\\\x7f", 4));
}

TEST(RegistrableDomain, UsesThePublicSuffixList) {
  EXPECT_EQ(registrable_domain("www.example.co.uk"), "example.co.uk");
  EXPECT_EQ(registrable_domain("docs.python.org"), "python.org");
  EXPECT_EQ(registrable_domain("127.0.0.1"), "127.0.0.1");
}

}  // namespace
}  // namespace squall
