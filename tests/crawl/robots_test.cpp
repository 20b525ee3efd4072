// Tests for robots.txt: RFC 9309's examples and rules, Google's documented edge cases, hostile
// input.
#include "squall/crawl/robots.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "support/bytes.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using namespace std::string_literals;

// Parses from an exactly sized copy, so ASan catches any read past the end of the body.
RobotsTxt parse(std::string_view body) {
  const test::ExactBytes bytes(body);
  return RobotsTxt::parse(bytes.view());
}

bool allowed(std::string_view body, std::string_view agent, std::string_view path) {
  const RobotsRules rules = parse(body).rules_for(agent);
  const test::ExactBytes exact_path(path);
  return rules.allowed(exact_path.view());
}

// RFC 9309 section 5.1.
constexpr std::string_view kRfcExample =
    "User-Agent: *\n"
    "Disallow: *.gif$\n"
    "Disallow: /example/\n"
    "Allow: /publications/\n"
    "\n"
    "User-Agent: foobot\n"
    "Disallow:/\n"
    "Allow:/example/page.html\n"
    "Allow:/example/allowed.gif\n"
    "\n"
    "User-Agent: barbot\n"
    "User-Agent: bazbot\n"
    "Disallow: /example/page.html\n"
    "\n"
    "User-Agent: quxbot\n"
    "\n"
    "EOF\n";

TEST(RobotsRfcExample, AnUnnamedCrawlerFollowsTheStarGroup) {
  EXPECT_FALSE(allowed(kRfcExample, "otherbot", "/example/"));
  EXPECT_FALSE(allowed(kRfcExample, "otherbot", "/example/page.html"));
  EXPECT_FALSE(allowed(kRfcExample, "otherbot", "/images/a.gif"));
  EXPECT_TRUE(allowed(kRfcExample, "otherbot", "/images/a.gifs"));
  EXPECT_TRUE(allowed(kRfcExample, "otherbot", "/publications/x"));
  EXPECT_TRUE(allowed(kRfcExample, "otherbot", "/"));
}

TEST(RobotsRfcExample, FoobotMayFetchOnlyItsTwoAllowedPages) {
  EXPECT_FALSE(allowed(kRfcExample, "foobot", "/"));
  EXPECT_FALSE(allowed(kRfcExample, "foobot", "/publications/"));
  EXPECT_TRUE(allowed(kRfcExample, "foobot", "/example/page.html"));
  EXPECT_TRUE(allowed(kRfcExample, "foobot", "/example/allowed.gif"));
  EXPECT_FALSE(allowed(kRfcExample, "foobot", "/example/other.gif"));
}

TEST(RobotsRfcExample, ConsecutiveUserAgentLinesShareOneGroup) {
  for (std::string_view agent : {"barbot", "bazbot"}) {
    EXPECT_FALSE(allowed(kRfcExample, agent, "/example/page.html")) << agent;
    EXPECT_TRUE(allowed(kRfcExample, agent, "/example/other.html")) << agent;
    EXPECT_TRUE(allowed(kRfcExample, agent, "/a.gif")) << agent;  // not the * group's rules
  }
}

TEST(RobotsRfcExample, AGroupWithoutRulesAllowsEverythingAndHidesTheStarGroup) {
  EXPECT_TRUE(allowed(kRfcExample, "quxbot", "/example/"));
  EXPECT_TRUE(allowed(kRfcExample, "quxbot", "/a.gif"));
}

TEST(RobotsRfcExample, TheSpecialCharacterExamplesHold) {
  // RFC 9309 section 2.2.3, as disallow rules.
  constexpr std::string_view body =
      "# This is a comment\n"
      "user-agent: *\n"
      "disallow: /this/path/exactly$ # comment in line\n"
      "disallow: /this/*/exactly\n";
  EXPECT_FALSE(allowed(body, "x", "/this/path/exactly"));
  EXPECT_TRUE(allowed(body, "x", "/this/path/exact"));
  EXPECT_FALSE(allowed(body, "x", "/this/a/b/exactly"));
  EXPECT_FALSE(allowed(body, "x", "/this/a/exactly/and/more"));
  EXPECT_TRUE(allowed(body, "x", "/this/exactly"));
}

TEST(RobotsRfcExample, TheLongestMatchWins) {
  constexpr std::string_view body =
      "User-Agent: foobot\n"
      "Allow: /example/page/\n"
      "Disallow: /example/page/disallowed.gif\n";
  EXPECT_TRUE(allowed(body, "foobot", "/example/page/"));
  EXPECT_TRUE(allowed(body, "foobot", "/example/page/allowed.gif"));
  EXPECT_FALSE(allowed(body, "foobot", "/example/page/disallowed.gif"));
}

TEST(RobotsGroups, GroupsNamingTheSameAgentAreMerged) {
  constexpr std::string_view body =
      "user-agent: ExampleBot\n"
      "disallow: /foo\n"
      "disallow: /bar\n"
      "\n"
      "user-agent: OtherBot\n"
      "disallow: /other\n"
      "\n"
      "user-agent: ExampleBot\n"
      "disallow: /baz\n";
  for (std::string_view path : {"/foo", "/bar", "/baz"})
    EXPECT_FALSE(allowed(body, "ExampleBot", path)) << path;
  EXPECT_TRUE(allowed(body, "ExampleBot", "/other"));
  EXPECT_EQ(parse(body).rules_for("ExampleBot").rules().size(), 3u);
}

TEST(RobotsGroups, StarGroupsAreMergedToo) {
  constexpr std::string_view body =
      "User-agent: *\nDisallow: /a\n\nUser-agent: x\nDisallow: /x\n\nUser-agent: *\nDisallow: /b\n";
  EXPECT_FALSE(allowed(body, "somebot", "/a"));
  EXPECT_FALSE(allowed(body, "somebot", "/b"));
  EXPECT_TRUE(allowed(body, "somebot", "/x"));
}

TEST(RobotsGroups, AgentNamesMatchCaseInsensitively) {
  constexpr std::string_view body = "User-agent: ExampleBot\nDisallow: /\n";
  EXPECT_FALSE(allowed(body, "examplebot", "/a"));
  EXPECT_FALSE(allowed(body, "EXAMPLEBOT", "/a"));
  EXPECT_TRUE(allowed(body, "otherbot", "/a"));
}

TEST(RobotsGroups, TheCrawlersProductTokenIsTakenFromItsFullUserAgent) {
  constexpr std::string_view body = "User-agent: squall\nDisallow: /\n";
  EXPECT_FALSE(allowed(body, "squall/0.1 (+https://example.com/bot)", "/a"));
  EXPECT_FALSE(allowed(body, "  Squall", "/a"));
  EXPECT_TRUE(allowed(body, "squallbot/1.0", "/a"));
}

TEST(RobotsGroups, AUserAgentLineMatchesByItsLeadingProductToken) {
  constexpr std::string_view body = "User-agent: Googlebot/2.1 (extra words)\nDisallow: /\n";
  EXPECT_FALSE(allowed(body, "googlebot", "/a"));
}

TEST(RobotsGroups, ALongerTokenIsADifferentAgent) {
  constexpr std::string_view body =
      "User-agent: Googlebot-News\nDisallow: /news\n\nUser-agent: *\nDisallow: /star\n";
  EXPECT_TRUE(allowed(body, "Googlebot", "/news"));
  EXPECT_FALSE(allowed(body, "Googlebot", "/star"));
  EXPECT_FALSE(allowed(body, "Googlebot-News", "/news"));
  EXPECT_TRUE(allowed(body, "Googlebot-News", "/star"));
}

TEST(RobotsGroups, ASpecificGroupReplacesTheStarGroupEntirely) {
  constexpr std::string_view body =
      "User-agent: *\nDisallow: /private\n\nUser-agent: squall\nDisallow: /tmp\n";
  EXPECT_TRUE(allowed(body, "squall", "/private"));
  EXPECT_FALSE(allowed(body, "squall", "/tmp"));
}

TEST(RobotsGroups, WithoutAMatchingOrStarGroupEverythingIsAllowed) {
  EXPECT_TRUE(allowed("User-agent: other\nDisallow: /\n", "squall", "/a"));
}

TEST(RobotsGroups, RulesBeforeTheFirstUserAgentBelongToNoGroup) {
  constexpr std::string_view body = "Disallow: /\nAllow: /x\n\nUser-agent: *\nDisallow: /a\n";
  EXPECT_TRUE(allowed(body, "squall", "/b"));
  EXPECT_FALSE(allowed(body, "squall", "/a"));
  EXPECT_EQ(parse(body).rules_for("squall").rules().size(), 1u);
}

TEST(RobotsGroups, AUserAgentAfterARuleStartsANewGroup) {
  constexpr std::string_view body = "User-agent: a\nDisallow: /a\nUser-agent: b\nDisallow: /b\n";
  EXPECT_TRUE(allowed(body, "a", "/b"));
  EXPECT_TRUE(allowed(body, "b", "/a"));
  EXPECT_EQ(parse(body).groups().size(), 2u);
}

TEST(RobotsGroups, SitemapAndUnknownLinesDoNotEndARunOfUserAgents) {
  constexpr std::string_view body =
      "User-agent: a\nSitemap: https://example.com/s.xml\nHost: example.com\nUser-agent: b\n"
      "Disallow: /x\n";
  EXPECT_FALSE(allowed(body, "a", "/x"));
  EXPECT_FALSE(allowed(body, "b", "/x"));
  EXPECT_EQ(parse(body).groups().size(), 1u);
}

TEST(RobotsGroups, AStarFollowedByACommentIsTheStarGroup) {
  EXPECT_FALSE(allowed("User-agent: * # everyone\nDisallow: /\n", "squall", "/a"));
  EXPECT_TRUE(allowed("User-agent: *bot\nDisallow: /\n", "squall", "/a"));
}

TEST(RobotsRules, AnEmptyDisallowAllowsEverything) {
  constexpr std::string_view body = "User-agent: *\nDisallow:\n";
  EXPECT_TRUE(allowed(body, "squall", "/"));
  EXPECT_TRUE(allowed(body, "squall", "/anything"));
  EXPECT_TRUE(parse(body).rules_for("squall").rules().empty());
}

TEST(RobotsRules, RobotsTxtItselfIsAlwaysAllowed) {
  constexpr std::string_view body = "User-agent: *\nDisallow: /\nDisallow: /robots.txt\n";
  EXPECT_TRUE(allowed(body, "squall", "/robots.txt"));
  EXPECT_TRUE(allowed(body, "squall", "/robots%2Etxt"));
  EXPECT_FALSE(allowed(body, "squall", "/robots.txt.bak"));
  EXPECT_TRUE(RobotsRules::disallow_all().allowed("/robots.txt"));
}

TEST(RobotsRules, PathsAreCaseSensitive) {
  constexpr std::string_view body = "User-agent: *\nDisallow: /fish\n";
  EXPECT_FALSE(allowed(body, "squall", "/fish.html"));
  EXPECT_TRUE(allowed(body, "squall", "/Fish.asp"));
}

// The path-matching table of Google's robots.txt documentation, written out as cases.
struct PathCase {
  std::string_view pattern;
  std::string_view path;
  bool matches;
};

TEST(RobotsRules, PatternsMatchAsGooglesDocumentationDescribes) {
  const PathCase cases[] = {
      {"/", "/", true},
      {"/", "/any/thing", true},
      {"/*", "/", true},
      {"/*", "/any", true},
      {"/$", "/", true},
      {"/$", "/index.html", false},
      {"/fish", "/fish", true},
      {"/fish", "/fish.html", true},
      {"/fish", "/fish/salmon.html", true},
      {"/fish", "/fishheads", true},
      {"/fish", "/fishheads/yummy.html", true},
      {"/fish", "/fish.php?id=anything", true},
      {"/fish", "/Fish.asp", false},
      {"/fish", "/catfish", false},
      {"/fish", "/?id=fish", false},
      {"/fish", "/desert/fish", false},
      {"/fish*", "/fish", true},
      {"/fish*", "/fishheads/yummy.html", true},
      {"/fish*", "/catfish", false},
      {"/fish/", "/fish/", true},
      {"/fish/", "/fish/?id=anything", true},
      {"/fish/", "/fish/salmon.htm", true},
      {"/fish/", "/fish", false},
      {"/fish/", "/fish.html", false},
      {"/fish/", "/animals/fish/", false},
      {"/fish/", "/Fish/Salmon.asp", false},
      {"/*.php", "/index.php", true},
      {"/*.php", "/filename.php", true},
      {"/*.php", "/folder/filename.php", true},
      {"/*.php", "/folder/filename.php?parameters", true},
      {"/*.php", "/folder/any.php.file.html", true},
      {"/*.php", "/filename.php/", true},
      {"/*.php", "/", false},
      {"/*.php", "/windows.PHP", false},
      {"/*.php$", "/filename.php", true},
      {"/*.php$", "/folder/filename.php", true},
      {"/*.php$", "/filename.php?parameters", false},
      {"/*.php$", "/filename.php/", false},
      {"/*.php$", "/filename.php5", false},
      {"/*.php$", "/windows.PHP", false},
      {"/fish*.php", "/fish.php", true},
      {"/fish*.php", "/fishheads/catfish.php?parameters", true},
      {"/fish*.php", "/Fish.PHP", false},
      {"*", "/anything", true},
      {"*.gif$", "/a/b.gif", true},
      {"*.gif$", "/a/b.gif?x", false},
      {"/a*b*c$", "/abc", true},
      {"/a*b*c$", "/a-b-b-c", true},
      {"/a*b*c$", "/a-c-b", false},
      {"/a*bc$", "/abcbc", true},
      {"/a**b", "/ab", true},
      {"/a*$", "/a/anything", true},
      {"/*?", "/page?q=1", true},
      {"/*?", "/page", false},
      {"/a$b", "/a$b", true},
      {"/a$b", "/a", false},
      {"fish", "/fish", false},
  };
  for (const PathCase& c : cases) {
    const std::string body = "User-agent: *\nDisallow: " + std::string(c.pattern) + "\n";
    EXPECT_EQ(!allowed(body, "squall", c.path), c.matches)
        << "pattern " << c.pattern << " path " << c.path;
  }
}

// An independent matcher for canonical patterns and paths: `*` by backtracking, final `$`.
bool reference_matches(std::string_view pattern, std::string_view path, bool anchored) {
  if (pattern.empty()) return !anchored || path.empty();
  if (pattern.front() == '*') {
    for (size_t skip = 0; skip <= path.size(); ++skip)
      if (reference_matches(pattern.substr(1), path.substr(skip), anchored)) return true;
    return false;
  }
  return !path.empty() && path.front() == pattern.front() &&
         reference_matches(pattern.substr(1), path.substr(1), anchored);
}

TEST(RobotsRules, IndexedMatchingAgreesWithTryingEveryRuleInPrecedenceOrder) {
  std::mt19937 rng(2024);
  const std::vector<std::string> pattern_parts = {"/",   "a",   "b", "ab",        "*",
                                                  "%41", "%2A", "?", "abcdefghij"};
  const std::vector<std::string> path_parts = {"/", "a", "b",   "A",         "*",
                                               "$", "?", "%2a", "abcdefghij"};
  const auto random_string = [&](const std::vector<std::string>& parts, size_t max_parts) {
    std::string out;
    for (size_t n = rng() % (max_parts + 1); n > 0; --n) out += parts[rng() % parts.size()];
    return out;
  };
  for (int file = 0; file < 200; ++file) {
    std::string body = "User-agent: *\n";
    for (int r = 0; r < 12; ++r) {
      body += rng() % 2 ? "Allow: " : "Disallow: ";
      if (rng() % 4) body += '/';
      body += random_string(pattern_parts, 5);
      if (rng() % 4 == 0) body += '$';
      body += "\n";
    }
    const RobotsRules rules = parse(body).rules_for("x");
    for (int p = 0; p < 50; ++p) {
      std::string path = "/";
      path += random_string(path_parts, 6);
      const std::string canonical = detail::robots_canonical(path, false);
      const RobotsRule* expected = nullptr;
      if (canonical != "/robots.txt") {
        for (const RobotsRule& rule : rules.rules()) {
          std::string_view pattern = rule.pattern;
          const bool anchored = pattern.ends_with('$');
          if (anchored) pattern.remove_suffix(1);
          if (reference_matches(pattern, canonical, anchored)) {
            expected = &rule;
            break;
          }
        }
      }
      const RobotsMatch got = rules.match(path);
      ASSERT_EQ(got.rule, expected) << body << "path " << path;
      EXPECT_EQ(got.allowed, expected == nullptr || expected->kind == RobotsRuleKind::Allow);
    }
  }
}

TEST(RobotsRules, AllowWinsATieWithDisallow) {
  constexpr std::string_view body = "User-agent: *\nDisallow: /folder\nAllow: /folder\n";
  EXPECT_TRUE(allowed(body, "squall", "/folder/page"));
}

TEST(RobotsRules, PrecedenceFollowsPatternLengthAsInGooglesExamples) {
  EXPECT_TRUE(allowed("User-agent: *\nallow: /p\ndisallow: /\n", "squall", "/page"));
  EXPECT_FALSE(allowed("User-agent: *\nallow: /page\ndisallow: /*.html\n", "squall", "/page.html"));
  EXPECT_TRUE(allowed("User-agent: *\nallow: /$\ndisallow: /\n", "squall", "/"));
  EXPECT_FALSE(allowed("User-agent: *\nallow: /$\ndisallow: /\n", "squall", "/page.htm"));
}

TEST(RobotsRules, EquivalentRulesInDifferentEncodingsHaveTheSameLength) {
  // "/%7Efoo" and "/~foo" are the same rule; allow wins the tie.
  constexpr std::string_view body = "User-agent: *\nDisallow: /~foo\nAllow: /%7Efoo\n";
  EXPECT_TRUE(allowed(body, "squall", "/~foo/bar"));
}

TEST(RobotsRules, MatchReportsTheDecidingRuleAndItsLine) {
  const RobotsTxt robots = parse("User-agent: *\nDisallow: /a   # no\nAllow: /a/b\n");
  const RobotsRules rules = robots.rules_for("squall");
  const RobotsMatch denied = rules.match("/a/c");
  ASSERT_NE(denied.rule, nullptr);
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.rule->text, "Disallow: /a");
  EXPECT_EQ(denied.rule->line, 2u);
  const RobotsMatch granted = rules.match("/a/b");
  ASSERT_NE(granted.rule, nullptr);
  EXPECT_TRUE(granted.allowed);
  EXPECT_EQ(granted.rule->line, 3u);
  EXPECT_EQ(rules.match("/z").rule, nullptr);
}

TEST(RobotsRules, AFragmentIsIgnoredAndAnEmptyPathIsTheRoot) {
  constexpr std::string_view body = "User-agent: *\nDisallow: /$\n";
  EXPECT_FALSE(allowed(body, "squall", ""));
  EXPECT_FALSE(allowed(body, "squall", "/#top"));
  EXPECT_TRUE(allowed(body, "squall", "/a#top"));
}

TEST(RobotsEncoding, TheRfcPercentEncodingTableHolds) {
  // RFC 9309 section 2.2.2: each rule matches the URI path beside it.
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /foo/bar?baz=quz\n", "x", "/foo/bar?baz=quz"));
  EXPECT_FALSE(
      allowed("User-agent: *\nDisallow: /foo/bar/\xE3\x83\x84\n", "x", "/foo/bar/%E3%83%84"));
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "x", "/foo/bar/%E3%83%84"));
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "x", "/foo/bar/baz"));
}

TEST(RobotsEncoding, EscapesOfUnreservedCharactersAreDecodedOnBothSides) {
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /baz\n", "x", "/%62%61%7a"));
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /%7efoo\n", "x", "/~foo"));
}

TEST(RobotsEncoding, HexDigitsCompareCaseInsensitively) {
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /a%2fb\n", "x", "/a%2Fb"));
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /%e3%83%84\n", "x", "/%E3%83%84"));
}

TEST(RobotsEncoding, EscapesOfReservedCharactersAreNotDecoded) {
  EXPECT_TRUE(allowed("User-agent: *\nDisallow: /a%2Fb\n", "x", "/a/b"));
  EXPECT_TRUE(allowed("User-agent: *\nDisallow: /a/b\n", "x", "/a%2Fb"));
  EXPECT_TRUE(allowed("User-agent: *\nDisallow: /a?b\n", "x", "/a%3Fb"));
}

TEST(RobotsEncoding, NonAsciiInAPathMatchesItsEscapedForm) {
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /%C3%A9t%C3%A9\n", "x", "/\xC3\xA9t\xC3\xA9"));
}

TEST(RobotsEncoding, EscapedStarAndDollarMatchThemLiterally) {
  // RFC 9309 section 2.2.3.
  constexpr std::string_view body =
      "User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\n";
  EXPECT_FALSE(allowed(body, "x", "/path/file-with-a-*.html"));
  EXPECT_TRUE(allowed(body, "x", "/path/file-with-a-b.html"));
  EXPECT_FALSE(allowed(body, "x", "/path/foo-$"));
  EXPECT_FALSE(allowed(body, "x", "/path/foo-%24"));
  EXPECT_TRUE(allowed(body, "x", "/path/foo-"));
}

TEST(RobotsEncoding, CanonicalFormsAreAsDocumented) {
  EXPECT_EQ(detail::robots_canonical("/%7e%41%2f%zz %", true), "/~A%2F%25zz%20%25");
  EXPECT_EQ(detail::robots_canonical("/a*b$c$", true), "/a*b%24c$");
  EXPECT_EQ(detail::robots_canonical("/a*b$c$", false), "/a%2Ab%24c%24");
  EXPECT_EQ(detail::robots_canonical("/\xFF\x01\"{}", false), "/%FF%01%22%7B%7D");
}

TEST(RobotsEncoding, ALongPathNeedingEscapesStillMatches) {
  std::string path = "/a/";
  for (int i = 0; i < 2000; ++i) path += "\xC3\xA9";
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /a/%C3%A9%C3%A9$\n", "x", "/a/\xC3\xA9\xC3\xA9"));
  EXPECT_FALSE(allowed("User-agent: *\nDisallow: /a/*%C3%A9$\n", "x", path));
  EXPECT_TRUE(allowed("User-agent: *\nDisallow: /a/*%C3%A8\n", "x", path));
}

TEST(RobotsSyntax, AUtf8ByteOrderMarkIsSkipped) {
  EXPECT_FALSE(allowed("\xEF\xBB\xBFUser-agent: *\nDisallow: /a\n", "x", "/a"));
}

TEST(RobotsSyntax, LinesMayEndWithLfCrOrCrlf) {
  for (std::string_view eol : {"\n", "\r", "\r\n"}) {
    std::string body = "User-agent: a";
    body += eol;
    body += "Disallow: /a";
    body += eol;
    body += eol;
    body += "User-agent: *";
    body += eol;
    body += "Disallow: /b";
    EXPECT_FALSE(allowed(body, "a", "/a"));
    EXPECT_TRUE(allowed(body, "a", "/b"));
    EXPECT_FALSE(allowed(body, "x", "/b"));
    EXPECT_EQ(parse(body).rules_for("a").rules().front().line, 2u);
  }
}

TEST(RobotsSyntax, AMissingColonIsTolerated) {
  constexpr std::string_view body = "User-agent squall\nDisallow /private\nAllow /private/ok\n";
  EXPECT_FALSE(allowed(body, "squall", "/private/x"));
  EXPECT_TRUE(allowed(body, "squall", "/private/ok"));
  EXPECT_FALSE(allowed("User-agent: *\nDisallow /a:b\n", "x", "/a:b"));
}

TEST(RobotsSyntax, KeysAreCaseInsensitiveAndCommonMisspellingsAreAccepted) {
  EXPECT_FALSE(allowed("USER-AGENT: *\nDISALLOW: /a\n", "x", "/a"));
  EXPECT_FALSE(allowed("useragent: *\ndissallow: /a\n", "x", "/a"));
  EXPECT_FALSE(allowed("user agent: *\ndisalow: /a\n", "x", "/a"));
}

TEST(RobotsSyntax, CommentsAndWhitespaceAreIgnored) {
  constexpr std::string_view body =
      "# a comment\n"
      "   User-agent :  *   # everyone\n"
      "\t Disallow:\t/a b  # with a space\n"
      "#Disallow: /commented\n";
  EXPECT_FALSE(allowed(body, "x", "/a%20b"));
  EXPECT_FALSE(allowed(body, "x", "/a b"));
  EXPECT_TRUE(allowed(body, "x", "/commented"));
}

TEST(RobotsSyntax, GarbageLinesAreSkippedWithoutEndingAGroup) {
  constexpr std::string_view body =
      "User-agent: *\n"
      "<html><body>oops</body></html>\n"
      "Disallow: /a\n"
      ":::::\n"
      "Disallow /b extra words\n"
      "Noindex: /c\n"
      "Disallow: /d\n";
  EXPECT_FALSE(allowed(body, "x", "/a"));
  EXPECT_FALSE(allowed(body, "x", "/d"));
  EXPECT_TRUE(allowed(body, "x", "/c"));
}

TEST(RobotsSyntax, SitemapsAreKeptFromAnywhereInTheFile) {
  const RobotsTxt robots = parse(
      "Sitemap: https://example.com/a.xml\n"
      "User-agent: *\n"
      "Disallow: /x\n"
      "sitemap:https://example.com/b.xml # second\n"
      "Sitemap:\n");
  ASSERT_EQ(robots.sitemaps().size(), 2u);
  EXPECT_EQ(robots.sitemaps()[0], "https://example.com/a.xml");
  EXPECT_EQ(robots.sitemaps()[1], "https://example.com/b.xml");
}

TEST(RobotsSyntax, CrawlDelayBelongsToItsGroup) {
  const RobotsTxt robots = parse(
      "User-agent: *\nCrawl-delay: 10\nDisallow: /a\n\n"
      "User-agent: slowbot\nCrawl-delay: 2.5\nCrawl-delay: 7\nDisallow: /s\n\n"
      "User-agent: badbot\nCrawl-delay: soon\n");
  EXPECT_EQ(robots.rules_for("x").crawl_delay(), 10s);
  EXPECT_EQ(robots.rules_for("slowbot").crawl_delay(), 2500ms);
  EXPECT_EQ(robots.rules_for("badbot").crawl_delay(), std::nullopt);
  EXPECT_EQ(parse("Crawl-delay: 5\nUser-agent: *\n").rules_for("x").crawl_delay(), std::nullopt);
  EXPECT_EQ(parse("User-agent: *\nCrawl-delay: 1e12\n").rules_for("x").crawl_delay(), 86400s);
  EXPECT_EQ(parse("User-agent: *\nCrawl-delay: -3\n").rules_for("x").crawl_delay(), std::nullopt);
}

TEST(RobotsSyntax, CrawlDelayDoesNotSplitAGroup) {
  constexpr std::string_view body = "User-agent: a\nCrawl-delay: 1\nUser-agent: b\nDisallow: /\n";
  EXPECT_FALSE(allowed(body, "a", "/x"));
  EXPECT_FALSE(allowed(body, "b", "/x"));
  EXPECT_EQ(parse(body).rules_for("b").crawl_delay(), 1s);
}

TEST(RobotsLimits, ContentPastFiveHundredKibibytesIsIgnored) {
  std::string body = "User-agent: *\nDisallow: /early\n";
  while (body.size() < kRobotsParseLimit) body += "# padding padding padding padding\n";
  body += "Disallow: /late\n";
  const RobotsTxt robots = parse(body);
  EXPECT_TRUE(robots.truncated());
  EXPECT_FALSE(robots.rules_for("x").allowed("/early"));
  EXPECT_TRUE(robots.rules_for("x").allowed("/late"));
}

TEST(RobotsLimits, ALineCutByTheLimitIsDropped) {
  std::string body = "User-agent: *\n";
  body += std::string(kRobotsParseLimit - body.size() - 12, '#') + "\n";
  body += "Allow: /a/b/c/d\nDisallow: /\n";  // the limit cuts it to "Allow: /a/b"
  const RobotsTxt robots = parse(body);
  EXPECT_TRUE(robots.truncated());
  EXPECT_TRUE(robots.rules_for("x").rules().empty());
}

TEST(RobotsLimits, AFileOfExactlyTheLimitIsParsedWhole) {
  std::string body = "User-agent: *\nDisallow: /a\n";
  body.insert(0, std::string(kRobotsParseLimit - body.size(), '\n'));
  const RobotsTxt robots = parse(body);
  EXPECT_FALSE(robots.truncated());
  EXPECT_FALSE(robots.rules_for("x").allowed("/a"));
}

TEST(RobotsHostile, AHugeLineIsOneRule) {
  const std::string pattern = "/" + std::string(400 * 1024, 'a');
  const std::string body = "User-agent: *\nDisallow: " + pattern + "\n";
  EXPECT_FALSE(allowed(body, "x", pattern + "b"));
  EXPECT_TRUE(allowed(body, "x", "/aaa"));
}

TEST(RobotsHostile, NulBytesAreOrdinaryOctets) {
  const std::string body = "User-agent: *\nDisallow: /a\0b\n\0\0\0\nDisallow: /c\n"s;
  EXPECT_FALSE(allowed(body, "x", "/a%00b"));
  EXPECT_FALSE(allowed(body, "x", "/a\0b"s));
  EXPECT_FALSE(allowed(body, "x", "/c"));
  EXPECT_TRUE(allowed(body, "x", "/a"));
}

TEST(RobotsHostile, AnEmptyFileOrALoneBomAllowsEverything) {
  for (std::string_view body : {"", "\xEF\xBB\xBF", "\xEF\xBB", "\n\r\n\r", "#"}) {
    const RobotsTxt robots = parse(body);
    EXPECT_TRUE(robots.groups().empty());
    EXPECT_TRUE(robots.rules_for("x").allowed("/a"));
  }
}

TEST(RobotsHostile, AFileOfOnlyUserAgentLinesIsOneGroupWithoutRules) {
  std::string body;
  while (body.size() < 600 * 1024) body += "User-agent: bot\r";
  const RobotsTxt robots = parse(body);
  ASSERT_EQ(robots.groups().size(), 1u);
  EXPECT_TRUE(robots.rules_for("bot").allowed("/a"));
}

TEST(RobotsHostile, OnlyGarbageAllowsEverything) {
  std::string body;
  for (int i = 0; i < 10000; ++i) body += static_cast<char>((i * 7919) % 251 + 1);
  const RobotsTxt robots = parse(body);
  EXPECT_TRUE(robots.rules_for("x").allowed("/anything"));
}

TEST(RobotsHostile, ASixHundredKibibyteFileOfRulesParsesAndMatches) {
  std::string body = "User-agent: *\n";
  for (int i = 0; body.size() < 600 * 1024; ++i)
    body += "Disallow: /dir" + std::to_string(i) + "/\n";
  const RobotsTxt robots = parse(body);
  EXPECT_TRUE(robots.truncated());
  const RobotsRules rules = robots.rules_for("x");
  EXPECT_GT(rules.rules().size(), 20000u);
  EXPECT_FALSE(rules.allowed("/dir0/x"));
  EXPECT_FALSE(rules.allowed("/dir20000/x"));
  EXPECT_TRUE(rules.allowed("/other"));
}

TEST(RobotsHostile, ManyWildcardsDoNotBacktrackExponentially) {
  std::string pattern = "/";
  for (int i = 0; i < 2000; ++i) pattern += "*a";
  pattern += "b$";
  const std::string body = "User-agent: *\nDisallow: " + pattern + "\n";
  EXPECT_TRUE(allowed(body, "x", "/" + std::string(50000, 'a')));
  EXPECT_FALSE(allowed(body, "x", "/" + std::string(5000, 'a') + "b"));
}

TEST(RobotsHostile, ManyGroupsNamingTheAgentAreAllMerged) {
  std::string body;
  for (int i = 0; i < 5000; ++i) body += "User-agent: x\nDisallow: /p" + std::to_string(i) + "\n";
  const RobotsRules rules = parse(body).rules_for("x");
  EXPECT_EQ(rules.rules().size(), 5000u);
  EXPECT_FALSE(rules.allowed("/p4999"));
}

TEST(RobotsPolicy, ASuccessfulResponseIsParsed) {
  const RobotsPolicy policy = RobotsPolicy::from_response(200, "User-agent: *\nDisallow: /a\n");
  EXPECT_EQ(policy.access(), RobotsPolicy::Access::Rules);
  ASSERT_NE(policy.robots(), nullptr);
  EXPECT_FALSE(policy.rules_for("x").allowed("/a"));
  EXPECT_TRUE(policy.rules_for("x").allowed("/b"));
  EXPECT_EQ(policy.refresh_after(), 24h);
}

TEST(RobotsPolicy, AShorterHttpFreshnessLifetimeShortensTheCacheTime) {
  EXPECT_EQ(RobotsPolicy::from_response(200, "", 600s).refresh_after(), 600s);
  EXPECT_EQ(RobotsPolicy::from_response(404, "", 600s).refresh_after(), 600s);
  EXPECT_EQ(RobotsPolicy::from_response(200, "", 7 * 24h).refresh_after(), 24h);
  EXPECT_EQ(RobotsPolicy::from_response(200, "", -5s).refresh_after(), 0s);
  EXPECT_EQ(RobotsPolicy::from_response(503, "", 600s).refresh_after(),
            RobotsPolicy::kUnreachableRetry);
}

TEST(RobotsPolicy, ANotModifiedAnswerRestartsTheCacheTimeOfTheSameRules) {
  const RobotsPolicy cached = RobotsPolicy::from_response(200, "User-agent: *\nDisallow: /a\n");
  const RobotsPolicy kept = RobotsPolicy::unreachable(&cached);
  EXPECT_EQ(kept.refresh_after(), RobotsPolicy::kUnreachableRetry);
  const RobotsPolicy fresh = kept.revalidated();
  EXPECT_EQ(fresh.access(), RobotsPolicy::Access::Rules);
  EXPECT_EQ(fresh.robots(), cached.robots());
  EXPECT_EQ(fresh.refresh_after(), 24h);
  EXPECT_EQ(cached.revalidated(3600s).refresh_after(), 3600s);
  EXPECT_EQ(RobotsPolicy::unreachable().revalidated().access(), RobotsPolicy::Access::DisallowAll);
}

TEST(RobotsPolicy, UnavailableStatusesAllowEverything) {
  for (int status : {400, 401, 403, 404, 410, 451}) {
    const RobotsPolicy policy = RobotsPolicy::from_response(status, "User-agent: *\nDisallow: /\n");
    EXPECT_EQ(policy.access(), RobotsPolicy::Access::AllowAll) << status;
    EXPECT_TRUE(policy.rules_for("x").allowed("/a")) << status;
    EXPECT_EQ(policy.robots(), nullptr);
    EXPECT_EQ(policy.refresh_after(), 24h);
  }
}

TEST(RobotsPolicy, ServerErrorsAndTooManyRequestsDisallowEverything) {
  for (int status : {429, 500, 502, 503, 599, 0, 100, 600}) {
    const RobotsPolicy policy = RobotsPolicy::from_response(status, "");
    EXPECT_EQ(policy.access(), RobotsPolicy::Access::DisallowAll) << status;
    EXPECT_FALSE(policy.rules_for("x").allowed("/a")) << status;
    EXPECT_TRUE(policy.rules_for("x").allowed("/robots.txt")) << status;
    EXPECT_EQ(policy.refresh_after(), RobotsPolicy::kUnreachableRetry);
  }
}

TEST(RobotsPolicy, RedirectsAreFollowedForFiveHops) {
  for (int status : {301, 302, 303, 307, 308}) {
    for (int hops = 0; hops < 5; ++hops)
      EXPECT_TRUE(RobotsPolicy::should_follow_redirect(status, hops)) << status << " " << hops;
    EXPECT_FALSE(RobotsPolicy::should_follow_redirect(status, 5)) << status;
  }
  EXPECT_FALSE(RobotsPolicy::should_follow_redirect(304, 0));
  EXPECT_FALSE(RobotsPolicy::should_follow_redirect(200, 0));
  EXPECT_FALSE(RobotsPolicy::should_follow_redirect(404, 0));
}

TEST(RobotsPolicy, ARedirectThatWasNotFollowedAllowsEverything) {
  EXPECT_EQ(RobotsPolicy::from_response(301, "").access(), RobotsPolicy::Access::AllowAll);
  EXPECT_EQ(RobotsPolicy::from_response(300, "").access(), RobotsPolicy::Access::AllowAll);
}

TEST(RobotsPolicy, AnUnreachableFileWithoutACacheDisallowsEverything) {
  const RobotsPolicy policy = RobotsPolicy::unreachable();
  EXPECT_EQ(policy.access(), RobotsPolicy::Access::DisallowAll);
  EXPECT_FALSE(policy.rules_for("x").allowed("/"));
  EXPECT_EQ(policy.refresh_after(), RobotsPolicy::kUnreachableRetry);
}

TEST(RobotsPolicy, AnUnreachableFileKeepsTheCachedRules) {
  const RobotsPolicy cached = RobotsPolicy::from_response(200, "User-agent: *\nDisallow: /a\n");
  const RobotsPolicy policy = RobotsPolicy::unreachable(&cached, 48h);
  EXPECT_EQ(policy.access(), RobotsPolicy::Access::Rules);
  EXPECT_EQ(policy.robots(), cached.robots());
  EXPECT_FALSE(policy.rules_for("x").allowed("/a"));
  EXPECT_TRUE(policy.rules_for("x").allowed("/b"));
  EXPECT_EQ(policy.refresh_after(), RobotsPolicy::kUnreachableRetry);

  const RobotsPolicy none = RobotsPolicy::from_response(404, "");
  EXPECT_EQ(RobotsPolicy::unreachable(&none).access(), RobotsPolicy::Access::AllowAll);
}

TEST(RobotsPolicy, AFileUnreachableForThirtyDaysIsTreatedAsMissing) {
  const RobotsPolicy denied = RobotsPolicy::unreachable();
  EXPECT_EQ(RobotsPolicy::unreachable(&denied, 29 * 24h).access(),
            RobotsPolicy::Access::DisallowAll);
  EXPECT_EQ(RobotsPolicy::unreachable(&denied, 30 * 24h).access(), RobotsPolicy::Access::AllowAll);
  EXPECT_EQ(RobotsPolicy::unreachable(nullptr, 31 * 24h).access(), RobotsPolicy::Access::AllowAll);
}

}  // namespace
}  // namespace squall
