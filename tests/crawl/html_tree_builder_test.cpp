// Tests for the tree builder: on every page it builds, the tree is the one libxml2's parser makes.
#include "squall/crawl/html_tree_builder.h"

#include <gtest/gtest.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "squall/crawl/selector.h"
#include "squall/crawl/xpath.h"
#include "support/bytes.h"
#include "support/process.h"
#include "support/site.h"

namespace squall {
namespace {

struct DocFree {
  void operator()(xmlDocPtr doc) const { xmlFreeDoc(doc); }
};
using Doc = std::unique_ptr<xmlDoc, DocFree>;

std::string str(const xmlChar* s) {
  return s ? reinterpret_cast<const char*>(s) : "(null)";
}

// Everything of a tree that selection and serialization can see, as text.
void dump(xmlNodePtr node, std::string& out, int depth) {
  for (; node != nullptr; node = node->next) {
    out += std::string(static_cast<size_t>(depth), ' ');
    switch (node->type) {
      case XML_ELEMENT_NODE:
        out += '<';
        out += str(node->name);
        for (xmlAttrPtr a = node->properties; a != nullptr; a = a->next) {
          out += ' ';
          out += str(a->name);
          if (a->children != nullptr) {
            out += "=[";
            for (xmlNodePtr v = a->children; v != nullptr; v = v->next)
              out += std::to_string(v->type) + ":" + str(v->content);
            out += "]";
          }
        }
        out += ">\n";
        dump(node->children, out, depth + 1);
        break;
      case XML_TEXT_NODE:
        out += "text[" + str(node->content) + "]\n";
        break;
      case XML_CDATA_SECTION_NODE:
        out += "cdata[" + str(node->content) + "]\n";
        break;
      case XML_COMMENT_NODE:
        out += "comment[" + str(node->content) + "]\n";
        break;
      case XML_DTD_NODE: {
        auto* dtd = reinterpret_cast<xmlDtdPtr>(node);
        out += "doctype " + str(dtd->name) + " " + str(dtd->ExternalID) + " " + str(dtd->SystemID) +
               "\n";
        break;
      }
      default:
        out += "node type " + std::to_string(node->type) + "\n";
        break;
    }
  }
}

std::string dump(xmlDocPtr doc) {
  std::string out =
      "document " + std::to_string(doc->type) + " url " + str(doc->URL) + " encoding " +
      str(doc->encoding) + " ids " +
      std::to_string(doc->ids ? xmlHashSize(static_cast<xmlHashTablePtr>(doc->ids)) : 0) + "\n";
  dump(doc->children, out, 0);
  return out;
}

// The first link of a tree that disagrees with another (a child's parent, prev and doc, a
// parent's last, an attribute's), as "" when every one agrees: what libxml2's walks, XPath axes
// and serializer rely on, which dump() does not show.
std::string broken_link(xmlNodePtr parent, xmlDocPtr doc) {
  xmlNodePtr prev = nullptr;
  for (xmlNodePtr node = parent->children; node != nullptr; node = node->next) {
    const std::string at = "under " + str(parent->name) + ", " + std::to_string(node->type) + " " +
                           str(node->name) + ": ";
    if (node->parent != parent) return at + "parent";
    if (node->prev != prev) return at + "prev";
    if (node->doc != doc) return at + "doc";
    if (node->next == nullptr && parent->last != node) return at + "parent's last";
    if (node->type == XML_ELEMENT_NODE) {
      xmlAttrPtr prev_attribute = nullptr;
      for (xmlAttrPtr a = node->properties; a != nullptr; a = a->next) {
        if (a->parent != node || a->prev != prev_attribute || a->doc != doc)
          return at + "attribute " + str(a->name);
        if (a->children != nullptr &&
            (a->children->parent != reinterpret_cast<xmlNodePtr>(a) || a->last != a->children ||
             a->children->doc != doc || a->children->next != nullptr))
          return at + "value of attribute " + str(a->name);
        prev_attribute = a;
      }
      std::string below = broken_link(node, doc);
      if (!below.empty()) return below;
    }
    prev = node;
  }
  return "";
}

// Where two dumps part, with the lines before, for a failure message that fits on a screen.
std::string first_difference(const std::string& got, const std::string& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  size_t from = i;
  for (int lines = 0; from > 0 && lines < 4; --from) lines += got[from - 1] == '\n';
  return "built:\n" + got.substr(from, i - from + 200) + "\nlibxml2:\n" +
         want.substr(from, i - from + 200);
}

Doc libxml2_tree(std::string_view html, const char* encoding, const char* url) {
  return Doc(htmlReadMemory(
      html.data(), static_cast<int>(html.size()), url, encoding,
      HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET));
}

// A tree build_html_tree made in an arena, freed as such.
struct ArenaTree {
  TreeArena arena;
  xmlDocPtr doc = nullptr;
  ArenaTree(std::string_view html, const char* encoding, const char* url)
      : doc(build_html_tree(html, encoding, url, arena)) {}
  ~ArenaTree() {
    if (doc) free_arena_html_tree(doc);
  }
};

// The builder's tree, in both of its forms, compared with libxml2's; false when the builder
// left the page to libxml2.
bool built_as_libxml2(std::string_view page, const char* encoding = "utf-8",
                      const char* url = "http://127.0.0.1/p/1.html") {
  xmlInitParser();
  const test::ExactBytes bytes(page);
  Doc built(build_html_tree(bytes.view(), encoding, url));
  const ArenaTree in_arena(bytes.view(), encoding, url);
  EXPECT_EQ(built != nullptr, in_arena.doc != nullptr) << page.substr(0, 300);
  if (!in_arena.doc) {
    EXPECT_EQ(in_arena.arena.bytes_held(), 0u);
  }
  if (!built) return false;
  Doc parsed = libxml2_tree(bytes.view(), encoding, url);
  EXPECT_TRUE(parsed != nullptr);
  if (parsed) {
    const std::string want = dump(parsed.get()), got = dump(built.get());
    EXPECT_TRUE(got == want) << first_difference(got, want) << "\npage:\n" << page.substr(0, 300);
    EXPECT_EQ(broken_link(reinterpret_cast<xmlNodePtr>(built.get()), built.get()), "");
    if (in_arena.doc) {
      EXPECT_EQ(broken_link(reinterpret_cast<xmlNodePtr>(in_arena.doc), in_arena.doc), "");
      const std::string got_in_arena = dump(in_arena.doc);
      EXPECT_TRUE(got_in_arena == want)
          << "in an arena: " << first_difference(got_in_arena, want) << "\npage:\n"
          << page.substr(0, 300);
    }
  }
  return true;
}

std::vector<std::string> html_files(const std::filesystem::path& root, size_t limit) {
  std::vector<std::filesystem::path> paths;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".html") paths.push_back(it->path());
  }
  std::sort(paths.begin(), paths.end());
  if (paths.size() > limit) paths.resize(limit);
  std::vector<std::string> pages;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    pages.push_back(s.str());
  }
  return pages;
}

// The crawl suite's generated site (scripts/gensite.py): its `pages` pages and index.
std::vector<std::string> generated_site(int pages) {
  const test::TempDir dir;
  test::generate_site(dir.path() / "site", pages, "http://127.0.0.1:8080");
  return html_files(dir.path() / "site", static_cast<size_t>(pages) + 10);
}

TEST(HtmlTreeBuilder, BuildsEveryPageOfTheCrawlSuitesSiteAsLibxml2Does) {
  const std::vector<std::string> pages = generated_site(200);
  ASSERT_GT(pages.size(), 200u);
  size_t built = 0, built_by_meta = 0;
  for (const std::string& page : pages) {
    built += built_as_libxml2(page);
    // The site's server sends no charset: the pages' <meta charset=utf-8> says it.
    built_by_meta += built_as_libxml2(page, nullptr);
  }
  // Every page of the site, the bench's pages among them, takes the fast path.
  EXPECT_EQ(built, pages.size());
  EXPECT_EQ(built_by_meta, pages.size());
}

TEST(HtmlTreeBuilder, BuildsInstalledDocumentationAsLibxml2DoesOrLeavesItToLibxml2) {
  // Real pages, generated by Sphinx and others: whatever the builder builds must match.
  const std::vector<std::string> pages = html_files("/usr/share/doc", 400);
  if (pages.empty()) GTEST_SKIP() << "no HTML under /usr/share/doc";
  size_t built = 0, built_by_meta = 0;
  for (const std::string& page : pages) {
    built += built_as_libxml2(page);
    built_by_meta += built_as_libxml2(page, nullptr);
  }
  std::printf(
      "built %zu of %zu pages labelled UTF-8 and %zu unlabelled, the rest left to "
      "libxml2\n",
      built, pages.size(), built_by_meta);
}

// Pages whose libxml2 tree the builder mirrors: each must be built, and built the same.
TEST(HtmlTreeBuilder, MirrorsLibxml2sRecoveryRules) {
  const char* pages[] = {
      // the implied html, head and body, whitespace and the default doctype
      "<title>t</title><p>x",
      "<p>a<p>b",
      "  <p>x",
      "<html><head><title>t</title><body>x",
      "<html><head><a>x",
      "<html><head></head><a>x",
      "<html><head></head>\n<body>\n</body>\n</html>\n",
      "<html><link><p>x",
      "<html><head></head><title>t</title><p>x",
      "<html>\n<p>x",
      "<html><head><section>x</section><meta a=b></head><body>y",
      "<head><meta charset=utf-8></head><p>x",
      "<html lang=en><body class=a><p>x",
      "<html><head><title>t</title></head>\n<link rel=x>\n<script>1</script><meta a=b><body>x",
      "\n<!-- a -->\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" "
      "\"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\n<html>\n<head>\n<title>x</title>"
      "\n</head>\n<body>\n</body>\n</html>",
      "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\">\n<p>x",
      "<!doctype html>\n<p>x",
      "<!DOCTYPE html SYSTEM 'about:legacy-compat'><p>x",
      // start tags closing open elements, end tags closing or ignored
      "<body><p>x<div>y</div>z</p>",
      "<body><ul><li>a<ul><li>b</ul><li>c</ul>",
      "<body><select><option>a<option>b<optgroup><option>c</select>",
      "<body><table><tr><td>a<td>b<tr><th>c</table>",
      "<body><table><thead><tr><th>h<tbody><tr><td>a<tfoot><tr><td>f</table>",
      "<body><dl><dt>a<dd>b<dt>c</dl>",
      "<body><form><form>x</form>",
      "<body><a>1<a>2</a>",
      "<body><a><div>x</a>y</div>z",
      "<body><div><span>x</div>y",
      "<body><table><td>x</table></td>y",
      "<body><p>x</p></br></p><p>y",
      "<body><p>a</i>b</p></body>",
      "<body><p>a<table><tr><td>b</table>c",
      "<body><a href=x>1<p>2</p></a>",
      "<body><p><b>bold<p>x",
      "<body><h1>a<h2>b</h2></h1><p>c<h3>d",
      "<body><td><a>x<td>y",
      "<body>x</body></html>\n\n",
      "<body>x</body >\n<title>t</title><meta a=b>",
      "<title>t</title></head>\n<title>x<p>a",
      "<body><script>a</b>c</scr\" + \"ipt></ x</script><script><!-- y --></script>",
      // void elements, "/>", raw text
      "<body><A HREF=\"/P\">x</A><br/><div/>y<img src=a><source src=b>c</source>",
      "<body><script/>x<div/>y<p/>z<a/>w",
      "<body><script>var s = \"<a href=\\\"/p/175.html\\\">\";</script><style>a{}</style>",
      "<body><script>if (a<b) x = \"</scr\" + \"ipt>\";</script><script></script>x",
      "<body><script>a</SCRIPT >b",
      "<body><script>x</b>&amp;</script>y",
      // attributes
      "<body><a href=1 HREF=2 Class=c>x</a><a href=1 >x</a><a\thref = \"1\">x</a>",
      "<body><a href=\"x>y\" b='<' c=d/e f g=>t</a><img src=a alt=\"\">",
      "<body><h1 id=a-b.c_d:e data-x=\"1\" xml:lang=en>x</h1><h2x>y</h2x><o-p>z</o-p>",
      "<body><a id=x name=y>1</a><a name=z>2</a><p id=x>3",
      "<body><br class=x/>y<a href=\"a\"b='c'>d</a>",
      "<body><a href=\"\r\n x\r\n\">\r\n</a>",
      // references
      "<body><p>a & b && c &1 &amp d &lt;x &#38;&#x26; &unknown e &;</p>",
      "<body><a href=\"?a=1&b=2&amp;c=3&copy=4&bogus;&#65\">x</a>",
      "<body>a&amp;b&lt;&gt;&quot;&apos;&hellip;&eacute;&#128;&#x1F600;&nbsp;&Aacute",
      "<body><p>caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80</p>",
      // comments and text nodes
      "<body><p>a<!--b-->c</p>",
      "<body><!---->x<!-- a -- b -->y<!--->z-->w<!-- c --!>v<!-- d -!>-->u",
      "<div>\n<p>a</p>  <!-- c -->  \n<span> </span> </div>",
      "<body><textarea><b>x</b></textarea><title>&amp;</title><iframe><p>a</iframe>",
      "<body><noscript><p>x</p></noscript>",
      "<body>a<svg><path d=1/><circle r=2 /></svg>b",
  };
  for (const char* page : pages) {
    EXPECT_TRUE(built_as_libxml2(page)) << "left to libxml2:\n" << page;
    EXPECT_TRUE(built_as_libxml2(page, nullptr)) << "unlabelled, left to libxml2:\n" << page;
  }
}

// Pages whose libxml2 tree the builder does not mirror: they must be left to libxml2.
TEST(HtmlTreeBuilder, LeavesWhatItDoesNotMirrorToLibxml2) {
  const char* pages[] = {
      "",
      "hello",
      "<!-- only a comment -->",
      "<body>x</body>y",
      "<html><body><p>a</p></body></html><p>b",
      "<html><body><head><title>x</title>",
      "<html><p>x</p><head>",
      "<body>a < b",
      "<body>a <? pi ?> b",
      "<body><!doctype x>",
      "<body>a<x:y z=1>b</x:y>",
      "<body><p>&#0;&#xD800;&#99999999;&#;</p>",
      "<body><p>\x01</p>",
      "<body><p>\xC3</p>",
      "<body><p>\xEF\xBF\xBE</p>",
      "<body><script>unterminated",
      "<body><script>x</scriptx>",
      "<body><script></b>x</script>",
      "<body><script><b>x</script>",
      "&#10;<p>x",
      "<body><!-- unterminated",
      "<frameset><frame src=a></frameset>",
      "<body><a href='x",
  };
  for (const char* page : pages) {
    EXPECT_FALSE(built_as_libxml2(page)) << "built:\n" << page;
  }
}

TEST(HtmlTreeBuilder, ChecksEveryByteOfALongPageAtEveryPlace) {
  // The check reads printable ASCII in runs of 16 and 8 bytes: a byte it must stop at, in any
  // place of a run, still leaves the page to libxml2, and valid UTF-8 or whitespace there is
  // still built.
  const std::string text(40, 'x');
  for (size_t at = 0; at < text.size(); ++at) {
    auto page = [&](std::string_view bytes) {
      std::string out = "<body><p>" + text;
      out.replace(9 + at, bytes.size(), bytes);
      return out + "</p>";
    };
    for (const char* bad : {"\x01", "\x0B", "\x0C", "\x1F", "\x7F\x01", "\xC3", "\xFF",
                            "\xEF\xBF\xBE", "\xED\xA0\x80"})
      EXPECT_FALSE(built_as_libxml2(page(bad))) << at << " " << page(bad);
    for (const char* good :
         {"\t", "\n", "\r\n", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\x7F"})
      EXPECT_TRUE(built_as_libxml2(page(good))) << at << " " << page(good);
  }
}

TEST(HtmlTreeBuilder, LeavesAPageNestedPastLibxml2sDepthLimitToLibxml2) {
  std::string deep = "<body>";
  for (int i = 0; i < 300; ++i) deep += "<span>";
  EXPECT_FALSE(built_as_libxml2(deep));
  std::string shallow = "<body>";
  for (int i = 0; i < 200; ++i) shallow += "<span>";
  EXPECT_TRUE(built_as_libxml2(shallow));
}

TEST(HtmlTreeBuilder, TakesAnUnlabelledPagesEncodingFromItsFirstMetaAsLibxml2Does) {
  for (const char* page : {
           "<meta charset=utf-8><p>x",
           "<meta charset=UTF-8><p>x",
           "<meta charset=\" utf8\"><p>caf\xC3\xA9",
           "<meta http-equiv=Content-Type content=\"text/html; charset=utf-8\"><p>x",
           "<meta content=\"text/html;charset=UTF-8\" http-equiv=\"content-type\"><p>x",
           "<p>x</p><meta charset=utf-8>",
           "<meta charset=utf-8><meta charset=iso-8859-1><p>x",
           "<meta name=viewport content=x><meta charset=utf-8><p>x",
       }) {
    EXPECT_TRUE(built_as_libxml2(page, nullptr)) << page;
  }
  // Another encoding is libxml2's to decode.
  EXPECT_FALSE(built_as_libxml2("<meta charset=iso-8859-1><p>x", nullptr));
  EXPECT_FALSE(built_as_libxml2("<meta charset=iso-8859-1><p>x", "latin1"));
  EXPECT_FALSE(built_as_libxml2("\xEF\xBB\xBF<p>x", nullptr));
  EXPECT_FALSE(built_as_libxml2("\xEF\xBB\xBF<p>x", "utf-8"));
}

TEST(HtmlTreeBuilder, KeepsTheEncodingLabelAndTheUrlAsLibxml2Does) {
  EXPECT_TRUE(built_as_libxml2("<p>x", "UTF-8", "http://127.0.0.1/a b?q=1#f"));
  EXPECT_TRUE(built_as_libxml2("<p>x", "utf8", nullptr));
  EXPECT_TRUE(is_utf8_label("UTF-8"));
  EXPECT_FALSE(is_utf8_label("latin1"));
  EXPECT_FALSE(is_utf8_label(""));
}

TEST(HtmlTreeBuilder, SelectionsOnABuiltTreeGiveLibxml2sResults) {
  constexpr std::string_view kPage = R"(<!DOCTYPE html><html><head><meta charset=utf-8>
<title>Caf&eacute; &amp; bar</title><base href="/d/"></head><body>
<h1 id=top>Menu</h1><ul><li><a href="a.html#x">A</a><li><a href='/b?x=1&amp;y=2'>B</a></ul>
<p>one<p>two <a href=../c.html class="x y">C</a><!-- <a href="no.html"> -->
<script>var a = "<a href='no2.html'>";</script></body></html>)";
  const HtmlDocument built = HtmlDocument::parse(kPage, "utf-8", "http://127.0.0.1/p/1.html");
  const HtmlDocument parsed = HtmlDocument::parse(kPage, "", "http://127.0.0.1/p/1.html");
  for (const char* css : {"title::text", "a::attr(href)", "li", "p", "a.x", "#top::text"}) {
    EXPECT_EQ(built.css(css).getall(), parsed.css(css).getall()) << css;
  }
  for (const char* xpath : {"//a/@href", "count(//p)", "//text()", "id('top')/text()", "/*"}) {
    EXPECT_EQ(built.xpath(xpath).values(), parsed.xpath(xpath).values()) << xpath;
  }
  std::vector<std::string> built_links, parsed_links;
  for (const Url& u : built.css("a").links()) built_links.emplace_back(u.href());
  for (const Url& u : parsed.css("a").links()) parsed_links.emplace_back(u.href());
  EXPECT_EQ(built_links, parsed_links);
  EXPECT_EQ(built_links.size(), 3u);
  EXPECT_EQ(built.root().html(), parsed.root().html());
}

// Everything a handler reads through selectors, for one selection from a document.
std::vector<std::string> answers(const HtmlDocument& doc, const std::string& query, bool css) {
  const SelectorList list = css ? doc.css(query) : doc.root().xpath(query);
  std::vector<std::string> out{list.ok() ? "ok" : list.error()};
  for (const Selector& s : list) {
    out.push_back(std::to_string(static_cast<int>(s.kind())) + " " + s.name() + " " + s.path() +
                  " [" + s.text() + "] " + s.get());
    for (const auto& [name, value] : s.attributes()) out.push_back(name + "=" + value);
  }
  for (const Url& url : list.links()) out.emplace_back(url.href());
  return out;
}

// The same selections from the tree the builder makes in an arena (a page labelled UTF-8) and
// from libxml2's own parse of the same ASCII bytes (labelled windows-1252, which the builder
// leaves to libxml2).
void expect_same_answers(std::string_view page) {
  const std::string url = "http://127.0.0.1/p/1.html";
  ASSERT_TRUE(built_as_libxml2(page, "utf-8", url.c_str()));
  const HtmlDocument in_arena = HtmlDocument::parse(page, "utf-8", url);
  const HtmlDocument parsed = HtmlDocument::parse(page, "windows-1252", url);
  for (const char* css : {"title::text", "a", "a::attr(href)", "li", "p", "div", "div::text", "a.x",
                          "#top::text", "*", "div > p:first-child", "ul li:nth-child(2)",
                          "span:not(.c)", "p:has(a)", "input[checked]", "::text"}) {
    EXPECT_EQ(answers(in_arena, css, true), answers(parsed, css, true)) << css;
  }
  for (const char* xpath :
       {"//a/@href", "count(//p)", "//text()", "//comment()", "id('top')/text()", "id('n1')", "/*",
        "//node()", "//@*", "string(/)", "//li[last()]/preceding-sibling::li",
        "//*[@id]/ancestor::*", "//span/following::text()[1]", "//a | //p", "name(//*[5])",
        "//div[div]/descendant-or-self::div", "//script/text()", "sum(//@data-n)"}) {
    EXPECT_EQ(answers(in_arena, xpath, false), answers(parsed, xpath, false)) << xpath;
    EXPECT_EQ(in_arena.xpath(xpath).values(), parsed.xpath(xpath).values()) << xpath;
  }
  EXPECT_GE(in_arena.css("a").size(), 3u);
  EXPECT_EQ(in_arena.root().html(), parsed.root().html());
  EXPECT_EQ(in_arena.root().xpath("/").get(), parsed.root().xpath("/").get());
}

TEST(HtmlTreeBuilder, AnArenaTreeAnswersSelectorsAndXPathAsLibxml2sOwnTreeDoes) {
  expect_same_answers(R"(<!DOCTYPE html><html lang=en><head><meta charset=utf-8>
<title>Cafe &amp; bar</title><base href="/d/"><script>var a = "<a href='no.html'>";</script>
</head><body class="main page">
<!-- a comment before the heading -->
<h1 id=top data-n=3>Menu <span class=c>today</span></h1>
<div id=outer>outer text<div class=inner>inner <b>bold</b> text</div>tail text
  <p>first<p>second <a href=../c.html class="x y" title=C>C</a><!-- <a href="no2.html"> -->
</div>
<ul><li><a href="a.html#x" name=n1>A</a><li><a href='/b?x=1&amp;y=2'>B</a><li>three</ul>
<form><input type=checkbox checked><input name=q value="a &quot;b&quot;"></form>
<table><tr><td>1<td>2<tr><td>3</table>
<span>x</span><span class=c>y</span> trailing
</body></html>)");
}

TEST(HtmlTreeBuilder, AnArenaTreeOfManyNodesAnswersAsLibxml2sOwnTreeDoes) {
  // Thousands of nodes over many arena blocks, deep nesting and long text among them.
  std::string page = "<!DOCTYPE html><html><head><title>many</title></head><body>\n";
  for (int i = 0; i < 1500; ++i) {
    const std::string n = std::to_string(i);
    page += "<div id=d" + n + " class=\"c" + std::to_string(i % 7) + "\" data-n=" + n + "><p>t" +
            n + " <a href=/x/" + n + ".html>l" + n + "</a><!--c" + n + "--></p>" +
            (i % 100 == 0 ? std::string(20'000, 'w') : "") + "</div>\n";
  }
  for (int i = 0; i < 100; ++i) page += "<div>" + std::to_string(i);
  page += "</body></html>";
  expect_same_answers(page);
}

}  // namespace
}  // namespace squall
