// CookieJar: which cookies are kept from Set-Cookie and sent back, and Netscape cookie files read
// and written as curl does.
#include "squall/http/cookie_jar.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"
#include "support/parsed_url.h"
#include "support/process.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;

using test::url;

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

// What the jar sends to each URL: {URL, Cookie value} pairs.
void expect_sent(const CookieJar& jar,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> sent) {
  for (auto [to, cookie] : sent) EXPECT_EQ(jar.header_for(url(to)), cookie) << to;
}

TEST(CookieJar, AHostOnlyCookieGoesBackToItsHostAndPathOnly) {
  CookieJar jar;
  jar.store(url("http://www.example.com/docs/page"), "sid=1");
  expect_sent(jar, {{"http://www.example.com/docs/other", "sid=1"},
                    {"http://www.example.com/docs", "sid=1"},
                    {"http://www.example.com/", ""},
                    {"http://www.example.com/docsx", ""},
                    {"http://sub.www.example.com/docs/", ""}});
}

TEST(CookieJar, ADomainCookieGoesToTheNamesBeneathAndAnotherSitesIsIgnored) {
  CookieJar jar;
  jar.store(url("http://www.example.com/"), "a=1; Domain=.example.com; Path=/");
  jar.store(url("http://www.example.com/"), "b=2; Domain=other.org");
  expect_sent(jar, {{"http://api.example.com/x", "a=1"},
                    {"http://example.com/", "a=1"},
                    {"http://other.org/", ""}});
  EXPECT_EQ(jar.cookies().size(), 1u);
}

TEST(CookieJar, SecureCookiesGoOnlyOverHttpsAndLongerPathsComeFirst) {
  CookieJar jar;
  jar.store(url("https://example.com/"), "s=1; Secure; Path=/");
  jar.store(url("https://example.com/"), "deep=2; Path=/a/b");
  EXPECT_EQ(jar.header_for(url("https://example.com/a/b/c")), "deep=2; s=1");
  EXPECT_EQ(jar.header_for(url("http://example.com/a/b/c")), "deep=2");
}

TEST(CookieJar, ANewValueReplacesTheOldAndAnExpiredOneRemovesIt) {
  CookieJar jar;
  Url u = url("http://example.com/");
  jar.store(u, "a=1");
  jar.store(u, "a=2");
  EXPECT_EQ(jar.header_for(u), "a=2");
  jar.store(u, "a=; Max-Age=0");
  EXPECT_EQ(jar.header_for(u), "");
  jar.store(u, "b=1; Expires=Thu, 01-Jan-1970 00:00:01 GMT");
  EXPECT_TRUE(jar.cookies().empty());
}

TEST(CookieJar, TheNetscapeFileRoundTripsAsCurlWritesIt) {
  CookieJar jar;
  jar.store(url("http://127.0.0.1:8080/login"), "sid=abc; HttpOnly");
  jar.store(url("https://www.example.com/"), "pref=x; Domain=example.com; Secure; Max-Age=3600");
  std::string text = jar.to_netscape();
  EXPECT_TRUE(text.starts_with("# Netscape HTTP Cookie File\n")) << text;
  EXPECT_NE(text.find("\n#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\n.example.com\tTRUE\t/\tTRUE\t"), std::string::npos) << text;
  CookieJar again =
      CookieJar::parse(text + "# a comment\nexpired.org\tFALSE\t/\tFALSE\t1\tx\ty\n", "jar.txt");
  EXPECT_EQ(again.to_netscape(), text);
  EXPECT_EQ(again.header_for(url("https://www.example.com/")), "pref=x");
}

TEST(CookieJar, WhatBrowsersTakeIsKeptAndWhatTheFileCannotHoldIsNot) {
  CookieJar jar;
  Url u = url("http://example.com/");
  jar.store(u, "prefs={\"a\":1,\"b\":2}");  // not RFC 6265 cookie-octets, taken by browsers
  jar.store(u, "spaced=a b");
  jar.store(u, "tab=a\tb");
  jar.store(u, "=nameless");
  EXPECT_EQ(jar.header_for(u), "prefs={\"a\":1,\"b\":2}; spaced=a b");
  EXPECT_EQ(CookieJar::parse(jar.to_netscape(), "jar.txt").header_for(u), jar.header_for(u));
}

}  // namespace
}  // namespace squall::http
