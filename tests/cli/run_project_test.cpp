// `squall run`: pyspider project scripts, each API element driven by a real script against a
// local site whose request log the tests read.
#include <gtest/gtest.h>

#include <set>

#include "cli/run_peer.h"

namespace squall {
namespace {

using nlohmann::json;
using test::contains;
using test::RunPeer;
using test::squall_run;
using test::TempDir;
using test::with_origin;

constexpr const char* kTutorial = R"(
from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    crawl_config = {"headers": {"X-Project": "tutorial"}}

    def on_start(self):
        self.crawl("{ORIGIN}/page/index?links=a,b,c", callback=self.index_page)

    @config(age=10 * 24 * 60 * 60)
    def index_page(self, response):
        for each in response.doc('a[href^="http"]').items():
            self.crawl(each.attr.href, callback=self.detail_page)

    @config(priority=2)
    def detail_page(self, response):
        return {"url": response.url, "title": response.doc("title").text()}
)";

TEST(RunProject, ATutorialScriptCrawlsItsIndexAndDetailPagesAndExportsItsResults) {
  RunPeer site;
  TempDir work;
  work.write("tutorial.py", with_origin(kTutorial, site.origin));
  test::CommandResult r = squall_run(work, "tutorial.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "Done in")) << r.err;

  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 3u);
  std::set<std::string> titles;
  for (const auto& [taskid, line] : results) {
    EXPECT_EQ(taskid.size(), 32u) << "the MD5 of the URL";
    EXPECT_EQ(line["url"], line["result"]["url"]);
    EXPECT_TRUE(line["updatetime"].is_number());
    titles.insert(line["result"]["title"].get<std::string>());
  }
  EXPECT_EQ(titles, (std::set<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(std::filesystem::exists(work.path() / "tutorial.db"))
      << "--db defaults to PROJECT.db";
  for (const std::string page : {"/page/index?links=a,b,c", "/page/a", "/page/b", "/page/c"}) {
    auto asked = site.requests_for(page);
    ASSERT_EQ(asked.size(), 1u) << page;
    EXPECT_EQ(asked[0]["headers"]["x-project"], "tutorial") << "crawl_config's headers";
  }

  // A second run: on_start ran on the first run only, so nothing is fetched again.
  test::CommandResult again = squall_run(work, "tutorial.py", {"--results", "out.jsonl"});
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(site.requests_for("/page/index?links=a,b,c").size(), 1u);
  EXPECT_EQ(test::results_by_taskid(work.path() / "out.jsonl").size(), 3u);
}

TEST(RunProject, AFailedFetchIsRetriedAfterTheProjectsRetryDelay) {
  RunPeer site;
  TempDir work;
  work.write("flaky.py", with_origin(R"(
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    retry_delay = {0: 1, 1: 2, "": 60}

    def on_start(self):
        self.crawl("{ORIGIN}/flaky/k?fail=2", callback=self.page, retries=2)

    def page(self, response):
        return {"title": response.doc("title").text()}
)",
                                     site.origin));
  test::CommandResult r = squall_run(work, "flaky.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto asked = site.requests_for("/flaky/k?fail=2");
  ASSERT_EQ(asked.size(), 3u) << "two 500s, then the page";
  EXPECT_GE(asked[1]["time"].get<double>() - asked[0]["time"].get<double>(), 0.9)
      << "retry_delay[0] is 1 s";
  EXPECT_GE(asked[2]["time"].get<double>() - asked[1]["time"].get<double>(), 1.9)
      << "retry_delay[1] is 2 s";
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results.begin()->second["result"]["title"], "recovered");
  test::StoredTask task =
      test::stored_task(work.path() / "flaky.db", site.origin + "/flaky/k?fail=2");
  EXPECT_EQ(task.status, 2);
}

TEST(RunProject, ARetryWaitsItsDelayFromRetryDelay) {
  RunPeer site;
  TempDir work;
  // A retry an hour after the failure: a run stopped before then has not fetched it again.
  work.write("later.py", with_origin(R"(
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    retry_delay = {0: 3600}

    def on_start(self):
        self.crawl("{ORIGIN}/flaky/later?fail=1", callback=self.page, retries=1)

    def page(self, response):
        return {"ok": True}
)",
                                     site.origin));
  test::CommandResult r = squall_run(work, "later.py", {"--timeout", "5"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(site.requests_for("/flaky/later?fail=1").size(), 1u)
      << "the retry waits an hour, as retry_delay says";
  test::StoredTask task =
      test::stored_task(work.path() / "later.db", site.origin + "/flaky/later?fail=1");
  EXPECT_EQ(task.status, 1) << "still active, to be retried";
  EXPECT_EQ(task.retried, 1);
}

TEST(RunProject, AgeRefusesARefetchAndAChangedItagForcesOne) {
  RunPeer site;
  TempDir work;
  // Each page, once done, is asked for again by the page it leads to (its task is no longer
  // active then): within its age it is dropped, with a new itag it is fetched again.
  work.write("recrawl.py", with_origin(R"(
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/page/aged", callback=self.page, age=3600, save=1)
        self.crawl("{ORIGIN}/page/tagged", callback=self.page, age=3600, itag="v1", save=1)

    def page(self, response):
        if response.save == 1:
            self.crawl("{ORIGIN}/page/next?" + response.url[-5:], callback=self.again,
                       save=response.url)
        return {"round": response.save}

    def again(self, response):
        if response.save.endswith("aged"):
            self.crawl(response.save, callback=self.page, age=3600, save=2)
        else:
            self.crawl(response.save, callback=self.page, age=3600, itag="v2", save=2)
)",
                                       site.origin));
  test::CommandResult r = squall_run(work, "recrawl.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(site.requests_for("/page/aged").size(), 1u) << "age: not again within the hour";
  EXPECT_EQ(site.requests_for("/page/tagged").size(), 2u) << "a new itag fetches again";
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 2u);
  for (const auto& [taskid, line] : results)
    EXPECT_EQ(line["result"]["round"], line["url"].get<std::string>().ends_with("aged") ? 1 : 2);
}

TEST(RunProject, ARecrawlRevalidatesWithTheLastFetchsEtagAndLastModified) {
  RunPeer site;
  TempDir work;
  // The page, once done, is asked for again with an age of 0 (fetch again at once) by the page
  // it leads to: the second fetch is conditional, the server answers 304, and the callback does
  // not run again.
  work.write("tags.py", with_origin(R"(
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/etag", callback=self.page, age=0)

    def page(self, response):
        with open("calls.txt", "a") as f:
            f.write("%d\n" % response.status_code)
        self.crawl("{ORIGIN}/page/next", callback=self.again)
        return {"title": response.doc("title").text()}

    def again(self, response):
        self.crawl("{ORIGIN}/etag", callback=self.page, age=0)
)",
                                    site.origin));
  test::CommandResult r = squall_run(work, "tags.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto asked = site.requests_for("/etag");
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_FALSE(asked[0]["headers"].contains("if-none-match"));
  EXPECT_EQ(asked[1]["headers"]["if-none-match"], "\"v1\"");
  EXPECT_EQ(asked[1]["headers"]["if-modified-since"], "Wed, 01 Jan 2025 00:00:00 GMT");
  EXPECT_EQ(test::read_file(work.path() / "calls.txt"), "200\n")
      << "a 304 runs no callback: the page is unchanged";
  EXPECT_EQ(test::results_by_taskid(work.path() / "out.jsonl").size(), 1u);
}

TEST(RunProject, SaveReachesTheCallbackAndGetTaskidOverridesTheTaskid) {
  RunPeer site;
  TempDir work;
  work.write("post.py", with_origin(R"(
import json
from pyspider.libs.base_handler import *
from pyspider.libs.utils import md5string

class Handler(BaseHandler):
    def get_taskid(self, task):
        return md5string(task["url"] + json.dumps(task["fetch"].get("data", "")))

    def on_start(self):
        self.crawl("{ORIGIN}/login", method="POST", data={"user": "u"}, callback=self.logged_in)

    def logged_in(self, response):
        for page in (1, 2):
            self.crawl("{ORIGIN}/items", data={"page": page}, cookies=response.cookies,
                       save={"page": page, "seen": [1, 2]}, callback=self.items)

    def items(self, response):
        return {"save": response.save, "got": response.json, "taskid": self.task["taskid"]}
)",
                                    site.origin));
  test::CommandResult r = squall_run(work, "post.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto asked = site.requests_for("/items");
  ASSERT_EQ(asked.size(), 2u) << "one URL, two taskids";
  for (const json& request : asked) {
    EXPECT_EQ(request["method"], "POST");
    EXPECT_TRUE(contains(request["headers"].value("cookie", ""), "session=s3cret"));
  }
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 2u);
  std::set<int> pages;
  for (const auto& [taskid, line] : results) {
    const json& result = line["result"];
    EXPECT_EQ(result["taskid"], taskid);
    EXPECT_NE(taskid, "") << taskid;
    int page = result["save"]["page"].get<int>();
    pages.insert(page);
    EXPECT_EQ(result["save"]["seen"], json::array({1, 2}));
    EXPECT_EQ(result["got"]["form"]["page"], std::to_string(page));
  }
  EXPECT_EQ(pages, (std::set<int>{1, 2}));
}

TEST(RunProject, ACallbacksExceptionFailsItsTaskWithTheTracebackAndTheOthersGoOn) {
  RunPeer site;
  TempDir work;
  work.write("boom.py", with_origin(R"(
import logging
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/page/bad", callback=self.page, retries=0)
        self.crawl("{ORIGIN}/page/good", callback=self.page, retries=0)

    def page(self, response):
        print("looking at", response.url)
        logging.info("title %s", response.doc("title").text())
        if response.url.endswith("bad"):
            raise ValueError("no good: " + response.url)
        return {"url": response.url}
)",
                                    site.origin));
  test::CommandResult r = squall_run(work, "boom.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(test::results_by_taskid(work.path() / "out.jsonl").size(), 1u);
  test::StoredTask bad = test::stored_task(work.path() / "boom.db", site.origin + "/page/bad");
  EXPECT_EQ(bad.status, 3) << "failed, its retries (none) spent";
  const json& process = bad.track["process"];
  EXPECT_EQ(process["ok"], false);
  std::string exception = process.value("exception", "");
  EXPECT_TRUE(contains(exception, "Traceback")) << exception;
  EXPECT_TRUE(contains(exception, "boom.py\", line 14, in page")) << exception;
  EXPECT_TRUE(contains(exception, "ValueError: no good: " + site.origin + "/page/bad"))
      << exception;
  std::string logs = process.value("logs", "");
  EXPECT_TRUE(contains(logs, "looking at " + site.origin + "/page/bad")) << logs;
  EXPECT_TRUE(contains(logs, "title bad")) << logs;
  test::StoredTask good = test::stored_task(work.path() / "boom.db", site.origin + "/page/good");
  EXPECT_EQ(good.status, 2);
  EXPECT_TRUE(contains(good.track["process"].value("logs", ""), "title good"))
      << "each task's logs are its own";
  EXPECT_FALSE(contains(good.track["process"].value("logs", ""), "page/bad"));
}

TEST(RunProject, AResultIsStoredAsJsonDumpsWritesItAndOneItRefusesFailsItsTask) {
  RunPeer site;
  TempDir work;
  work.write("shapes.py", with_origin(R"(
import enum
from pyspider.libs.base_handler import *

class Size(enum.IntEnum):
    BIG = 7

class Handler(BaseHandler):
    def on_start(self):
        for name in ("good", "tuple_key", "nan", "cycle"):
            self.crawl("{ORIGIN}/page/" + name, callback=self.page, retries=0)

    def page(self, response):
        name = response.url.rsplit("/", 1)[1]
        if name == "tuple_key":
            return {("a", 1): 1}
        if name == "nan":
            return {"x": float("nan")}
        if name == "cycle":
            loop = []
            loop.append(loop)
            return {"loop": loop}
        return {"tuple": (1, "two"), "set": {3}, "keys": {1: "i", 2.5: "f", None: "n"},
                "flags": {True: "t", False: "f"},
                "big": 2 ** 70, "size": Size.BIG, "nested": [{"a": [None, False]}],
                "text": "caf\u00e9 \ud800"}
)",
                                      site.origin));
  test::CommandResult r = squall_run(work, "shapes.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 1u);
  const json& result = results.begin()->second["result"];
  EXPECT_EQ(result["tuple"], (json{1, "two"}));
  EXPECT_EQ(result["set"], "{3}") << "anything else is its str(), as default=str writes it";
  EXPECT_EQ(result["keys"], (json{{"1", "i"}, {"2.5", "f"}, {"null", "n"}}));
  EXPECT_EQ(result["flags"], (json{{"true", "t"}, {"false", "f"}}));
  EXPECT_DOUBLE_EQ(result["big"].get<double>(), 1180591620717411303424.0);
  EXPECT_EQ(result["size"], 7);
  EXPECT_EQ(result["nested"], (json{{{"a", {nullptr, false}}}}));
  EXPECT_EQ(result["text"], "caf\u00e9 ?") << "a lone surrogate has no UTF-8";

  auto failure = [&](const std::string& name) {
    test::StoredTask t =
        test::stored_task(work.path() / "shapes.db", site.origin + "/page/" + name);
    EXPECT_EQ(t.status, 3) << name;
    return t.track["process"].value("exception", "");
  };
  EXPECT_EQ(failure("tuple_key"),
            "the callback's result is not JSON: keys must be str, int, float, bool or None, not "
            "tuple");
  EXPECT_EQ(failure("nan"),
            "the callback's result is not JSON: Out of range float values are not JSON "
            "compliant");
  EXPECT_EQ(failure("cycle"), "the callback's result is not JSON: Circular reference detected");
}

TEST(RunProject, DataAndFilesOfBytesReachTheServerUnchanged) {
  RunPeer site;
  TempDir work;
  work.write("upload.py", with_origin(R"(
from pyspider.libs.base_handler import *

BODY = bytes(range(256)) * 3
TEXT = "caf\u00e9".encode("utf-8")

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/echo?raw", data=BODY, callback=self.echoed, save="raw", retries=0)
        self.crawl("{ORIGIN}/echo?text", data=TEXT, callback=self.echoed, save="text",
                   retries=0)
        self.crawl("{ORIGIN}/echo?file", files={"blob": ("blob.bin", BODY)},
                   data={"note": b"\xff\x00"}, callback=self.echoed, save="file", retries=0)

    def echoed(self, response):
        return {"kind": response.save, "size": len(response.content),
                "same": response.content == {"raw": BODY, "text": TEXT}.get(response.save),
                "has_file": BODY in response.content,
                "has_note": b"\r\n\r\n\xff\x00\r\n" in response.content}
)",
                                      site.origin));
  test::CommandResult r = squall_run(work, "upload.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;

  std::string body_hex;
  for (int i = 0; i < 3 * 256; ++i) {
    static const char digits[] = "0123456789abcdef";
    body_hex += digits[(i % 256) >> 4];
    body_hex += digits[(i % 256) & 15];
  }
  auto raw = site.requests_for("/echo?raw");
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_EQ(raw[0]["method"], "POST") << "data makes the request a POST";
  EXPECT_EQ(raw[0]["body_hex"], body_hex) << "every byte, those UTF-8 has no place for too";
  auto text = site.requests_for("/echo?text");
  ASSERT_EQ(text.size(), 1u);
  EXPECT_EQ(text[0]["body_hex"], "636166c3a9");
  auto file = site.requests_for("/echo?file");
  ASSERT_EQ(file.size(), 1u);
  EXPECT_TRUE(contains(file[0]["body_hex"].get<std::string>(), body_hex));
  EXPECT_TRUE(contains(file[0]["headers"]["content-type"].get<std::string>(),
                       "multipart/form-data; boundary="));

  std::map<std::string, json> by_kind;
  for (const auto& [taskid, line] : test::results_by_taskid(work.path() / "out.jsonl"))
    by_kind[line["result"]["kind"].get<std::string>()] = line["result"];
  ASSERT_EQ(by_kind.size(), 3u);
  EXPECT_EQ(by_kind["raw"]["same"], true) << "the server echoed the very bytes";
  EXPECT_EQ(by_kind["raw"]["size"], 768);
  EXPECT_EQ(by_kind["text"]["same"], true);
  EXPECT_EQ(by_kind["file"]["has_file"], true);
  EXPECT_EQ(by_kind["file"]["has_note"], true) << "a form field of bytes is sent as its bytes";
}

TEST(RunProject, ACallbackPastItsTimeLimitIsInterruptedAndItsTaskFails) {
  RunPeer site;
  TempDir work;
  work.write("spin.py", with_origin(R"(
import time
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/page/spin", callback=self.spin, retries=0)
        self.crawl("{ORIGIN}/page/sleep", callback=self.sleep, retries=0)
        self.crawl("{ORIGIN}/page/quick", callback=self.quick, retries=0)

    @config(process_time_limit=1)
    def spin(self, response):
        try:
            while True:
                pass
        except Exception:
            return {"swallowed": True}

    @config(process_time_limit=1)
    def sleep(self, response):
        time.sleep(600)

    def quick(self, response):
        return {"quick": True}
)",
                                    site.origin));
  test::CommandResult r = squall_run(work, "spin.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results.begin()->second["result"]["quick"], true);
  for (const std::string page : {"/page/spin", "/page/sleep"}) {
    test::StoredTask t = test::stored_task(work.path() / "spin.db", site.origin + page);
    EXPECT_EQ(t.status, 3) << page;
    std::string exception = t.track["process"].value("exception", "");
    EXPECT_TRUE(contains(exception,
                         "ProcessTimeLimit: the callback ran past its "
                         "process_time_limit of 1 s"))
        << page << ": " << exception;
  }
}

TEST(RunProject, ANonUtf8PageIsReadThroughTextAndDoc) {
  RunPeer site;
  TempDir work;
  work.write("latin.py", with_origin(R"(
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/latin1", callback=self.page)

    def page(self, response):
        return {
            "encoding": response.encoding,
            "title": response.doc("title").text(),
            "para": response.etree.xpath("//p")[0].text,
            "in_text": "d\u00e9j\u00e0 vu" in response.text,
            "link": response.doc("a").attr.href,
            "content_type": response.headers["content-type"],
        }
)",
                                     site.origin));
  test::CommandResult r = squall_run(work, "latin.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 1u);
  const json& result = results.begin()->second["result"];
  EXPECT_EQ(result["encoding"], "iso8859-1");
  EXPECT_EQ(result["title"], "Caf\u00e9 cr\u00e8me");
  EXPECT_EQ(result["para"], "d\u00e9j\u00e0 vu");
  EXPECT_EQ(result["in_text"], true);
  EXPECT_EQ(result["link"], site.origin + "/page/na\u00efve") << "made absolute";
  EXPECT_EQ(result["content_type"], "text/html") << "headers in any case";
}

TEST(RunProject, AStatusErrorFailsTheTaskUnlessTheCallbackCatchesIt) {
  RunPeer site;
  TempDir work;
  work.write("codes.py", with_origin(R"(
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/status/404", callback=self.plain, retries=0)
        self.crawl("{ORIGIN}/status/410", callback=self.catching, retries=0)

    def plain(self, response):
        return {"reached": True}

    @catch_status_code_error
    def catching(self, response):
        return {"status": response.status_code, "ok": response.ok}
)",
                                     site.origin));
  test::CommandResult r = squall_run(work, "codes.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results.begin()->second["result"], (json{{"status", 410}, {"ok", false}}));
  test::StoredTask plain = test::stored_task(work.path() / "codes.db", site.origin + "/status/404");
  EXPECT_EQ(plain.status, 3);
  EXPECT_TRUE(contains(plain.track["process"].value("exception", ""),
                       "HTTPError: HTTP 404 Not Found for url: " + site.origin + "/status/404"))
      << plain.track.dump();
}

TEST(RunProject, AnUnknownCrawlKeywordFailsTheTaskNamingIt) {
  RunPeer site;
  TempDir work;
  work.write("typo.py", with_origin(R"(
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/page/x", callback=self.page, retries=0)

    def page(self, response):
        self.crawl("{ORIGIN}/page/y", callback=self.page, prority=1)
)",
                                    site.origin));
  test::CommandResult r = squall_run(work, "typo.py");
  ASSERT_EQ(r.status, 0) << r.err;
  test::StoredTask x = test::stored_task(work.path() / "typo.db", site.origin + "/page/x");
  EXPECT_EQ(x.status, 3);
  EXPECT_TRUE(contains(x.track["process"].value("exception", ""),
                       "TypeError: crawl() got an unexpected keyword argument 'prority'"))
      << x.track.dump();
  EXPECT_TRUE(site.requests_for("/page/y").empty());
}

TEST(RunProject, SendMessageReachesOnMessageWhoseReturnIsAResult) {
  RunPeer site;
  TempDir work;
  work.write("talk.py", with_origin(R"(
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/page/x", callback=self.page)

    def page(self, response):
        self.send_message(self.project_name, {"title": response.doc("title").text()})

    def on_message(self, project, message):
        return {"from": project, "message": message}
)",
                                    site.origin));
  test::CommandResult r = squall_run(work, "talk.py", {"--results", "out.jsonl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results.begin()->second["result"],
            (json{{"from", "talk"}, {"message", {{"title", "x"}}}}));
}

TEST(RunProject, AScriptThatDoesNotLoadFailsAtOnceWithThePythonError) {
  TempDir work;
  work.write("broken.py",
             "from pyspider.libs.base_handler import *\n\nclass Handler(BaseHandler)\n");
  test::CommandResult r = squall_run(work, "broken.py");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "broken.py\", line 3")) << r.err;
  EXPECT_TRUE(contains(r.err, "SyntaxError: expected ':'")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(work.path() / "broken.db"));

  work.write("empty.py", "import os\n");
  r = squall_run(work, "empty.py");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "has no Handler class (a subclass of BaseHandler)")) << r.err;

  work.write("raises.py", "from pyspider.libs.base_handler import *\nimport no_such_module\n");
  r = squall_run(work, "raises.py");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "ModuleNotFoundError: No module named 'no_such_module'")) << r.err;

  r = squall_run(work, "missing.py");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "no project script at missing.py")) << r.err;
}

TEST(RunProject, TheDebugStepRunsOneCallbackAndPrintsWhatItDidChangingNoStore) {
  RunPeer site;
  TempDir work;
  work.write("tutorial.py", with_origin(kTutorial, site.origin));
  test::CommandResult r =
      test::run_command({test::squall_binary(), "run", "--debug", "tutorial.py",
                         site.origin + "/page/index?links=a,b", "--callback", "index_page"},
                        work.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "callback: index_page ok")) << r.out;
  EXPECT_TRUE(contains(r.out, site.origin + "/page/a  -> detail_page")) << r.out;
  EXPECT_TRUE(contains(r.out, site.origin + "/page/b  -> detail_page")) << r.out;
  EXPECT_TRUE(contains(r.out, "result: none")) << r.out;

  r = test::run_command({test::squall_binary(), "run", "--debug", "tutorial.py",
                         site.origin + "/page/a", "--callback", "detail_page"},
                        work.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"title\": \"a\"")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(work.path() / "tutorial.db")) << "no store";
  EXPECT_TRUE(site.requests_for("/page/b").empty()) << "follows are printed, not fetched";
}

}  // namespace
}  // namespace squall
