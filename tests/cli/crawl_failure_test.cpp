// `squall crawl` when the site fails: an unreachable robots.txt is not a "disallow" and leaves
// nothing in the state, and a crawl that fetched nothing says why and exits as wget does.
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "support/process.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using test::contains;
using test::exit_status;
using test::Process;
using test::run_crawl;
using test::squall_binary;
using test::TempDir;
using namespace std::chrono_literals;

std::string origin(uint16_t port) {
  return "http://127.0.0.1:" + std::to_string(port);
}

TEST(CrawlFailure, AnUnreachableSiteIsNotDisallowedAndALaterRunCrawlsIt) {
  TempDir work, site;
  site.write("index.html", "<a href=a.html>a</a>");
  site.write("a.html", "a");
  uint16_t port = test::free_port();  // nothing listens there yet
  std::vector<std::string> args = {origin(port) + "/", "--state", "late.db", "--jsonl",
                                   "late.jsonl"};
  Process down = run_crawl(work.path(), args);
  std::string out = down.output();
  EXPECT_EQ(exit_status(down.wait(0ms)), 4) << out;
  EXPECT_TRUE(out.starts_with("Failed after ")) << out;
  EXPECT_TRUE(contains(out, "127.0.0.1:" + std::to_string(port) + " is unavailable: robots.txt: "))
      << out;
  EXPECT_TRUE(contains(out, "connection refused")) << out;
  EXPECT_TRUE(contains(out, "(gave up after 3 tries)")) << out;
  EXPECT_FALSE(contains(out, "disallowed by robots.txt: 1")) << out;

  Process nginx = test::start_nginx(site, "", port);
  Process up = run_crawl(work.path(), args);
  EXPECT_EQ(exit_status(up.wait(0ms)), 0) << up.output();
  EXPECT_TRUE(up.output().starts_with("Done in ")) << up.output();
  EXPECT_TRUE(contains(up.output(), "status: 200×2")) << up.output();
  auto urls = test::jsonl_urls(work.path() / "late.jsonl");
  EXPECT_EQ(urls, (std::vector<std::string>{origin(port) + "/", origin(port) + "/a.html"}));
}

TEST(CrawlFailure, ARobotsTxtThatKeepsAnswering503IsTriedAgainThenTheSiteIsUnavailable) {
  TempDir work, site;
  site.write("index.html", "<p>never reached</p>");
  uint16_t port = test::free_port();
  Process nginx = test::start_nginx(site, "location = /robots.txt { return 503; }", port);
  Process p = run_crawl(work.path(), {origin(port) + "/", "--retries", "1"});
  std::string out = p.output();
  EXPECT_EQ(exit_status(p.wait(0ms)), 8) << out;
  EXPECT_TRUE(contains(out, "is unavailable: robots.txt: HTTP 503 ")) << out;
  EXPECT_TRUE(contains(out, "(gave up after 2 tries); its URLs stay queued")) << out;
  std::string log = test::read_file(site.path() / "access.log");
  size_t robots = 0;
  for (size_t at = 0; (at = log.find("GET /robots.txt", at)) != std::string::npos; ++at) ++robots;
  EXPECT_EQ(robots, 2u) << log;
  EXPECT_FALSE(contains(log, "GET / ")) << "no page of an unavailable site is fetched";
}

TEST(CrawlFailure, AStartPageThatIsMissingOrFailingExitsEightAndSaysSo) {
  TempDir work, site;
  uint16_t port = test::free_port();
  Process nginx = test::start_nginx(site, "location = /broken { return 500; }", port);
  Process missing = run_crawl(work.path(), {origin(port) + "/missing", "--state", "missing.db"});
  EXPECT_EQ(exit_status(missing.wait(0ms)), 8) << missing.output();
  EXPECT_TRUE(missing.output().starts_with("Failed after ")) << missing.output();
  EXPECT_TRUE(contains(missing.output(), " seconds: nothing was fetched successfully.\n"))
      << missing.output();
  EXPECT_TRUE(contains(missing.output(), "status: 404×1")) << missing.output();

  Process broken =
      run_crawl(work.path(), {origin(port) + "/broken", "--state", "broken.db", "--retries", "0"});
  EXPECT_EQ(exit_status(broken.wait(0ms)), 8) << broken.output();
  EXPECT_TRUE(contains(broken.output(), "errors: HTTP 500×1")) << broken.output();
}

TEST(CrawlFailure, ATimeoutPerFetchIsANetworkFailure) {
  // A listener that never accepts: connections complete in its backlog, no answer comes.
  TempDir work;
  Process silent = Process::start({"/usr/bin/python3", "-c",
                                   "import socket, sys, time\n"
                                   "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(16)\n"
                                   "print(s.getsockname()[1], flush=True)\n"
                                   "time.sleep(600)\n"});
  std::string port_line;
  for (int i = 0; i < 1000 && (port_line = silent.output()).find('\n') == std::string::npos; ++i)
    std::this_thread::sleep_for(10ms);
  uint16_t port = static_cast<uint16_t>(std::stoi(port_line));
  Process p =
      run_crawl(work.path(), {origin(port) + "/", "--timeout-per-fetch", "0.5", "--retries", "0"});
  EXPECT_EQ(exit_status(p.wait(0ms)), 4) << p.output();
  EXPECT_TRUE(contains(p.output(), "is unavailable: robots.txt: timeout")) << p.output();
}

TEST(CrawlFailure, AnUntrustedCertificateExitsFiveAndPointsToCacertAndInsecure) {
  TempDir work, site;
  site.write("index.html", "<p>secret</p>");
  test::CertFiles ca = test::make_ca(site, "ca", "squall test CA");
  test::CertFiles leaf = test::make_signed(site, "leaf", "127.0.0.1", ca);
  uint16_t port = test::free_port();
  Process nginx = test::start_nginx(
      site,
      "ssl_certificate " + leaf.cert.string() + ";\nssl_certificate_key " + leaf.key.string() + ";",
      port, "ssl");
  std::string start = "https://127.0.0.1:" + std::to_string(port) + "/index.html";
  Process untrusted = run_crawl(work.path(), {start, "--state", "a.db"});
  std::string out = untrusted.output();
  EXPECT_EQ(exit_status(untrusted.wait(0ms)), 5) << out;
  EXPECT_TRUE(contains(out, "is unavailable: robots.txt: tls: ")) << out;
  EXPECT_FALSE(contains(out, "gave up after")) << "a certificate does not pass with retries";
  EXPECT_TRUE(contains(out, "--cacert FILE")) << out;
  EXPECT_TRUE(contains(out, "--insecure")) << out;

  Process with_ca =
      run_crawl(work.path(), {start, "--state", "a.db", "--cacert", ca.cert.string()});
  EXPECT_EQ(exit_status(with_ca.wait(0ms)), 0) << with_ca.output();
  EXPECT_TRUE(contains(with_ca.output(), "status: 200×1")) << with_ca.output();
  Process insecure = run_crawl(work.path(), {start, "--state", "b.db", "-k"});
  EXPECT_EQ(exit_status(insecure.wait(0ms)), 0) << insecure.output();
  EXPECT_TRUE(contains(insecure.output(), "status: 200×1")) << insecure.output();
}

TEST(CrawlFailure, AnInterruptedCrawlIsNotDoneAndKeepsItsStatus) {
  TempDir work, site;
  std::string index;
  for (int i = 0; i < 200; ++i) {
    std::string page = std::to_string(i) + ".html";
    index.append("<a href=").append(page).append(">p</a>");
    site.write(page, "p");
  }
  site.write("index.html", index);
  uint16_t port = test::free_port();
  Process nginx = test::start_nginx(site, "", port);
  for (int sig : {SIGINT, SIGTERM}) {
    std::string name = std::to_string(sig);
    std::filesystem::path jsonl = work.path() / (name + ".jsonl");
    Process p =
        Process::start({squall_binary(), "crawl", origin(port) + "/", "--state", name + ".db",
                        "--per-host", "1", "--delay", "0.05", "--jsonl", jsonl.string()},
                       work.path());
    // Once a JSON line is out, the crawl is past its start-up and handles the signal.
    while (p.running() && test::read_file(jsonl).find('\n') == std::string::npos)
      std::this_thread::sleep_for(5ms);
    ASSERT_TRUE(p.running()) << p.output();
    kill(p.pid(), sig);
    EXPECT_EQ(exit_status(p.wait(30s)), 128 + sig) << p.output();
    EXPECT_TRUE(p.output().starts_with("Stopped after ")) << p.output();
    EXPECT_TRUE(contains(p.output(), sig == SIGINT ? "(Ctrl-C)" : "(SIGTERM)")) << p.output();
    EXPECT_FALSE(contains(p.output(), "Done in")) << p.output();
    EXPECT_TRUE(contains(p.output(), "run the same command again to resume")) << p.output();
  }
}

}  // namespace
}  // namespace squall
