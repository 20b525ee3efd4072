// XPath 1.0 over an HTML page parsed by libxml2: data extraction for the processor.
//
// HtmlDocument gives the tree libxml2's HTML parser (the one under lxml, which Scrapy and
// pyspider extract through) makes in recovery mode, without network access and without printing
// errors, so any bytes give a tree. A UTF-8 page (by its label, or by its <meta> charset when it
// has none) is built by squall's own tree builder instead, which makes the same libxml2 tree in
// about a fifth of the parser's time and leaves to the parser the pages whose tree it does not
// mirror. xpath() evaluates an expression against it and returns strings:
// - a node-set gives each node's string-value in document order (the text content of an
//   element, the value of an attribute, the text of a text node);
// - a string, number or boolean gives one string (numbers as XPath's string() writes them,
//   booleans as "true"/"false").
// A malformed expression, or one that fails to evaluate (an unknown function, a wrong argument
// type), gives an XPathResult whose error() says why; nothing throws or prints. The context node
// is the document node, so "//a" and "html/body" both work.
//
// For nodes rather than strings (chaining, attributes, outer HTML) and for CSS selectors, start
// from root() or css(): squall/crawl/selector.h.
//
// A document and every Selector on its tree belong to one thread at a time. libxml2's global
// state is initialised on first use (xmlInitParser is thread-safe).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "squall/crawl/selector.h"

namespace squall {

// The outcome of one XPath evaluation: the values, or the reason there are none.
class XPathResult {
 public:
  static XPathResult values(std::vector<std::string> values);
  static XPathResult failure(std::string error);

  bool ok() const noexcept { return error_.empty(); }
  explicit operator bool() const noexcept { return ok(); }
  // The strings the expression selected; empty when !ok() or nothing matched.
  const std::vector<std::string>& values() const noexcept { return values_; }
  // What went wrong, e.g. "invalid XPath expression 'a[': Invalid predicate"; empty when ok().
  const std::string& error() const noexcept { return error_; }

 private:
  std::vector<std::string> values_;
  std::string error_;
};

class HtmlDocument {
 public:
  // Parses `html`. `encoding` is the page's charset label (from headers or sniffing); empty lets
  // libxml2 use the <meta> charset or its default. `url` becomes the document's URL.
  static HtmlDocument parse(std::string_view html, const std::string& encoding = {},
                            const std::string& url = {});

  HtmlDocument(HtmlDocument&&) noexcept;
  HtmlDocument& operator=(HtmlDocument&&) noexcept;
  ~HtmlDocument();

  // Evaluates `expression` with the document node as context. Never throws except
  // std::bad_alloc.
  XPathResult xpath(std::string_view expression) const;

  // The root element (<html>) as a Selector, to select nodes from with css() and xpath(), as
  // parsel's Selector(text=...) is: "body" and ":scope > body" select the body, "//a" every
  // link. The document node when there is no element (an empty page). It shares the tree: the
  // tree lives while this document or any Selector on it does.
  Selector root() const;
  // root().css(selector): the elements (or, with ::text and ::attr(), the nodes) a CSS selector
  // matches, in document order.
  SelectorList css(std::string_view selector) const;

 private:
  explicit HtmlDocument(std::shared_ptr<const detail::HtmlTree> tree);
  std::shared_ptr<const detail::HtmlTree> tree_;
};

}  // namespace squall
