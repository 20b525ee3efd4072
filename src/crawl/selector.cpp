// Selector and SelectorList: nodes of an HtmlDocument's tree, selected with CSS or XPath.
#include "squall/crawl/selector.h"

#include <libxml/HTMLtree.h>
#include <libxml/tree.h>

#include <cstring>
#include <new>
#include <optional>
#include <unordered_map>

#include "html_tree.h"
#include "squall/crawl/css.h"
#include "squall/url/ascii.h"

namespace squall {

namespace {

xmlNodePtr as_node(void* node) {
  return static_cast<xmlNodePtr>(node);
}

std::string_view text_of(const xmlChar* s) {
  return s ? std::string_view(reinterpret_cast<const char*>(s)) : std::string_view();
}

// libxml2's HTML serializer into a string; `node` may be the document.
std::string serialize(xmlDocPtr doc, xmlNodePtr node) {
  xmlOutputBufferPtr out = xmlAllocOutputBuffer(nullptr);
  if (out == nullptr) throw std::bad_alloc();
  htmlNodeDumpFormatOutput(out, doc, node, "UTF-8", 0);
  std::string html(reinterpret_cast<const char*>(xmlOutputBufferGetContent(out)),
                   xmlOutputBufferGetSize(out));
  xmlOutputBufferClose(out);
  return html;
}

// Calls visit(n) for `top` and each node under it in document order until it returns false,
// descending into `top` and the elements under it (a document's doctype holds nothing a walk
// looks for). No recursion: a page may nest deeper than the stack would like.
template <typename Visit>
void walk_subtree(xmlNodePtr top, Visit visit) {
  if (!visit(top)) return;
  xmlNodePtr n = top->children;
  while (n != nullptr) {
    if (!visit(n)) return;
    if (n->type == XML_ELEMENT_NODE && n->children != nullptr) {
      n = n->children;
      continue;
    }
    while (n != top && n->next == nullptr) n = n->parent;
    if (n == top) return;
    n = n->next;
  }
}

// Whether `n` is an element named `name`: asked of every element of a walk, so its first letter
// first, without a call.
bool is_element_named(xmlNodePtr n, const char* name) {
  return n->type == XML_ELEMENT_NODE && n->name != nullptr &&
         n->name[0] == static_cast<unsigned char>(name[0]) &&
         std::strcmp(reinterpret_cast<const char*>(n->name), name) == 0;
}

// The href of the first <base> that has one, in document order.
std::optional<std::string> first_base_href(xmlNodePtr root) {
  std::optional<std::string> href;
  walk_subtree(root, [&href](xmlNodePtr n) {
    if (!is_element_named(n, "base")) return true;
    xmlChar* value = xmlGetProp(n, BAD_CAST "href");
    if (value == nullptr) return true;
    href = detail::take_xml_string(value);
    return false;
  });
  return href;
}

// The value of an element's href attribute as xmlGetNoNsProp gives it, null for none: read in
// place when it is one text node, as every HTML tree has it, without libxml2's copy; else
// libxml2's copy, kept in `copy`.
std::optional<std::string_view> href_of(xmlNodePtr element, std::string& copy) {
  for (xmlAttrPtr a = element->properties; a != nullptr; a = a->next) {
    if (a->ns != nullptr || text_of(a->name) != "href") continue;
    const xmlNode* value = a->children;
    if (value != nullptr && value->next == nullptr &&
        (value->type == XML_TEXT_NODE || value->type == XML_CDATA_SECTION_NODE)) {
      if (value->content == nullptr) return std::nullopt;
      return text_of(value->content);
    }
    break;
  }
  xmlChar* href = xmlGetNoNsProp(element, BAD_CAST "href");
  if (href == nullptr) return std::nullopt;
  copy = detail::take_xml_string(href);
  return copy;
}

// A value as an error message quotes it: its first 40 bytes, cut at a character boundary.
std::string quoted(std::string_view value) {
  if (value.size() <= 40) return std::string(value);
  size_t cut = 40;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return std::string(value.substr(0, cut)) + "...";
}

// CSS selectors translated once on this thread and kept, by their text, with their XPath: a
// handler selects with the same few on every page. Only translations that succeed and are short
// are kept, and at most kCachedTranslations of them (bounded memory whatever selectors a
// handler makes up); the rest are translated at each call.
constexpr size_t kCachedTranslations = 256;
constexpr size_t kMaxCachedTranslationBytes = 4096;
thread_local std::unordered_map<std::string, std::string> translations;

// The XPath of `selector`, from the cache or translated (and then kept when it may be).
CssTranslation translate(std::string_view selector) {
  if (auto it = translations.find(std::string(selector)); it != translations.end())
    return CssTranslation::translated(it->second);
  CssTranslation translation = css_to_xpath(selector);
  if (translation.ok() && translations.size() < kCachedTranslations &&
      translation.xpath().size() <= kMaxCachedTranslationBytes)
    translations.emplace(std::string(selector), translation.xpath());
  return translation;
}

// A CSS selector that is one element name, alone or with ::text, translates to
// "descendant-or-self::NAME" or "descendant-or-self::NAME/text()". For an element or document
// context a walk of its subtree in document order selects what libxml2's evaluation does, in the
// same order, without building, sorting and merging node-sets: the elements of that name (no
// namespace, as XPath's name test requires) at or under the context, or the text and CDATA
// children of those elements.
struct NameWalk {
  std::string name;
  bool text = false;
};

std::optional<NameWalk> name_walk(std::string_view xpath) {
  constexpr std::string_view kAxis = "descendant-or-self::";
  constexpr std::string_view kText = "/text()";
  if (!xpath.starts_with(kAxis)) return std::nullopt;
  NameWalk walk;
  std::string_view name = xpath.substr(kAxis.size());
  if (name.ends_with(kText)) {
    walk.text = true;
    name.remove_suffix(kText.size());
  }
  // An XPath name: no prefix, no '*', nothing after it.
  if (name.empty() || !(is_ascii_alpha(name[0]) || name[0] == '_')) return std::nullopt;
  for (char c : name) {
    if (!is_ascii_alphanumeric(c) && c != '-' && c != '_' && c != '.') return std::nullopt;
  }
  walk.name = name;
  return walk;
}

// An element or a document: the selectors whose subtree a walk reads.
bool walkable(const Selector& context) {
  const SelectorKind kind = context.kind();
  return kind == SelectorKind::Element || kind == SelectorKind::Document;
}

template <typename Add>
void walk_names(xmlNodePtr top, const NameWalk& walk, Add add) {
  const char* name = walk.name.c_str();
  auto named = [name](xmlNodePtr n) { return n->ns == nullptr && is_element_named(n, name); };
  walk_subtree(top, [&](xmlNodePtr n) {
    const bool text = n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE;
    if (walk.text ? text && named(n->parent) : named(n)) add(n);
    return true;
  });
}

}  // namespace

namespace detail {

const std::optional<Url>& HtmlTree::base_url() const {
  if (base_known_) return base_url_;
  base_known_ = true;
  const std::string_view encoding = text_of(doc->encoding);
  if (doc->URL != nullptr) {
    if (UrlResult page = Url::parse(text_of(doc->URL))) base_url_ = std::move(*page);
  }
  if (const std::optional<std::string> href = first_base_href(reinterpret_cast<xmlNodePtr>(doc))) {
    UrlResult resolved =
        Url::parse(strip_ascii_whitespace(*href), base_url_ ? &*base_url_ : nullptr, encoding);
    if (resolved) base_url_ = std::move(*resolved);
  }
  return base_url_;
}

}  // namespace detail

SelectorKind Selector::kind() const noexcept {
  if (node_ == nullptr) return SelectorKind::Value;
  switch (as_node(node_)->type) {
    case XML_DOCUMENT_NODE:
    case XML_HTML_DOCUMENT_NODE:
      return SelectorKind::Document;
    case XML_ELEMENT_NODE:
      return SelectorKind::Element;
    case XML_TEXT_NODE:
    case XML_CDATA_SECTION_NODE:
      return SelectorKind::Text;
    case XML_ATTRIBUTE_NODE:
      return SelectorKind::Attribute;
    case XML_COMMENT_NODE:
      return SelectorKind::Comment;
    default:
      return SelectorKind::Other;
  }
}

SelectorList Selector::css(std::string_view selector) const {
  return SelectorList::select(this, 1, selector, true);
}

SelectorList Selector::xpath(std::string_view expression) const {
  return SelectorList::select(this, 1, expression, false);
}

std::string Selector::get() const {
  switch (kind()) {
    case SelectorKind::Text:
    case SelectorKind::Attribute:
    case SelectorKind::Value:
      return text();
    default:
      return html();
  }
}

std::string Selector::text() const {
  if (node_ == nullptr) return value_;
  return detail::take_xml_string(xmlXPathCastNodeToString(as_node(node_)));
}

std::string Selector::html() const {
  const SelectorKind k = kind();
  if (k == SelectorKind::Value || k == SelectorKind::Attribute) return text();
  return serialize(tree_->doc, as_node(node_));
}

std::optional<std::string> Selector::attr(std::string_view name) const {
  if (kind() != SelectorKind::Element) return std::nullopt;
  for (xmlAttrPtr a = as_node(node_)->properties; a != nullptr; a = a->next) {
    if (iequals(text_of(a->name), name)) {
      return detail::take_xml_string(xmlNodeGetContent(reinterpret_cast<xmlNodePtr>(a)));
    }
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> Selector::attributes() const {
  std::vector<std::pair<std::string, std::string>> out;
  if (kind() != SelectorKind::Element) return out;
  for (xmlAttrPtr a = as_node(node_)->properties; a != nullptr; a = a->next) {
    out.emplace_back(std::string(text_of(a->name)),
                     detail::take_xml_string(xmlNodeGetContent(reinterpret_cast<xmlNodePtr>(a))));
  }
  return out;
}

std::string Selector::name() const {
  const SelectorKind k = kind();
  if (k != SelectorKind::Element && k != SelectorKind::Attribute) return {};
  return std::string(text_of(as_node(node_)->name));
}

std::string Selector::path() const {
  if (node_ == nullptr) return {};
  return detail::take_xml_string(xmlGetNodePath(as_node(node_)));
}

std::vector<Url> Selector::links() const {
  std::vector<Url> out;
  add_links(out);
  return out;
}

void Selector::add_links(std::vector<Url>& out) const {
  if (!walkable(*this)) return;
  const std::optional<Url>& base = tree_->base_url();
  const std::string_view encoding = text_of(tree_->doc->encoding);
  // The <a href> and <area href> at or under this node, in document order: a walk of the
  // subtree, which costs less than the XPath expression that says the same.
  std::string copy;
  walk_subtree(static_cast<xmlNodePtr>(node_), [&](xmlNodePtr n) {
    if (!is_element_named(n, "a") && !is_element_named(n, "area")) return true;
    const std::optional<std::string_view> href = href_of(n, copy);
    if (!href) return true;
    UrlResult url = Url::parse(strip_ascii_whitespace(*href), base ? &*base : nullptr, encoding);
    if (url) out.push_back(std::move(*url));
    return true;
  });
}

SelectorList SelectorList::failure(std::string error) {
  SelectorList list;
  list.error_ = error.empty() ? "selection failed" : std::move(error);
  return list;
}

SelectorList SelectorList::select(const Selector* contexts, size_t count, std::string_view query,
                                  bool is_css) {
  std::string_view expression = query;
  CssTranslation translation = CssTranslation::translated({});
  if (is_css) {
    translation = translate(query);
    if (!translation.ok()) return failure(translation.error());
    expression = translation.xpath();
    if (std::optional<NameWalk> walk = name_walk(expression)) {
      bool all_walkable = true;
      for (size_t i = 0; i < count && all_walkable; ++i) all_walkable = walkable(contexts[i]);
      if (all_walkable) {
        // The nodes first, so that the selectors are made once each, in a vector of their size.
        // The list of them is the thread's, kept from call to call (no walk calls select)
        // unless a page of many made it large.
        constexpr size_t kKeptFound = 4096;
        thread_local std::vector<std::pair<const Selector*, xmlNodePtr>> found;
        if (found.capacity() > kKeptFound) found = {};
        found.clear();
        for (size_t i = 0; i < count; ++i) {
          const Selector* context = &contexts[i];
          walk_names(as_node(context->node_), *walk,
                     [&](xmlNodePtr node) { found.emplace_back(context, node); });
        }
        SelectorList out;
        out.selectors_.reserve(found.size());
        for (const auto& [context, node] : found)
          out.selectors_.push_back(Selector(context->tree_, node));
        return out;
      }
    }
  }
  // Compile against the first context's document, or an empty one, so that a bad expression is
  // reported before (and whether or not) there is anything to evaluate.
  const detail::HtmlTree* tree = nullptr;
  for (size_t i = 0; i < count && tree == nullptr; ++i) tree = contexts[i].tree_.get();
  detail::HtmlTree empty;
  if (tree == nullptr) {
    empty.doc = htmlNewDocNoDtD(nullptr, nullptr);
    if (empty.doc == nullptr) throw std::bad_alloc();
    tree = &empty;
  }
  detail::XPathEvaluation evaluation(tree->doc);
  if (!evaluation.compile(expression)) {
    if (!is_css) return failure(evaluation.error());
    return failure("CSS selector '" + std::string(query) +
                   "' gave XPath that libxml2 refused: " + evaluation.error());
  }
  SelectorList out;
  for (size_t i = 0; i < count; ++i) {
    const Selector& context = contexts[i];
    if (context.node_ == nullptr) {
      return failure("cannot select from a value (\"" + quoted(context.value_) +
                     "\"): it has no nodes; select from an element or the document");
    }
    if (context.tree_.get() != tree) {
      // A list may gather nodes of several documents; each one needs its own evaluation.
      SelectorList part = select(&context, 1, expression, false);
      if (!part.ok()) return part;
      for (Selector& s : part.selectors_) out.selectors_.push_back(std::move(s));
      continue;
    }
    xmlXPathObjectPtr object = evaluation.evaluate(as_node(context.node_));
    if (object == nullptr) return failure(evaluation.error());
    if (object->type == XPATH_NODESET) {
      const xmlNodeSetPtr nodes = object->nodesetval;
      const int n = nodes ? nodes->nodeNr : 0;
      for (int j = 0; j < n; ++j) {
        xmlNodePtr node = nodes->nodeTab[j];
        // Namespace nodes are copies the result owns; keep their string value instead.
        if (node->type == XML_NAMESPACE_DECL) {
          out.selectors_.push_back(
              Selector(detail::take_xml_string(xmlXPathCastNodeToString(node))));
        } else {
          out.selectors_.push_back(Selector(context.tree_, node));
        }
      }
    } else {
      out.selectors_.push_back(Selector(detail::take_xml_string(xmlXPathCastToString(object))));
    }
    xmlXPathFreeObject(object);
  }
  return out;
}

SelectorList SelectorList::css(std::string_view selector) const {
  if (!ok()) return *this;
  return select(selectors_.data(), selectors_.size(), selector, true);
}

SelectorList SelectorList::xpath(std::string_view expression) const {
  if (!ok()) return *this;
  return select(selectors_.data(), selectors_.size(), expression, false);
}

std::string SelectorList::get(std::string_view fallback) const {
  return selectors_.empty() ? std::string(fallback) : selectors_.front().get();
}

std::vector<std::string> SelectorList::getall() const {
  std::vector<std::string> out;
  out.reserve(selectors_.size());
  for (const Selector& s : selectors_) out.push_back(s.get());
  return out;
}

std::optional<std::string> SelectorList::attr(std::string_view name) const {
  if (selectors_.empty()) return std::nullopt;
  return selectors_.front().attr(name);
}

std::vector<Url> SelectorList::links() const {
  std::vector<Url> out;
  out.reserve(selectors_.size());  // a list of <a> elements has a link each
  for (const Selector& s : selectors_) s.add_links(out);
  return out;
}

}  // namespace squall
