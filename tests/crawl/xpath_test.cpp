// Tests for HtmlDocument::xpath: node-sets, scalar results, broken pages and malformed
// expressions.
#include "squall/crawl/xpath.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/bytes.h"

namespace squall {
namespace {

using Values = std::vector<std::string>;

constexpr std::string_view kPage = R"(<!DOCTYPE html>
<html><head><title>The  title</title><meta name=description content="About us"></head>
<body>
<div class="item"><a href="/one">One</a><span class=price>1.50</span></div>
<div class="item"><a href="/two">Two <b>bold</b></a><span class=price>2.25</span></div>
<p>caf&eacute; &amp; more</p>
</body></html>)";

HtmlDocument page(std::string_view html = kPage) {
  const test::ExactBytes bytes(html);
  return HtmlDocument::parse(bytes.view());
}

TEST(HtmlDocument, ReturnsAttributeValuesOfANodeSet) {
  const XPathResult result = page().xpath("//div[@class='item']/a/@href");
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result.values(), (Values{"/one", "/two"}));
}

TEST(HtmlDocument, ReturnsTheTextContentOfElements) {
  EXPECT_EQ(page().xpath("//a").values(), (Values{"One", "Two bold"}));
  EXPECT_EQ(page().xpath("//title/text()").values(), (Values{"The  title"}));
}

TEST(HtmlDocument, DecodesCharacterReferencesInText) {
  EXPECT_EQ(page().xpath("//p").values(), (Values{"caf\xC3\xA9 & more"}));
}

TEST(HtmlDocument, ReturnsScalarResultsAsOneString) {
  EXPECT_EQ(page().xpath("count(//div)").values(), (Values{"2"}));
  EXPECT_EQ(page().xpath("sum(//span[@class='price'])").values(), (Values{"3.75"}));
  EXPECT_EQ(page().xpath("boolean(//table)").values(), (Values{"false"}));
  EXPECT_EQ(page().xpath("normalize-space(//title)").values(), (Values{"The title"}));
  EXPECT_EQ(page().xpath("string(//meta[@name='description']/@content)").values(),
            (Values{"About us"}));
}

TEST(HtmlDocument, ReturnsNothingWhenNothingMatches) {
  const XPathResult result = page().xpath("//table/tr");
  EXPECT_TRUE(result.ok());
  EXPECT_TRUE(result.values().empty());
}

TEST(HtmlDocument, ReportsAMalformedExpressionAsAnError) {
  for (std::string_view expr : {"//a[", "//a[@href=", "", "///", "count(", "//a]", "@@x"}) {
    const XPathResult result = page().xpath(expr);
    EXPECT_FALSE(result.ok()) << expr;
    EXPECT_TRUE(result.values().empty()) << expr;
    EXPECT_NE(result.error().find("XPath expression '" + std::string(expr) + "'"),
              std::string::npos)
        << expr << ": " << result.error();
  }
}

TEST(HtmlDocument, ReportsAnEvaluationErrorAsAnError) {
  const XPathResult unknown = page().xpath("no-such-function(//a)");
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("no-such-function not found"), std::string::npos)
      << unknown.error();
  const XPathResult nul = page().xpath(std::string_view("//a\0b", 5));
  EXPECT_FALSE(nul.ok());
  EXPECT_NE(nul.error().find("NUL"), std::string::npos);
}

TEST(HtmlDocument, RecoversFromBrokenMarkup) {
  const HtmlDocument doc = page("<table><tr><td><a href=x>a<td><a href='y'>b</table></div><p");
  EXPECT_EQ(doc.xpath("//a/@href").values(), (Values{"x", "y"}));
}

TEST(HtmlDocument, EvaluatesAgainstAnEmptyPage) {
  const HtmlDocument doc = page("");
  EXPECT_TRUE(doc.xpath("//a").ok());
  EXPECT_TRUE(doc.xpath("//a").values().empty());
  EXPECT_EQ(doc.xpath("count(//a)").values(), (Values{"0"}));
  EXPECT_FALSE(doc.xpath("//a[").ok());
}

TEST(HtmlDocument, EvaluatesRelativeExpressionsFromTheDocumentNode) {
  EXPECT_EQ(page().xpath("html/head/title").values(), (Values{"The  title"}));
  EXPECT_EQ(page().xpath("count(*)").values(), (Values{"1"}));
  EXPECT_EQ(page().xpath("name(*)").values(), (Values{"html"}));
}

TEST(HtmlDocument, DecodesThePageInTheGivenEncoding) {
  const test::ExactBytes bytes("<p>caf\xE9</p>");
  const HtmlDocument doc = HtmlDocument::parse(bytes.view(), "windows-1252");
  EXPECT_EQ(doc.xpath("//p").values(), (Values{"caf\xC3\xA9"}));
}

TEST(HtmlDocument, SurvivesBeingMoved) {
  HtmlDocument doc = page();
  HtmlDocument moved = std::move(doc);
  EXPECT_EQ(moved.xpath("count(//a)").values(), (Values{"2"}));
}

}  // namespace
}  // namespace squall
