// Tests for route matching: literal paths, segment patterns, regexes, and their order.
#include "squall/http/router.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"

namespace squall::http {
namespace {

TEST(Router, MatchesLiteralPathsExactly) {
  Router r;
  size_t a = r.add("/api/noblock");
  size_t b = r.add("/");
  EXPECT_EQ(r.match("/api/noblock")->route, a);
  EXPECT_EQ(r.match("/")->route, b);
  EXPECT_FALSE(r.match("/api/noblock/"));
  EXPECT_FALSE(r.match("/api"));
  EXPECT_FALSE(r.match("/API/noblock"));
}

TEST(Router, CapturesNamedSegmentsAndDecodesThem) {
  Router r;
  size_t user = r.add("/users/{id}");
  size_t post = r.add("/users/{id}/posts/{post}");
  auto m = r.match("/users/42");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->route, user);
  EXPECT_EQ(m->params.get("id"), "42");
  m = r.match("/users/ada%20l%2Fx/posts/first+post");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->route, post);
  EXPECT_EQ(m->params.get("id"), "ada l/x");
  EXPECT_EQ(m->params.get("post"), "first+post");
  EXPECT_EQ(m->params[1], "first+post");
}

TEST(Router, ASegmentParameterNeverMatchesEmptyOrSeveralSegments) {
  Router r;
  r.add("/users/{id}");
  EXPECT_FALSE(r.match("/users/"));
  EXPECT_FALSE(r.match("/users"));
  EXPECT_FALSE(r.match("/users/1/2"));
}

TEST(Router, ARestParameterTakesTheRemainderSlashesIncluded) {
  Router r;
  size_t files = r.add("/static/{path*}");
  auto m = r.match("/static/css/site%20main.css");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->route, files);
  EXPECT_EQ(m->params.get("path"), "css/site main.css");
  EXPECT_EQ(r.match("/static/")->params.get("path"), "");
  EXPECT_FALSE(r.match("/static"));
  EXPECT_FALSE(r.match("/staticx/a"));
}

TEST(Router, MatchesRegexesAgainstTheWholePathWithPositionalGroups) {
  Router r;
  size_t post = r.add_regex(R"(/posts/(\d+)-([a-z-]+))");
  auto m = r.match("/posts/12-hello-world");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->route, post);
  ASSERT_EQ(m->params.size(), 2u);
  EXPECT_EQ(m->params[0], "12");
  EXPECT_EQ(m->params[1], "hello-world");
  EXPECT_FALSE(r.match("/posts/12-hello-world/extra"));
  EXPECT_FALSE(r.match("/x/posts/12-a"));
}

TEST(Router, PrefersLiteralsThenSegmentPatternsThenRegexes) {
  Router r;
  size_t any = r.add_regex("/users/.*");
  size_t pattern = r.add("/users/{id}");
  size_t literal = r.add("/users/me");
  EXPECT_EQ(r.match("/users/me")->route, literal);
  EXPECT_EQ(r.match("/users/7")->route, pattern);
  EXPECT_EQ(r.match("/users/7/x")->route, any);
}

TEST(Router, TriesPatternsInTheOrderTheyWereAdded) {
  Router r;
  size_t first = r.add("/{a}/x");
  r.add("/{b}/{c}");
  EXPECT_EQ(r.match("/1/x")->route, first);
  EXPECT_EQ(r.match("/1/y")->params.get("c"), "y");
}

TEST(Router, ReturnsTheSameRouteForTheSamePattern) {
  Router r;
  EXPECT_EQ(r.add("/a"), r.add("/a"));
  EXPECT_EQ(r.add("/u/{id}"), r.add("/u/{id}"));
  EXPECT_EQ(r.add_regex("/r.*"), r.add_regex("/r.*"));
  EXPECT_EQ(r.size(), 3u);
  EXPECT_EQ(r.pattern(1), "/u/{id}");
}

TEST(Router, RefusesMalformedPatterns) {
  Router r;
  for (std::string_view bad : {"", "users", "/u/{}", "/u/{id", "/u/id}", "/u/x{id}", "/u/{id}x",
                               "/{rest*}/x", "/{a}/{a}", "/{*}"}) {
    EXPECT_THROW(r.add(bad), InvalidArgumentError) << bad;
  }
  EXPECT_THROW(r.add_regex("/(unclosed"), InvalidArgumentError);
  EXPECT_EQ(r.size(), 0u);
}

}  // namespace
}  // namespace squall::http
