// `squall crawl` flags as users type them: a start page crawls its directory (wget -np), and
// limits that cannot mean anything are refused with what to give instead.
#include <gtest/gtest.h>

#include <set>

#include "support/process.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using test::exit_status;
using test::Process;
using test::squall_binary;
using test::TempDir;
using namespace std::chrono_literals;

TEST(CrawlScope, AStartPageCrawlsItsDirectoryAsWgetNoParent) {
  TempDir site, work;
  site.write("library/index.html",
             "<a href=asyncio.html>a</a> <a href=sub/deep.html>d</a> <a href=../top.html>t</a> "
             "<a href=/library-other/x.html>x</a>");
  site.write("library/asyncio.html", "<a href=index.html?q=1>back</a>");
  site.write("library/sub/deep.html", "deep");
  site.write("top.html", "top");
  site.write("library-other/x.html", "x");
  uint16_t port = test::free_port();
  Process nginx = test::start_nginx(site, "", port);
  std::string origin = "http://127.0.0.1:" + std::to_string(port);
  Process crawl = Process::start(
      {squall_binary(), "crawl", origin + "/library/index.html", "--jsonl", "pages.jsonl"},
      work.path());
  ASSERT_EQ(exit_status(crawl.wait(60s)), 0) << crawl.output();
  auto urls = test::jsonl_urls(work.path() / "pages.jsonl");
  EXPECT_EQ(std::set<std::string>(urls.begin(), urls.end()),
            (std::set<std::string>{origin + "/library/index.html", origin + "/library/asyncio.html",
                                   origin + "/library/sub/deep.html",
                                   origin + "/library/index.html?q=1"}));

  Process help = Process::start({squall_binary(), "crawl", "--help"});
  EXPECT_EQ(exit_status(help.wait(30s)), 0);
  EXPECT_NE(help.output().find("beneath the start URL's directory"), std::string::npos)
      << help.output();
  EXPECT_NE(help.output().find("wget -np"), std::string::npos) << help.output();
}

TEST(CrawlScope, LimitsThatMeanNothingAreRefused) {
  TempDir work;
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  for (const Case& c : {Case{{"--max-depth", "-1"}, "--max-depth must be 0 or more"},
                        Case{{"--timeout", "0"}, "--timeout must be a positive number of seconds"},
                        Case{{"--timeout-per-fetch", "0"},
                             "--timeout-per-fetch must be a positive number of seconds"},
                        Case{{"-H", "no colon"}, "bad header 'no colon'"},
                        Case{{"-x", "socks5://127.0.0.1:1080"}, "only http:// proxies"},
                        Case{{"--cacert", "missing.pem"}, "cannot read the --cacert file"}}) {
    std::vector<std::string> argv = {squall_binary(), "crawl", "http://127.0.0.1:9/"};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    Process crawl = Process::start(argv, work.path());
    EXPECT_EQ(exit_status(crawl.wait(30s)), 2) << c.flags[0] << ": " << crawl.output();
    EXPECT_NE(crawl.output().find(c.message), std::string::npos) << crawl.output();
  }
  EXPECT_FALSE(std::filesystem::exists(work.path() / "crawl.db")) << "refused before it starts";
}

}  // namespace
}  // namespace squall
