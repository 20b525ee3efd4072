// Handler and Response: what a callback sees of a page and what crawl() makes of its keywords.
#include "squall/engine/handler.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"

namespace squall {
namespace {

using nlohmann::json;

constexpr const char* kPage = R"(<html><head><title>Films</title><base href="/list/"></head><body>
<ul><li><a class="film" href="one">One</a></li><li><a class="film new" href="two#top">Two</a></li>
<li><a href="http://other.test/x">elsewhere</a></li></ul>
<a class="next" href="?page=2">next</a><h1> Index <em>of</em> films </h1></body></html>)";

Response page(std::string body, const CrawlTask& task, int status = 200) {
  FetchResult r;
  r.status_code = status;
  r.orig_url = task.url;
  r.url = task.url;
  r.content = std::move(body);
  return Response(std::move(r), task);
}

TEST(Response, CssSelectsAsParselDoesWithTextAndAttributes) {
  CrawlTask task = CrawlTask::for_url("p", "http://films.test/index.html");
  Response r = page(kPage, task);
  EXPECT_EQ(r.css("title::text").get(), "Films");
  EXPECT_EQ(r.css("a.film::attr(href)").getall(), (std::vector<std::string>{"one", "two#top"}));
  EXPECT_EQ(r.css("a.film.new").attr("class"), "film new");
  EXPECT_EQ(r.css("h1 ::text").getall(), (std::vector<std::string>{" Index ", "of", " films "}));
  EXPECT_EQ(r.css("a.missing").attr("href"), std::nullopt);
  // Links from a selection resolve against the page's <base>.
  std::vector<Url> films = r.css("a.film").links();
  ASSERT_EQ(films.size(), 2u);
  EXPECT_EQ(films[0].href(), "http://films.test/list/one");
  // CSS and XPath see the same tree.
  EXPECT_EQ(r.xpath("count(//a)").values().at(0), "4");
}

TEST(Response, ASelectorThatDoesNotParseGivesAnErrorNotAnException) {
  CrawlTask task = CrawlTask::for_url("p", "http://films.test/");
  Response r = page(kPage, task);
  SelectorList bad = r.css("a[");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("a["), std::string::npos) << bad.error();
  EXPECT_TRUE(bad.empty());
  // A page that selects nothing is not an error.
  SelectorList none = r.css("table td");
  EXPECT_TRUE(none.ok());
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.get("fallback"), "fallback");
}

TEST(Response, LinksAreResolvedWithoutFragmentsEachOnce) {
  CrawlTask task = CrawlTask::for_url("p", "http://films.test/index.html");
  Response r = page(std::string(kPage) + "<a href=one>again</a>", task);
  EXPECT_EQ(r.links(),
            (std::vector<std::string>{"http://films.test/list/one", "http://films.test/list/two",
                                      "http://other.test/x", "http://films.test/list/?page=2"}));
}

TEST(Response, RaiseForStatusAndJsonSayWhatIsWrong) {
  CrawlTask task = CrawlTask::for_url("p", "http://films.test/api");
  Response ok = page(R"({"n": 3})", task);
  EXPECT_NO_THROW(ok.raise_for_status());
  EXPECT_EQ(ok.json()["n"], 3);
  Response missing = page("<html>gone</html>", task, 404);
  try {
    missing.raise_for_status();
    FAIL() << "a 404 raises";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("HTTP 404 for http://films.test/api"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(missing.json(), Error);
}

class Probe : public Handler {
 public:
  Probe() : Handler("probe") {}
  using Handler::crawl;
};

TEST(Handler, CrawlKeywordsGoToScheduleFetchAndProcess) {
  Probe h;
  h.crawl_config = {{"headers", {{"X-A", "1"}}}, {"retries", 5}};
  CrawlTask t = h.make_task("http://h.test/s", {{"priority", 2},
                                                {"age", 3600},
                                                {"headers", {{"X-B", "2"}}},
                                                {"params", {{"q", "a b"}}},
                                                {"data", {{"k", "v"}}},
                                                {"callback", "detail"},
                                                {"save", {{"from", "index"}}}});
  EXPECT_EQ(t.url, "http://h.test/s?q=a+b");
  EXPECT_EQ(t.taskid, default_taskid("http://h.test/s?q=a+b"));
  EXPECT_EQ(t.schedule.priority, 2);
  EXPECT_EQ(t.schedule.retries, 5);
  EXPECT_EQ(t.schedule.age, 3600);
  EXPECT_EQ(t.fetch["headers"], json({{"X-A", "1"}, {"X-B", "2"}}));
  EXPECT_EQ(t.fetch["data"], "k=v");
  EXPECT_EQ(t.fetch["method"], "POST");
  EXPECT_EQ(t.fetch["save"], json({{"from", "index"}}));
  EXPECT_EQ(t.callback(), "detail");
  EXPECT_EQ(t.status, TaskStatus::Active);
}

TEST(Handler, ACallsKeywordReplacesCrawlConfigsAndANullOneRemovesIt) {
  Probe h;
  h.crawl_config = {{"priority", 1},
                    {"timeout", 5},
                    {"user_agent", "config"},
                    {"headers", "not an object"},
                    {"itag", 7}};
  CrawlTask t = h.make_task("http://h.test/", {{"priority", 3},
                                               {"timeout", nullptr},
                                               {"headers", {{"X-B", "2"}}},
                                               {"age", 60},
                                               {"callback", "page"}});
  EXPECT_EQ(t.schedule.priority, 3);
  EXPECT_EQ(t.schedule.age, 60);
  EXPECT_EQ(t.schedule.itag, "7");
  EXPECT_EQ(t.schedule.retries, 3);
  EXPECT_FALSE(t.fetch.contains("timeout"));
  EXPECT_EQ(t.fetch["user_agent"], "config");
  EXPECT_EQ(t.fetch["headers"], json({{"X-B", "2"}}));
  EXPECT_EQ(t.callback(), "page");
  // A keyword of crawl_config's own is checked as the call's are.
  h.crawl_config = {{"retrys", 1}};
  try {
    h.make_task("http://h.test/", json::object());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'retrys'"), std::string::npos);
  }
}

TEST(Handler, AnUnknownOrMistypedKeywordIsNamed) {
  Probe h;
  auto message = [&](const json& kwargs) {
    try {
      h.make_task("http://h.test/", kwargs);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"priorty", 1}}).find("unexpected keyword argument 'priorty'"),
            std::string::npos);
  EXPECT_NE(message({{"retries", "three"}}).find("'retries' must be an integer"),
            std::string::npos);
  EXPECT_EQ(message({{"retries", 2}}), "no error");
  // Every keyword is checked before the schedule's values are read: the unknown one is named,
  // not the itag that is no string.
  EXPECT_NE(message({{"itag", json::array()}, {"zzz", 1}}).find("'zzz'"), std::string::npos);
  EXPECT_NE(message({{"itag", json::array()}}).find("'itag' must be a string"), std::string::npos);
}

TEST(Handler, AParsedUrlIsTakenAsItIsWithTheKeywordsAStringWouldHave) {
  Probe h;
  h.crawl_config = {{"retries", 0}};
  UrlResult link = Url::parse("HTTP://H.test/a/../b?x#frag");
  ASSERT_TRUE(link.ok());
  json kwargs = {{"callback", "page"}, {"priority", 4}};
  CrawlTask parsed = h.make_task(*link, kwargs);
  CrawlTask text = h.make_task("http://h.test/b?x#frag", kwargs);
  EXPECT_EQ(parsed.url, "http://h.test/b?x#frag");
  EXPECT_EQ(parsed.to_json(), text.to_json());
  EXPECT_EQ(parsed.callback(), "page");
  EXPECT_EQ(parsed.schedule.retries, 0);
  // Its params are appended as to a string's, before the fragment.
  CrawlTask with_params = h.make_task(*link, {{"params", {{"q", "1"}}}});
  EXPECT_EQ(with_params.url, "http://h.test/b?x&q=1#frag");
  EXPECT_EQ(with_params.taskid, default_taskid("http://h.test/b?x&q=1#frag"));
  // A URL no fetcher takes is marked bad as a string's is.
  UrlResult mail = Url::parse("mailto:a@h.test");
  ASSERT_TRUE(mail.ok());
  EXPECT_EQ(h.make_task(*mail, json::object()).status, TaskStatus::Bad);
}

TEST(Handler, ACrawlWithAWrongKeywordThrowsAndLeavesTheFollowsBeforeIt) {
  Probe h;
  Handler::Output out;
  CrawlTask current = CrawlTask::for_url("probe", "http://h.test/list/");
  std::string base = current.url;
  EXPECT_THROW(h.collect(
                   &current, &base,
                   [&] {
                     h.crawl("a", {{"callback", "page"}});
                     UrlResult b = Url::parse("http://h.test/b");
                     h.crawl(*b, {{"callback", "page"}});
                     h.crawl("c", {{"retries", "three"}});
                   },
                   out),
               Error);
  ASSERT_EQ(out.follows.size(), 2u);
  EXPECT_EQ(out.follows[0].url, "http://h.test/list/a");
  EXPECT_EQ(out.follows[0].project, "probe");
  EXPECT_EQ(out.follows[0].taskid, default_taskid("http://h.test/list/a"));
  EXPECT_EQ(out.follows[1].url, "http://h.test/b");
  EXPECT_EQ(out.follows[1].callback(), "page");
  // Outside a callback there is nothing to add follows to.
  EXPECT_THROW(h.crawl("http://h.test/", json::object()), Error);
}

TEST(Handler, AnUnparsableUrlBecomesABadTaskWithTheReason) {
  Probe h;
  CrawlTask t = h.make_task("http://[bad", json::object());
  EXPECT_EQ(t.status, TaskStatus::Bad);
  EXPECT_EQ(t.track.read()["process"]["exception"], "unparsable URL: http://[bad");
  // A relative URL with nothing to resolve it against cannot be fetched either.
  EXPECT_EQ(h.make_task("a/b", json::object()).status, TaskStatus::Bad);
  EXPECT_EQ(h.make_task("data:,hello", json::object()).status, TaskStatus::Active);
}

}  // namespace
}  // namespace squall
