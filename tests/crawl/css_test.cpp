// Tests for css_to_xpath: each construct selecting the elements it should, each error naming its
// offset, and the bounds.
#include "squall/crawl/css.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "squall/crawl/xpath.h"
#include "support/bytes.h"

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

}  // namespace
}  // namespace squall
