// Nodes of a parsed page, selected with CSS or XPath: what a crawl handler extracts data with.
//
// Selector and SelectorList are parsel's (Scrapy's response.css() and response.xpath()) over
// HtmlDocument's libxml2 tree; CSS goes through css_to_xpath (squall/crawl/css.h), so both kinds
// of selector run on one engine.
//
//   HtmlDocument doc = HtmlDocument::parse(body, charset, url);
//   for (const Selector& item : doc.css("div.item")) {
//     std::string title = item.css("h2::text").get();
//     std::optional<std::string> href = item.css("a").attr("href");
//     std::string price = item.xpath(".//span[@class='price']/text()").get("n/a");
//   }
//   std::vector<std::string> tags = doc.css("ul.tags > li ::text").getall();
//   std::vector<Url> next = doc.css("a.next").links();  // resolved against the page's URL
//   SelectorList bad = doc.css("a[");  // !bad.ok(); bad.error() says where and what was expected
//
// A Selector is one node of the tree (the document, an element, a text node, an attribute, a
// comment) or a value an XPath expression computed ("count(//a)" gives one Selector, "2"). It
// holds a shared pointer to the tree, so the tree lives as long as any Selector on it does, and
// copying one is cheap.
//
// css() and xpath() never throw except std::bad_alloc: a selector or expression that does not
// translate, compile or evaluate gives a SelectorList whose error() says why, and css() or
// xpath() on that list gives the same error again. The selector is translated and compiled
// before anything is evaluated, so it is reported even when there is nothing to select from.
// Results are in document order; chaining from a list concatenates each member's results in the
// list's order (a node may then appear twice, as in parsel).
//
// A tree and every Selector on it belong to one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "squall/url/url.h"

namespace squall {

namespace detail {
struct HtmlTree;
}

class HtmlDocument;
class SelectorList;

enum class SelectorKind : uint8_t {
  Document,
  Element,
  Text,  // a text or CDATA node
  Attribute,
  Comment,
  Other,  // a processing instruction or the doctype
  Value,  // a string, number or boolean an XPath expression computed, or a namespace node's URI
};

class Selector {
 public:
  SelectorKind kind() const noexcept;

  // The nodes `selector` matches at or under this node ("div" from a div includes the div
  // itself, as in parsel; ":scope > a" is its child links only).
  SelectorList css(std::string_view selector) const;
  // The result of `expression` with this node as the context node: ".//a" is relative to it,
  // "//a" is the whole document's.
  SelectorList xpath(std::string_view expression) const;

  // parsel's get(): the markup of an element, the document, a comment or the doctype (html());
  // the text of a text node, the value of an attribute, a value's string (text()).
  std::string get() const;
  // The XPath string value: all the text under an element or the document, a text node's or
  // comment's text, an attribute's value, a value's string.
  std::string text() const;
  // The node as HTML markup: an element with its tags and content (its outer HTML), the whole
  // document, a text node escaped, a comment with its <!-- -->; an attribute or a value gives
  // text().
  std::string html() const;
  // The value of this element's attribute `name` (ASCII case-insensitive, as HTML's names are);
  // nullopt when it has none, or this is not an element.
  std::optional<std::string> attr(std::string_view name) const;
  // This element's attributes as (name, value) pairs in source order; empty for other kinds.
  std::vector<std::pair<std::string, std::string>> attributes() const;
  // The element's or attribute's name ("a", "href"); empty for other kinds.
  std::string name() const;
  // An XPath expression that selects this node alone from the document, as libxml2 and lxml's
  // getpath() write it: "/html/body/div[2]/a". Empty for a value.
  std::string path() const;
  // The href of every <a> and <area> at or under this node, resolved against the document's base
  // URL (its first <base href> resolved against the URL given to HtmlDocument::parse, else that
  // URL), with the page's encoding for queries; in document order, duplicates kept. An href that
  // does not resolve (relative, with no document URL) is left out.
  std::vector<Url> links() const;

 private:
  friend class HtmlDocument;
  friend class SelectorList;

  Selector(std::shared_ptr<const detail::HtmlTree> tree, void* node)
      : tree_(std::move(tree)), node_(node) {}
  explicit Selector(std::string value) : value_(std::move(value)) {}
  // links(), appended to `out`.
  void add_links(std::vector<Url>& out) const;

  std::shared_ptr<const detail::HtmlTree> tree_;  // null for a value
  void* node_ = nullptr;                          // an xmlNode (or xmlAttr, xmlDoc) in tree_
  std::string value_;
};

// The outcome of a css() or xpath() call: the selectors it found, or why there are none.
class SelectorList {
 public:
  SelectorList() = default;
  explicit SelectorList(std::vector<Selector> selectors) : selectors_(std::move(selectors)) {}
  static SelectorList failure(std::string error);

  bool ok() const noexcept { return error_.empty(); }
  // What went wrong, naming the selector or expression; empty when ok().
  const std::string& error() const noexcept { return error_; }

  bool empty() const noexcept { return selectors_.empty(); }
  size_t size() const noexcept { return selectors_.size(); }
  const Selector& operator[](size_t i) const { return selectors_[i]; }
  std::vector<Selector>::const_iterator begin() const noexcept { return selectors_.begin(); }
  std::vector<Selector>::const_iterator end() const noexcept { return selectors_.end(); }

  // css() and xpath() of every member, concatenated; an error when this list is one.
  SelectorList css(std::string_view selector) const;
  SelectorList xpath(std::string_view expression) const;

  // The first member's get(), or `fallback` when there is none.
  std::string get(std::string_view fallback = {}) const;
  // Every member's get().
  std::vector<std::string> getall() const;
  // The first member's attr(name); nullopt when the list is empty.
  std::optional<std::string> attr(std::string_view name) const;
  // Every member's links(), concatenated.
  std::vector<Url> links() const;

 private:
  friend class Selector;

  // The result of `query`, a CSS selector or an XPath expression, from each of `contexts`.
  static SelectorList select(const Selector* contexts, size_t count, std::string_view query,
                             bool is_css);

  std::vector<Selector> selectors_;
  std::string error_;
};

}  // namespace squall
