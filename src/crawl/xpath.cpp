// HtmlDocument and XPath evaluation over libxml2's HTML parser.
#include "squall/crawl/xpath.h"

#include <libxml/HTMLtree.h>
#include <libxml/xpathInternals.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "html_tree.h"
#include "squall/crawl/html_tree_builder.h"

namespace squall {

namespace detail {

namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Collects libxml2's structured errors for one evaluation; the first message names the problem.
void collect_error(void* user_data, xmlErrorPtr error) {
  auto* message = static_cast<std::string*>(user_data);
  if (error == nullptr || error->message == nullptr || !message->empty()) return;
  *message = trimmed(error->message);
  if (message->empty()) *message = "unknown error";
}

// libxml2 reports some evaluation errors ("function not found") through its generic, printf-like
// handler instead of the context's; this one keeps the first message instead of printing it.
void collect_generic_error(void* user_data, const char* format, ...) {
  auto* message = static_cast<std::string*>(user_data);
  if (!message->empty()) return;
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  *message = trimmed(buf);
}

}  // namespace

HtmlTree::~HtmlTree() {
  if (doc == nullptr) return;
  if (nodes_in_arena)
    free_arena_html_tree(doc);
  else
    xmlFreeDoc(doc);
}

std::string take_xml_string(xmlChar* s) {
  std::string out = s ? reinterpret_cast<const char*>(s) : "";
  xmlFree(s);
  return out;
}

namespace {

// XPath contexts kept for reuse on this thread: making one registers every XPath function in a
// new hash table, which costs more than most evaluations. A context is tied to no document until
// an evaluation sets one, and evaluations may nest, so each takes a context of its own.
struct ContextPool {
  std::vector<xmlXPathContextPtr> free;
  ~ContextPool() {
    for (xmlXPathContextPtr c : free) xmlXPathFreeContext(c);
  }
};
thread_local ContextPool context_pool;
constexpr size_t kPooledContexts = 4;

// Expressions compiled once on this thread and kept, by their text: a handler selects with the
// same few expressions on every page, and compiling one costs about as much as evaluating it on
// a small page. A compiled expression depends on no document (the pooled contexts have no
// dictionary) and evaluation does not change it, so nested evaluations may share one. Entries
// are never evicted, since an evaluation further up the stack may be using any of them; past
// the cap, or for a long expression, the evaluation compiles and frees its own.
struct CompiledCache {
  std::unordered_map<std::string, xmlXPathCompExprPtr> expressions;
  ~CompiledCache() {
    for (auto& [text, compiled] : expressions) xmlXPathFreeCompExpr(compiled);
  }
};
thread_local CompiledCache compiled_cache;
constexpr size_t kCachedExpressions = 256;
constexpr size_t kMaxCachedExpressionBytes = 4096;

}  // namespace

XPathEvaluation::XPathEvaluation(xmlDocPtr doc)
    : previous_handler_(xmlGenericError), previous_handler_context_(xmlGenericErrorContext) {
  if (!context_pool.free.empty()) {
    context_ = context_pool.free.back();
    context_pool.free.pop_back();
    context_->doc = doc;
  } else {
    context_ = xmlXPathNewContext(doc);
  }
  xmlSetGenericErrorFunc(&message_, collect_generic_error);
  if (context_) {
    context_->node = nullptr;
    context_->error = collect_error;
    context_->userData = &message_;
  }
}

XPathEvaluation::~XPathEvaluation() {
  if (compiled_ && !cached_) xmlXPathFreeCompExpr(compiled_);
  if (context_) {
    if (context_pool.free.size() < kPooledContexts) {
      context_->doc = nullptr;
      context_->node = nullptr;
      context_->userData = nullptr;
      context_pool.free.push_back(context_);
    } else {
      xmlXPathFreeContext(context_);
    }
  }
  xmlSetGenericErrorFunc(previous_handler_context_, previous_handler_);
}

bool XPathEvaluation::compile(std::string_view expression) {
  expression_ = expression;
  if (context_ == nullptr) {
    error_ = "out of memory creating an XPath context";
    return false;
  }
  if (expression_.find('\0') != std::string::npos) {
    error_ = "invalid XPath expression: it contains a NUL byte";
    return false;
  }
  if (auto it = compiled_cache.expressions.find(expression_);
      it != compiled_cache.expressions.end()) {
    compiled_ = it->second;
    cached_ = true;
    return true;
  }
  compiled_ = xmlXPathCtxtCompile(context_, BAD_CAST expression_.c_str());
  if (compiled_ == nullptr) {
    error_ = "invalid XPath expression '" + expression_ +
             "': " + (message_.empty() ? "syntax error" : message_);
    return false;
  }
  if (compiled_cache.expressions.size() < kCachedExpressions &&
      expression_.size() <= kMaxCachedExpressionBytes) {
    compiled_cache.expressions.emplace(expression_, compiled_);
    cached_ = true;
  }
  return true;
}

xmlXPathObjectPtr XPathEvaluation::evaluate(xmlNodePtr node) {
  context_->node = node;
  xmlXPathObjectPtr object = xmlXPathCompiledEval(compiled_, context_);
  if (object == nullptr) {
    error_ = "XPath expression '" + expression_ +
             "' failed: " + (message_.empty() ? "evaluation error" : message_);
  }
  return object;
}

}  // namespace detail

XPathResult XPathResult::values(std::vector<std::string> values) {
  XPathResult result;
  result.values_ = std::move(values);
  return result;
}

XPathResult XPathResult::failure(std::string error) {
  XPathResult result;
  result.error_ = error.empty() ? "XPath failed" : std::move(error);
  return result;
}

HtmlDocument::HtmlDocument(std::shared_ptr<const detail::HtmlTree> tree) : tree_(std::move(tree)) {}
HtmlDocument::HtmlDocument(HtmlDocument&&) noexcept = default;
HtmlDocument& HtmlDocument::operator=(HtmlDocument&&) noexcept = default;
HtmlDocument::~HtmlDocument() = default;

HtmlDocument HtmlDocument::parse(std::string_view html, const std::string& encoding,
                                 const std::string& url) {
  xmlInitParser();
  auto tree = std::make_shared<detail::HtmlTree>();
  // A UTF-8 page (by its label, or by its <meta> when it has none) gets squall's tree builder,
  // which makes libxml2's tree in a fraction of its parser's time; pages it does not mirror, and
  // other encodings, get the parser.
  if (encoding.empty() || is_utf8_label(encoding)) {
    tree->doc = build_html_tree(html, encoding.empty() ? nullptr : encoding.c_str(),
                                url.empty() ? nullptr : url.c_str(), tree->arena);
    tree->nodes_in_arena = tree->doc != nullptr;
  }
  if (tree->doc == nullptr) {
    // libxml2 takes an int length; a page beyond 2 GiB is cut there.
    const int size = static_cast<int>(
        std::min<size_t>(html.size(), static_cast<size_t>(std::numeric_limits<int>::max())));
    tree->doc = htmlReadMemory(
        html.data(), size, url.empty() ? nullptr : url.c_str(),
        encoding.empty() ? nullptr : encoding.c_str(),
        HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
  }
  // An empty page gives no tree; an empty document lets expressions compile, report their
  // errors and select nothing.
  if (tree->doc == nullptr) {
    tree->doc = htmlNewDocNoDtD(nullptr, nullptr);
    if (tree->doc == nullptr) throw std::bad_alloc();
    if (!url.empty()) tree->doc->URL = xmlStrdup(BAD_CAST url.c_str());
  }
  return HtmlDocument(std::move(tree));
}

XPathResult HtmlDocument::xpath(std::string_view expression) const {
  detail::XPathEvaluation evaluation(tree_->doc);
  if (!evaluation.compile(expression)) return XPathResult::failure(evaluation.error());
  xmlXPathObjectPtr object = evaluation.evaluate(reinterpret_cast<xmlNodePtr>(tree_->doc));
  if (object == nullptr) return XPathResult::failure(evaluation.error());
  std::vector<std::string> values;
  if (object->type == XPATH_NODESET) {
    const xmlNodeSetPtr nodes = object->nodesetval;
    const int count = nodes ? nodes->nodeNr : 0;
    values.reserve(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      values.push_back(detail::take_xml_string(xmlXPathCastNodeToString(nodes->nodeTab[i])));
    }
  } else {
    values.push_back(detail::take_xml_string(xmlXPathCastToString(object)));
  }
  xmlXPathFreeObject(object);
  return XPathResult::values(std::move(values));
}

Selector HtmlDocument::root() const {
  xmlNodePtr element = xmlDocGetRootElement(tree_->doc);
  return Selector(tree_, element ? element : reinterpret_cast<xmlNodePtr>(tree_->doc));
}

SelectorList HtmlDocument::css(std::string_view selector) const {
  return root().css(selector);
}

}  // namespace squall
