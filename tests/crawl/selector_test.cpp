// Tests for Selector and SelectorList: selecting, chaining, reading nodes, errors and lifetimes.
#include "squall/crawl/selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "squall/crawl/xpath.h"
#include "squall/url/ascii.h"
#include "support/bytes.h"

namespace squall {
namespace {

using Strings = std::vector<std::string>;

constexpr std::string_view kShop = R"(<!DOCTYPE html>
<html><head><title>Shop</title><base target=_blank><base href="/catalog/"></head>
<body>
<div class="item" id="i1"><h2>One &amp; only</h2><a href="one.html" title="First">One</a>
<span class=price>1.50</span></div>
<div class="item" id="i2"><h2>Caf&eacute;</h2><a href="/two?q=1">Two <b>bold</b></a>
<span class=price>2.25</span></div>
<!-- a comment -->
<p>tail <a href="http://other.example/x">other</a> <area href="mailto:x@example.com"></p>
</body></html>)";

HtmlDocument shop(const std::string& url = "http://shop.example/a/index.html") {
  const test::ExactBytes bytes(kShop);
  return HtmlDocument::parse(bytes.view(), {}, url);
}

Strings texts(const SelectorList& list) {
  Strings out;
  for (const Selector& s : list) out.push_back(s.text());
  return out;
}

TEST(Selector, SelectsElementsWithCssAndXPathInDocumentOrder) {
  const HtmlDocument doc = shop();
  const SelectorList items = doc.css("div.item");
  ASSERT_TRUE(items.ok()) << items.error();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].attr("id"), "i1");
  EXPECT_EQ(items[1].kind(), SelectorKind::Element);
  EXPECT_EQ(texts(doc.css("h2")), (Strings{"One & only", "Caf\xC3\xA9"}));
  EXPECT_EQ(texts(doc.root().xpath("//h2")), texts(doc.css("h2")));
  EXPECT_EQ(texts(doc.root().xpath("body/div/h2")), texts(doc.css("h2")));  // relative to <html>
}

TEST(Selector, ChainsFromANodeToItsDescendants) {
  const HtmlDocument doc = shop();
  const SelectorList items = doc.css(".item");
  EXPECT_EQ(items[1].css("a").get(), "<a href=\"/two?q=1\">Two <b>bold</b></a>");
  EXPECT_EQ(items[1].css("a::text").getall(), (Strings{"Two "}));
  EXPECT_EQ(items[1].css("div").size(), 1u);  // the node itself, as in parsel
  EXPECT_TRUE(items[1].css(":scope > b").empty());
  EXPECT_EQ(items[0].xpath(".//span/text()").get(), "1.50");
  EXPECT_EQ(items[0].xpath("//span").size(), 2u);  // an absolute path is the document's
  // A list chains through each member, in order.
  EXPECT_EQ(items.css(".price::text").getall(), (Strings{"1.50", "2.25"}));
  EXPECT_EQ(items.xpath("./h2").css("::text").getall(), (Strings{"One & only", "Caf\xC3\xA9"}));
}

TEST(Selector, GetsMarkupForElementsAndTextForTheRest) {
  const HtmlDocument doc = shop();
  EXPECT_EQ(doc.css("h2").get(), "<h2>One &amp; only</h2>");  // not the text after it
  EXPECT_EQ(doc.css("h2::text").get(), "One & only");
  EXPECT_EQ(doc.css("a::attr(href)").getall(),
            (Strings{"one.html", "/two?q=1", "http://other.example/x"}));
  EXPECT_EQ(doc.css("h2 + a").getall()[0], "<a href=\"one.html\" title=\"First\">One</a>");
  EXPECT_EQ(doc.css("nothing").get(), "");
  EXPECT_EQ(doc.css("nothing").get("n/a"), "n/a");
  EXPECT_TRUE(doc.css("nothing").getall().empty());
  const SelectorList comments = doc.root().xpath("//comment()");
  ASSERT_EQ(comments.size(), 1u);
  EXPECT_EQ(comments[0].kind(), SelectorKind::Comment);
  EXPECT_EQ(comments.get(), "<!-- a comment -->");
  EXPECT_EQ(comments[0].text(), " a comment ");
}

TEST(Selector, SerializesOuterHtmlAsUtf8) {
  const HtmlDocument doc = HtmlDocument::parse(
      "<p class=\"a&quot;b\" title=\"caf&eacute;\">caf&eacute; &lt;x&gt; &amp; "
      "\xE2\x82\xAC<br>end</p>"
      "<script>if (a < b) x();</script>");
  EXPECT_EQ(
      doc.css("p").get(),
      "<p class='a\"b' title=\"caf\xC3\xA9\">caf\xC3\xA9 &lt;x&gt; &amp; \xE2\x82\xAC<br>end</p>");
  EXPECT_EQ(doc.css("script").get(), "<script>if (a < b) x();</script>");
  EXPECT_EQ(doc.css("p::text")[0].html(), "caf\xC3\xA9 &lt;x&gt; &amp; \xE2\x82\xAC");
}

TEST(Selector, ReadsTextAttributesNamesAndPaths) {
  const HtmlDocument doc = shop();
  const Selector a = doc.css("a")[1];
  EXPECT_EQ(a.text(), "Two bold");
  EXPECT_EQ(a.name(), "a");
  EXPECT_EQ(a.path(), "/html/body/div[2]/a");
  EXPECT_EQ(a.attr("HREF"), "/two?q=1");
  EXPECT_EQ(a.attr("title"), std::nullopt);
  EXPECT_EQ(doc.css("a").attr("title"), "First");
  EXPECT_EQ(doc.css("nothing").attr("title"), std::nullopt);
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(doc.css("a")[0].attributes(), (Pairs{{"href", "one.html"}, {"title", "First"}}));
  const Selector href = doc.css("a::attr(href)")[0];
  EXPECT_EQ(href.kind(), SelectorKind::Attribute);
  EXPECT_EQ(href.name(), "href");
  EXPECT_EQ(href.html(), "one.html");
  EXPECT_EQ(href.attr("x"), std::nullopt);
  EXPECT_TRUE(href.attributes().empty());
  EXPECT_EQ(doc.css("h2::text")[0].kind(), SelectorKind::Text);
  EXPECT_EQ(doc.css("h2::text")[0].name(), "");
  EXPECT_EQ(doc.root().kind(), SelectorKind::Element);
  EXPECT_EQ(doc.root().name(), "html");
  EXPECT_EQ(doc.root().xpath("/").get().substr(0, 15), "<!DOCTYPE html>");
  EXPECT_EQ(doc.root().xpath("/")[0].kind(), SelectorKind::Document);
}

TEST(Selector, AnswersScalarExpressionsWithValues) {
  const HtmlDocument doc = shop();
  EXPECT_EQ(doc.root().xpath("count(//a)").get(), "3");
  EXPECT_EQ(doc.root().xpath("sum(//span)").get(), "3.75");
  EXPECT_EQ(doc.root().xpath("boolean(//table)").get(), "false");
  const SelectorList value = doc.root().xpath("string(//title)");
  ASSERT_EQ(value.size(), 1u);
  EXPECT_EQ(value[0].kind(), SelectorKind::Value);
  EXPECT_EQ(value[0].text(), "Shop");
  EXPECT_EQ(value[0].html(), "Shop");
  EXPECT_EQ(value[0].path(), "");
  const SelectorList from_value = value.css("a");
  EXPECT_FALSE(from_value.ok());
  EXPECT_NE(from_value.error().find("cannot select from a value (\"Shop\")"), std::string::npos)
      << from_value.error();
  // A long value is cut, at a character boundary.
  const std::string long_value =
      doc.root().xpath("concat('" + std::string(39, 'a') + "\xC3\xA9', 'tail')").css("a").error();
  EXPECT_NE(long_value.find("(\"" + std::string(39, 'a') + "...\")"), std::string::npos)
      << long_value;
}

TEST(Selector, KeepsNamespaceNodesAsValues) {
  const HtmlDocument doc = shop();
  const SelectorList ns = doc.root().xpath("//a/namespace::*");
  ASSERT_TRUE(ns.ok()) << ns.error();
  ASSERT_FALSE(ns.empty());
  EXPECT_EQ(ns[0].kind(), SelectorKind::Value);
  EXPECT_EQ(ns[0].get(), "http://www.w3.org/XML/1998/namespace");
}

TEST(Selector, ResolvesLinksAgainstTheBaseUrl) {
  const HtmlDocument doc = shop();
  Strings hrefs;
  for (const Url& url : doc.root().links()) hrefs.emplace_back(url.href());
  EXPECT_EQ(hrefs, (Strings{"http://shop.example/catalog/one.html", "http://shop.example/two?q=1",
                            "http://other.example/x", "mailto:x@example.com"}));
  Strings second;
  for (const Url& url : doc.css(".item")[1].links()) second.emplace_back(url.href());
  EXPECT_EQ(second, (Strings{"http://shop.example/two?q=1"}));
  EXPECT_EQ(doc.css(".item").links().size(), 2u);
  EXPECT_TRUE(doc.css("h2::text")[0].links().empty());
}

TEST(Selector, LeavesOutLinksThatDoNotResolve) {
  const HtmlDocument doc = shop("");
  Strings hrefs;
  for (const Url& url : doc.root().links()) hrefs.emplace_back(url.href());
  EXPECT_EQ(hrefs, (Strings{"http://other.example/x", "mailto:x@example.com"}));
}

TEST(Selector, EncodesLinkQueriesInThePagesEncoding) {
  const HtmlDocument doc =
      HtmlDocument::parse("<a href='?q=caf\xE9'>x</a>", "windows-1252", "http://example.com/p");
  ASSERT_EQ(doc.root().links().size(), 1u);
  EXPECT_EQ(doc.root().links()[0].href(), "http://example.com/p?q=caf%E9");
}

TEST(Selector, ReportsBadSelectorsAndExpressionsAsErrors) {
  const HtmlDocument doc = shop();
  const SelectorList bad = doc.css("div[");
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(bad.empty());
  EXPECT_EQ(bad.error(),
            "invalid CSS selector 'div[' at offset 4: expected an attribute name after '[', "
            "found the end of the selector");
  EXPECT_EQ(bad.css("a").error(), bad.error());  // chaining keeps the first error
  EXPECT_EQ(bad.xpath("//a").error(), bad.error());
  EXPECT_EQ(bad.get("x"), "x");
  const SelectorList xbad = doc.root().xpath("//a[");
  EXPECT_FALSE(xbad.ok());
  EXPECT_NE(xbad.error().find("invalid XPath expression '//a['"), std::string::npos);
  EXPECT_FALSE(doc.root().xpath("").ok());
  const SelectorList unknown = doc.root().xpath("nope(//a)");
  EXPECT_NE(unknown.error().find("XPath expression 'nope(//a)' failed"), std::string::npos)
      << unknown.error();
  // Reported even with nothing to select from.
  const SelectorList none = doc.css("nothing");
  EXPECT_TRUE(none.ok());
  EXPECT_FALSE(none.css("a[").ok());
  EXPECT_FALSE(none.xpath("a[").ok());
  EXPECT_FALSE(SelectorList().css(":foo").ok());
}

TEST(Selector, WorksOnAnEmptyPage) {
  const HtmlDocument doc = HtmlDocument::parse("");
  EXPECT_EQ(doc.root().kind(), SelectorKind::Document);
  EXPECT_TRUE(doc.css("a").ok());
  EXPECT_TRUE(doc.css("a").empty());
  EXPECT_FALSE(doc.css("a[").ok());
  EXPECT_EQ(doc.root().xpath("count(//a)").get(), "0");
  EXPECT_TRUE(doc.root().links().empty());
}

TEST(Selector, OutlivesItsDocument) {
  SelectorList links;
  Selector title = [] {
    const HtmlDocument doc = shop();
    return doc.css("title")[0];
  }();
  {
    HtmlDocument doc = shop();
    links = doc.css("a");
    HtmlDocument moved = std::move(doc);
  }
  EXPECT_EQ(title.text(), "Shop");
  EXPECT_EQ(links.size(), 3u);
  EXPECT_EQ(links.css("b::text").get(), "bold");
  EXPECT_EQ(links[0].links()[0].href(), "http://shop.example/catalog/one.html");
}

TEST(Selector, ChainsAcrossDocuments) {
  const HtmlDocument a = HtmlDocument::parse("<p><b>a</b></p>");
  const HtmlDocument b = HtmlDocument::parse("<p><b>b</b><b>c</b></p>");
  std::vector<Selector> both;
  for (const Selector& s : a.css("p")) both.push_back(s);
  for (const Selector& s : b.css("p")) both.push_back(s);
  EXPECT_EQ(SelectorList(both).css("b::text").getall(), (Strings{"a", "b", "c"}));
  EXPECT_EQ(SelectorList(both).xpath("count(b)").getall(), (Strings{"1", "2"}));
}

// The nodes a list holds, by identity and in order: kind, path and markup.
Strings nodes(const SelectorList& list) {
  Strings out{list.ok() ? "ok" : list.error()};
  for (const Selector& s : list) {
    out.push_back(std::to_string(static_cast<int>(s.kind())) + " " + s.path() + " " + s.get());
  }
  return out;
}

TEST(Selector, ABareElementNameSelectsTheNodesItsXPathDoesInTheSameOrder) {
  // Nested elements of one name with text on both sides of the inner one, CDATA, an element
  // name with a hyphen, comments and attributes that must not match.
  constexpr std::string_view kPage = R"(<!DOCTYPE html><html><head><title>T1</title>
<script>var a = "<div>";</script><style>p{}</style></head><body>
<div id=a>one<div id=b>two<span>three</span>four</div>five<!-- div --><p title=div>six</p>
<div id=c><o-p>seven</o-p></div>eight</div>
<p>nine<a href=x>ten</a></p><title>T2</title><a name=y>eleven</a>
</body></html>)";
  for (const char* encoding : {"utf-8", "windows-1252"}) {  // an arena tree, libxml2's own
    const HtmlDocument doc = HtmlDocument::parse(kPage, encoding);
    const SelectorList divs = doc.css("div");
    const SelectorList mixed = doc.css("p, span");
    std::vector<Selector> contexts{doc.root(), doc.root().xpath("/")[0], divs[1], divs[0]};
    for (const Selector& s : mixed) contexts.push_back(s);
    const SelectorList lists[] = {SelectorList(contexts), divs, mixed};
    for (const char* name : {"div", "DIV", "span", "title", "a", "o-p", "script", "style", "p",
                             "html", "body", "nothing"}) {
      for (const std::string& css : {std::string(name), std::string(name) + "::text"}) {
        std::string xpath = "descendant-or-self::" + ascii_lower(name);
        if (css.ends_with("::text")) xpath += "/text()";
        for (const Selector& context : contexts) {
          EXPECT_EQ(nodes(context.css(css)), nodes(context.xpath(xpath)))
              << encoding << " " << css << " from " << context.path();
        }
        for (const SelectorList& list : lists) {
          EXPECT_EQ(nodes(list.css(css)), nodes(list.xpath(xpath))) << encoding << " " << css;
        }
      }
    }
    EXPECT_EQ(doc.css("div::text").getall(),
              (Strings{"one", "two", "four", "five", "\n", "eight"}));
    EXPECT_EQ(doc.css("title::text").getall(), (Strings{"T1", "T2"}));
    EXPECT_EQ(doc.css("script::text").getall(), (Strings{"var a = \"<div>\";"}));
    // A text or attribute node has no elements under it; a value has no nodes at all.
    const Selector text = doc.css("p::text")[0];
    EXPECT_EQ(nodes(text.css("p")), nodes(text.xpath("descendant-or-self::p")));
    const Selector attribute = doc.css("p::attr(title)")[0];
    EXPECT_EQ(nodes(attribute.css("p")), nodes(attribute.xpath("descendant-or-self::p")));
    const SelectorList count = doc.root().xpath("count(//p)");
    EXPECT_EQ(nodes(count.css("p")), nodes(count.xpath("descendant-or-self::p")));
    EXPECT_FALSE(count.css("p").ok());
  }
}

}  // namespace
}  // namespace squall
