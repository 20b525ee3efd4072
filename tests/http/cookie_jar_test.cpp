// CookieJar: Netscape cookie files read as curl writes them, and which cookies go to a URL.
#include "squall/http/cookie_jar.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"
#include "support/process.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;

Url url(std::string_view text) {
  UrlResult u = Url::parse(text);
  EXPECT_TRUE(u) << text;
  return *std::move(u);
}

const auto kNow = std::chrono::system_clock::time_point(std::chrono::seconds(2'000'000'000));

TEST(CookieJar, ReadsACurlCookieFileAndSendsWhatMatches) {
  CookieJar jar = CookieJar::parse(
      "# Netscape HTTP Cookie File\r\n"
      "\n"
      ".example.com\tTRUE\t/\tFALSE\t0\tsite\t1\r\n"
      "www.example.com\tFALSE\t/docs\tFALSE\t2100000000\tdocs\t2\n"
      "#HttpOnly_www.example.com\tFALSE\t/\tTRUE\t0\tsecure\t3\n"
      "www.example.com\tFALSE\t/\tFALSE\t1000\told\t4\n"
      "www.example.com\tFALSE\t/\tFALSE\t0\tempty\n",
      "cookies.txt");
  EXPECT_EQ(jar.cookies().size(), 5u);
  EXPECT_EQ(jar.header_for(url("http://www.example.com/docs/a"), kNow), "docs=2; site=1; empty=")
      << "longer paths first; expired and secure left out";
  EXPECT_EQ(jar.header_for(url("https://www.example.com/"), kNow), "site=1; secure=3; empty=");
  EXPECT_EQ(jar.header_for(url("http://www.example.com/docsx"), kNow), "site=1; empty=")
      << "a path matches at a '/'";
  EXPECT_EQ(jar.header_for(url("http://example.com/"), kNow), "site=1");
  EXPECT_EQ(jar.header_for(url("http://a.www.example.com/"), kNow), "site=1")
      << "subdomains only where the file says TRUE";
  EXPECT_EQ(jar.header_for(url("http://other.test/"), kNow), "");
}

TEST(CookieJar, ALineThatIsNotACookieIsAnErrorNamingFileAndLine) {
  try {
    CookieJar::parse("# c\nexample.com\tFALSE\t/\tFALSE\t0\tname\n\nbroken line\n", "jar.txt");
    FAIL() << "expected an error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("cookie file 'jar.txt' line 4"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(CookieJar::load("/nonexistent/cookies.txt"), InvalidArgumentError);
  test::TempDir dir;
  auto path = dir.write("c.txt", "example.com\tFALSE\t/\tFALSE\t0\ta\tb\n");
  EXPECT_EQ(CookieJar::load(path).header_for(url("http://example.com/x"), kNow), "a=b");
}

}  // namespace
}  // namespace squall::http
