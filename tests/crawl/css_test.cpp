// Tests for css_to_xpath: each construct selecting the elements it should, each error naming its
// offset, the bounds, and a differential test against lxml with cssselect (and parsel for the
// pseudo-elements) over real pages, a hand-made page and generated ones.
#include "squall/crawl/css.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "squall/crawl/xpath.h"
#include "support/bytes.h"
#include "support/process.h"

namespace squall {
namespace {

using Ids = std::vector<std::string>;

// The id (or, without one, the name) of each element `selector` selects in `html`.
Ids ids(std::string_view html, std::string_view selector) {
  const test::ExactBytes bytes(selector);
  const SelectorList found = HtmlDocument::parse(html).css(bytes.view());
  EXPECT_TRUE(found.ok()) << found.error();
  Ids out;
  for (const Selector& s : found) out.push_back(s.attr("id").value_or(s.name()));
  return out;
}

CssTranslation translate(std::string_view selector) {
  const test::ExactBytes bytes(selector);
  return css_to_xpath(bytes.view());
}

constexpr std::string_view kList = R"(<ul id=u>
<li id=l1 class="item first">one</li>
<li id=l2 class=item>two</li>
<li id=l3 class="item  special" lang=en-US>three</li>
<li id=l4 class=item>four</li>
<li id=l5 class="item last">five</li>
</ul>)";

TEST(CssSelector, MatchesTypeAndUniversalSelectorsWithHtmlCaseRules) {
  EXPECT_EQ(ids(kList, "ul"), (Ids{"u"}));
  EXPECT_EQ(ids(kList, "UL"), (Ids{"u"}));
  EXPECT_EQ(ids("<DIV id=d>x</DIV>", "div"), (Ids{"d"}));
  EXPECT_EQ(ids(kList, "ul *"), (Ids{"l1", "l2", "l3", "l4", "l5"}));
  EXPECT_EQ(ids(kList, "*").size(), 8u);  // html, body, ul and the items
  EXPECT_TRUE(ids(kList, "table").empty());
}

TEST(CssSelector, MatchesIdsAndClassesAsTokens) {
  EXPECT_EQ(ids(kList, "#l3"), (Ids{"l3"}));
  EXPECT_EQ(ids(kList, "li#l3.special"), (Ids{"l3"}));
  EXPECT_TRUE(ids(kList, "ul#l3").empty());
  EXPECT_EQ(ids(kList, ".first"), (Ids{"l1"}));
  EXPECT_EQ(ids(kList, ".item.last"), (Ids{"l5"}));
  EXPECT_EQ(ids(kList, ".special"), (Ids{"l3"}));             // two spaces before it
  EXPECT_TRUE(ids(kList, ".ite").empty());                    // a token, not a substring
  EXPECT_TRUE(ids(kList, ".Item").empty());                   // class names are case-sensitive
  EXPECT_EQ(ids("<p id=a class='x\ty'>", ".y"), (Ids{"a"}));  // any whitespace separates
  EXPECT_EQ(ids("<p id=\"1\">", "#1"), (Ids{"1"}));           // ids that start with a digit work
}

constexpr std::string_view kAttributes = R"(
<a id=a1 href="http://example.com/x.PDF" hreflang=en-GB rel="nofollow noopener">pdf</a>
<a id=a2 href="/rel" title="it's &quot;so&quot;" data-x="">rel</a>
<a id=a3 lang=en>none</a>
<a id=a4 lang=EN href="">empty</a>)";

TEST(CssSelector, MatchesEveryAttributeOperator) {
  EXPECT_EQ(ids(kAttributes, "[href]"), (Ids{"a1", "a2", "a4"}));
  EXPECT_EQ(ids(kAttributes, "[HREF]"), (Ids{"a1", "a2", "a4"}));
  EXPECT_EQ(ids(kAttributes, "[href='/rel']"), (Ids{"a2"}));
  EXPECT_EQ(ids(kAttributes, "[href=\"\"]"), (Ids{"a4"}));
  EXPECT_EQ(ids(kAttributes, "[rel~=noopener]"), (Ids{"a1"}));
  EXPECT_TRUE(ids(kAttributes, "[rel~='nofollow noopener']").empty());
  EXPECT_TRUE(ids(kAttributes, "[rel~='']").empty());
  EXPECT_EQ(ids(kAttributes, "[hreflang|=en]"), (Ids{"a1"}));
  EXPECT_EQ(ids(kAttributes, "[lang|=en]"), (Ids{"a3"}));
  EXPECT_EQ(ids(kAttributes, "[href^=http]"), (Ids{"a1"}));
  EXPECT_EQ(ids(kAttributes, "[href$='.PDF']"), (Ids{"a1"}));
  EXPECT_TRUE(ids(kAttributes, "[href$='.pdf']").empty());
  EXPECT_EQ(ids(kAttributes, "[href*=ample]"), (Ids{"a1"}));
  EXPECT_TRUE(ids(kAttributes, "[href^='']").empty());  // an empty prefix matches nothing
  EXPECT_TRUE(ids(kAttributes, "[href$='']").empty());
  EXPECT_TRUE(ids(kAttributes, "[href*='']").empty());
  EXPECT_EQ(ids(kAttributes, "[title=\"it's \\\"so\\\"\"]"), (Ids{"a2"}));  // both quotes
  EXPECT_EQ(ids(kAttributes, "[data-x]"), (Ids{"a2"}));
  EXPECT_EQ(ids(kAttributes, "a[lang!=en]"), (Ids{"a1", "a2", "a4"}));
}

TEST(CssSelector, FoldsAttributeValuesWithTheIFlag) {
  EXPECT_EQ(ids(kAttributes, "[href$='.pdf' i]"), (Ids{"a1"}));
  EXPECT_EQ(ids(kAttributes, "[lang=en i]"), (Ids{"a3", "a4"}));
  EXPECT_EQ(ids(kAttributes, "[lang=en s]"), (Ids{"a3"}));
  EXPECT_EQ(ids(kAttributes, "[rel~=NOFOLLOW i]"), (Ids{"a1"}));
  EXPECT_EQ(ids(kAttributes, "[data-x='' i]"), (Ids{"a2"}));
  EXPECT_TRUE(ids(kAttributes, "[nosuch='' i]").empty());  // the attribute must exist
}

constexpr std::string_view kTree = R"(<div id=top>
<h1 id=h>Title</h1>
<p id=p1>one <span id=s1>in</span></p>
<p id=p2>two</p>
<div id=inner><p id=p3>three</p></div>
<span id=s2>after</span>
</div>)";

TEST(CssSelector, FollowsEachCombinator) {
  EXPECT_EQ(ids(kTree, "div p"), (Ids{"p1", "p2", "p3"}));
  EXPECT_EQ(ids(kTree, "#top > p"), (Ids{"p1", "p2"}));
  EXPECT_EQ(ids(kTree, "h1 + p"), (Ids{"p1"}));
  EXPECT_EQ(ids(kTree, "h1 ~ p"), (Ids{"p1", "p2"}));
  EXPECT_EQ(ids(kTree, "p + span"), (Ids{}));  // a div stands between them
  EXPECT_EQ(ids(kTree, "p ~ span"), (Ids{"s2"}));
  EXPECT_EQ(ids(kTree, "div>p+p"), (Ids{"p2"}));
  EXPECT_EQ(ids(kTree, "#top  >  div   p"), (Ids{"p3"}));
  EXPECT_EQ(ids(kTree, "div\n\t p"), (Ids{"p1", "p2", "p3"}));
}

TEST(CssSelector, UnitesAGroupInDocumentOrder) {
  EXPECT_EQ(ids(kTree, "span, h1"), (Ids{"h", "s1", "s2"}));
  EXPECT_EQ(ids(kTree, "p,p"), (Ids{"p1", "p2", "p3"}));
}

constexpr std::string_view kSiblings = R"(<div id=d>
<span id=s1>a</span><em id=e1>b</em><span id=s2>c</span><em id=e2>d</em><span id=s3>e</span>
<b id=b1>only</b></div><div id=single><i id=i1>x</i></div><p id=empty></p><p id=space> </p>
<p id=comment><!-- c --></p>)";

TEST(CssSelector, MatchesStructuralPseudoClasses) {
  EXPECT_EQ(ids(kSiblings, "span:first-child"), (Ids{"s1"}));
  EXPECT_EQ(ids(kSiblings, "#d > :last-child"), (Ids{"b1"}));
  EXPECT_EQ(ids(kSiblings, "div :only-child"), (Ids{"i1"}));
  EXPECT_EQ(ids(kSiblings, "body:only-child"), (Ids{"body"}));  // no <head> in the source
  EXPECT_EQ(ids(kSiblings, "em:first-of-type"), (Ids{"e1"}));
  EXPECT_EQ(ids(kSiblings, "span:last-of-type"), (Ids{"s3"}));
  EXPECT_EQ(ids(kSiblings, "#d > b:only-of-type"), (Ids{"b1"}));
  EXPECT_EQ(ids(kSiblings, "p:empty"), (Ids{"empty", "comment"}));  // comments do not count
  EXPECT_EQ(ids(kSiblings, ":root"), (Ids{"html"}));
}

TEST(CssSelector, CountsSiblingsForNthChildAndItsKin) {
  EXPECT_EQ(ids(kList, "li:nth-child(2)"), (Ids{"l2"}));
  EXPECT_EQ(ids(kList, "li:nth-child(odd)"), (Ids{"l1", "l3", "l5"}));
  EXPECT_EQ(ids(kList, "li:nth-child(EVEN)"), (Ids{"l2", "l4"}));
  EXPECT_EQ(ids(kList, "li:nth-child(3n+1)"), (Ids{"l1", "l4"}));
  EXPECT_EQ(ids(kList, "li:nth-child(3n-1)"), (Ids{"l2", "l5"}));
  EXPECT_EQ(ids(kList, "li:nth-child(-n+2)"), (Ids{"l1", "l2"}));
  EXPECT_EQ(ids(kList, "li:nth-child(-2n+5)"), (Ids{"l1", "l3", "l5"}));
  EXPECT_EQ(ids(kList, "li:nth-child(n+4)"), (Ids{"l4", "l5"}));
  EXPECT_EQ(ids(kList, "li:nth-child(n)").size(), 5u);
  EXPECT_TRUE(ids(kList, "li:nth-child(-n)").empty());
  EXPECT_TRUE(ids(kList, "li:nth-child(0)").empty());
  EXPECT_EQ(ids(kList, "li:nth-child( +2n + 1 )"), (Ids{"l1", "l3", "l5"}));
  EXPECT_EQ(ids(kList, "li:nth-child(2n- 1)"), (Ids{"l1", "l3", "l5"}));
  EXPECT_EQ(ids(kList, "li:nth-last-child(1)"), (Ids{"l5"}));
  EXPECT_EQ(ids(kList, "li:nth-last-child(-n+2)"), (Ids{"l4", "l5"}));
  EXPECT_EQ(ids(kSiblings, "span:nth-of-type(2)"), (Ids{"s2"}));
  EXPECT_EQ(ids(kSiblings, "em:nth-last-of-type(2)"), (Ids{"e1"}));
  EXPECT_EQ(ids(kSiblings, "span:nth-of-type(2n+1)"), (Ids{"s1", "s3"}));
}

TEST(CssSelector, NegatesAndMatchesAlternatives) {
  EXPECT_EQ(ids(kList, "li:not(.item)"), (Ids{}));
  EXPECT_EQ(ids(kList, "li:not(.first):not(.last)"), (Ids{"l2", "l3", "l4"}));
  EXPECT_EQ(ids(kList, "li:not(.first, .last)"), (Ids{"l2", "l3", "l4"}));
  EXPECT_EQ(ids(kList, "li:not( #l2 )").size(), 4u);
  EXPECT_EQ(ids(kList, "ul :not(li)"), (Ids{}));
  EXPECT_EQ(ids(kList, "li:not(*)"), (Ids{}));
  EXPECT_EQ(ids(kList, ":not(:not(#l4))"), (Ids{"l4"}));
  // The element name around :not() is what *-of-type counts by.
  EXPECT_EQ(ids(kList, "li:not(:first-of-type)"), (Ids{"l2", "l3", "l4", "l5"}));
  EXPECT_EQ(ids(kList, "li:is(.first, #l4)"), (Ids{"l1", "l4"}));
  EXPECT_EQ(ids(kList, "li.item:where(.last)"), (Ids{"l5"}));  // ANDed with the rest
  EXPECT_EQ(ids(kList, "li:matches(:first-child)"), (Ids{"l1"}));
  EXPECT_EQ(ids(kList, "li:is(*)").size(), 5u);
}

TEST(CssSelector, MatchesRelativeSelectorsInHas) {
  EXPECT_EQ(ids(kTree, "p:has(span)"), (Ids{"p1"}));
  EXPECT_EQ(ids(kTree, "div:has(> p)"), (Ids{"top", "inner"}));
  EXPECT_EQ(ids(kTree, "div:has(> div p)"), (Ids{"top"}));
  EXPECT_EQ(ids(kTree, "p:has(+ p)"), (Ids{"p1"}));
  EXPECT_EQ(ids(kTree, "h1:has(~ span)"), (Ids{"h"}));
  EXPECT_EQ(ids(kTree, "div:has(em, span)"), (Ids{"top"}));
  EXPECT_EQ(ids(kTree, "div:not(:has(div))"), (Ids{"inner"}));
}

constexpr std::string_view kText = R"(<html lang=en-US><body>
<p id=a>Caf&eacute; cr&egrave;me</p><p id=b lang=fr>Bonjour <span id=c lang=EN>hi</span></p>
<p id=d lang=fr-CA>Salut</p></body></html>)";

TEST(CssSelector, MatchesTextAndLanguage) {
  EXPECT_EQ(ids(kText, "p:contains('Caf\xC3\xA9')"), (Ids{"a"}));
  EXPECT_EQ(ids(kText, "p:contains(Bonjour)"), (Ids{"b"}));
  EXPECT_EQ(ids(kText, "p:contains('Bonjour hi')"), (Ids{"b"}));  // the string value
  EXPECT_TRUE(ids(kText, "p:contains(bonjour)").empty());         // case-sensitive
  EXPECT_EQ(ids(kText, "p:lang(fr)"), (Ids{"b", "d"}));
  EXPECT_EQ(ids(kText, "p:lang(en)"), (Ids{"a"}));  // inherited from <html lang=en-US>
  EXPECT_EQ(ids(kText, "span:lang(en)"), (Ids{"c"}));
  EXPECT_EQ(ids(kText, "*:lang(FR-ca)"), (Ids{"d"}));
}

constexpr std::string_view kForm = R"(<form>
<input id=text name=q><input id=typed type=text disabled><input id=hidden type=hidden>
<input id=box type=checkbox checked><input id=radio type=radio>
<select id=sel><option id=o1>a</option><option id=o2 selected>b</option>
<optgroup id=g disabled><option id=o3>c</option></optgroup></select>
<fieldset id=f disabled><input id=inner type=text><button id=bt>b</button></fieldset>
<a id=link href=/x>x</a><a id=anchor name=x>y</a>
</form>)";

TEST(CssSelector, MatchesHtmlStatePseudoClasses) {
  EXPECT_EQ(ids(kForm, ":checked"), (Ids{"box", "o2"}));
  EXPECT_EQ(ids(kForm, ":link"), (Ids{"link"}));
  EXPECT_EQ(ids(kForm, ":disabled"), (Ids{"typed", "g", "f", "inner", "bt"}));
  // An input without a type is a text field, and a hidden input is a form control too.
  EXPECT_EQ(ids(kForm, "input:enabled"), (Ids{"text", "hidden", "box", "radio"}));
  EXPECT_EQ(ids(kForm, "option:enabled"), (Ids{"o1", "o2"}));
  EXPECT_TRUE(ids(kForm, "a:hover, a:visited, :focus, :active, :target").empty());
}

constexpr std::string_view kPseudoElements = R"(<div id=d>top <p>one <b>bold</b></p>
<a href="/x" title=t>link</a></div>)";

TEST(CssSelector, SelectsTextAndAttributesWithPseudoElements) {
  const HtmlDocument doc = HtmlDocument::parse(kPseudoElements);
  EXPECT_EQ(doc.css("p::text").getall(), (Ids{"one "}));
  EXPECT_EQ(doc.css("p ::text").getall(), (Ids{"one ", "bold"}));
  EXPECT_EQ(doc.css("div > ::text").getall(), (Ids{"one ", "link"}));  // the children's text
  EXPECT_EQ(doc.css("a::attr(href)").getall(), (Ids{"/x"}));
  EXPECT_EQ(doc.css("a::attr(TITLE)").getall(), (Ids{"t"}));
  EXPECT_EQ(doc.css("div ::attr(href)").getall(), (Ids{"/x"}));
  EXPECT_EQ(doc.css("::attr(href)").getall(), (Ids{"/x"}));
  EXPECT_EQ(doc.css("b::text, a::attr(title)").getall(), (Ids{"bold", "t"}));
}

TEST(CssSelector, ReadsEscapesCommentsAndStrings) {
  EXPECT_EQ(ids(kList, "\\6c i.first"), (Ids{"l1"}));
  EXPECT_EQ(ids(kList, "#\\6c 1"), (Ids{"l1"}));
  EXPECT_EQ(ids(kList, "#l\\31"), (Ids{"l1"}));
  EXPECT_EQ(ids(kList, ".fir\\st"), (Ids{"l1"}));
  EXPECT_EQ(ids(kList, "li/* a comment */.first"), (Ids{"l1"}));
  EXPECT_EQ(ids(kList, "ul /**/ li.last"), (Ids{"l5"}));
  EXPECT_EQ(ids(kList, "li[lang='en\\2d US']"), (Ids{"l3"}));
  EXPECT_EQ(ids(kList, "li[lang='en\\\n-US']"), (Ids{"l3"}));  // an escaped newline joins
  EXPECT_EQ(ids("<p id=a class='a:b'>", ".a\\:b"), (Ids{"a"}));
}

TEST(CssSelector, StartsFromTheScopeNode) {
  const HtmlDocument doc = HtmlDocument::parse(kTree);
  EXPECT_EQ(doc.css(":scope > body").size(), 1u);
  const SelectorList top = doc.css("#top");
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].css(":scope > p").size(), 2u);
  EXPECT_EQ(top[0].css("p").size(), 3u);
  EXPECT_EQ(top[0].css(":scope").getall(), top.getall());
  EXPECT_EQ(top[0].css(":scope::text").size(), 6u);  // the whitespace between the children
}

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

// The differential test: lxml through cssselect and parsel, over the same libxml2 parser.

constexpr std::string_view kKitchenSink = R"(<!DOCTYPE html>
<html lang="en-US">
<head>
<meta charset="utf-8">
<title>Kitchen sink</title>
<link rel="stylesheet" href="/style.css">
</head>
<body class="page home">
<div id="main" class="content  wide" data-role="main">
  <h1 class="title">Heading <em>one</em></h1>
  <p class="intro lead">First <a href="/a" title="it's">paragraph</a> text.</p>
  <p>Second paragraph with <b>bold</b> and <i>italic</i>.</p>
  <p></p>
  <p> </p>
  <p><!-- only a comment --></p>
  <ul class="list">
    <li class="item first">one</li>
    <li class="item">two <span class="note">n</span></li>
    <li class="item special" id="three">three</li>
    <li class="item">four</li>
    <li class="item last">five</li>
  </ul>
  <ol>
    <li>a</li><li>b</li><li>c</li><li>d</li><li>e</li><li>f</li><li>g</li>
  </ol>
  <table class="data">
    <tr><th>Name</th><th>Value</th></tr>
    <tr class="odd"><td>x</td><td>1</td></tr>
    <tr class="even"><td>y</td><td>2</td></tr>
    <tr class="odd"><td>z</td><td>3</td></tr>
  </table>
  <section lang="fr">
    <h2>Titre</h2>
    <p lang="fr-CA">Bonjour <span lang="EN">hello</span></p>
    <p>Caf&eacute; cr&egrave;me</p>
  </section>
  <div class="links">
    <a href="http://example.com/x.PDF" hreflang="en-GB" rel="nofollow noopener">pdf</a>
    <a href="https://example.org/" class="external">external</a>
    <a name="anchor">no href</a>
    <a href="#frag" title='say "hi"'>frag</a>
    <a href="mailto:x@example.com" data-x="a-b-c">mail</a>
    <map name="m"><area href="/area" alt="area"></map>
  </div>
  <form action="/submit">
    <input type="text" name="q" value="search">
    <input type="checkbox" name="c1" checked>
    <input type="radio" name="r" value="1">
    <input type="radio" name="r" value="2" checked>
    <input type="text" name="off" disabled>
    <select name="s"><option>one</option><option selected>two</option><option disabled>three</option>
      <optgroup label="g" disabled><option>in group</option></optgroup></select>
    <fieldset disabled><legend>L</legend><input type="text" name="inner"><button>b</button></fieldset>
    <textarea name="t">text</textarea>
    <button type="submit">Go</button>
  </form>
  <div class="nested"><div class="nested"><div class="nested"><span>deep</span></div></div></div>
  <div class="siblings"><span>s1</span><em>e1</em><span>s2</span><em>e2</em><span>s3</span><b>b</b></div>
  <div class="single"><span>alone</span></div>
  <p class="UPPER">Case</p>
  <DIV CLASS="Shout" ID="LOUD">upper tags</DIV>
  <div title="a b" data-empty="">attributes</div>
  <div class="a-b">dash</div><div class="a_b">under</div>
  <div class="tabbed	item
  x">whitespace in class</div>
</div>
<footer><p>Footer &copy; 2024</p></footer>
</body>
</html>
)";

// Selectors cssselect and squall both read, which must select the same nodes (or both be
// refused).
constexpr std::string_view kSharedSelectors[] = {
    // type, universal, id, class
    "*",
    "p",
    "P",
    "li",
    "DIV",
    "section",
    "nosuch",
    "html",
    "body",
    "head",
    "title",
    "#main",
    "#three",
    "#LOUD",
    "#loud",
    "li#three",
    "div#three",
    ".item",
    ".content",
    ".wide",
    ".item.first",
    ".content.wide",
    ".nested",
    ".a-b",
    ".a_b",
    ".Shout",
    ".shout",
    "li.item.special",
    ".UPPER",
    ".x",
    ".tabbed.item",
    "*.item",
    "*#main",
    // attributes
    "[href]",
    "[title]",
    "[title=\"it's\"]",
    "[title='say \"hi\"']",
    "[data-role=main]",
    "[class~=item]",
    "[class~=\"a b\"]",
    "[title~=a]",
    "[title~=b]",
    "[lang|=en]",
    "[lang|=fr]",
    "[hreflang|=en]",
    "[href^=http]",
    "[href^=\"https://\"]",
    "[href$=PDF]",
    "[href$=\".pdf\"]",
    "[href$=\".PDF\"]",
    "[href*=example]",
    "[href*=\"\"]",
    "[href^=\"\"]",
    "[href$=\"\"]",
    "[class~=\"\"]",
    "[data-empty]",
    "[data-empty=\"\"]",
    "[data-x|=a]",
    "[data-x|=\"a-b\"]",
    "[rel~=nofollow]",
    "[rel~=noopener]",
    "a[name]",
    "[HREF]",
    "[Type=checkbox]",
    "[value!=\"1\"]",
    "[value!=\"\"]",
    "input[value!=search]",
    "a[ href ]",
    "a[href = \"/a\"]",
    "[id=three]",
    "[class=item]",
    "[lang]",
    // combinators and groups
    "div p",
    "div > p",
    "ul > li",
    "ol li",
    "li + li",
    "li ~ li",
    "h1 + p",
    "h1 ~ p",
    "p + p",
    "span + em",
    "em ~ span",
    ".nested .nested",
    ".nested > .nested > .nested",
    "div div span",
    "body > div > ul > li",
    "table tr > td",
    "tr + tr td",
    "* > li",
    "* + *",
    "h2 ~ *",
    "html > body",
    "ul>li",
    "li+li",
    "li~li",
    "div /**/ p",
    "  p  ",
    "div\tp",
    "h1, h2",
    "li.first, li.last",
    "#main > h1, footer p",
    "a, area",
    "p, p",
    "td, th, tr",
    "a b c",
    "div * span",
    "* *",
    "section > p > span",
    // structural pseudo-classes
    "li:first-child",
    "li:last-child",
    "span:only-child",
    "*:only-child",
    ":first-child",
    ":last-child",
    "p:first-of-type",
    "span:last-of-type",
    "b:only-of-type",
    "em:first-of-type",
    "span:only-of-type",
    "p:empty",
    "div:empty",
    "*:empty",
    ":empty",
    ":root",
    "html:root",
    "body:root",
    "li:nth-child(2)",
    "li:nth-child(odd)",
    "li:nth-child(even)",
    "li:nth-child(2n+1)",
    "li:nth-child(2n-1)",
    "li:nth-child(3n)",
    "li:nth-child(3n+2)",
    "li:nth-child(3n-1)",
    "li:nth-child(-n+3)",
    "li:nth-child(n+4)",
    "li:nth-child(-2n+5)",
    "li:nth-child(0n+1)",
    "li:nth-child(n)",
    "li:nth-child(-n)",
    "li:nth-child(+3)",
    "li:nth-child(-3)",
    "li:nth-child(0)",
    "li:nth-child(10)",
    "li:nth-child(n-2)",
    "li:nth-child( 2n + 1 )",
    "li:nth-child(2n +1)",
    "li:nth-child(-3n+7)",
    "li:nth-last-child(1)",
    "li:nth-last-child(2n)",
    "li:nth-last-child(-n+2)",
    "li:nth-last-child(odd)",
    "span:nth-of-type(2)",
    "span:nth-of-type(odd)",
    "em:nth-last-of-type(1)",
    "span:nth-last-of-type(n+2)",
    "span:nth-last-of-type(-n+1)",
    "tr:nth-child(2n) td",
    "td:nth-child(2)",
    "td:nth-last-child(2)",
    "li:nth-of-type(4n+3)",
    // negation and the rest
    "li:not(.item)",
    "li:not(.first)",
    "li:not(#three)",
    "p:not([class])",
    "div :not(span)",
    "li:not(:first-child)",
    "a:not([href^=http])",
    "li:not(li)",
    "a:not(*)",
    "li:not(li.first)",
    "li:not(li:first-of-type)",
    "a:contains(\"pdf\")",
    "p:contains(Caf\xC3\xA9)",
    "li:contains(t)",
    ":contains(\"Bonjour hello\")",
    "p:contains('')",
    "*:lang(fr)",
    "p:lang(fr)",
    "span:lang(en)",
    ":lang(en-US)",
    ":lang(EN)",
    ":lang(en-us)",
    "a:link",
    ":link",
    "input:checked",
    ":checked",
    "option:checked",
    ":disabled",
    "input:disabled",
    "option:disabled",
    "fieldset:disabled",
    "button:enabled",
    "option:enabled",
    "a:hover",
    "a:visited",
    ":focus",
    ":target",
    ":active",
    ":scope > body",
    ":is(h1, h2)",
    ":where(h1, h2)",
    "li:is(.first, .last)",
    "div:has(> span)",
    "div:has(em)",
    "li:has(+ li)",
    "li:has(~ li)",
    "ul:has(li)",
    // refused by both
    "a[",
    "*:first-of-type",
    ":nth-of-type(2)",
    "a::before",
    "ns|a",
    "a:foo",
    ":nth-child(x)",
    "a,",
    ",a",
    "a >",
    "> a",
    "#",
    ".",
    "[",
    "a]",
    "a)",
    ":not(a b)",
    "\"str\"",
    "a!",
    "@media",
    "a[x=1]",
    "div/**/p",
    "p:first",
    "a:first-line",
    ":nth-child(2n+1 of .item)",
};

// Selectors only squall reads (or reads otherwise), each with one cssselect reads that must
// select the same nodes.
struct Equivalent {
  std::string_view squall;
  std::string_view cssselect;
};
constexpr Equivalent kEquivalentSelectors[] = {
    {"li:nth-child(ODD)", "li:nth-child(odd)"},
    {"li:nth-last-child(EVEN)", "li:nth-last-child(even)"},
    {":not(:not(a))", "a"},
    {"li.item:not( .first )", "li.item:not(.first)"},
    {"li:not(.first, .last)", "li:not(.first):not(.last)"},
    {"li:not(:first-of-type)", "li:not(li:first-of-type)"},
    {"span:not(:nth-of-type(2n))", "span:not(span:nth-of-type(2n))"},
    {"p.intro:is(.lead, .x)", "p.intro.lead, p.intro.x"},
    {"div.nested:where(:first-child)", "div.nested:first-child"},
    {"div:has(> span, > em)", "div:has(> span), div:has(> em)"},
    {"a[href$=pdf i]", "a[href$=PDF], a[href$=pdf]"},
    {"[lang=en i]", "[lang=en], [lang=EN]"},
};

// Pseudo-elements, compared with parsel's answers.
constexpr std::string_view kPseudoSelectors[] = {
    "::text",
    "title::text",
    "li::text",
    "li ::text",
    "ul ::text",
    "ul > ::text",
    "p::text",
    "a::attr(href)",
    "a ::attr(href)",
    "::attr(href)",
    "*::attr(class)",
    "li:first-child::text",
    "div.siblings > span::text",
    "a::attr(title)",
    "input::attr(value)",
    "[href]::attr(href)",
    "a::text, area::attr(href)",
    "td + td::text",
    "h1 ::text",
    "section p::text",
};

// A page of random elements, attributes and text from small pools, so that names, classes and
// siblings collide often.
std::string random_document(uint32_t seed) {
  std::mt19937 rng(seed);
  const auto pick = [&](const auto& pool) { return pool[rng() % std::size(pool)]; };
  static constexpr std::string_view kTags[] = {"div", "p",  "span", "a",       "ul",
                                               "li",  "em", "b",    "section", "h2"};
  // Each attribute with the values it may take.
  struct Attribute {
    std::string_view name;
    std::vector<std::string_view> values;
  };
  static const Attribute kAttributes[] = {
      {"class", {"a", "b", "'a b'", "'b c'", "' a\tc '", "A", "a-b"}},
      {"id", {"x", "y", "x1"}},
      {"lang", {"en", "en-US", "fr", "EN-gb"}},
      {"title", {"\"it's\"", "'a b'", "''"}},
      {"href", {"'http://e.com/'", "/rel", "'#top'", "doc.PDF"}},
      {"data-v", {"''", "foo", "foo-bar", "'bar foo'", "Foo"}}};
  static constexpr std::string_view kText[] = {"one", "two", "three", "Caf\xC3\xA9", "", " "};
  std::string out = "<!DOCTYPE html><html><head><meta charset=utf-8></head><body>";
  std::vector<std::string_view> open;
  // Appends, not "</" + ...: GCC 12 at -O3 misreports the concatenation under -Wrestrict.
  const auto close = [&] {
    out += "</";
    out += open.back();
    out += '>';
    open.pop_back();
  };
  for (int i = 0; i < 400; ++i) {
    const uint32_t r = rng() % 10;
    if (r < 4 && open.size() < 6) {
      const std::string_view tag = pick(kTags);
      out += '<';
      out += tag;
      for (uint32_t n = rng() % 3; n > 0; --n) {
        const Attribute& attribute = pick(kAttributes);
        out += ' ';
        out += attribute.name;
        out += '=';
        out += pick(attribute.values);
      }
      out += ">";
      open.push_back(tag);
    } else if (r < 7 && !open.empty()) {
      close();
    } else if (r < 9) {
      out += pick(kText);
    } else {
      out += "<!-- c -->";
    }
  }
  while (!open.empty()) close();
  return out + "</body></html>";
}

// Random selectors over the same pools: compounds of 0-2 qualifiers joined by combinators.
std::vector<std::string> random_selectors(uint32_t seed, size_t count) {
  std::mt19937 rng(seed);
  const auto pick = [&](const auto& pool) { return std::string(pool[rng() % std::size(pool)]); };
  static constexpr std::string_view kTypes[] = {"",   "*",  "div", "p", "span",    "a",
                                                "li", "ul", "em",  "b", "section", "h2"};
  static constexpr std::string_view kQualifiers[] = {"#x",
                                                     "#y",
                                                     ".a",
                                                     ".b",
                                                     ".c",
                                                     ".a-b",
                                                     "[class]",
                                                     "[id]",
                                                     "[lang|=en]",
                                                     "[title~=a]",
                                                     "[href^=http]",
                                                     "[href$=PDF]",
                                                     "[href*=rel]",
                                                     "[data-v=foo]",
                                                     "[data-v!=foo]",
                                                     "[data-v~=foo]",
                                                     "[title]",
                                                     "[data-v|=foo]",
                                                     ":first-child",
                                                     ":last-child",
                                                     ":only-child",
                                                     ":empty",
                                                     ":root",
                                                     ":nth-child(2n+1)",
                                                     ":nth-child(3)",
                                                     ":nth-last-child(-n+2)",
                                                     ":not(.a)",
                                                     ":not([href])",
                                                     ":contains(one)",
                                                     ":lang(en)",
                                                     ":link",
                                                     ":nth-child(even)",
                                                     ":not(:first-child)"};
  static constexpr std::string_view kTypedQualifiers[] = {":first-of-type", ":last-of-type",
                                                          ":only-of-type", ":nth-of-type(2)",
                                                          ":nth-last-of-type(odd)"};
  static constexpr std::string_view kCombinators[] = {" ", " > ", " + ", " ~ "};
  const auto compound = [&] {
    std::string type = pick(kTypes);
    std::string out = type;
    for (uint32_t n = rng() % 3; n > 0; --n) {
      out += type.size() > 1 && rng() % 4 == 0 ? pick(kTypedQualifiers) : pick(kQualifiers);
    }
    return out.empty() ? std::string("*") : out;
  };
  std::vector<std::string> out;
  while (out.size() < count) {
    std::string s = compound();
    for (uint32_t n = rng() % 3; n > 0; --n) s += pick(kCombinators) + compound();
    if (rng() % 10 == 0) s += ", " + compound();
    out.push_back(std::move(s));
  }
  return out;
}

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The real pages: Sphinx's output for Python's and Tornado's documentation (python3.11-doc and
// python-tornado-doc, which scripts/bootstrap installs).
const char* const kRealPages[] = {
    "/usr/share/doc/python3.11/html/library/index.html",
    "/usr/share/doc/python3.11/html/tutorial/errors.html",
    "/usr/share/doc/python3.11/html/genindex-A.html",
    "/usr/share/doc/python-tornado-doc/html/asyncio.html",
};

// What squall answers, in the peer's form.
nlohmann::json squall_answer(const HtmlDocument& doc, std::string_view selector, bool pseudo) {
  const SelectorList found = doc.css(selector);
  if (!found.ok()) return {{"error", found.error()}};
  if (pseudo) return {{"values", found.getall()}};
  nlohmann::json paths = nlohmann::json::array();
  for (const Selector& s : found) paths.push_back(s.path());
  return {{"paths", paths}};
}

TEST(CssDifferential, SelectsWhatLxmlSelectsThroughCssselectAndParsel) {
  test::TempDir dir;
  std::vector<std::string> pages = {std::string(kKitchenSink)};
  for (uint32_t seed : {1u, 2u, 3u, 4u}) pages.push_back(random_document(seed));
  for (const char* path : kRealPages) {
    ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: run scripts/bootstrap";
    pages.push_back(read_all(path));
  }
  std::vector<std::string> selectors(std::begin(kSharedSelectors), std::end(kSharedSelectors));
  const size_t shared = selectors.size() + 300;
  for (std::string& s : random_selectors(7, 300)) selectors.push_back(std::move(s));
  for (const Equivalent& e : kEquivalentSelectors) selectors.emplace_back(e.cssselect);
  const std::vector<std::string> pseudo(std::begin(kPseudoSelectors), std::end(kPseudoSelectors));

  nlohmann::json documents = nlohmann::json::array();
  for (size_t i = 0; i < pages.size(); ++i) {
    documents.push_back(dir.write("page" + std::to_string(i) + ".html", pages[i]).string());
  }
  const nlohmann::json request = {
      {"documents", documents}, {"selectors", selectors}, {"pseudo_selectors", pseudo}};
  const auto request_file = dir.write("request.json", request.dump());
  const auto answer_file = dir.path() / "answer.json";
  test::Process peer =
      test::Process::start({"/usr/bin/python3", "-B", SQUALL_SOURCE_DIR "/tests/crawl/css_peer.py",
                            request_file.string(), answer_file.string()});
  ASSERT_EQ(peer.wait(std::chrono::seconds(240)), 0) << peer.output();
  const nlohmann::json answer = nlohmann::json::parse(read_all(answer_file));
  ASSERT_EQ(answer.size(), pages.size());

  size_t compared = 0, refused = 0, nodes = 0;
  for (size_t d = 0; d < pages.size(); ++d) {
    const HtmlDocument doc = HtmlDocument::parse(pages[d]);
    const nlohmann::json& theirs = answer[d];
    ASSERT_EQ(theirs.size(), selectors.size() + pseudo.size());
    for (size_t i = 0; i < selectors.size() + pseudo.size(); ++i) {
      const bool is_pseudo = i >= selectors.size();
      const std::string& selector = is_pseudo ? pseudo[i - selectors.size()] : selectors[i];
      if (!is_pseudo && i >= shared) continue;  // the cssselect side of an equivalence
      const nlohmann::json ours = squall_answer(doc, selector, is_pseudo);
      ++compared;
      if (theirs[i].contains("error")) {
        ++refused;
        EXPECT_TRUE(ours.contains("error")) << "page " << d << ": squall reads '" << selector
                                            << "', cssselect says " << theirs[i]["error"];
        continue;
      }
      nodes += theirs[i].begin()->size();
      EXPECT_EQ(ours, theirs[i]) << "page " << d << ": " << selector;
    }
    for (size_t e = 0; e < std::size(kEquivalentSelectors); ++e) {
      const nlohmann::json& expected = theirs[shared + e];
      ASSERT_FALSE(expected.contains("error")) << kEquivalentSelectors[e].cssselect;
      EXPECT_EQ(squall_answer(doc, kEquivalentSelectors[e].squall, false), expected)
          << "page " << d << ": " << kEquivalentSelectors[e].squall << " as "
          << kEquivalentSelectors[e].cssselect;
      ++compared;
    }
  }
  std::cout << "compared " << compared << " selections (" << selectors.size() + pseudo.size()
            << " selectors on " << pages.size() << " pages, " << refused << " refused by both, "
            << nodes << " nodes selected)\n";
}

}  // namespace
}  // namespace squall
