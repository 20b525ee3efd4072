// HtmlDocument and XPath evaluation over libxml2's HTML parser.
#include "squall/crawl/xpath.h"

#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <limits>
#include <utility>

namespace squall {

namespace {

// Collects libxml2's structured errors for one evaluation; the first message names the problem.
void collect_error(void* user_data, xmlErrorPtr error) {
  auto* message = static_cast<std::string*>(user_data);
  if (error == nullptr || error->message == nullptr || !message->empty()) return;
  std::string text = error->message;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  *message = text.empty() ? "unknown error" : text;
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
  std::string text = buf;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  *message = text;
}

// Routes this thread's generic libxml2 errors to collect_generic_error while alive.
class GenericErrorScope {
 public:
  explicit GenericErrorScope(std::string* message)
      : previous_(xmlGenericError), previous_context_(xmlGenericErrorContext) {
    xmlSetGenericErrorFunc(message, collect_generic_error);
  }
  ~GenericErrorScope() { xmlSetGenericErrorFunc(previous_context_, previous_); }
  GenericErrorScope(const GenericErrorScope&) = delete;
  GenericErrorScope& operator=(const GenericErrorScope&) = delete;

 private:
  xmlGenericErrorFunc previous_;
  void* previous_context_;
};

std::string take_string(xmlChar* s) {
  std::string out = s ? reinterpret_cast<const char*>(s) : "";
  xmlFree(s);
  return out;
}

}  // namespace

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

struct HtmlDocument::Impl {
  htmlDocPtr doc = nullptr;
  ~Impl() {
    if (doc) xmlFreeDoc(doc);
  }
};

HtmlDocument::HtmlDocument(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HtmlDocument::HtmlDocument(HtmlDocument&&) noexcept = default;
HtmlDocument& HtmlDocument::operator=(HtmlDocument&&) noexcept = default;
HtmlDocument::~HtmlDocument() = default;

HtmlDocument HtmlDocument::parse(std::string_view html, const std::string& encoding,
                                 const std::string& url) {
  xmlInitParser();
  auto impl = std::make_unique<Impl>();
  // libxml2 takes an int length; a page beyond 2 GiB is cut there.
  const int size = static_cast<int>(
      std::min<size_t>(html.size(), static_cast<size_t>(std::numeric_limits<int>::max())));
  impl->doc = htmlReadMemory(
      html.data(), size, url.empty() ? nullptr : url.c_str(),
      encoding.empty() ? nullptr : encoding.c_str(),
      HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
  return HtmlDocument(std::move(impl));
}

XPathResult HtmlDocument::xpath(std::string_view expression) const {
  const std::string expr(expression);
  if (expr.find('\0') != std::string::npos) {
    return XPathResult::failure("invalid XPath expression: it contains a NUL byte");
  }
  // An empty page gives no tree; evaluate against an empty document so that expressions still
  // compile and report their errors.
  xmlDocPtr doc = impl_->doc;
  xmlDocPtr empty = nullptr;
  if (doc == nullptr) doc = empty = xmlNewDoc(BAD_CAST "1.0");
  std::string error;
  xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
  if (ctx == nullptr) {
    if (empty) xmlFreeDoc(empty);
    return XPathResult::failure("out of memory creating an XPath context");
  }
  ctx->error = collect_error;
  ctx->userData = &error;
  const GenericErrorScope generic_errors(&error);
  XPathResult result = XPathResult::values({});
  xmlXPathCompExprPtr compiled = xmlXPathCtxtCompile(ctx, BAD_CAST expr.c_str());
  if (compiled == nullptr) {
    result = XPathResult::failure("invalid XPath expression '" + expr +
                                  "': " + (error.empty() ? "syntax error" : error));
  } else {
    xmlXPathObjectPtr object = xmlXPathCompiledEval(compiled, ctx);
    if (object == nullptr) {
      result = XPathResult::failure("XPath expression '" + expr +
                                    "' failed: " + (error.empty() ? "evaluation error" : error));
    } else {
      std::vector<std::string> values;
      if (object->type == XPATH_NODESET) {
        const xmlNodeSetPtr nodes = object->nodesetval;
        const int count = nodes ? nodes->nodeNr : 0;
        values.reserve(static_cast<size_t>(count));
        for (int i = 0; i < count; ++i) {
          values.push_back(take_string(xmlXPathCastNodeToString(nodes->nodeTab[i])));
        }
      } else {
        values.push_back(take_string(xmlXPathCastToString(object)));
      }
      result = XPathResult::values(std::move(values));
      xmlXPathFreeObject(object);
    }
    xmlXPathFreeCompExpr(compiled);
  }
  xmlXPathFreeContext(ctx);
  if (empty) xmlFreeDoc(empty);
  return result;
}

}  // namespace squall
