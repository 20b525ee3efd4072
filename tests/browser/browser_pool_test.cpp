// BrowserPool: recycling, a browser killed in the middle of a page, and nothing left at the end.
#include "squall/browser/browser_pool.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/socket_watch.h"

namespace squall::browser {
namespace {

using namespace std::chrono_literals;
using test::TempDir;

class BrowserPoolTest : public test::LoopTest {
 protected:
  BrowserPoolTest() : port_(test::free_port()) {}

  void SetUp() override {
    if (find_chromium().empty()) GTEST_SKIP() << no_chromium_message();
    dir_.write("page.html",
               "<!doctype html><body><script>document.body.append('rendered')"
               "</script></body>");
    dir_.write("slow.html", "<!doctype html><body>never ready</body>");
    nginx_ = test::start_nginx(dir_, "", port_, "", "types { text/html html; }");
  }

  BrowserPoolOptions options(size_t browsers) {
    BrowserPoolOptions o;
    o.browsers = browsers;
    o.chromium.scratch_dir = dir_.path();
    return o;
  }

  RenderRequest page(const std::string& path = "/page.html") {
    RenderRequest r;
    r.url = "http://127.0.0.1:" + std::to_string(port_) + path;
    return r;
  }

  TempDir dir_;
  uint16_t port_;
  test::Process nginx_;
};

TEST_F(BrowserPoolTest, ABrowserIsRestartedAfterItsPages) {
  auto o = options(1);
  o.pages_per_browser = 2;
  BrowserPool pool(o);
  run([&]() -> Task<void> {
    std::vector<pid_t> groups;
    for (int i = 0; i < 5; ++i) {
      RenderResult r = co_await pool.render(page());
      EXPECT_NE(r.html.find("rendered"), std::string::npos);
      for (pid_t g : pool.process_groups())
        if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    }
    EXPECT_EQ(pool.stats().pages, 5u);
    EXPECT_EQ(pool.stats().started, 3u);
    EXPECT_EQ(pool.stats().recycled, 2u);
    EXPECT_EQ(groups.size(), 3u);  // pages 1, 3 and 5 each left their browser running
  }());
  pool.close();
}

TEST_F(BrowserPoolTest, PagesRenderConcurrentlyOnePerBrowser) {
  BrowserPool pool(options(2));
  test::SocketWatch watch([&pool] { return pool.processes(); });
  run([&]() -> Task<void> {
    std::vector<TaskHandle<RenderResult>> renders;
    for (int i = 0; i < 6; ++i) renders.push_back(spawn(pool.render(page())));
    for (auto& r : renders) EXPECT_EQ((co_await r).status, 200);
    EXPECT_EQ(pool.stats().started, 2u);
    EXPECT_EQ(pool.process_groups().size(), 2u);
  }());
  EXPECT_EQ(watch.outside(), std::vector<std::string>{});
  std::vector<pid_t> groups = pool.process_groups();
  pool.close();
  for (pid_t g : groups)
    EXPECT_EQ(test::wait_until_gone([&] { return test::process_group_members(g); }),
              std::vector<pid_t>{});
}

TEST_F(BrowserPoolTest, ABrowserKilledMidPageFailsThatPageAndIsReplaced) {
  BrowserPool pool(options(1));
  run([&]() -> Task<void> {
    co_await pool.render(page());
    pid_t first = pool.process_groups().at(0);
    RenderRequest stuck = page("/slow.html");
    stuck.wait_selector = "#never";
    stuck.timeout = 30s;
    auto killer = spawn([](pid_t p) -> Task<void> {
      co_await sleep(500ms);
      ::kill(p, SIGKILL);
    }(first));
    try {
      co_await pool.render(stuck);
      ADD_FAILURE() << "a page rendered in a killed browser";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Closed) << e.what();
    }
    co_await killer;
    EXPECT_EQ(test::wait_until_gone([&] { return test::process_group_members(first); }),
              std::vector<pid_t>{});
    RenderResult again = co_await pool.render(page());
    EXPECT_NE(again.html.find("rendered"), std::string::npos);
    EXPECT_EQ(pool.stats().failed, 1u);
    EXPECT_EQ(pool.stats().started, 2u);
  }());
}

TEST_F(BrowserPoolTest, ABrowserPastItsMemoryLimitIsRecycled) {
  auto o = options(1);
  o.restart_mib = 1;  // every browser is above it after a page
  BrowserPool pool(o);
  run([&]() -> Task<void> {
    co_await pool.render(page());
    co_await pool.render(page());
    EXPECT_EQ(pool.stats().recycled, 2u);
    EXPECT_EQ(pool.process_groups().size(), 0u);
  }());
}

}  // namespace
}  // namespace squall::browser
