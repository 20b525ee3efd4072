// render_page against pages nginx serves on loopback, with Chromium's sockets watched throughout.
#include "squall/browser/render.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/socket_watch.h"

namespace squall::browser {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::TempDir;

// The types the pages need: Debian's nginx-light ships no mime.types of its own in the test's root.
const char* kTypes =
    "types { text/html html; application/javascript js; application/json json; image/png png; "
    "font/woff2 woff2; }";

class RenderTest : public test::LoopTest {
 protected:
  RenderTest() : port_(test::free_port()) {}

  void SetUp() override {
    if (find_chromium().empty()) GTEST_SKIP() << no_chromium_message();
  }

  void serve() {
    nginx_ = test::start_nginx(dir_, "add_header X-Page rendered;", port_, "", kTypes);
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  // Starts a browser for the test, with its sockets watched until the test ends.
  // Host names resolve to nothing (no DNS query leaves the machine) but loopback's.
  Task<std::unique_ptr<Chromium>> start(ChromiumOptions options = {}) {
    options.scratch_dir = dir_.path();
    options.allowed_hosts = {"127.0.0.1", "localhost"};
    auto browser = co_await Chromium::start(options);
    pid_t group = browser->pid();
    watches_.push_back(std::make_unique<test::SocketWatch>(
        [group] { return test::process_group_members(group); }));
    co_return browser;
  }

  void TearDown() override {
    for (auto& watch : watches_) EXPECT_EQ(watch->outside(), std::vector<std::string>{});
    watches_.clear();
    LoopTest::TearDown();
  }

  size_t requests_for(const std::string& path) const {
    std::string log = test::read_file(dir_.path() / "access.log");
    size_t n = 0;
    for (size_t at = log.find(" " + path + " "); at != std::string::npos;
         at = log.find(" " + path + " ", at + 1))
      ++n;
    return n;
  }

  TempDir dir_;
  uint16_t port_;
  test::Process nginx_;
  std::vector<std::unique_ptr<test::SocketWatch>> watches_;
};

TEST_F(RenderTest, ALinkATimerAddsIsInTheRenderedHtml) {
  dir_.write("timer.html", R"(<!doctype html><title>t</title><body><script>
    setTimeout(() => { const a = document.createElement('a'); a.href = '/later.html';
      a.textContent = 'later'; document.body.appendChild(a); }, 300);
  </script></body>)");
  serve();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/timer.html");
    req.wait_selector = "a[href]";
    RenderResult page = co_await render_page(*browser, req);
    EXPECT_EQ(page.status, 200);
    EXPECT_EQ(page.url, url("/timer.html"));
    EXPECT_NE(page.html.find(R"(<a href="/later.html">later</a>)"), std::string::npos) << page.html;
    EXPECT_TRUE(page.html.starts_with("<!DOCTYPE html><html>")) << page.html;
  }());
}

TEST_F(RenderTest, NetworkIdleWaitsForTheLinksAJsonApiGives) {
  dir_.write("api/links.json", R"(["/one.html", "/two.html"])");
  dir_.write("app.html", R"(<!doctype html><body><ul id=list></ul><script>
    fetch('/api/links.json').then(r => r.json()).then(links => setTimeout(() => {
      for (const href of links) { const a = document.createElement('a'); a.href = href;
        document.getElementById('list').appendChild(a); } }, 50));
  </script></body>)");
  serve();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/app.html");
    req.wait_until = WaitUntil::NetworkIdle;
    RenderResult page = co_await render_page(*browser, req);
    EXPECT_NE(page.html.find(R"(<a href="/one.html">)"), std::string::npos) << page.html;
    EXPECT_NE(page.html.find(R"(<a href="/two.html">)"), std::string::npos) << page.html;
    // The watch sees the browser's connections to nginx, so it would see others too.
    EXPECT_GT(watches_.back()->samples_with_peers(), 0u);
  }());
}

TEST_F(RenderTest, OpenShadowRootsAreWrittenAsDeclarativeTemplates) {
  dir_.write("shadow.html", R"(<!doctype html><body><div id=host></div><script>
    const root = document.getElementById('host').attachShadow({mode: 'open'});
    root.innerHTML = '<a href="/in-shadow.html">deep</a>';
  </script></body>)");
  serve();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/shadow.html");
    RenderResult page = co_await render_page(*browser, req);
    EXPECT_NE(page.html.find(R"(<template shadowrootmode="open">)"), std::string::npos)
        << page.html;
    EXPECT_NE(page.html.find(R"(<a href="/in-shadow.html">deep</a>)"), std::string::npos)
        << page.html;
  }());
}

TEST_F(RenderTest, JsScriptResultsComeBackAtDocumentEndAndDocumentStart) {
  dir_.write("js.html", R"(<!doctype html><title>Title</title><body><script>
    window.seenByScriptAtStart = typeof window.marker;
    window.marker = 'page';
  </script></body>)");
  serve();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/js.html");
    req.js_script = "function() { return {title: document.title, marker: window.marker}; }";
    RenderResult end = co_await render_page(*browser, req);
    EXPECT_EQ(end.js_script_result, json({{"title", "Title"}, {"marker", "page"}}));

    req.js_script = "function() { window.marker = 'script'; return document.readyState; }";
    req.js_at_document_start = true;
    RenderResult start = co_await render_page(*browser, req);
    EXPECT_EQ(start.js_script_result, "loading");

    req.js_script = "async function() { await new Promise(r => setTimeout(r, 10)); return 7; }";
    req.js_at_document_start = false;
    RenderResult promised = co_await render_page(*browser, req);
    EXPECT_EQ(promised.js_script_result, 7);
  }());
}

TEST_F(RenderTest, TheViewportIsTheOneAskedFor) {
  dir_.write("v.html", "<!doctype html><body>viewport</body>");
  serve();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/v.html");
    req.viewport_width = 640;
    req.viewport_height = 480;
    req.js_script = "function() { return [window.innerWidth, window.innerHeight]; }";
    RenderResult page = co_await render_page(*browser, req);
    EXPECT_EQ(page.js_script_result, json({640, 480}));
  }());
}

TEST_F(RenderTest, ImagesAreNotRequestedUnlessLoadImages) {
  dir_.write("pic.png", "not really a png");
  dir_.write("img.html", R"(<!doctype html><body><img src="/pic.png"><script>
    const i = new Image(); i.src = '/pic.png?script';
  </script></body>)");
  serve();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/img.html");
    req.wait_until = WaitUntil::NetworkIdle;
    co_await render_page(*browser, req);
    EXPECT_EQ(requests_for("/img.html"), 1u);
    EXPECT_EQ(requests_for("/pic.png"), 0u);
    EXPECT_EQ(requests_for("/pic.png?script"), 0u);
    req.load_images = true;
    co_await render_page(*browser, req);
    EXPECT_EQ(requests_for("/pic.png"), 1u);
  }());
}

TEST_F(RenderTest, TheMainDocumentsStatusHeadersRedirectsAndCookiesComeBack) {
  dir_.write("c.html", "<!doctype html><body><script>document.cookie = 'made=byjs';</script>");
  nginx_ = test::start_nginx(dir_,
                             "location = /moved { return 302 /c.html; }\n"
                             "location = /c.html { add_header Set-Cookie 'sid=abc; Path=/'; }\n",
                             port_, "", kTypes);
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/moved");
    req.headers = {{"X-Asked", "yes"}};
    req.cookies = {{"given", "1"}};
    req.user_agent = "squall-test/1.0";
    RenderResult page = co_await render_page(*browser, req);
    EXPECT_EQ(page.status, 200);
    EXPECT_EQ(page.url, url("/c.html"));
    EXPECT_EQ(page.redirects, std::vector<std::string>{url("/moved")});
    EXPECT_EQ(page.cookies, json({{"sid", "abc"}, {"made", "byjs"}, {"given", "1"}}));
    bool set_cookie = false;
    for (const auto& [name, value] : page.headers)
      if (name == "Set-Cookie" || name == "set-cookie") set_cookie = value == "sid=abc; Path=/";
    EXPECT_TRUE(set_cookie);
    std::string log = test::read_file(dir_.path() / "access.log");
    EXPECT_NE(log.find("squall-test/1.0"), std::string::npos) << log;

    req.url = url("/missing.html");
    RenderResult missing = co_await render_page(*browser, req);
    EXPECT_EQ(missing.status, 404);
  }());
}

TEST_F(RenderTest, ThePageIsLoadedThroughTheRequestsProxy) {
  dir_.write("p.html", "<!doctype html><body><script>document.body.append('via proxy')</script>");
  serve();
  // A forward proxy: nginx answering absolute-form requests from the site above.
  TempDir proxy_dir;
  uint16_t proxy_port = test::free_port();
  test::Process proxy = test::start_nginx(
      proxy_dir, "location / { proxy_pass http://127.0.0.1:" + std::to_string(port_) + "; }",
      proxy_port);
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    // A name nothing resolves: only the proxy can reach it.
    req.url = "http://site.test/p.html";
    req.proxy = "http://127.0.0.1:" + std::to_string(proxy_port);
    RenderResult page = co_await render_page(*browser, req);
    EXPECT_EQ(page.status, 200) << page.error;
    EXPECT_NE(page.html.find("via proxy"), std::string::npos) << page.html;
    EXPECT_NE(test::read_file(proxy_dir.path() / "access.log").find("GET http://site.test/p.html"),
              std::string::npos);

    req.proxy.clear();
    RenderResult direct = co_await render_page(*browser, req);
    EXPECT_EQ(direct.status, 599);
    EXPECT_EQ(direct.error_kind, "resolve") << direct.error;
  }());
}

TEST_F(RenderTest, ARefusedConnectionIsA599WithItsKind) {
  uint16_t closed = test::free_port();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = "http://127.0.0.1:" + std::to_string(closed) + "/";
    RenderResult page = co_await render_page(*browser, req);
    EXPECT_EQ(page.status, 599);
    EXPECT_EQ(page.error_kind, "connect");
    EXPECT_NE(page.error.find("ERR_CONNECTION_REFUSED"), std::string::npos) << page.error;
  }());
}

TEST_F(RenderTest, APageThatNeverFinishesLoadingTimesOutWithinItsLimit) {
  // A listener that never accepts: the kernel completes the connection, nothing ever answers.
  int hang = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(hang, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(::listen(hang, 16), 0);
  ::getsockname(hang, reinterpret_cast<sockaddr*>(&addr), &len);
  dir_.write("slow.html", "<!doctype html><body><script src=\"http://127.0.0.1:" +
                              std::to_string(ntohs(addr.sin_port)) + "/never.js\"></script>");
  serve();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/slow.html");
    req.timeout = 2s;
    try {
      co_await render_page(*browser, req);
      ADD_FAILURE() << "rendered a page that never loads";
    } catch (const TimeoutError& e) {
      // Which step the limit cut (the load event, or the navigation itself on a busy machine)
      // is the browser's pace; the limit is the test's.
      EXPECT_NE(std::string(e.what()).find("was not rendered within 2 s"), std::string::npos)
          << e.what();
    }
    // The browser renders the next page.
    req.url = url("/slow.html").replace(url("").size(), std::string::npos, "/missing");
    RenderResult next = co_await render_page(*browser, req);
    EXPECT_EQ(next.status, 404);
  }());
  ::close(hang);
}

TEST_F(RenderTest, APageThatAllocatesWithoutEndFailsWithinItsLimit) {
  dir_.write("hog.html", R"(<!doctype html><body><script>
    const keep = [];
    setInterval(() => { for (let i = 0; i < 20; i++) keep.push(new Array(250000).fill(i + Math.random())); }, 1);
  </script></body>)");
  serve();
  run(
      [&]() -> Task<void> {
        ChromiumOptions options;
        options.js_heap_mib = 128;
        auto browser = co_await start(options);
        RenderRequest req;
        req.url = url("/hog.html");
        req.wait_until = WaitUntil::NetworkIdle;
        req.wait_selector = "#never";
        req.timeout = 60s;
        req.memory_limit_bytes = size_t{400} << 20;
        try {
          co_await render_page(*browser, req);
          ADD_FAILURE() << "rendered a page that allocates without end";
        } catch (const Error& e) {
          EXPECT_TRUE(e.kind() == ErrorKind::Protocol || e.kind() == ErrorKind::TooLarge)
              << e.what();
          EXPECT_NE(e.kind(), ErrorKind::Timeout) << e.what();
        }
      }(),
      90s);
}

TEST_F(RenderTest, PopUpsAreRefused) {
  dir_.write("popups.html", R"(<!doctype html><body><script>
    let opened = 0;
    for (let i = 0; i < 1000; i++) if (window.open('/popups.html?' + i)) opened++;
    document.title = 'opened ' + opened;
  </script></body>)");
  serve();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/popups.html");
    // A thousand refused window.open calls take a busy machine's browser a while.
    req.timeout = 60s;
    req.js_script = "function() { return document.title; }";
    RenderResult page = co_await render_page(*browser, req);
    EXPECT_EQ(page.js_script_result, "opened 0");
    EXPECT_EQ(requests_for("/popups.html?1"), 0u);
    json targets = co_await browser->pipe().call("Target.getTargets");
    size_t pages = 0;
    for (const auto& t : targets["targetInfos"]) pages += t.value("type", "") == "page";
    EXPECT_LE(pages, 1u);
  }());
}

TEST_F(RenderTest, AKilledBrowserFailsTheRenderAsClosed) {
  dir_.write("wait.html", "<!doctype html><body>waiting</body>");
  serve();
  run([&]() -> Task<void> {
    auto browser = co_await start();
    RenderRequest req;
    req.url = url("/wait.html");
    req.wait_selector = "#never";
    req.timeout = 20s;
    pid_t pid = browser->pid();
    auto killer = spawn([](pid_t p) -> Task<void> {
      co_await sleep(500ms);
      ::kill(p, SIGKILL);
    }(pid));
    try {
      co_await render_page(*browser, req);
      ADD_FAILURE() << "rendered with a killed browser";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Closed) << e.what();
    }
    co_await killer;
    EXPECT_FALSE(browser->alive());
    browser.reset();
    EXPECT_EQ(test::wait_until_gone([&] { return test::process_group_members(pid); }),
              std::vector<pid_t>{});
  }());
}

TEST_F(RenderTest, AMissingBrowserNamesThePackageToInstall) {
  run([&]() -> Task<void> {
    ChromiumOptions options;
    options.executable = "/nonexistent/chromium";
    try {
      co_await Chromium::start(options);
      ADD_FAILURE() << "started a browser that does not exist";
    } catch (const InvalidStateError& e) {
      EXPECT_NE(std::string(e.what()).find("apt-get install chromium-headless-shell"),
                std::string::npos)
          << e.what();
    }
  }());
}

TEST_F(RenderTest, ClosingTheBrowserLeavesNoProcessBehind) {
  run([&]() -> Task<void> {
    auto browser = co_await start();
    pid_t group = browser->pid();
    EXPECT_GE(browser->processes().size(), 2u);
    EXPECT_GT(browser->memory_bytes(), 0u);
    browser.reset();
    EXPECT_EQ(test::wait_until_gone([&] { return test::process_group_members(group); }),
              std::vector<pid_t>{});
  }());
}

}  // namespace
}  // namespace squall::browser
