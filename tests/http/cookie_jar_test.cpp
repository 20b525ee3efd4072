// CookieJar: which cookies are kept from Set-Cookie and sent back, and the Netscape file.
#include "squall/http/cookie_jar.h"

#include <gtest/gtest.h>

namespace squall::http {
namespace {

Url url(std::string_view text) {
  auto parsed = Url::parse(text);
  EXPECT_TRUE(parsed) << text;
  return *parsed;
}

TEST(CookieJar, AHostOnlyCookieGoesBackToItsHostAndPathOnly) {
  CookieJar jar;
  jar.store(url("http://www.example.com/docs/page"), "sid=1");
  EXPECT_EQ(jar.header_for(url("http://www.example.com/docs/other")), "sid=1");
  EXPECT_EQ(jar.header_for(url("http://www.example.com/docs")), "sid=1");
  EXPECT_EQ(jar.header_for(url("http://www.example.com/")), "");
  EXPECT_EQ(jar.header_for(url("http://www.example.com/docsx")), "");
  EXPECT_EQ(jar.header_for(url("http://sub.www.example.com/docs/")), "");
}

TEST(CookieJar, ADomainCookieGoesToTheNamesBeneathAndAnotherSitesIsIgnored) {
  CookieJar jar;
  jar.store(url("http://www.example.com/"), "a=1; Domain=.example.com; Path=/");
  jar.store(url("http://www.example.com/"), "b=2; Domain=other.org");
  EXPECT_EQ(jar.header_for(url("http://api.example.com/x")), "a=1");
  EXPECT_EQ(jar.header_for(url("http://example.com/")), "a=1");
  EXPECT_EQ(jar.header_for(url("http://other.org/")), "");
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
  CookieJar again;
  again.load_netscape(text +
                      "malformed line\n# a comment\nexpired.org\tFALSE\t/\tFALSE\t1\tx\ty\n");
  EXPECT_EQ(again.to_netscape(), text);
  EXPECT_EQ(again.header_for(url("https://www.example.com/")), "pref=x");
}

}  // namespace
}  // namespace squall::http
