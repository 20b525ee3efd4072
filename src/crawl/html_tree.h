// The libxml2 tree behind HtmlDocument and Selector, and the XPath evaluation both use (private to
// src/crawl).
#pragma once

#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>

#include <optional>
#include <string>
#include <string_view>

#include "squall/crawl/tree_arena.h"
#include "squall/url/url.h"

namespace squall::detail {

// A parsed page. libxml2's tree is never modified after parsing, so any number of Selectors may
// point into it.
struct HtmlTree {
  xmlDocPtr doc = nullptr;  // never null: an empty page is an empty document
  // The nodes of `doc` when squall's tree builder made it (nodes_in_arena): the document is then
  // freed with free_arena_html_tree and its nodes with the arena. libxml2's parser makes nodes of
  // its own, which xmlFreeDoc frees.
  TreeArena arena;
  bool nodes_in_arena = false;

  HtmlTree() = default;
  ~HtmlTree();
  HtmlTree(const HtmlTree&) = delete;
  HtmlTree& operator=(const HtmlTree&) = delete;

  // The first <base href> resolved against the URL the page was parsed with, else that URL;
  // nullopt when neither parses. Found on first use (the tree has one thread at a time).
  const std::optional<Url>& base_url() const;

 private:
  mutable bool base_known_ = false;
  mutable std::optional<Url> base_url_;
};

// One XPath expression compiled (or taken from the thread's cache of compiled expressions) and
// evaluated against any number of context nodes of one document. libxml2's messages are collected
// instead of printed while it lives, so it must live on the stack of the call that uses it.
class XPathEvaluation {
 public:
  explicit XPathEvaluation(xmlDocPtr doc);
  ~XPathEvaluation();
  XPathEvaluation(const XPathEvaluation&) = delete;
  XPathEvaluation& operator=(const XPathEvaluation&) = delete;

  // False, with error() "invalid XPath expression '<expression>': <why>", when it does not
  // compile.
  bool compile(std::string_view expression);
  // The result with `node` as the context node, for the caller to free with xmlXPathFreeObject;
  // null, with error() "XPath expression '<expression>' failed: <why>", when evaluation fails.
  xmlXPathObjectPtr evaluate(xmlNodePtr node);
  const std::string& error() const noexcept { return error_; }

 private:
  xmlXPathContextPtr context_ = nullptr;
  xmlXPathCompExprPtr compiled_ = nullptr;
  bool cached_ = false;  // compiled_ belongs to the thread's cache of compiled expressions
  std::string expression_;
  std::string message_;  // libxml2's first message
  std::string error_;
  xmlGenericErrorFunc previous_handler_;
  void* previous_handler_context_;
};

// libxml2's string, freed, as a std::string ("" for null).
std::string take_xml_string(xmlChar* s);

}  // namespace squall::detail
