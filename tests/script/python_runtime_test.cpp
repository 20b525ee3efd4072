// PythonRuntime: a pyspider script's follows stream to the engine while its callback runs.
#include "squall/script/python_runtime.h"

#include <gtest/gtest.h>

#include <string>

#include "squall/engine/engine.h"
#include "support/loop_fixture.h"
#include "support/memory.h"
#include "support/process.h"

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
  EXPECT_EQ(r.start->status, TaskStatus::Success) << r.start->track.dump();
  EXPECT_EQ(r.start->track["process"]["follows"], kCount);
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
  EXPECT_EQ(r.start->track["process"]["ok"], false);
  EXPECT_EQ(r.start->track["process"]["follows"], kCount);
  EXPECT_NE(r.start->track.dump().find("on_start broke after its follows"), std::string::npos);
}

}  // namespace
}  // namespace squall
