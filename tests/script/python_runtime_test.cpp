// PythonRuntime: a pyspider script's follows stream to the engine while its callback runs.
#include "squall/script/python_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "squall/engine/engine.h"
#include "support/loop_fixture.h"
#include "support/memory.h"
#include "support/process.h"
#include "support/site.h"

// What embedded CPython keeps after Py_FinalizeEx, and lxml's libxml2 and libxslt state, which
// no interpreter ever unloads (the same as tests/cli/run_lsan.supp, for this process only).
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libpython3.11\nleak:libxml2.so\nleak:libxslt.so\nleak:libexslt.so\n";
}

namespace squall {
namespace {

using nlohmann::json;

// on_start asks for COUNT distinct pages (never fetched: the test lets only on_start through),
// then raises when RAISE is true.
constexpr const char* kScript = R"(
from pyspider.libs.base_handler import *

COUNT = %COUNT%
RAISE = %RAISE%


class Handler(BaseHandler):
    def on_start(self):
        for i in range(COUNT):
            self.crawl("http://127.0.0.1:9/page/%d" % i, callback=self.page)
        if RAISE:
            raise ValueError("on_start broke after its follows")

    def page(self, response):
        return {"url": response.url}
)";

std::string page_url(size_t i) {
  return "http://127.0.0.1:9/page/" + std::to_string(i);
}

struct ManyFollowsRun {
  EngineSummary summary;
  CounterValues recount{};
  std::optional<CrawlTask> start, first, last;
  size_t peak_growth_kib = 0;
};

// Far above what the engine and the interpreter need, far below 1,000,000 follows held whole
// (as Python dicts, then as tasks: well over 1 GiB).
constexpr size_t kFollowsPeakBoundKib = 300 * 1024;

class PythonRuntimeTest : public test::LoopTest {
 protected:
  ManyFollowsRun run_many_follows(size_t count, bool raise) {
    std::string script = kScript;
    script.replace(script.find("%COUNT%"), 7, std::to_string(count));
    script.replace(script.find("%RAISE%"), 7, raise ? "True" : "False");
    std::unique_ptr<PythonRuntime> runtime = PythonRuntime::load(
        {.script = dir_.write("many.py", script), .project = "many", .time_limit = 600});
    ManyFollowsRun out;
    auto body = [&]() -> Task<void> {
      EngineOptions o;
      o.store = dir_.path() / "engine.db";
      o.jsonl = dir_.path() / "results.jsonl";
      o.store_cache_mib = 16;
      o.hooks.may_dispatch = [](const CrawlTask& t) { return t.taskid == "on_start"; };
      Engine engine(o);
      engine.add_project(*runtime);
      test::reset_peak_rss();
      size_t before = test::rss_kib();
      out.summary = co_await engine.run();
      out.peak_growth_kib = test::peak_rss_kib() - before;
      RecordProperty("peak_growth_kib", std::to_string(out.peak_growth_kib));
      EngineStore& store = *engine.store();
      out.recount = co_await store.recount("many");
      out.start = co_await store.get("many", "on_start");
      out.first = co_await store.get("many", default_taskid(page_url(0)));
      out.last = co_await store.get("many", default_taskid(page_url(count - 1)));
    };
    run(body(), std::chrono::seconds(600));
    runtime.reset();
    return out;
  }

  test::TempDir dir_;
};

TEST_F(PythonRuntimeTest, ACallbackFollowingAMillionPagesStoresEachOnceInBoundedMemory) {
  if (test::kAddressSanitizer)
    GTEST_SKIP() << "a million follows take minutes under AddressSanitizer, whose memory says "
                    "little of the bound: the release tree runs this, the smaller follow tests "
                    "run here";
  constexpr size_t kCount = 1'000'000;
  ManyFollowsRun r = run_many_follows(kCount, false);
  EXPECT_TRUE(r.summary.limited);
  EXPECT_EQ(r.summary.follows, kCount + 1);  // the start task and every follow, inserted once
  EXPECT_EQ(r.recount[static_cast<size_t>(CounterKind::Pending)], static_cast<int64_t>(kCount));
  EXPECT_EQ(r.recount[static_cast<size_t>(CounterKind::Success)], 1);
  ASSERT_TRUE(r.start && r.first && r.last);
  EXPECT_EQ(r.start->status, TaskStatus::Success) << r.start->track.text();
  EXPECT_EQ(r.start->track.read()["process"]["follows"], kCount);
  EXPECT_EQ(r.first->url, page_url(0));
  EXPECT_EQ(r.last->process["callback"], "page");
  EXPECT_LT(r.peak_growth_kib, kFollowsPeakBoundKib)
      << "the process grew by " << r.peak_growth_kib / 1024
      << " MiB at its peak: follows are held whole instead of handed on in batches";
}

TEST_F(PythonRuntimeTest, ACallbackThatRaisesAfterFiftyThousandFollowsStillSendsThemAndFails) {
  constexpr size_t kCount = 50'000;
  ManyFollowsRun r = run_many_follows(kCount, true);
  EXPECT_EQ(r.summary.follows, kCount + 1);
  EXPECT_EQ(r.summary.failed, 1u);
  EXPECT_EQ(r.recount[static_cast<size_t>(CounterKind::Pending)], static_cast<int64_t>(kCount + 1));
  ASSERT_TRUE(r.start && r.first && r.last);
  EXPECT_EQ(r.start->status, TaskStatus::Active);
  EXPECT_EQ(r.start->track.read()["process"]["ok"], false);
  EXPECT_EQ(r.start->track.read()["process"]["follows"], kCount);
  EXPECT_NE(r.start->track.text().find("on_start broke after its follows"), std::string::npos);
}

// on_start reads the pages under FOLDER, and the first 200 of the installed documentation (real
// pages, made by Sphinx and others), each as a Response, and checks that response.etree (squall's
// tree adopted by lxml, when the builder takes the page) is the tree lxml.html.fromstring gives
// with the same parser: the same serialization, element classes and document info.
constexpr const char* kTreeScript = R"(
import os
import lxml.etree
import lxml.html
from pyspider.libs import response as squall_response
from pyspider.libs.base_handler import *
from pyspider.libs.response import Response

FOLDER = %FOLDER%


def html_files(root, limit):
    paths = []
    for folder, _, names in os.walk(root):
        paths += [os.path.join(folder, n) for n in names if n.endswith(".html")]
    return sorted(paths)[:limit]


def shape(root):
    tree = root.getroottree()
    info = tree.docinfo
    return (lxml.etree.tostring(tree), [type(e).__name__ for e in root.iter()],
            info.doctype, info.encoding, info.URL)


def outcome(read):
    try:
        return shape(read())
    except Exception as e:
        return type(e).__name__


class Handler(BaseHandler):
    def on_start(self):
        pages, built, differ = 0, [], []
        for path in html_files(FOLDER, 1000) + html_files("/usr/share/doc", 200):
            name = os.path.relpath(path, FOLDER) if path.startswith(FOLDER) else path
            with open(path, "rb") as f:
                content = f.read()
            response = Response(status_code=200, url="http://127.0.0.1:8080/" + name,
                                content=content, headers={"Content-Type": "text/html"})
            parser = squall_response._html_parser(response.encoding)
            if outcome(lambda: response.etree) != \
                    outcome(lambda: lxml.html.fromstring(content, parser=parser)):
                differ.append(name)
            if squall_response._built_root(content, response.encoding) is not None:
                built.append(name)
            pages += 1
        quirks = Response(status_code=200, url="http://127.0.0.1:8080/d/quirks.html",
                          content=open(os.path.join(FOLDER, "quirks.html"), "rb").read())
        return {"in_squall": squall_response._html_tree is not None, "pages": pages,
                "built": built, "differ": differ[:10],
                "links": [a.attr.href for a in quirks.doc("a").items()]}
)";

TEST_F(PythonRuntimeTest, ResponseEtreeIsTheTreeLxmlParsesWhetherSquallsBuilderMadeItOrNot) {
  constexpr int kSitePages = 200;
  test::generate_site(dir_.path() / "pages", kSitePages, "http://127.0.0.1:8080");
  // Pages of each kind: one the builder makes with libxml2's recovery rules, and those it leaves
  // to lxml (another encoding, a fragment, a byte order mark, nesting past libxml2's limit).
  dir_.write("pages/quirks.html",
             "<!DOCTYPE html><html><head><title>T &amp; U</title><script>if (a < b) x();"
             "</script><style>p > a { color: red }</style></head><body><p>one<p>two &copy; "
             "&#169<ul><li>a<li>b</ul><table><tr>"
             "<td>x<td>y</table><br/><img src=i.png><a href=../x.html#top>x</a> <!-- c -->"
             "<a href='//other.test/y'>y</a></body></html>\n");
  dir_.write("pages/latin1.html",
             "<html><head><meta charset=\"iso-8859-1\"></head><body>caf\xe9</body></html>");
  dir_.write("pages/fragment.html", "<p>one</p><p>two</p>");
  dir_.write("pages/bom.html", "\xEF\xBB\xBF<html><body>b</body></html>");
  std::string deep = "<html><body>";
  for (int i = 0; i < 300; ++i) deep += "<div>";
  dir_.write("pages/deep.html", deep + "deep</body></html>");
  dir_.write("pages/doctype_only.html", "<!DOCTYPE html>");
  std::string script = kTreeScript;
  script.replace(script.find("%FOLDER%"), 8, json((dir_.path() / "pages").string()).dump());
  std::unique_ptr<PythonRuntime> runtime =
      PythonRuntime::load({.script = dir_.write("tree.py", script), .project = "tree"});
  auto body = [&]() -> Task<void> {
    EngineOptions o;
    o.store = dir_.path() / "engine.db";
    o.jsonl = dir_.path() / "results.jsonl";
    o.hooks.may_dispatch = [](const CrawlTask& t) { return t.taskid == "on_start"; };
    Engine engine(o);
    engine.add_project(*runtime);
    co_await engine.run();
  };
  run(body(), std::chrono::seconds(120));
  runtime.reset();
  json line = json::parse(test::read_file(dir_.path() / "results.jsonl"));
  const json& r = line["result"];
  ASSERT_TRUE(r.is_object()) << line.dump();
  EXPECT_EQ(r["in_squall"], true);
  EXPECT_EQ(r["differ"], json::array()) << "pages whose tree is not lxml's";
  std::vector<std::string> built = r["built"];
  EXPECT_GE(r["pages"].get<int>(), kSitePages + 6);
  // Every page of the site takes the builder, as the quirks page does; the others are lxml's.
  EXPECT_GE(built.size(), static_cast<size_t>(kSitePages)) << r.dump();
  EXPECT_NE(std::find(built.begin(), built.end(), "quirks.html"), built.end());
  for (const char* page :
       {"latin1.html", "fragment.html", "bom.html", "deep.html", "doctype_only.html"})
    EXPECT_EQ(std::find(built.begin(), built.end(), page), built.end()) << page;
  // response.doc made the built tree's links absolute.
  EXPECT_EQ(r["links"], json::array({"http://127.0.0.1:8080/x.html#top", "http://other.test/y"}));
}

}  // namespace
}  // namespace squall
