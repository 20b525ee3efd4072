// The tree builder: a tokenizer over the whole page, and libxml2's recovery rules on its tokens.
#include "squall/crawl/html_tree_builder.h"

#include <libxml/HTMLtree.h>
#include <libxml/dict.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/uri.h>
#include <libxml/valid.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "squall/crawl/tree_arena.h"
#include "squall/url/ascii.h"
#include "squall/url/charset.h"

namespace squall {

namespace {

// libxml2 stops building at this depth (its parser's nodePush limit); past it, its own parse
// gives the truncated tree.
constexpr size_t kMaxDepth = 250;
// libxml2 reads names into a 100-byte buffer; longer ones are not mirrored.
constexpr size_t kMaxNameBytes = 99;
// Names a thread's dictionary takes before a new one is started: pages may invent any number of
// element and attribute names.
constexpr size_t kDictNames = 4096;

// For each start tag that closes open elements, the current elements it closes, one at a time
// from the top of the stack (libxml2's start-close rules, as its 2.9 parser applies them in a
// body). Sorted by tag.
struct CloseRule {
  std::string_view tag;
  std::string_view closes;  // names separated by spaces
};
constexpr CloseRule kStartCloses[] = {
    {"a", "a"},
    {"address", "p ul"},
    {"blockquote", "p"},
    {"caption", "p"},
    {"center", "b font i p"},
    {"col", "caption p"},
    {"colgroup", "caption colgroup p"},
    {"dd", "address dir dt listing menu p pre xmp"},
    {"dir", "p"},
    {"div", "p"},
    {"dl", "address dir dt listing menu p pre xmp"},
    {"dt", "address dd dir listing menu p pre xmp"},
    {"fieldset", "a h1 h2 h3 h4 h5 h6 legend listing p pre xmp"},
    {"form", "address dir dl form h1 h2 h3 h4 h5 h6 listing menu ol p pre ul xmp"},
    {"h1", "p"},
    {"h2", "p"},
    {"h3", "p"},
    {"h4", "p"},
    {"h5", "p"},
    {"h6", "p"},
    {"hr", "p"},
    {"li", "address dl h1 h2 h3 h4 h5 h6 li listing p pre xmp"},
    {"listing", "p"},
    {"menu", "p ul"},
    {"ol", "p ul"},
    {"optgroup", "option"},
    {"option", "option"},
    {"p", "b big h1 h2 h3 h4 h5 h6 i p s small strike tt u"},
    {"pre", "p ul"},
    {"table", "a h1 h2 h3 h4 h5 h6 listing p pre xmp"},
    {"tbody", "caption colgroup p tbody td tfoot th thead tr"},
    {"td", "a b font i p span td th u"},
    {"tfoot", "caption colgroup p tbody td th thead tr"},
    {"th", "a b font i p span td th u"},
    {"thead", "caption colgroup"},
    {"title", "p"},
    {"tr", "caption colgroup p td th tr"},
    {"ul", "address dir listing menu ol p pre xmp"},
    {"xmp", "p"},
};

// The start tags that end an open <head> (the body follows, implied); any other nests in it.
constexpr std::string_view kClosesHead =
    "a abbr acronym address b bdo big blockquote br center cite code dd dfn dir div dl dt em "
    "fieldset font form h1 h2 h3 h4 h5 h6 hr i iframe img kbd li listing map menu ol p pre q s "
    "samp small span strike strong sub sup table tt u ul var xmp";
// HTML 4's empty elements, as libxml2 knows them.
constexpr std::string_view kVoid =
    "area base basefont br col frame hr img input isindex link meta param";
// The start tags that go into the head when they come before the body.
constexpr std::string_view kHeadContent = "base link meta script style title";

bool in_list(std::string_view list, std::string_view name) {
  size_t pos = 0;
  while (pos < list.size()) {
    size_t end = list.find(' ', pos);
    if (end == std::string_view::npos) end = list.size();
    if (list.substr(pos, end - pos) == name) return true;
    pos = end + 1;
  }
  return false;
}

// An end tag is ignored when an element above its own in the stack ranks higher.
int end_priority(std::string_view tag) {
  if (tag == "div") return 150;
  if (tag == "td" || tag == "th") return 160;
  if (tag == "tr") return 170;
  if (tag == "thead" || tag == "tbody" || tag == "tfoot") return 180;
  if (tag == "table") return 190;
  if (tag == "head" || tag == "body") return 200;
  if (tag == "html") return 220;
  return 100;
}

// What the rules above say of one tag name, looked up once per tag: the elements a start tag
// closes are a mask of the bits of the names that can be closed (there are fewer than 64).
struct TagInfo {
  std::string_view name;
  uint64_t bit = 0;     // this name's bit, when a start tag can close it
  uint64_t closes = 0;  // the bits of the names this start tag closes
  int priority = 100;
  bool is_void = false;
  bool head_content = false;
  bool closes_head = false;
  bool frames = false;    // <frameset>, <frame>, <noframes>: not mirrored
  bool raw_text = false;  // <script>, <style>
  int index = -1;         // the name's place in the table; -1 for a name it does not list
};
constexpr TagInfo kOtherTag{};

class TagTable {
 public:
  TagTable() {
    std::vector<std::string_view> names, closable;
    auto add_words = [](std::string_view list, std::vector<std::string_view>& to) {
      size_t pos = 0;
      while (pos < list.size()) {
        size_t end = list.find(' ', pos);
        if (end == std::string_view::npos) end = list.size();
        to.push_back(list.substr(pos, end - pos));
        pos = end + 1;
      }
    };
    for (const CloseRule& rule : kStartCloses) {
      names.push_back(rule.tag);
      add_words(rule.closes, closable);
    }
    add_words(kClosesHead, names);
    add_words(kVoid, names);
    add_words(kHeadContent, names);
    add_words(
        "div td th tr thead tbody tfoot table head body html frameset frame noframes "
        "script style",
        names);
    for (auto* list : {&names, &closable}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    names.insert(names.end(), closable.begin(), closable.end());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (std::string_view name : names) {
      TagInfo info;
      info.name = name;
      const auto it = std::lower_bound(closable.begin(), closable.end(), name);
      if (it != closable.end() && *it == name) info.bit = uint64_t{1} << (it - closable.begin());
      info.priority = end_priority(name);
      info.is_void = in_list(kVoid, name);
      info.head_content = in_list(kHeadContent, name);
      info.closes_head = in_list(kClosesHead, name);
      info.frames = in_list("frameset frame noframes", name);
      info.raw_text = in_list("script style", name);
      info.index = static_cast<int>(tags_.size());
      tags_.push_back(info);
    }
    slots_.fill(kEmpty);
    for (size_t i = 0; i < tags_.size(); ++i) {
      size_t slot = hash(tags_[i].name);
      while (slots_[slot] != kEmpty) slot = (slot + 1) % kSlots;
      slots_[slot] = static_cast<uint8_t>(i);
    }
    for (const CloseRule& rule : kStartCloses) {
      TagInfo& info =
          *std::lower_bound(tags_.begin(), tags_.end(), rule.tag,
                            [](const TagInfo& t, std::string_view n) { return t.name < n; });
      std::vector<std::string_view> closed;
      add_words(rule.closes, closed);
      for (std::string_view name : closed) info.closes |= find(name).bit;
    }
  }

  // Looked up for every tag of a page: a hash table, open addressing, never more than half full.
  const TagInfo& find(std::string_view name) const {
    for (size_t slot = hash(name); slots_[slot] != kEmpty; slot = (slot + 1) % kSlots) {
      const TagInfo& tag = tags_[slots_[slot]];
      if (tag.name == name) return tag;
    }
    return kOtherTag;
  }
  size_t size() const noexcept { return tags_.size(); }

 private:
  static constexpr size_t kSlots = 256;
  static constexpr uint8_t kEmpty = 255;
  static size_t hash(std::string_view name) {
    uint32_t h = 2166136261u;
    for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return h % kSlots;
  }
  std::vector<TagInfo> tags_;
  std::array<uint8_t, kSlots> slots_;
};

const TagTable& tag_table() {
  static const TagTable table;
  return table;
}

constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// libxml2's IS_CHAR: the code points XML allows.
constexpr bool is_xml_char(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

// True when `s` is valid UTF-8 made of XML characters only: libxml2 reports and drops anything
// else, which the builder does not mirror.
bool is_xml_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned char* const end = p + s.size();
  while (p < end) {
#ifdef __SSE2__
    // Sixteen bytes at a time while they are printable ASCII: compared as signed bytes, those of
    // 0x80 and above are negative, so one comparison finds them and the control characters.
    if (end - p >= 16) {
      const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const int flagged = _mm_movemask_epi8(_mm_cmplt_epi8(chunk, _mm_set1_epi8(0x20)));
      if (flagged == 0) {
        p += 16;
        continue;
      }
      p += __builtin_ctz(static_cast<unsigned>(flagged));  // to the first byte to look at alone
    }
#endif
    // Eight bytes at a time while they are printable ASCII.
    constexpr uint64_t kOnes = ~uint64_t{0} / 255;
    if (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      const uint64_t below_space = (word - kOnes * 0x20) & ~word & (kOnes * 0x80);
      if (((word & (kOnes * 0x80)) | below_space) == 0) {
        p += 8;
        continue;
      }
    }
    const unsigned char c = *p;
    if (c >= 0x20 && c < 0x80) {
      ++p;
      continue;
    }
    if (c < 0x20) {
      if (c != '\t' && c != '\n' && c != '\r') return false;
      ++p;
      continue;
    }
    size_t n;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (static_cast<size_t>(end - p) < n) return false;
    for (size_t i = 1; i < n; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || !is_xml_char(cp)) return false;
    p += n;
  }
  return true;
}

// The names of this thread's documents, shared; each document holds a reference, so one that
// outlives the dictionary's turn (or the thread) keeps it.
struct SharedDict {
  xmlDictPtr dict = nullptr;
  // The dictionary's copies of the tag table's names, by TagInfo::index, each looked up on first
  // use: most of a page's elements have one of those names.
  std::vector<const xmlChar*> tag_names;
  ~SharedDict() {
    if (dict) xmlDictFree(dict);
  }
  xmlDictPtr get() {
    if (dict != nullptr && static_cast<size_t>(xmlDictSize(dict)) > kDictNames) {
      xmlDictFree(dict);
      dict = nullptr;
    }
    if (dict == nullptr) {
      dict = xmlDictCreate();
      if (dict == nullptr) throw std::bad_alloc();
      tag_names.assign(tag_table().size(), nullptr);
    }
    return dict;
  }
};
thread_local SharedDict shared_dict;

// Frees a document of either form: its nodes libxml2's, or `arena`'s.
struct DocFree {
  TreeArena* arena;
  void operator()(xmlDocPtr doc) const {
    if (arena == nullptr) {
      xmlFreeDoc(doc);
      return;
    }
    free_arena_html_tree(doc);
    arena->clear();
  }
};

template <typename T>
T* checked(T* allocated) {
  if (allocated == nullptr) throw std::bad_alloc();
  return allocated;
}

// A character reference at q ('&'), as libxml2 reads one in text and in attribute values:
// appends what it stands for to `out` and moves q past it; false when libxml2 would reject it.
bool read_reference(const char*& q, const char* end, std::string& out) {
  const char* r = q + 1;
  if (r < end && *r == '#') {
    ++r;
    const bool hex = r < end && *r == 'x';
    if (!hex && r < end && *r == 'X') return false;
    if (hex) ++r;
    const char* digits = r;
    uint32_t value = 0;
    while (r < end && (hex ? is_ascii_hex(*r) : is_ascii_digit(*r))) {
      if (r - digits == 8) return false;
      value = value * (hex ? 16 : 10) + static_cast<uint32_t>(hex_value(*r));
      ++r;
    }
    if (r == digits || !is_xml_char(value)) return false;
    if (r < end && *r == ';') ++r;
    append_utf8(out, value);
    q = r;
    return true;
  }
  const char* name = r;
  if (r == end || !is_ascii_alpha(*r)) {
    // Not a name: the '&' is text. libxml2's names may also start with '_' or ':'.
    if (r < end && (*r == '_' || *r == ':')) return false;
    out += '&';
    q = r;
    return true;
  }
  while (r < end && is_ascii_alphanumeric(*r)) ++r;
  if (r < end &&
      (*r == '_' || *r == ':' || *r == '.' || *r == '-' || static_cast<unsigned char>(*r) >= 0x80))
    return false;
  const std::string_view word(name, static_cast<size_t>(r - name));
  if (r < end && *r == ';' && word.size() < 32) {
    char buf[32];
    std::memcpy(buf, word.data(), word.size());
    buf[word.size()] = '\0';
    if (const htmlEntityDesc* entity = htmlEntityLookup(reinterpret_cast<const xmlChar*>(buf))) {
      append_utf8(out, entity->value);
      q = r + 1;
      return true;
    }
  }
  // Without its ';', or unknown: the reference stays as written.
  out += '&';
  out += word;
  q = r;
  return true;
}

class Builder {
 public:
  // The nodes are libxml2's allocations when `arena` is null, else the arena's.
  Builder(std::string_view html, xmlDocPtr doc, TreeArena* arena)
      : p_(html.data()), end_(p_ + html.size()), doc_(doc), arena_(arena) {}

  bool run();

 private:
  struct Attribute {
    std::string name;
    std::string value;
    bool has_value = false;
  };

  xmlNodePtr current() const { return open_.empty() ? nullptr : open_.back(); }
  static std::string_view name_of(xmlNodePtr node) {
    return reinterpret_cast<const char*>(node->name);
  }
  static void append(xmlNodePtr parent, xmlNodePtr child) {
    child->parent = parent;
    if (parent->children == nullptr) {
      parent->children = child;
    } else {
      child->prev = parent->last;
      parent->last->next = child;
    }
    parent->last = child;
  }

  bool flush_text();
  bool start_tag();
  bool end_tag();
  bool comment();
  bool doctype();
  bool raw_text(std::string_view name);
  bool read_tag();
  bool meta_charset();
  bool place(const TagInfo& tag);
  bool decode(const char* begin, const char* end, std::string& out);
  xmlNodePtr add_element(const TagInfo& tag, const char* name, bool with_attributes);
  xmlNodePtr new_element(const TagInfo& tag, const char* name);
  xmlNodePtr new_leaf(xmlElementType type, std::string_view content);
  void add_attribute(xmlNodePtr element, xmlAttrPtr& last, const xmlChar* name,
                     const xmlChar* value, size_t value_size);
  bool push(xmlNodePtr element, const TagInfo& tag) {
    open_.push_back(element);
    open_tags_.push_back(&tag);
    return open_.size() <= kMaxDepth;
  }
  void pop_to(size_t depth) {
    open_.resize(depth);
    open_tags_.resize(depth);
  }

  const char* p_;
  const char* const end_;
  xmlDocPtr doc_;
  TreeArena* arena_;
  std::vector<xmlNodePtr> open_;           // the open elements, <html> first
  std::vector<const TagInfo*> open_tags_;  // what the table says of each
  const TagTable& tags_ = tag_table();
  const TagInfo& html_ = tags_.find("html");
  const TagInfo& head_ = tags_.find("head");
  const TagInfo& body_ = tags_.find("body");
  std::string text_;  // character data not yet in the tree
  bool text_has_reference_ = false;
  std::string name_;  // the tag being read, lower-cased
  std::vector<Attribute> attributes_;
  size_t attribute_count_ = 0;
  bool self_closing_ = false;
  bool html_made_ = false;
  bool html_closed_ = false;
  bool head_seen_ = false;
  bool body_seen_ = false;
  bool doctype_seen_ = false;
};

bool Builder::run() {
  while (p_ < end_) {
    const void* lt = std::memchr(p_, '<', static_cast<size_t>(end_ - p_));
    const char* q = lt ? static_cast<const char*>(lt) : end_;
    if (const void* amp = std::memchr(p_, '&', static_cast<size_t>(q - p_)))
      q = static_cast<const char*>(amp);
    text_.append(p_, q);
    p_ = q;
    if (p_ == end_) break;
    if (*p_ == '&') {
      text_has_reference_ = true;
      if (!read_reference(p_, end_, text_)) return false;
      continue;
    }
    if (end_ - p_ < 2) return false;
    const char c = p_[1];
    bool ok;
    if (is_ascii_alpha(c)) {
      ok = start_tag();
    } else if (c == '/') {
      ok = end_tag();
    } else if (c == '!' && end_ - p_ >= 4 && p_[2] == '-' && p_[3] == '-') {
      ok = comment();
    } else if (c == '!' && end_ - p_ >= 9 && iequals(std::string_view(p_ + 2, 7), "doctype")) {
      ok = doctype();
    } else {
      ok = false;  // "<!...", "<?...", a '<' libxml2 keeps as text
    }
    if (!ok) return false;
  }
  if (!flush_text() || !html_made_) return false;
  if (!doctype_seen_) {
    checked(xmlCreateIntSubset(doc_, BAD_CAST "html",
                               BAD_CAST "-//W3C//DTD HTML 4.0 Transitional//EN",
                               BAD_CAST "http://www.w3.org/TR/REC-html40/loose.dtd"));
  }
  return true;
}

bool Builder::flush_text() {
  if (text_.empty()) return true;
  // A reference implies a paragraph as other text does, even one that stands for whitespace.
  const bool blank = !text_has_reference_ && std::all_of(text_.begin(), text_.end(), is_blank);
  text_has_reference_ = false;
  xmlNodePtr parent = current();
  if (parent == nullptr) {
    // Before <html> and after </html>, libxml2 has no node to put whitespace in; other text
    // there would imply elements.
    text_.clear();
    return blank;
  }
  if (!blank) {
    // Text directly in <html> or <head> implies a paragraph (and a body) in libxml2.
    const std::string_view name = name_of(parent);
    if (name == "html" || name == "head") return false;
  }
  append(parent, new_leaf(XML_TEXT_NODE, text_));
  text_.clear();
  return true;
}

bool Builder::decode(const char* begin, const char* end, std::string& out) {
  out.clear();
  while (begin < end) {
    const void* amp = std::memchr(begin, '&', static_cast<size_t>(end - begin));
    const char* stop = amp ? static_cast<const char*>(amp) : end;
    out.append(begin, stop);
    begin = stop;
    if (begin < end && !read_reference(begin, end, out)) return false;
  }
  return true;
}

// Reads the start tag at p_ into name_, attributes_ and self_closing_.
bool Builder::read_tag() {
  const char* q = p_ + 1;
  name_.clear();
  while (q < end_ && (is_ascii_alphanumeric(*q) || *q == '-')) name_ += ascii_lower(*q++);
  if (q == end_ || name_.size() > kMaxNameBytes) return false;
  attribute_count_ = 0;
  self_closing_ = false;
  while (true) {
    while (q < end_ && is_blank(*q)) ++q;
    if (q == end_) return false;
    if (*q == '>') {
      ++q;
      break;
    }
    if (*q == '/') {
      if (q + 1 < end_ && q[1] == '>') {
        self_closing_ = true;
        q += 2;
        break;
      }
      return false;
    }
    if (!is_ascii_alpha(*q)) return false;
    if (attribute_count_ == attributes_.size()) attributes_.emplace_back();
    Attribute& a = attributes_[attribute_count_];
    a.name.clear();
    while (q < end_ &&
           (is_ascii_alphanumeric(*q) || *q == '-' || *q == ':' || *q == '.' || *q == '_'))
      a.name += ascii_lower(*q++);
    if (q == end_ || a.name.size() > kMaxNameBytes) return false;
    if (!is_blank(*q) && *q != '=' && *q != '>' && *q != '/') return false;
    while (q < end_ && is_blank(*q)) ++q;
    a.has_value = q < end_ && *q == '=';
    if (a.has_value) {
      ++q;
      while (q < end_ && is_blank(*q)) ++q;
      if (q == end_) return false;
      if (*q == '"' || *q == '\'') {
        const void* close = std::memchr(q + 1, *q, static_cast<size_t>(end_ - q - 1));
        if (close == nullptr) return false;
        if (!decode(q + 1, static_cast<const char*>(close), a.value)) return false;
        q = static_cast<const char*>(close) + 1;
      } else {
        const char* stop = q;
        while (stop < end_ && !is_blank(*stop) && *stop != '>') ++stop;
        if (!decode(q, stop, a.value)) return false;
        q = stop;
      }
    }
    // Of attributes named twice, libxml2 keeps the first.
    bool repeated = false;
    for (size_t i = 0; i < attribute_count_ && !repeated; ++i)
      repeated = attributes_[i].name == a.name;
    if (!repeated) ++attribute_count_;
  }
  p_ = q;
  return true;
}

xmlNodePtr Builder::add_element(const TagInfo& tag, const char* name, bool with_attributes) {
  xmlNodePtr parent = open_.empty() ? reinterpret_cast<xmlNodePtr>(doc_) : open_.back();
  xmlNodePtr element = new_element(tag, name);
  append(parent, element);
  if (with_attributes) {
    xmlAttrPtr last = nullptr;
    for (size_t i = 0; i < attribute_count_; ++i) {
      const Attribute& a = attributes_[i];
      // HTML 4's boolean attributes written without a value get their name as the value.
      const xmlChar* name = BAD_CAST a.name.c_str();
      if (a.has_value) {
        add_attribute(element, last, name, BAD_CAST a.value.c_str(), a.value.size());
      } else if (htmlIsBooleanAttr(name)) {
        add_attribute(element, last, name, name, a.name.size());
      } else {
        add_attribute(element, last, name, nullptr, 0);
      }
    }
  }
  return element;
}

// The node constructors below make in the arena what libxml2's would make (xmlNewDocNode,
// xmlNewDocTextLen, xmlNewCDataBlock, xmlNewDocComment, xmlNewNsProp), field for field: names
// from the document's dictionary, the fixed names of text and comment nodes, content as a
// NUL-terminated copy, line numbers 0, and the ID table entry an id (or an <a>'s name) gets.

xmlNodePtr Builder::new_element(const TagInfo& tag, const char* name) {
  if (arena_ == nullptr) return checked(xmlNewDocNode(doc_, nullptr, BAD_CAST name, nullptr));
  auto* element = arena_->make<xmlNode>();
  element->type = XML_ELEMENT_NODE;
  // The document's dictionary is the thread's (build() gave it), whose tag_names it fills.
  if (tag.index >= 0) {
    const xmlChar*& interned = shared_dict.tag_names[static_cast<size_t>(tag.index)];
    if (interned == nullptr) interned = checked(xmlDictLookup(doc_->dict, BAD_CAST name, -1));
    element->name = interned;
  } else {
    element->name = checked(xmlDictLookup(doc_->dict, BAD_CAST name, -1));
  }
  element->doc = doc_;
  return element;
}

// A text, CDATA or comment node.
xmlNodePtr Builder::new_leaf(xmlElementType type, std::string_view content) {
  if (arena_ == nullptr) {
    const auto* bytes = reinterpret_cast<const xmlChar*>(content.data());
    const int size = static_cast<int>(content.size());
    if (type == XML_TEXT_NODE) return checked(xmlNewDocTextLen(doc_, bytes, size));
    if (type == XML_CDATA_SECTION_NODE) return checked(xmlNewCDataBlock(doc_, bytes, size));
    return checked(xmlNewDocComment(doc_, BAD_CAST std::string(content).c_str()));
  }
  auto* leaf = arena_->make<xmlNode>();
  leaf->type = type;
  leaf->name = type == XML_TEXT_NODE      ? xmlStringText
               : type == XML_COMMENT_NODE ? xmlStringComment
                                          : nullptr;
  leaf->doc = doc_;
  leaf->content = BAD_CAST arena_->copy(content.data(), content.size());
  return leaf;
}

// An attribute after `last` (the element's last so far, or null); `value` is null for none.
void Builder::add_attribute(xmlNodePtr element, xmlAttrPtr& last, const xmlChar* name,
                            const xmlChar* value, size_t value_size) {
  if (arena_ == nullptr) {
    last = checked(xmlNewNsProp(element, nullptr, name, value));
    return;
  }
  auto* attribute = arena_->make<xmlAttr>();
  attribute->type = XML_ATTRIBUTE_NODE;
  attribute->name = checked(xmlDictLookup(doc_->dict, name, -1));
  attribute->parent = element;
  attribute->doc = doc_;
  if (value != nullptr) {
    xmlNodePtr text =
        new_leaf(XML_TEXT_NODE, std::string_view(reinterpret_cast<const char*>(value), value_size));
    text->parent = reinterpret_cast<xmlNodePtr>(attribute);
    attribute->children = attribute->last = text;
  }
  if (last == nullptr) {
    element->properties = attribute;
  } else {
    last->next = attribute;
    attribute->prev = last;
  }
  last = attribute;
  // The ID table's entry lives in libxml2's memory (xmlFreeDoc frees it) and points to the
  // attribute, as xmlNewNsProp's would.
  if (value != nullptr && xmlIsID(doc_, element, attribute) == 1)
    xmlAddID(nullptr, doc_, value, attribute);
}

// Closes and implies elements for a start tag as libxml2 does, leaving open_'s top as its
// parent; false where libxml2's outcome is not mirrored.
bool Builder::place(const TagInfo& tag) {
  if (!html_made_) {
    html_made_ = true;
    if (!push(add_element(html_, "html", false), html_)) return false;
  }
  if (&tag == &head_) {
    if (open_.size() != 1 || head_seen_ || body_seen_) return false;
    head_seen_ = true;
    return true;
  }
  if (&tag == &body_) {
    if (body_seen_) return false;
    if (open_.size() == 2 && open_tags_.back() == &head_) pop_to(1);
    body_seen_ = true;
    return open_.size() == 1;
  }
  // The open elements the tag closes, from the top; nothing closes <html>.
  while (open_.size() > 1) {
    const TagInfo& top = *open_tags_.back();
    const bool closed = &top == &head_ ? tag.closes_head : (tag.closes & top.bit) != 0;
    if (!closed) break;
    pop_to(open_.size() - 1);
  }
  // The head or body it implies: a head for head content directly in <html> unless a head or
  // body has been; else a body, unless one has been or a head or body is open.
  if (open_.size() == 1 && tag.head_content) {
    if (head_seen_ || body_seen_) return true;
    head_seen_ = true;
    return push(add_element(head_, "head", false), head_);
  }
  if (body_seen_) return open_.size() > 1;  // an element after </body> is not mirrored
  for (const TagInfo* open : open_tags_) {
    if (open == &head_ || open == &body_) return true;
  }
  body_seen_ = true;
  return push(add_element(body_, "body", false), body_);
}

// A page without an encoding label takes the first charset a <meta> declares, as libxml2 does
// (its charset attribute, else the charset in the content of http-equiv=Content-Type); only a
// UTF-8 one is mirrored, and it becomes the document's encoding as written.
bool Builder::meta_charset() {
  const char* charset = nullptr;
  bool content_type = false;
  const Attribute* content = nullptr;
  for (size_t i = 0; i < attribute_count_ && charset == nullptr; ++i) {
    const Attribute& a = attributes_[i];
    if (!a.has_value) continue;
    if (a.name == "charset") charset = a.value.c_str();
    if (a.name == "http-equiv") content_type = iequals(a.value, "content-type");
    if (a.name == "content") content = &a;
  }
  if (charset == nullptr && content_type && content != nullptr) {
    const std::string& value = content->value;
    for (size_t at = 0; at + 7 <= value.size() && charset == nullptr; ++at) {
      if (!iequals(std::string_view(value).substr(at, 7), "charset")) continue;
      size_t v = at + 7;
      while (v < value.size() && is_blank(value[v])) ++v;
      if (v < value.size() && value[v] == '=') charset = value.c_str() + v + 1;
      break;
    }
  }
  if (charset == nullptr) return true;
  while (is_blank(*charset)) ++charset;
  if (!is_utf8_label(charset)) return false;
  doc_->encoding = checked(xmlStrdup(BAD_CAST charset));
  return true;
}

bool Builder::start_tag() {
  if (!read_tag() || !flush_text() || html_closed_) return false;
  const TagInfo& tag = tags_.find(name_);
  if (tag.frames) return false;
  if (&tag == &html_) {
    if (html_made_) return false;
    html_made_ = true;
    return push(add_element(tag, "html", true), tag);
  }
  if (!place(tag)) return false;
  if (tag.name == "meta" && doc_->encoding == nullptr && !meta_charset()) return false;
  xmlNodePtr element = add_element(tag, name_.c_str(), true);
  if (self_closing_ || tag.is_void) return true;
  if (!push(element, tag)) return false;
  if (tag.raw_text) return raw_text(name_);
  return true;
}

// The content of a <script> or <style> up to its end tag: one CDATA node, as libxml2 makes it.
bool Builder::raw_text(std::string_view name) {
  // Content that starts like a tag is read as one by libxml2 (a tag may close the element).
  if (end_ - p_ >= 2 && p_[0] == '<' && (is_ascii_alpha(p_[1]) || p_[1] == '_' || p_[1] == ':'))
    return false;
  const char* q = p_;
  while (true) {
    const void* lt = std::memchr(q, '<', static_cast<size_t>(end_ - q));
    if (lt == nullptr) return false;
    q = static_cast<const char*>(lt);
    ++q;
    if (q == end_ || *q != '/') continue;
    if (static_cast<size_t>(end_ - q) > name.size() &&
        iequals(std::string_view(q + 1, name.size()), name)) {
      --q;
      break;
    }
    // Any other "</" is content, except at the start, where libxml2 reads it as an end tag.
    if (q == p_ + 1) return false;
  }
  if (q > p_) {
    append(open_.back(),
           new_leaf(XML_CDATA_SECTION_NODE, std::string_view(p_, static_cast<size_t>(q - p_))));
  }
  q += 2 + name.size();
  while (q < end_ && is_blank(*q)) ++q;
  if (q == end_ || *q != '>') return false;
  p_ = q + 1;
  pop_to(open_.size() - 1);
  return true;
}

bool Builder::end_tag() {
  const char* q = p_ + 2;
  if (q == end_ || !is_ascii_alpha(*q)) return false;
  name_.clear();
  while (q < end_ && (is_ascii_alphanumeric(*q) || *q == '-')) name_ += ascii_lower(*q++);
  while (q < end_ && is_blank(*q)) ++q;
  if (q == end_ || *q != '>' || name_.size() > kMaxNameBytes) return false;
  p_ = q + 1;
  // An end tag with no open element of its name, or below one that ranks higher, is ignored
  // (and text on either side of it stays one node).
  const TagInfo& tag = tags_.find(name_);
  size_t i = open_.size();
  while (i > 0) {
    const TagInfo& open = *open_tags_[i - 1];
    if (&open == &tag && (&tag != &kOtherTag || name_of(open_[i - 1]) == name_)) break;
    if (open.priority > tag.priority) return true;
    --i;
  }
  if (i == 0) return true;
  if (!flush_text()) return false;
  pop_to(i - 1);
  if (open_.empty()) html_closed_ = true;
  return true;
}

bool Builder::comment() {
  const char* begin = p_ + 4;
  const std::string_view rest(begin, static_cast<size_t>(end_ - begin));
  // libxml2 ends a comment at the first "-->" or "--!>", whatever precedes it.
  const size_t close = std::min(rest.find("-->"), rest.find("--!>"));
  if (close == std::string_view::npos || !flush_text() || html_closed_) return false;
  xmlNodePtr parent = open_.empty() ? reinterpret_cast<xmlNodePtr>(doc_) : open_.back();
  append(parent, new_leaf(XML_COMMENT_NODE, rest.substr(0, close)));
  p_ = begin + close + (rest[close + 2] == '!' ? 4 : 3);
  return true;
}

// <!DOCTYPE name [PUBLIC "id" ["uri"] | SYSTEM "uri"]>, before <html> only.
bool Builder::doctype() {
  if (html_made_ || doctype_seen_ || !flush_text()) return false;
  const char* q = p_ + 9;
  auto blanks = [&] {
    const char* from = q;
    while (q < end_ && is_blank(*q)) ++q;
    return q > from;
  };
  auto literal = [&](std::string& out) {
    if (q == end_ || (*q != '"' && *q != '\'')) return false;
    const void* close = std::memchr(q + 1, *q, static_cast<size_t>(end_ - q - 1));
    if (close == nullptr) return false;
    out.assign(q + 1, static_cast<const char*>(close));
    q = static_cast<const char*>(close) + 1;
    return true;
  };
  if (!blanks()) return false;
  std::string name, public_id, system_id;
  while (q < end_ && is_ascii_alphanumeric(*q)) name += *q++;
  if (name.empty() || !is_ascii_alpha(name[0])) return false;
  bool has_public = false, has_system = false;
  if (blanks() && q < end_ && *q != '>') {
    const std::string_view rest(q, static_cast<size_t>(end_ - q));
    if (istarts_with(rest, "public")) {
      q += 6;
      if (!blanks() || !literal(public_id)) return false;
      has_public = true;
      if (blanks() && q < end_ && *q != '>') {
        if (!literal(system_id)) return false;
        has_system = true;
      }
    } else if (istarts_with(rest, "system")) {
      q += 6;
      if (!blanks() || !literal(system_id)) return false;
      has_system = true;
    } else {
      return false;
    }
    blanks();
  }
  if (q == end_ || *q != '>') return false;
  p_ = q + 1;
  doctype_seen_ = true;
  checked(xmlCreateIntSubset(doc_, BAD_CAST name.c_str(),
                             has_public ? BAD_CAST public_id.c_str() : nullptr,
                             has_system ? BAD_CAST system_id.c_str() : nullptr));
  return true;
}

}  // namespace

bool is_utf8_label(std::string_view label) {
  return iequals(label, "utf-8") || iequals(label, "utf8");
}

namespace {

xmlDocPtr build(std::string_view html, const char* encoding, const char* url, TreeArena* arena) {
  if (encoding != nullptr && !is_utf8_label(encoding)) return nullptr;
  // libxml2 reads a byte order mark as the encoding's, which the builder does not mirror.
  if (html.starts_with("\xEF\xBB\xBF")) return nullptr;
  if (html.size() > static_cast<size_t>(std::numeric_limits<int>::max()) || !is_xml_utf8(html))
    return nullptr;
  std::unique_ptr<xmlDoc, DocFree> doc(checked(htmlNewDocNoDtD(nullptr, nullptr)), DocFree{arena});
  doc->dict = shared_dict.get();
  xmlDictReference(doc->dict);
  if (encoding != nullptr) doc->encoding = checked(xmlStrdup(BAD_CAST encoding));
  if (url != nullptr) {
    // As libxml2's parser names its document after its input.
    doc->URL = checked(xmlPathToURI(BAD_CAST url));
  }
  Builder builder(html, doc.get(), arena);
  if (!builder.run()) return nullptr;
  return doc.release();
}

}  // namespace

xmlDocPtr build_html_tree(std::string_view html, const char* encoding, const char* url) {
  return build(html, encoding, url, nullptr);
}

xmlDocPtr build_html_tree(std::string_view html, const char* encoding, const char* url,
                          TreeArena& arena) {
  return build(html, encoding, url, &arena);
}

void free_arena_html_tree(xmlDocPtr doc) {
  // Only the doctype stays in the document's list of children: xmlFreeDoc then frees the
  // document, its doctype, strings and ID table, and touches no node of the arena's (an ID
  // table entry frees its own strings, not the attribute it names).
  xmlNodePtr doctype = reinterpret_cast<xmlNodePtr>(doc->intSubset);
  if (doctype != nullptr) doctype->next = doctype->prev = nullptr;
  doc->children = doc->last = doctype;
  xmlFreeDoc(doc);
}

}  // namespace squall
