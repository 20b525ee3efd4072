// `squall crawl` shapes its requests as curl users expect: -H fields, -b cookies (a string and
// a cookie file), a forwarding proxy from -x or the environment (http_proxy, no_proxy), checked
// on what a real proxy and the server behind it received.
#include <gtest/gtest.h>

#include <set>

#include <sstream>

#include "support/process.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using test::exit_status;
using test::Process;
using test::squall_binary;
using test::TempDir;
using namespace std::chrono_literals;

// The lines of a log file.
std::vector<std::string> lines(const std::filesystem::path& path) {
  std::vector<std::string> out;
  std::istringstream in(test::read_file(path));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class CrawlRequest : public testing::Test {
 protected:
  void SetUp() override {
    site_.write("index.html", "<a href=page.html>p</a>");
    site_.write("page.html", "page");
    target_port_ = test::free_port();
    // Each request as the server saw it: request line | X-Crawl | Cookie | User-Agent.
    target_ = test::start_nginx(
        site_, "access_log " + (site_.path() / "headers.log").string() + " headers;", target_port_,
        "", "log_format headers '$request|$http_x_crawl|$http_cookie|$http_user_agent';");
    proxy_port_ = test::free_port();
    proxy_ = test::start_nginx(proxy_dir_,
                               "access_log " + (proxy_dir_.path() / "proxy.log").string() +
                                   " forwarded;\nlocation / { proxy_pass http://127.0.0.1:" +
                                   std::to_string(target_port_) + "; }",
                               proxy_port_, "", "log_format forwarded '$request';");
  }

  std::string target() const { return "http://127.0.0.1:" + std::to_string(target_port_); }
  std::string proxy() const { return "http://127.0.0.1:" + std::to_string(proxy_port_); }

  // Runs `env ENV... squall crawl ARGS...` in the work directory to its end.
  Process crawl(const std::vector<std::string>& env, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(squall_binary());
    argv.push_back("crawl");
    argv.insert(argv.end(), args.begin(), args.end());
    Process p = Process::start(argv, work_.path());
    p.wait(60s);
    return p;
  }

  TempDir site_, proxy_dir_, work_;
  uint16_t target_port_ = 0, proxy_port_ = 0;
  Process target_, proxy_;
};

TEST_F(CrawlRequest, HeadersAndCookiesReachTheServerThroughTheEnvironmentsProxy) {
  // A cookie for this host, and three that must stay home: another domain, secure-only over
  // http, expired.
  work_.write("cookies.txt",
              "# Netscape HTTP Cookie File\n"
              "127.0.0.1\tFALSE\t/\tFALSE\t0\tfrom_file\t3\n"
              "other.test\tFALSE\t/\tFALSE\t0\tother\t9\n"
              "#HttpOnly_127.0.0.1\tFALSE\t/\tTRUE\t0\tsecure\t1\n"
              "127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\t1\n");
  Process p =
      crawl({"http_proxy=" + proxy()}, {target() + "/", "-H", "X-Crawl: yes", "-b", "a=1; b=2",
                                        "-b", "cookies.txt", "--user-agent", "ua-test/1"});
  ASSERT_EQ(exit_status(p.wait(0ms)), 0) << p.output();
  std::vector<std::string> proxied = lines(proxy_dir_.path() / "proxy.log");
  EXPECT_EQ(proxied.empty() ? "" : proxied.front(), "GET " + target() + "/robots.txt HTTP/1.1")
      << "robots.txt first";
  EXPECT_EQ(
      std::set<std::string>(proxied.begin(), proxied.end()),
      (std::set<std::string>{
          "GET " + target() + "/robots.txt HTTP/1.1", "GET " + target() + "/sitemap.xml HTTP/1.1",
          "GET " + target() + "/ HTTP/1.1", "GET " + target() + "/page.html HTTP/1.1"}))
      << "every request, the sitemap guess too, in absolute form to the proxy";
  EXPECT_EQ(proxied.size(), 4u);
  auto seen = lines(site_.path() / "headers.log");
  ASSERT_EQ(seen.size(), 4u);
  for (const std::string& line : seen)
    EXPECT_TRUE(line.ends_with("|yes|from_file=3; a=1; b=2|ua-test/1")) << line;
}

TEST_F(CrawlRequest, TheProxyFlagWinsOverTheEnvironmentAndNoProxyGoesDirect) {
  std::string dead = "http://127.0.0.1:" + std::to_string(test::free_port());
  Process flag = crawl({"http_proxy=" + dead}, {target() + "/", "-x", proxy(), "--state", "a.db"});
  ASSERT_EQ(exit_status(flag.wait(0ms)), 0) << flag.output();
  EXPECT_EQ(lines(proxy_dir_.path() / "proxy.log").size(), 4u);  // robots, sitemap, 2 pages

  for (const char* name : {"no_proxy", "NO_PROXY"}) {
    std::string state = std::string(name) + ".db";
    Process direct = crawl({"http_proxy=" + dead, std::string(name) + "=localhost,127.0.0.1"},
                           {target() + "/", "--state", state});
    EXPECT_EQ(exit_status(direct.wait(0ms)), 0) << name << ": " << direct.output();
    EXPECT_NE(direct.output().find("status: 200×2"), std::string::npos) << direct.output();
  }
  EXPECT_EQ(lines(proxy_dir_.path() / "proxy.log").size(), 4u) << "no_proxy: not through it";

  Process refused = crawl({"http_proxy=" + dead}, {target() + "/", "--state", "dead.db"});
  EXPECT_EQ(exit_status(refused.wait(0ms)), 4) << "the environment's proxy is used";
}

}  // namespace
}  // namespace squall
