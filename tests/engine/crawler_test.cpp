// The crawler against real sites on loopback: a generated site with every tricky link form and
// the Tornado and Python documentation (the site the seed's demo crawls), served by nginx and
// checked against the reachable set walked independently; and squall's own server watching the
// crawler's politeness and retries from the server side.
#include "squall/engine/crawler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "squall/http/http_date.h"
#include "squall/http/server.h"
#include "support/crawl_state.h"
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
    for (const test::CrawlStatePage& r : test::crawl_state_pages(o.state))
      if (r.state == test::CrawlStatePage::State::Done ||
          r.state == test::CrawlStatePage::State::Failed)
        out.insert(r.url);
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

TEST_F(CrawlerTest, APageOfAnUnavailableHostGivesItsPlaceInThePageLimitBack) {
  test::GeneratedSite site(60);
  CrawlerOptions o = options_for(site);
  uint16_t port = test::free_port();  // nothing listens there: its robots.txt cannot be fetched
  std::string down = "http://127.0.0.1:" + std::to_string(port) + "/";
  o.start_urls.push_back(down);
  o.retries = 0;
  o.max_pages = 5;
  Crawler crawler(o);
  CrawlSummary s = run(crawler.run());
  EXPECT_EQ(s.fetched, 5u) << "the limit is the reachable host's pages";
  EXPECT_EQ(s.unavailable.size(), 1u);
  bool queued = false;
  for (const test::CrawlStatePage& p : test::crawl_state_pages(o.state))
    if (p.url == down) queued = p.state == test::CrawlStatePage::State::Queued;
  EXPECT_TRUE(queued) << "the unavailable host's start page waits for a later run";
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

class CrawlerDocsTest : public CrawlerTest {
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

TEST_F(CrawlerDocsTest, FetchesExactlyTheReachablePagesOfTheTornadoDocs) {
  size_t pages = crawl_matches_reachable_set("/usr/share/doc/python-tornado-doc/html");
  EXPECT_GT(pages, 100u);
}

TEST_F(CrawlerDocsTest, FetchesExactlyTheReachablePagesOfThePythonDocs) {
  size_t pages = crawl_matches_reachable_set("/usr/share/doc/python3.11/html");
  EXPECT_GT(pages, 500u);
}

// --- politeness and retries, seen by the server ---------------------------------------------

// What the watching server sends for one request.
struct Reply {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool cut = false;  // send the head and part of the body, then drop the connection (a 599)
};

// One request as the server saw it arrive.
struct Arrival {
  std::string host;  // the Host field: "a.test:<port>"
  std::string target;
  TimePoint at;
};

// A site on squall's own HttpServer, in the test's loop, that watches the crawler from the
// server side: when each request arrived, and how many were in flight at once per Host and in
// all. Each request is held for `latency` before its answer, so that fetches the crawler runs
// at once overlap here. `answer` gets the Host, the target and how many times that Host and
// target were asked before, and returns nothing for a 404 (so /robots.txt is one unless it
// answers for it).
class WatchingServer {
 public:
  using Answer = std::function<std::optional<Reply>(const std::string& host,
                                                    const std::string& target, int nth)>;

  WatchingServer(Answer answer, Duration latency)
      : answer_(std::move(answer)),
        latency_(latency),
        server_([this](http::ServerRequest& req, http::ServerResponse& resp) {
          return handle(req, resp);
        }) {
    server_.listen(Address::parse("127.0.0.1:0"));
  }

  // "http://<name>:<port>"; the crawler maps every name to 127.0.0.1.
  std::string origin(const std::string& name) const {
    return "http://" + name + ":" + std::to_string(server_.port());
  }
  std::string host(const std::string& name) const {
    return name + ":" + std::to_string(server_.port());
  }
  // When `target` on `host` was asked for, in order.
  std::vector<TimePoint> arrivals(const std::string& host, const std::string& target) const {
    std::vector<TimePoint> out;
    for (const Arrival& a : arrivals_)
      if (a.host == host && a.target == target) out.push_back(a.at);
    return out;
  }
  // When pages (anything but /robots.txt) of `host` were asked for, in order.
  std::vector<TimePoint> page_arrivals(const std::string& host) const {
    std::vector<TimePoint> out;
    for (const Arrival& a : arrivals_)
      if (a.host == host && a.target != "/robots.txt") out.push_back(a.at);
    return out;
  }
  // The pages (anything but /robots.txt) of `host` that were asked for, in order.
  std::vector<std::string> page_targets(const std::string& host) const {
    std::vector<std::string> out;
    for (const Arrival& a : arrivals_)
      if (a.host == host && a.target != "/robots.txt") out.push_back(a.target);
    return out;
  }
  size_t max_in_flight(const std::string& host) const {
    auto it = max_in_flight_.find(host);
    return it == max_in_flight_.end() ? 0 : it->second;
  }
  size_t max_in_flight_total() const { return max_total_; }

  Task<void> stop() { co_await server_.stop(); }

 private:
  Task<void> handle(http::ServerRequest& req, http::ServerResponse& resp) {
    std::string host(req.header("Host").value_or(""));
    std::string target(req.target());
    int nth = asked_[host + target]++;
    arrivals_.push_back({host, target, Loop::time()});
    // In flight from the server's first look at the request until its answer is written: a
    // span inside the crawler's fetch, so the counts here never exceed the crawler's own.
    struct InFlight {
      WatchingServer* s;
      std::string host;
      bool counted = true;
      void leave() {
        if (!counted) return;
        --s->in_flight_[host];
        --s->total_;
        counted = false;
      }
      ~InFlight() { leave(); }
    } in_flight{this, host};
    size_t n = ++in_flight_[host];
    max_in_flight_[host] = std::max(max_in_flight_[host], n);
    max_total_ = std::max(max_total_, ++total_);

    co_await sleep(latency_);
    std::optional<Reply> reply = answer_(host, target, nth);
    if (!reply) reply = Reply{.status = 404, .body = "not here"};
    in_flight.leave();

    resp.set_status(reply->status);
    for (const auto& [name, value] : reply->headers) resp.headers().set(name, value);
    if (reply->cut) {
      resp.headers().set("Content-Length", std::to_string(reply->body.size() + 1000));
      co_await resp.write(reply->body);
      co_await resp.flush();
      throw std::runtime_error("the test cuts this response short");
    }
    co_await resp.write(reply->body);
  }

  Answer answer_;
  Duration latency_;
  http::HttpServer server_;
  std::vector<Arrival> arrivals_;
  std::map<std::string, int> asked_;
  std::map<std::string, size_t> in_flight_, max_in_flight_;
  size_t total_ = 0, max_total_ = 0;
};

// A page linking to /p/0.html ... /p/<n-1>.html.
std::string index_page(int n) {
  std::string body = "<!DOCTYPE html><title>index</title>";
  for (int i = 0; i < n; ++i)
    body.append("<a href=\"/p/").append(std::to_string(i)).append(".html\">page</a>\n");
  return body;
}

// A site of an index linking to n pages, with `robots` at /robots.txt when it is not empty.
WatchingServer::Answer index_site(int n, std::string robots = "") {
  return [n, robots](const std::string&, const std::string& target, int) -> std::optional<Reply> {
    if (target == "/robots.txt" && !robots.empty()) return Reply{.body = robots};
    if (target == "/") return Reply{.body = index_page(n)};
    if (target.starts_with("/p/")) return Reply{.body = "<p>a page</p>"};
    return std::nullopt;
  };
}

double ms_of(Duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::vector<double> gaps_ms(const std::vector<TimePoint>& times) {
  std::vector<double> out;
  for (size_t i = 1; i < times.size(); ++i)
    out.push_back(std::chrono::duration<double, std::milli>(times[i] - times[i - 1]).count());
  return out;
}

class WatchedCrawlTest : public CrawlerTest {
 protected:
  // Options for a crawl of `names` (each mapped to 127.0.0.1) from each one's root.
  CrawlerOptions options_for(const WatchingServer& server, std::vector<std::string> names) {
    CrawlerOptions o;
    for (const std::string& name : names) {
      o.start_urls.push_back(server.origin(name) + "/");
      o.hostname_mapping[name] = "127.0.0.1";
    }
    o.state = dir_.path() / ("crawl-" + std::to_string(++crawls_) + ".db");
    o.request_timeout = 10s;
    return o;
  }
  // Runs the crawl, then stops the server (so the loop is left quiet).
  CrawlSummary crawl(WatchingServer& server, CrawlerOptions o) {
    auto body = [](WatchingServer& server, CrawlerOptions o) -> Task<CrawlSummary> {
      Crawler crawler(std::move(o));
      CrawlSummary s = co_await crawler.run();
      co_await server.stop();
      co_return s;
    };
    return run(body(server, std::move(o)), 120s);
  }
  std::map<std::string, test::CrawlStatePage> results(const CrawlerOptions& o) {
    std::map<std::string, test::CrawlStatePage> out;
    for (test::CrawlStatePage& r : test::crawl_state_pages(o.state)) out[r.url] = r;
    return out;
  }
  int crawls_ = 0;
};

class CrawlerPolitenessTest : public WatchedCrawlTest {};
class CrawlerRetryTest : public WatchedCrawlTest {};

TEST_F(CrawlerPolitenessTest, PerHostLimitIsNeverExceededCountedOnTheServer) {
  constexpr int kPages = 16;
  for (size_t per_host : {size_t{1}, size_t{2}}) {
    WatchingServer server(index_site(kPages), 30ms);
    CrawlerOptions o = options_for(server, {"a.test", "b.test"});
    o.concurrency = 8;
    o.per_host = per_host;
    CrawlSummary s = crawl(server, o);
    EXPECT_EQ(s.fetched, 2u * (kPages + 1)) << "per_host " << per_host;
    EXPECT_EQ(s.queued_left, 0u);
    for (const char* name : {"a.test", "b.test"}) {
      EXPECT_EQ(server.page_arrivals(server.host(name)).size(), kPages + 1u);
      // The limit, and no more: slow answers and idle workers make the crawler use all of it.
      EXPECT_EQ(server.max_in_flight(server.host(name)), per_host) << name;
    }
    EXPECT_GT(server.max_in_flight_total(), per_host) << "the limit is per host, not in all";
  }
}

// The gaps between the starts of page fetches on one host, as the server saw them arrive. The
// crawler spaces the starts of its fetches; a request reaches the server a little after its
// fetch starts (a connect, a write, the server's read), and that lag differs from one request
// to the next by at most a few milliseconds, so the gaps are checked against the delay less
// kLag.
constexpr auto kLag = 25ms;

TEST_F(CrawlerPolitenessTest, DelayBetweenFetchStartsOnAHostIsHonoured) {
  WatchingServer server(index_site(5), 5ms);
  CrawlerOptions o = options_for(server, {"a.test"});
  o.per_host = 2;
  o.delay = 150ms;
  CrawlSummary s = crawl(server, o);
  EXPECT_EQ(s.fetched, 6u);
  std::vector<double> gaps = gaps_ms(server.page_arrivals(server.host("a.test")));
  ASSERT_EQ(gaps.size(), 5u);
  for (double gap : gaps) EXPECT_GE(gap, ms_of(o.delay - kLag));
}

TEST_F(CrawlerPolitenessTest, RobotsCrawlDelayIsHonoured) {
  WatchingServer server(index_site(5, "User-agent: *\nCrawl-delay: 0.15\n"), 5ms);
  CrawlerOptions o = options_for(server, {"a.test"});
  o.per_host = 2;
  CrawlSummary s = crawl(server, o);
  EXPECT_EQ(s.fetched, 6u);
  EXPECT_EQ(server.arrivals(server.host("a.test"), "/robots.txt").size(), 1u);
  std::vector<double> gaps = gaps_ms(server.page_arrivals(server.host("a.test")));
  ASSERT_EQ(gaps.size(), 5u);
  for (double gap : gaps) EXPECT_GE(gap, ms_of(150ms - kLag));
}

TEST_F(CrawlerPolitenessTest, APagesLinksAreFollowedOnceEachInTheOrderTheyAppear) {
  // More links than the crawl holds at once on their way to its seen set (and a page with
  // fewer), with repeats near and far, and links to pages already taken.
  const std::vector<std::string> index_links = {
      "/p/5", "/p/1", "/p/5", "/p/9", "/p/2",  "/p/14", "/p/1",  "/p/3", "/p/7", "/p/11",
      "/p/4", "/p/6", "/p/9", "/p/8", "/p/13", "/p/10", "/p/12", "/p/0", "/p/5"};
  auto answer = [&](const std::string&, const std::string& target, int) -> std::optional<Reply> {
    std::string body = "<!DOCTYPE html><title>t</title>";
    auto link = [&](const std::string& to) { body += "<a href=\"" + to + "\">x</a>"; };
    if (target == "/") {
      for (const std::string& to : index_links) link(to);
    } else if (target == "/p/1") {
      for (const char* to : {"/q/b", "/p/2", "/q/a", "/q/b", "/"}) link(to);
    } else if (!target.starts_with("/p/") && !target.starts_with("/q/")) {
      return std::nullopt;
    }
    return Reply{.body = body};
  };
  WatchingServer server(answer, 0ms);
  CrawlerOptions o = options_for(server, {"a.test"});
  o.concurrency = 1;
  o.per_host = 1;
  CrawlSummary s = crawl(server, o);
  std::vector<std::string> expected = {"/"};
  for (const std::string& to : index_links)
    if (std::find(expected.begin(), expected.end(), to) == expected.end()) expected.push_back(to);
  expected.push_back("/q/b");
  expected.push_back("/q/a");
  EXPECT_EQ(server.page_targets(server.host("a.test")), expected);
  EXPECT_EQ(s.fetched, expected.size());
}

TEST_F(CrawlerRetryTest, TransientFailuresAreRetriedWithExponentialBackoff) {
  // One host per behaviour, so that each URL's waits are its own.
  WatchingServer server(
      [](const std::string& host, const std::string& target, int nth) -> std::optional<Reply> {
        if (target != "/") return std::nullopt;
        if (host.starts_with("recovers."))
          return nth < 2 ? Reply{.status = 503, .body = "busy"} : Reply{.body = "<p>ok</p>"};
        if (host.starts_with("cut-once."))
          return nth < 1 ? Reply{.body = "<p>par", .cut = true} : Reply{.body = "<p>ok</p>"};
        if (host.starts_with("down.")) return Reply{.status = 503, .body = "busy"};
        return Reply{.body = "<p>par", .cut = true};
      },
      1ms);
  test::LogCapture quiet;  // the server logs each response it cuts short
  CrawlerOptions o =
      options_for(server, {"recovers.test", "cut-once.test", "down.test", "cut-always.test"});
  o.retry_backoff = 100ms;
  ASSERT_EQ(o.retries, 2) << "the default";
  CrawlSummary s = crawl(server, o);

  auto tries = [&](const char* name) { return server.arrivals(server.host(name), "/"); };
  // Each retry waits the backoff, doubled each time: 100 ms, then 200 ms.
  for (const char* name : {"recovers.test", "down.test", "cut-always.test"}) {
    std::vector<double> gaps = gaps_ms(tries(name));
    ASSERT_EQ(gaps.size(), 2u) << name << ": one try and two retries";
    EXPECT_GE(gaps[0], 100) << name;
    EXPECT_GE(gaps[1], 200) << name;
  }
  std::vector<double> gaps = gaps_ms(tries("cut-once.test"));
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_GE(gaps[0], 100);

  auto stored = results(o);
  for (const char* name : {"recovers.test", "cut-once.test"}) {
    const test::CrawlStatePage& r = stored[server.origin(name) + "/"];
    EXPECT_EQ(r.state, test::CrawlStatePage::State::Done) << name;
    EXPECT_EQ(r.status, 200) << name;
    EXPECT_EQ(r.error, "") << name;
  }
  const test::CrawlStatePage& down = stored[server.origin("down.test") + "/"];
  EXPECT_EQ(down.state, test::CrawlStatePage::State::Failed);
  EXPECT_EQ(down.status, 503);
  EXPECT_EQ(down.error, "HTTP 503 Service Unavailable (gave up after 3 tries)");
  const test::CrawlStatePage& cut = stored[server.origin("cut-always.test") + "/"];
  EXPECT_EQ(cut.state, test::CrawlStatePage::State::Failed);
  EXPECT_EQ(cut.status, 599);
  EXPECT_THAT(cut.error, testing::EndsWith(" (gave up after 3 tries)"));
  EXPECT_GT(cut.error.size(), std::string(" (gave up after 3 tries)").size());

  EXPECT_EQ(s.fetched, 2u);
  EXPECT_EQ(s.failed, 2u);
  EXPECT_EQ(s.retried, 2u + 1u + 2u + 2u);
  EXPECT_EQ(s.errors["HTTP 503"], 1u);
  EXPECT_EQ(s.errors.size(), 2u) << "HTTP 503 and the cut's kind";
}

TEST_F(CrawlerRetryTest, RetryAfterIsHonouredInSecondsAndAsADate) {
  WatchingServer server(
      [](const std::string& host, const std::string& target, int nth) -> std::optional<Reply> {
        if (target != "/") return std::nullopt;
        if (nth > 0) return Reply{.body = "<p>ok</p>"};
        if (host.starts_with("seconds."))
          return Reply{.status = 429, .body = "slow down", .headers = {{"Retry-After", "1"}}};
        // An HTTP date has whole seconds: two seconds from now is more than one from now.
        std::string date = http::format_http_date(http::HttpClock::now() + 2s);
        return Reply{.status = 503, .body = "later", .headers = {{"Retry-After", date}}};
      },
      1ms);
  CrawlerOptions o = options_for(server, {"seconds.test", "date.test"});
  o.retry_backoff = 10ms;
  CrawlSummary s = crawl(server, o);
  EXPECT_EQ(s.fetched, 2u);
  EXPECT_EQ(s.retried, 2u);
  for (const char* name : {"seconds.test", "date.test"}) {
    std::vector<double> gaps = gaps_ms(server.arrivals(server.host(name), "/"));
    ASSERT_EQ(gaps.size(), 1u) << name;
    EXPECT_GE(gaps[0], 1000) << name << ": the retry came before Retry-After allowed";
  }
}

TEST_F(CrawlerRetryTest, AHostThatKeepsFailingIsBackedOff) {
  WatchingServer server(
      [](const std::string&, const std::string& target, int) -> std::optional<Reply> {
        if (target.starts_with("/u/")) return Reply{.status = 503, .body = "down"};
        return std::nullopt;
      },
      1ms);
  CrawlerOptions o = options_for(server, {"a.test"});
  o.start_urls.clear();
  for (int i = 0; i < 7; ++i)
    o.start_urls.push_back(server.origin("a.test") + "/u/" + std::to_string(i));
  o.retries = 0;  // no URL's own retry waits: the pauses are the host's
  o.per_host = 1;
  CrawlSummary s = crawl(server, o);
  EXPECT_EQ(s.failed, 7u);
  std::vector<double> gaps = gaps_ms(server.page_arrivals(server.host("a.test")));
  ASSERT_EQ(gaps.size(), 6u);
  // Five failures in a row pause the host for a second, the sixth for two.
  EXPECT_GE(gaps[4], 1000);
  EXPECT_GE(gaps[5], 2000);
}

TEST(RegistrableDomain, UsesThePublicSuffixList) {
  EXPECT_EQ(registrable_domain("www.example.co.uk"), "example.co.uk");
  EXPECT_EQ(registrable_domain("docs.python.org"), "python.org");
  EXPECT_EQ(registrable_domain("127.0.0.1"), "127.0.0.1");
}

}  // namespace
}  // namespace squall
