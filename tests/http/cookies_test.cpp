// Tests for Cookie parsing and Set-Cookie building.
#include "squall/http/cookies.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"
#include "squall/http/message.h"

namespace squall::http {
namespace {

using Pairs = std::vector<std::pair<std::string_view, std::string_view>>;

TEST(ParseCookies, SplitsPairsAndTrimsWhitespace) {
  EXPECT_EQ(parse_cookies("sid=abc; theme=dark;lang=en"),
            (Pairs{{"sid", "abc"}, {"theme", "dark"}, {"lang", "en"}}));
  EXPECT_EQ(parse_cookies("  a = 1 ;\tb=2  "), (Pairs{{"a", "1"}, {"b", "2"}}));
}

TEST(ParseCookies, UnquotesQuotedValuesAndKeepsEqualsInValues) {
  EXPECT_EQ(parse_cookies("q=\"hello\"; token=a=b=="), (Pairs{{"q", "hello"}, {"token", "a=b=="}}));
}

TEST(ParseCookies, SkipsPiecesWithoutNameOrEquals) {
  EXPECT_EQ(parse_cookies("junk; =nameless; ok=1;;"), (Pairs{{"ok", "1"}}));
  EXPECT_TRUE(parse_cookies("").empty());
}

TEST(ParseCookies, KeepsRepeatedNamesInOrder) {
  EXPECT_EQ(parse_cookies("id=specific; id=general"),
            (Pairs{{"id", "specific"}, {"id", "general"}}));
}

TEST(FormatSetCookie, WritesEveryAttribute) {
  CookieOptions options;
  options.path = "/app";
  options.domain = "example.com";
  options.max_age = std::chrono::seconds(3600);
  options.expires = std::chrono::system_clock::time_point(std::chrono::seconds(784111777));
  options.secure = true;
  options.http_only = true;
  options.same_site = SameSite::Strict;
  EXPECT_EQ(format_set_cookie("sid", "abc123", options),
            "sid=abc123; Path=/app; Domain=example.com; Max-Age=3600; "
            "Expires=Sun, 06 Nov 1994 08:49:37 GMT; Secure; HttpOnly; SameSite=Strict");
  EXPECT_EQ(format_set_cookie("a", "1"), "a=1; Path=/");
}

TEST(FormatSetCookie, TheResultIsAlwaysAValidHeaderValue) {
  EXPECT_TRUE(is_field_value(format_set_cookie("n", "\"quoted\"", {.http_only = true})));
}

void expect_refused(std::string_view name, std::string_view value, const CookieOptions& o = {}) {
  try {
    (void)format_set_cookie(name, value, o);
    ADD_FAILURE() << "accepted " << name << "=" << value;
  } catch (const InvalidArgumentError& e) {
    EXPECT_EQ(std::string_view(e.what()).find('\n'), std::string_view::npos);
  }
}

TEST(FormatSetCookie, RefusesAnythingThatCouldInjectAHeaderOrAttribute) {
  expect_refused("sid", "abc\r\nSet-Cookie: admin=1");
  expect_refused("sid", "a;Domain=evil.com");
  expect_refused("sid", "has space");
  expect_refused("sid", "comma,");
  expect_refused("sid", "back\\slash");
  expect_refused("sid", std::string_view("nul\0", 4));
  expect_refused("bad name", "v");
  expect_refused("", "v");
  expect_refused("n=", "v");
  expect_refused("sid", "v", {.path = "/x\r\nX-Evil: 1"});
  expect_refused("sid", "v", {.path = "/x; Secure"});
  expect_refused("sid", "v", {.domain = "a.com;b"});
  expect_refused("sid", "v", {.same_site = SameSite::None});
  EXPECT_NO_THROW(
      (void)format_set_cookie("sid", "v", {.secure = true, .same_site = SameSite::None}));
}

}  // namespace
}  // namespace squall::http
