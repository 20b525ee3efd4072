// The fetcher's js fetch type: a task rendered through the browser pool, with pyspider's options.
#include <gtest/gtest.h>

#include "squall/browser/browser_pool.h"
#include "squall/engine/fetcher.h"
#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall {
namespace {

using nlohmann::json;
using test::TempDir;

class JsFetchTest : public test::LoopTest {
 protected:
  void SetUp() override {
    if (browser::find_chromium().empty()) GTEST_SKIP() << browser::no_chromium_message();
    dir_.write("app.html", R"(<!doctype html><title>app</title><body><script>
      setTimeout(() => { const a = document.createElement('a'); a.href = '/next.html';
        a.id = 'made'; document.body.append(a); }, 100);
    </script></body>)");
    nginx_ = test::start_nginx(dir_, "", port_, "", "types { text/html html; }");
  }

  CrawlTask task(json fetch) {
    CrawlTask t;
    t.project = "p";
    t.url = "http://127.0.0.1:" + std::to_string(port_) + "/app.html";
    t.fetch = std::move(fetch);
    return t;
  }

  TempDir dir_;
  uint16_t port_ = test::free_port();
  test::Process nginx_;
};

TEST_F(JsFetchTest, AJsTaskIsRenderedWithPyspidersOptions) {
  browser::BrowserPoolOptions pool_options;
  pool_options.browsers = 1;
  pool_options.chromium.scratch_dir = dir_.path();
  browser::BrowserPool pool(pool_options);
  FetcherOptions options;
  options.browser = &pool;
  options.prepare = [](const CrawlTask*, http::HttpRequest& req) {
    req.headers.set("X-From-Prepare", "1");
  };
  Fetcher fetcher(options);
  // Built outside the coroutine: GCC 12 cannot keep a braced list of string literals across a
  // co_await.
  CrawlTask rendered = task({{"fetch_type", "js"},
                             {"js_wait_for", "#made"},
                             {"js_script", "function() { return innerWidth; }"},
                             {"js_viewport_width", 800},
                             {"user_agent", "squall-js/1"},
                             {"save", {{"k", 1}}}});
  CrawlTask never = task({{"fetch_type", "js"}, {"js_wait_for", "#never"}, {"timeout", 1}});
  const json saved = {{"k", 1}};
  run([&]() -> Task<void> {
    FetchResult r = co_await fetcher.fetch(rendered);
    EXPECT_EQ(r.status_code, 200) << r.error;
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_NE(r.content.find(R"(<a href="/next.html" id="made"></a>)"), std::string::npos)
        << r.content;
    EXPECT_EQ(r.js_script_result, 800);
    EXPECT_EQ(r.to_json()["js_script_result"], 800);
    EXPECT_EQ(r.encoding, "utf-8");
    EXPECT_EQ(r.save, saved);
    std::string log = test::read_file(dir_.path() / "access.log");
    EXPECT_NE(log.find("squall-js/1"), std::string::npos) << log;

    FetchResult slow = co_await fetcher.fetch(never);
    EXPECT_EQ(slow.status_code, 599);
    EXPECT_EQ(slow.error_kind, "timeout");
    EXPECT_NE(slow.error.find("was not rendered within 1 s"), std::string::npos) << slow.error;
  }());
  pool.close();
}

TEST_F(JsFetchTest, WithoutAPoolAJsTaskFailsSayingSo) {
  Fetcher fetcher;
  CrawlTask js = task({{"fetch_type", "js"}});
  run([&]() -> Task<void> {
    FetchResult r = co_await fetcher.fetch(js);
    EXPECT_EQ(r.status_code, 501);
    EXPECT_NE(r.error.find("no browser pool"), std::string::npos) << r.error;
  }());
}

}  // namespace
}  // namespace squall
