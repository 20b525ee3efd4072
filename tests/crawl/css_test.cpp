// Tests for css_to_xpath: the expressions it writes, each error naming its offset, and the bounds.
#include "squall/crawl/css.h"

#include <gtest/gtest.h>

#include <string>

#include "squall/crawl/xpath.h"
#include "support/bytes.h"

namespace squall {
namespace {

CssTranslation translate(std::string_view selector) {
  const test::ExactBytes bytes(selector);
  return css_to_xpath(bytes.view());
}

constexpr std::string_view kForm = R"(<form>
<input id=text name=q><input id=typed type=text disabled><input id=hidden type=hidden>
<input id=box type=checkbox checked><input id=radio type=radio>
<select id=sel><option id=o1>a</option><option id=o2 selected>b</option>
<optgroup id=g disabled><option id=o3>c</option></optgroup></select>
<fieldset id=f disabled><input id=inner type=text><button id=bt>b</button></fieldset>
<a id=link href=/x>x</a><a id=anchor name=x>y</a>
</form>)";

TEST(CssToXPath, WritesCssselectsExpressions) {
  EXPECT_EQ(translate("div.item > a[href^='http']").xpath(),
            "descendant-or-self::div[@class and contains(concat(' ', normalize-space(@class), "
            "' '), ' item ')]/a[@href and starts-with(@href, 'http')]");
  EXPECT_EQ(translate("a b").xpath(), "descendant-or-self::a/descendant-or-self::*/b");
  EXPECT_EQ(translate("a + b").xpath(),
            "descendant-or-self::a/following-sibling::*[(name() = 'b') and (position() = 1)]");
  EXPECT_EQ(translate("a ~ b, c").xpath(),
            "descendant-or-self::a/following-sibling::b | descendant-or-self::c");
  EXPECT_EQ(translate("::text").xpath(), "descendant-or-self::text()");
  EXPECT_EQ(translate("a[title=\"it's \\\"x\\\"\"]").xpath(),
            "descendant-or-self::a[@title = concat('it', \"'\", 's \"x\"')]");
  EXPECT_EQ(translate("\\31 23").xpath(), "descendant-or-self::*[name() = '123']");
  EXPECT_EQ(translate("[\\31 x]").xpath(), "descendant-or-self::*[@*[name() = '1x']]");
  EXPECT_EQ(translate(":scope > a").xpath(), "./a");
}

// An error, at an offset, that says what was expected.
struct Refusal {
  std::string_view selector;
  size_t offset;
  std::string_view says;
};

TEST(CssToXPath, RefusesMalformedSelectorsNamingTheOffsetAndWhatWasExpected) {
  const Refusal refusals[] = {
      {"", 0, "expected a selector, found the end of the selector"},
      {"   ", 3, "expected a selector, found the end of the selector"},
      {"a[", 2, "expected an attribute name after '[', found the end of the selector"},
      {"a[href", 6, "expected ']' or an operator (=, ~=, |=, ^=, $=, *=, !=)"},
      {"a[href=]", 7, "expected an attribute value (an identifier or a quoted string), found ']'"},
      {"a[href=1]", 7, "found '1'"},
      {"a[href='x' j]", 11, "expected ']' to end the attribute selector, found 'j'"},
      {"a[href ~ = x]", 7, "expected ']' or an operator"},
      {"a,", 2, "expected a selector"},
      {",a", 0, "expected a selector, found ','"},
      {"a >", 3, "expected a selector, found the end"},
      {"> a", 0, "expected a selector, found '>'"},
      {"a > > b", 4, "expected a selector, found '>'"},
      {"a{", 1, "expected a combinator, ',' or the end of the selector, found '{'"},
      {"a)", 1, "found ')'"},
      {"a]", 1, "found ']'"},
      {"@media", 0, "expected a selector, found '@media'"},
      {"\"str\"", 0, "found '\"str\"'"},
      {"#", 0, "found '#'"},
      {".", 1, "expected a class name after '.', found the end"},
      {". a", 1, "expected a class name after '.', found whitespace"},
      {".5", 0, "found '.5'"},
      {"a:", 2, "expected a pseudo-class name after ':'"},
      {"a: b", 2, "found whitespace"},
      {"a:foo", 2, "unknown pseudo-class :foo"},
      {"a:text", 2, "unknown pseudo-class :text (write ::text)"},
      {"a:foo(1)", 2, "unknown pseudo-class :foo()"},
      {"a::before", 3, "unknown pseudo-element ::before (squall has ::text and ::attr(name))"},
      {"a:after", 2, "the pseudo-element ::after is not supported"},
      {"a::text b", 8, "the pseudo-element ::text (offset 1) must end the selector, found 'b'"},
      {"a::text.x", 7, "must end the selector, found '.'"},
      {"a::attr(href)::text", 13, "the pseudo-element ::attr() (offset 1) must end"},
      {"a::attr()", 8, "expected a string or an identifier as the argument of ::attr()"},
      {"a::attr(x y)", 10, "expected ')' to end ::attr(), found 'y'"},
      {":not(::text)", 5, "a pseudo-element cannot appear inside :not()"},
      {":not()", 5, "expected a selector, found ')'"},
      {":not(a b)", 7, "expected ',' or ')' (:not() takes selectors without combinators)"},
      {":not(a", 6, "found the end of the selector"},
      {":has()", 5, "expected a selector, found ')'"},
      {":has(a ::text)", 7,
       "a pseudo-element cannot appear inside :not(), :is(), :where() or :has()"},
      {":contains()", 10, "expected a string or an identifier as the argument of :contains()"},
      {":contains(1)", 10, "found '1'"},
      {":lang(en fr)", 9, "expected ')' to end :lang(), found 'fr'"},
      {":nth-child()", 11, "invalid argument '' for :nth-child(): expected an+b"},
      {":nth-child(x)", 11, "invalid argument 'x'"},
      {":nth-child(2 n)", 11, "invalid argument '2 n'"},
      {":nth-child(+ 2n)", 11, "invalid argument '+ 2n'"},
      {":nth-child(2n+)", 11, "invalid argument '2n+'"},
      {":nth-child(2n 1)", 11, "invalid argument '2n 1'"},
      {":nth-child(1.5)", 11, "invalid argument '1.5'"},
      {":nth-child(9999999999)", 11, "numbers up to 1000000000"},
      {":nth-child(2n+1 of .a)", 11, "invalid argument '2n+1 of .a'"},
      {":nth-child(f(x))", 11, "expected an+b, odd or even in :nth-child(), found 'f('"},
      {":nth-child(2", 12, "expected ')' to end :nth-child(), found the end"},
      {":first-of-type", 1,
       ":first-of-type needs an element name before it (as in p:first-of-type)"},
      {"*:nth-of-type(2)", 2, ":nth-of-type() needs an element name"},
      {".x:only-of-type", 3, ":only-of-type needs an element name"},
      {"a :scope", 3, ":scope must stand alone at the start of a selector"},
      {":scope.x", 6, ":scope must stand alone"},
      {"*:scope", 2, ":scope must stand alone"},
      {"ns|a", 2, "namespace prefixes (ns|name) are not supported"},
      {"*|a", 1, "namespace prefixes"},
      {"|a", 0, "namespace prefixes"},
      {"[ns|href]", 3, "namespace prefixes"},
      {"[*|href]", 1, "namespace prefixes"},
      {"a[\"x\"]", 2, "expected an attribute name after '['"},
      {"a[title='x", 8, "unclosed string: add ' to end it"},
      {"a[title=\"x\ny\"]", 10, "a newline ends the string started at offset 8"},
      {"a /* x", 2, "unclosed comment: add '*/'"},
      {"a\\\nb", 1, "found '\\'"},
      {"a\x01", 1, "found U+0001"},
      {"[title='\\1']", 8,
       "the character U+0001 cannot be matched: XPath 1.0 has no way to write it"},
      {"\\FFFE", 0, "the character U+FFFE cannot be matched"},
  };
  for (const Refusal& r : refusals) {
    const CssTranslation t = translate(r.selector);
    ASSERT_FALSE(t.ok()) << r.selector << " => " << t.xpath();
    EXPECT_TRUE(t.xpath().empty());
    EXPECT_EQ(t.offset(), r.offset) << r.selector << ": " << t.error();
    EXPECT_NE(t.error().find(r.says), std::string::npos) << r.selector << ": " << t.error();
    EXPECT_NE(t.error().find("at offset " + std::to_string(r.offset) + ": "), std::string::npos)
        << t.error();
  }
}

TEST(CssToXPath, NamesTheSelectorInItsMessage) {
  EXPECT_EQ(translate("div > ").error(),
            "invalid CSS selector 'div > ' at offset 6: expected a selector, found the end of "
            "the selector");
  const std::string long_selector = std::string(200, 'a') + "[";
  const std::string error = translate(long_selector).error();
  EXPECT_NE(error.find("'" + std::string(120, 'a') + "...' at offset 201"), std::string::npos)
      << error;
}

TEST(CssToXPath, RefusesInvalidUtf8WithItsOffset) {
  const CssTranslation t = translate("p.caf\xC3");
  EXPECT_FALSE(t.ok());
  EXPECT_EQ(t.offset(), 5u);
  EXPECT_EQ(t.error(), "invalid CSS selector: invalid UTF-8 at offset 5");
  EXPECT_EQ(translate("a\xFF").offset(), 1u);
  EXPECT_EQ(translate("\xED\xA0\x80").offset(), 1u);  // a surrogate fails at its second byte
  EXPECT_TRUE(translate("p.caf\xC3\xA9").ok());
}

TEST(CssToXPath, TakesANulAsTheReplacementCharacter) {
  const CssTranslation t = translate(std::string_view("a\0b", 3));
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t.xpath(),
            "descendant-or-self::*[name() = 'a\xEF\xBF\xBD"
            "b']");
}

TEST(CssToXPath, BoundsLengthAndNesting) {
  const std::string longest(kMaxCssSelectorLength, 'a');
  EXPECT_TRUE(translate(longest).ok());
  const CssTranslation too_long = translate(longest + "a");
  EXPECT_FALSE(too_long.ok());
  EXPECT_NE(too_long.error().find("8193 bytes long, at most 8192"), std::string::npos);

  std::string nested = "a";
  for (int i = 0; i < kMaxCssNesting; ++i) nested = ":not(" + nested + ")";
  EXPECT_TRUE(translate(nested).ok()) << translate(nested).error();
  const CssTranslation deep = translate(":is(" + nested + ")");
  EXPECT_FALSE(deep.ok());
  EXPECT_NE(deep.error().find("selectors nest more than 16 deep"), std::string::npos)
      << deep.error();
  // Hostile depth is refused long before the stack is at risk.
  std::string hostile;
  for (int i = 0; i < 2000; ++i) hostile += ":has(";
  EXPECT_FALSE(translate(hostile).ok());
}

TEST(CssToXPath, BoundsTheSimpleSelectorsSoThatLibxml2CanEvaluateTheResult) {
  std::string chain = "a";
  for (int i = 1; i < kMaxCssSimpleSelectors; ++i) chain += i % 2 ? " a" : ".b";
  const CssTranslation longest = translate(chain);
  ASSERT_TRUE(longest.ok()) << longest.error();
  const XPathResult evaluated = HtmlDocument::parse("<a class=b>x</a>").xpath(longest.xpath());
  EXPECT_TRUE(evaluated.ok()) << evaluated.error().substr(0, 200);
  const CssTranslation refused = translate(chain + ":empty");
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(refused.offset(), chain.size());
  EXPECT_NE(refused.error().find("the selector has more than 1024 simple selectors"),
            std::string::npos)
      << refused.error().substr(0, 200);
}

TEST(CssToXPath, KeepsTheTranslationLinearInTheSelector) {
  std::string many;
  for (int i = 0; i < 900; ++i) many += ":enabled";
  ASSERT_LE(many.size(), kMaxCssSelectorLength);
  const CssTranslation t = translate(many);
  ASSERT_TRUE(t.ok());
  EXPECT_LT(t.xpath().size(), 100 * many.size());
  // Conditions are one flat predicate, so libxml2 compiles it without deep recursion.
  const HtmlDocument doc = HtmlDocument::parse(kForm);
  const XPathResult r = doc.xpath(t.xpath());
  EXPECT_TRUE(r.ok()) << r.error().substr(0, 200);
}

}  // namespace
}  // namespace squall
