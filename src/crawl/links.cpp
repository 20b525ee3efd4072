// The streaming HTML tokenizer behind LinkExtractor, and the decoding and resolution of its links.
#include "squall/crawl/links.h"

#include <iconv.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <utility>

namespace squall {

namespace {

struct NamedReference {
  std::string_view name;  // without '&', with ';' when the standard's name has one
  std::string_view utf8;  // the code points it stands for
};

extern const NamedReference kNamedReferences[];
constexpr size_t kNamedReferenceCount = 2231;

constexpr size_t kLongestReferenceName = 32;

bool is_ws(unsigned char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\f' || c == '\r';
}
bool is_alpha(unsigned char c) {
  return static_cast<unsigned char>((c | 0x20) - 'a') < 26;
}
bool is_digit(unsigned char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}
bool is_alnum(unsigned char c) {
  return is_alpha(c) || is_digit(c);
}
bool is_hex(unsigned char c) {
  return is_digit(c) || static_cast<unsigned char>((c | 0x20) - 'a') < 6;
}
unsigned char lower(unsigned char c) {
  return c >= 'A' && c <= 'Z' ? c | 0x20 : c;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view strip_ws(std::string_view s) {
  while (!s.empty() && is_ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ws(s.back())) s.remove_suffix(1);
  return s;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// windows-1252's bytes 0x80-0x9F; 0 marks the five the Encoding Standard maps to C1 controls.
constexpr std::array<uint16_t, 32> kWindows1252High = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

uint32_t windows1252_code_point(unsigned char b) {
  if (b >= 0x80 && b < 0xA0 && kWindows1252High[b - 0x80] != 0) return kWindows1252High[b - 0x80];
  return b;
}

// The numeric character reference end state: the standard's replacements.
uint32_t numeric_reference_value(uint32_t cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0xFFFD;
  if (cp >= 0x80 && cp < 0xA0) return windows1252_code_point(static_cast<unsigned char>(cp));
  return cp;
}

const NamedReference* find_named_reference(std::string_view name) {
  const NamedReference* begin = kNamedReferences;
  const NamedReference* end = kNamedReferences + kNamedReferenceCount;
  const NamedReference* it = std::lower_bound(
      begin, end, name, [](const NamedReference& r, std::string_view n) { return r.name < n; });
  return it != end && it->name == name ? it : nullptr;
}

}  // namespace

namespace detail {

// Decodes an attribute value already in UTF-8: CR and CRLF become LF, NUL becomes U+FFFD and
// character references are resolved as the "character reference state" does inside attributes.
std::string decode_attribute(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  size_t i = 0;
  while (i < in.size()) {
    const unsigned char c = in[i];
    if (c == '\r') {
      out += '\n';
      i += (i + 1 < in.size() && in[i + 1] == '\n') ? 2 : 1;
      continue;
    }
    if (c == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (c != '&') {
      size_t run = i + 1;
      while (run < in.size() && in[run] != '&' && in[run] != '\r' && in[run] != '\0') ++run;
      out.append(in, i, run - i);
      i = run;
      continue;
    }
    const size_t start = i + 1;
    if (start < in.size() && in[start] == '#') {
      size_t j = start + 1;
      const bool hex = j < in.size() && (in[j] == 'x' || in[j] == 'X');
      if (hex) ++j;
      const size_t digits = j;
      uint32_t value = 0;
      while (j < in.size() && (hex ? is_hex(in[j]) : is_digit(in[j]))) {
        const unsigned char d = in[j];
        const uint32_t v = is_digit(d) ? d - '0' : (d | 0x20) - 'a' + 10;
        value = value > 0x10FFFF ? value : value * (hex ? 16 : 10) + v;
        ++j;
      }
      if (j == digits) {  // "&#" or "&#x" without digits: not a reference
        out.append(in.substr(i, j - i));
        i = j;
        continue;
      }
      if (j < in.size() && in[j] == ';') ++j;
      append_utf8(out, numeric_reference_value(value));
      i = j;
      continue;
    }
    // Named: the longest name in the table that the input starts with.
    size_t run = start;
    while (run < in.size() && run - start < kLongestReferenceName && is_alnum(in[run])) ++run;
    if (run < in.size() && in[run] == ';') ++run;
    const NamedReference* match = nullptr;
    for (size_t end = run; end > start && !match; --end) {
      match = find_named_reference(in.substr(start, end - start));
    }
    if (match == nullptr) {
      out += '&';
      ++i;
      continue;
    }
    const size_t after = start + match->name.size();
    if (match->name.back() != ';' && after < in.size() &&
        (in[after] == '=' || is_alnum(in[after]))) {
      // The legacy rule for attributes: "&amp=" and "&copyx" stay as written.
      out += '&';
      ++i;
      continue;
    }
    out.append(match->utf8);
    i = after;
  }
  return out;
}

}  // namespace detail

namespace detail {

namespace {

enum class State : uint8_t {
  Data,
  TagOpen,
  EndTagOpen,
  TagName,
  BeforeAttrName,
  AttrName,
  AfterAttrName,
  BeforeAttrValue,
  AttrValueDouble,
  AttrValueSingle,
  AttrValueUnquoted,
  AfterAttrValueQuoted,
  SelfClosingStartTag,
  MarkupDeclarationOpen,  // after "<!": only "--" matters, DOCTYPE and CDATA end at '>' anyway
  MarkupDeclarationDash,  // after "<!-"
  CommentStart,
  CommentStartDash,
  Comment,
  CommentEndDash,
  CommentEnd,
  CommentEndBang,
  BogusComment,
  Text,  // RCDATA and RAWTEXT: the same states as far as tags go
  TextLessThan,
  TextEndTagOpen,
  TextEndTagName,
  ScriptData,
  ScriptLessThan,
  ScriptEndTagOpen,
  ScriptEndTagName,
  ScriptEscapeStart,
  ScriptEscapeStartDash,
  ScriptEscaped,
  ScriptEscapedDash,
  ScriptEscapedDashDash,
  ScriptEscapedLessThan,
  ScriptEscapedEndTagOpen,
  ScriptEscapedEndTagName,
  ScriptDoubleEscapeStart,
  ScriptDoubleEscaped,
  ScriptDoubleEscapedDash,
  ScriptDoubleEscapedDashDash,
  ScriptDoubleEscapedLessThan,
  ScriptDoubleEscapeEnd,
  Plaintext,
};

enum class Tag : uint8_t {
  Other,
  A,
  Area,
  Link,
  Iframe,
  Frame,
  Base,
  Meta,
  Script,
  Style,
  Xmp,
  Noembed,
  Noframes,
  Textarea,
  Title,
  Plaintext,
};

// The attributes some tag we look at needs; each has a slot in the tag being read.
enum Attr : uint8_t { Href, Src, Rel, Name, Content, Charset, HttpEquiv, kAttrCount, NoAttr };

struct TagName {
  std::string_view name;
  Tag tag;
};
constexpr TagName kTags[] = {
    {"a", Tag::A},
    {"area", Tag::Area},
    {"link", Tag::Link},
    {"iframe", Tag::Iframe},
    {"frame", Tag::Frame},
    {"base", Tag::Base},
    {"meta", Tag::Meta},
    {"script", Tag::Script},
    {"style", Tag::Style},
    {"xmp", Tag::Xmp},
    {"noembed", Tag::Noembed},
    {"noframes", Tag::Noframes},
    {"textarea", Tag::Textarea},
    {"title", Tag::Title},
    {"plaintext", Tag::Plaintext},
};

// The first letters of the names in kTags, to reject most other tags at once.
constexpr std::array<bool, 256> kTagInitial = [] {
  std::array<bool, 256> t{};
  for (const TagName& tag : kTags) t[static_cast<unsigned char>(tag.name[0])] = true;
  return t;
}();

// The bytes that end a tag or attribute name.
constexpr std::array<bool, 256> kEndsName = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : {' ', '\t', '\n', '\f', '\r', '/', '>'}) t[c] = true;
  return t;
}();

// Which attributes each tag keeps, as a bit mask over Attr.
uint8_t wanted_attributes(Tag tag) {
  switch (tag) {
    case Tag::A:
    case Tag::Area:
    case Tag::Link:
      return 1 << Href | 1 << Rel;
    case Tag::Iframe:
    case Tag::Frame:
      return 1 << Src;
    case Tag::Base:
      return 1 << Href;
    case Tag::Meta:
      return 1 << Name | 1 << Content | 1 << Charset | 1 << HttpEquiv;
    default:
      return 0;
  }
}

Attr attribute_of(std::string_view name) {
  static constexpr std::string_view kNames[kAttrCount] = {"href",    "src",     "rel",       "name",
                                                          "content", "charset", "http-equiv"};
  for (uint8_t i = 0; i < kAttrCount; ++i) {
    if (kNames[i] == name) return static_cast<Attr>(i);
  }
  return NoAttr;
}

}  // namespace

// A raw link as found: attribute bytes still in the page's encoding, references unresolved.
struct RawLink {
  LinkElement element;
  std::string value;
  std::string rel;
  bool has_rel;
};

class LinkTokenizer {
 public:
  explicit LinkTokenizer(LinkOptions options) : options_(std::move(options)) {}

  void feed(std::string_view chunk);
  void finish();

  LinkOptions options_;
  std::vector<RawLink> raw_links_;
  std::vector<Link> links_;
  std::optional<std::string> raw_base_;
  std::optional<std::string> base_href_;
  std::optional<Url> base_url_;
  std::optional<std::string> meta_charset_;
  RobotsMeta robots_;
  std::string encoding_;
  bool finished_ = false;

 private:
  // A short name being read (tag, attribute, or the end tag in raw text); longer names are
  // marked as overflowing, since no name we compare with is longer than 10 bytes.
  struct ShortName {
    std::array<char, 15> bytes{};
    uint8_t size = 0;
    void clear() { size = 0; }
    void push(unsigned char c) {
      if (size < bytes.size()) bytes[size] = static_cast<char>(lower(c));
      if (size < 255) ++size;
    }
    std::string_view view() const {
      return size <= bytes.size() ? std::string_view(bytes.data(), size) : std::string_view();
    }
  };

  void begin_tag(bool end_tag) {
    end_tag_ = end_tag;
    name_.clear();
  }
  void end_tag_name();
  void end_attribute_name();
  void emit_tag();
  void keep(const char* begin, const char* end) {
    if (keeping_ == NoAttr) return;
    kept_bytes_ += static_cast<size_t>(end - begin);
    if (kept_bytes_ > LinkExtractor::kMaxTagBytes) {
      too_large_ = true;
      keeping_ = NoAttr;
      return;
    }
    values_[keeping_].append(begin, end);
  }
  bool appropriate_end_tag() const {
    return temp_.size <= temp_.bytes.size() && temp_.view() == raw_end_tag_;
  }
  void meta(std::string_view name, std::string_view content, std::string_view charset,
            std::string_view http_equiv, uint8_t present);

  State state_ = State::Data;
  bool end_tag_ = false;
  ShortName name_;  // the tag name
  ShortName attr_;  // the attribute name
  ShortName temp_;  // the standard's temporary buffer in raw text
  Tag tag_ = Tag::Other;
  uint8_t wanted_ = 0;   // attributes this tag keeps
  uint8_t present_ = 0;  // attributes seen so far on this tag (the first one wins)
  Attr keeping_ = NoAttr;
  size_t kept_bytes_ = 0;
  bool too_large_ = false;
  std::array<std::string, kAttrCount> values_;
  std::string_view tag_text_;     // the name of a Tag other than Other, from kTags
  std::string_view raw_end_tag_;  // the start tag name a raw-text end tag must match
};

void LinkTokenizer::end_tag_name() {
  tag_ = Tag::Other;
  const std::string_view name = name_.view();
  if (name.empty() || name.size() > 9 || !kTagInitial[static_cast<unsigned char>(name[0])]) {
    name_.clear();
  }
  for (const TagName& t : kTags) {
    if (name_.size != 0 && t.name[0] == name[0] && t.name == name) {
      tag_ = t.tag;
      tag_text_ = t.name;
      break;
    }
  }
  wanted_ = end_tag_ ? 0 : wanted_attributes(tag_);
  present_ = 0;
  keeping_ = NoAttr;
  kept_bytes_ = 0;
  too_large_ = false;
  if (wanted_ != 0) {
    for (std::string& v : values_) v.clear();
  }
}

// Called when an attribute name is complete: decides whether its value is kept.
void LinkTokenizer::end_attribute_name() {
  keeping_ = NoAttr;
  if (wanted_ == 0) return;
  const Attr attr = attribute_of(attr_.view());
  if (attr == NoAttr || !(wanted_ & (1 << attr)) || (present_ & (1 << attr))) return;
  present_ |= static_cast<uint8_t>(1 << attr);
  keeping_ = attr;
}

void LinkTokenizer::emit_tag() {
  keeping_ = NoAttr;
  state_ = State::Data;
  if (end_tag_) return;
  if (!too_large_ && present_ != 0) {
    switch (tag_) {
      case Tag::A:
      case Tag::Area:
      case Tag::Link:
        if (present_ & (1 << Href)) {
          const LinkElement element = tag_ == Tag::A      ? LinkElement::A
                                      : tag_ == Tag::Area ? LinkElement::Area
                                                          : LinkElement::Link;
          raw_links_.push_back({element, std::move(values_[Href]), std::move(values_[Rel]),
                                (present_ & (1 << Rel)) != 0});
        }
        break;
      case Tag::Iframe:
      case Tag::Frame:
        if (present_ & (1 << Src)) {
          raw_links_.push_back({tag_ == Tag::Iframe ? LinkElement::Iframe : LinkElement::Frame,
                                std::move(values_[Src]),
                                {},
                                false});
        }
        break;
      case Tag::Base:
        if (!raw_base_ && (present_ & (1 << Href))) raw_base_ = std::move(values_[Href]);
        break;
      case Tag::Meta:
        meta(values_[Name], values_[Content], values_[Charset], values_[HttpEquiv], present_);
        break;
      default:
        break;
    }
  }
  switch (tag_) {
    case Tag::Script:
      state_ = State::ScriptData;
      raw_end_tag_ = "script";
      break;
    case Tag::Style:
    case Tag::Xmp:
    case Tag::Iframe:
    case Tag::Noembed:
    case Tag::Noframes:
    case Tag::Textarea:
    case Tag::Title:
      state_ = State::Text;
      raw_end_tag_ = tag_text_;
      break;
    case Tag::Plaintext:
      state_ = State::Plaintext;
      break;
    default:
      break;
  }
}

}  // namespace detail

namespace detail {

// The tokenizer proper. Each case consumes input from p and leaves through `continue` with p
// advanced, or reconsumes the same byte in another state by not advancing. The states that
// cover long runs (data, attribute values, comments, raw text) skip ahead with memchr.
void LinkTokenizer::feed(std::string_view chunk) {
  const char* p = chunk.data();
  const char* const end = p + chunk.size();
  while (p < end) {
    const unsigned char c = *p;
    switch (state_) {
      case State::Data: {
        const void* lt = std::memchr(p, '<', static_cast<size_t>(end - p));
        if (lt == nullptr) return;
        p = static_cast<const char*>(lt) + 1;
        state_ = State::TagOpen;
        continue;
      }
      case State::TagOpen:
        if (c == '!') {
          state_ = State::MarkupDeclarationOpen;
          ++p;
        } else if (c == '/') {
          state_ = State::EndTagOpen;
          ++p;
        } else if (is_alpha(c)) {
          begin_tag(false);
          state_ = State::TagName;
        } else if (c == '?') {
          state_ = State::BogusComment;
        } else {
          state_ = State::Data;
        }
        continue;
      case State::EndTagOpen:
        if (is_alpha(c)) {
          begin_tag(true);
          state_ = State::TagName;
        } else if (c == '>') {
          state_ = State::Data;
          ++p;
        } else {
          state_ = State::BogusComment;
        }
        continue;
      case State::TagName: {
        // Names run until whitespace, '/' or '>'; read the run in one tight loop.
        const char* stop = p;
        while (stop < end && !kEndsName[static_cast<unsigned char>(*stop)]) ++stop;
        for (const char* q = p; q < stop; ++q) name_.push(static_cast<unsigned char>(*q));
        p = stop;
        if (p == end) return;
        const unsigned char d = *p++;
        if (is_ws(d)) {
          end_tag_name();
          state_ = State::BeforeAttrName;
        } else if (d == '/') {
          end_tag_name();
          state_ = State::SelfClosingStartTag;
        } else {
          end_tag_name();
          emit_tag();
        }
        continue;
      }
      case State::BeforeAttrName:
        if (is_ws(c)) {
          ++p;
        } else if (c == '/' || c == '>') {
          state_ = State::AfterAttrName;
        } else {
          attr_.clear();
          if (c == '=') {
            attr_.push(c);
            ++p;
          }
          state_ = State::AttrName;
        }
        continue;
      case State::AttrName: {
        const char* stop = p;
        while (stop < end && !kEndsName[static_cast<unsigned char>(*stop)] && *stop != '=') ++stop;
        // Only tags with attributes to keep need the name.
        if (wanted_ != 0) {
          for (const char* q = p; q < stop; ++q) attr_.push(static_cast<unsigned char>(*q));
        }
        p = stop;
        if (p == end) return;
        if (*p == '=') {
          end_attribute_name();
          state_ = State::BeforeAttrValue;
          ++p;
        } else {
          end_attribute_name();
          state_ = State::AfterAttrName;
        }
        continue;
      }
      case State::AfterAttrName:
        if (is_ws(c)) {
          ++p;
        } else if (c == '/') {
          state_ = State::SelfClosingStartTag;
          ++p;
        } else if (c == '=') {
          state_ = State::BeforeAttrValue;
          ++p;
        } else if (c == '>') {
          ++p;
          emit_tag();
        } else {
          keeping_ = NoAttr;
          attr_.clear();
          state_ = State::AttrName;
        }
        continue;
      case State::BeforeAttrValue:
        if (is_ws(c)) {
          ++p;
        } else if (c == '"') {
          state_ = State::AttrValueDouble;
          ++p;
        } else if (c == '\'') {
          state_ = State::AttrValueSingle;
          ++p;
        } else if (c == '>') {
          ++p;
          emit_tag();
        } else {
          state_ = State::AttrValueUnquoted;
        }
        continue;
      case State::AttrValueDouble:
      case State::AttrValueSingle: {
        const char quote = state_ == State::AttrValueDouble ? '"' : '\'';
        const void* q = std::memchr(p, quote, static_cast<size_t>(end - p));
        const char* stop = q ? static_cast<const char*>(q) : end;
        keep(p, stop);
        if (q == nullptr) return;
        p = stop + 1;
        keeping_ = NoAttr;
        state_ = State::AfterAttrValueQuoted;
        continue;
      }
      case State::AttrValueUnquoted: {
        const char* stop = p;
        while (stop < end && !is_ws(*stop) && *stop != '>') ++stop;
        keep(p, stop);
        p = stop;
        if (p == end) return;
        keeping_ = NoAttr;
        if (*p == '>') {
          ++p;
          emit_tag();
        } else {
          ++p;
          state_ = State::BeforeAttrName;
        }
        continue;
      }
      case State::AfterAttrValueQuoted:
        if (is_ws(c)) {
          state_ = State::BeforeAttrName;
          ++p;
        } else if (c == '/') {
          state_ = State::SelfClosingStartTag;
          ++p;
        } else if (c == '>') {
          ++p;
          emit_tag();
        } else {
          state_ = State::BeforeAttrName;
        }
        continue;
      case State::SelfClosingStartTag:
        if (c == '>') {
          ++p;
          emit_tag();
        } else {
          state_ = State::BeforeAttrName;
        }
        continue;
      case State::MarkupDeclarationOpen:
        if (c == '-') {
          state_ = State::MarkupDeclarationDash;
          ++p;
        } else {
          state_ = State::BogusComment;
        }
        continue;
      case State::MarkupDeclarationDash:
        if (c == '-') {
          state_ = State::CommentStart;
          ++p;
        } else {
          state_ = State::BogusComment;  // "<!-" was the start of a bogus comment
        }
        continue;
      case State::CommentStart:
        if (c == '-') {
          state_ = State::CommentStartDash;
          ++p;
        } else if (c == '>') {  // "<!-->"
          state_ = State::Data;
          ++p;
        } else {
          state_ = State::Comment;
        }
        continue;
      case State::CommentStartDash:
        if (c == '-') {
          state_ = State::CommentEnd;
          ++p;
        } else if (c == '>') {  // "<!--->"
          state_ = State::Data;
          ++p;
        } else {
          state_ = State::Comment;
        }
        continue;
      case State::Comment: {
        // The comment "less-than sign" states only report nested "<!--" as an error: they end
        // the comment exactly where "--" followed by the same bytes would.
        const void* dash = std::memchr(p, '-', static_cast<size_t>(end - p));
        if (dash == nullptr) return;
        p = static_cast<const char*>(dash) + 1;
        state_ = State::CommentEndDash;
        continue;
      }
      case State::CommentEndDash:
        if (c == '-') {
          state_ = State::CommentEnd;
          ++p;
        } else {
          state_ = State::Comment;
        }
        continue;
      case State::CommentEnd:
        if (c == '>') {
          state_ = State::Data;
          ++p;
        } else if (c == '!') {
          state_ = State::CommentEndBang;
          ++p;
        } else if (c == '-') {
          ++p;
        } else {
          state_ = State::Comment;
        }
        continue;
      case State::CommentEndBang:
        if (c == '-') {
          state_ = State::CommentEndDash;
          ++p;
        } else if (c == '>') {  // "--!>"
          state_ = State::Data;
          ++p;
        } else {
          state_ = State::Comment;
        }
        continue;
      case State::BogusComment: {  // also every DOCTYPE state and CDATA in HTML content
        const void* gt = std::memchr(p, '>', static_cast<size_t>(end - p));
        if (gt == nullptr) return;
        p = static_cast<const char*>(gt) + 1;
        state_ = State::Data;
        continue;
      }
      case State::Text:
      case State::ScriptData: {
        const void* lt = std::memchr(p, '<', static_cast<size_t>(end - p));
        if (lt == nullptr) return;
        p = static_cast<const char*>(lt) + 1;
        state_ = state_ == State::Text ? State::TextLessThan : State::ScriptLessThan;
        continue;
      }
      case State::TextLessThan:
        if (c == '/') {
          temp_.clear();
          state_ = State::TextEndTagOpen;
          ++p;
        } else {
          state_ = State::Text;
        }
        continue;
      case State::TextEndTagOpen:
      case State::ScriptEndTagOpen:
      case State::ScriptEscapedEndTagOpen:
        if (is_alpha(c)) {
          state_ = state_ == State::TextEndTagOpen     ? State::TextEndTagName
                   : state_ == State::ScriptEndTagOpen ? State::ScriptEndTagName
                                                       : State::ScriptEscapedEndTagName;
        } else {
          state_ = state_ == State::TextEndTagOpen     ? State::Text
                   : state_ == State::ScriptEndTagOpen ? State::ScriptData
                                                       : State::ScriptEscaped;
        }
        continue;
      case State::TextEndTagName:
      case State::ScriptEndTagName:
      case State::ScriptEscapedEndTagName:
        if ((is_ws(c) || c == '/' || c == '>') && appropriate_end_tag()) {
          ++p;
          begin_tag(true);
          end_tag_name();
          if (c == '>') {
            emit_tag();
          } else {
            state_ = c == '/' ? State::SelfClosingStartTag : State::BeforeAttrName;
          }
        } else if (is_alpha(c)) {
          temp_.push(c);
          ++p;
        } else {
          state_ = state_ == State::TextEndTagName     ? State::Text
                   : state_ == State::ScriptEndTagName ? State::ScriptData
                                                       : State::ScriptEscaped;
        }
        continue;
      case State::ScriptLessThan:
        if (c == '/') {
          temp_.clear();
          state_ = State::ScriptEndTagOpen;
          ++p;
        } else if (c == '!') {
          state_ = State::ScriptEscapeStart;
          ++p;
        } else {
          state_ = State::ScriptData;
        }
        continue;
      case State::ScriptEscapeStart:
      case State::ScriptEscapeStartDash:
        if (c == '-') {
          state_ = state_ == State::ScriptEscapeStart ? State::ScriptEscapeStartDash
                                                      : State::ScriptEscapedDashDash;
          ++p;
        } else {
          state_ = State::ScriptData;
        }
        continue;
      case State::ScriptEscaped:
      case State::ScriptEscapedDash:
      case State::ScriptEscapedDashDash:
        if (c == '-') {
          state_ = state_ == State::ScriptEscaped ? State::ScriptEscapedDash
                                                  : State::ScriptEscapedDashDash;
        } else if (c == '<') {
          state_ = State::ScriptEscapedLessThan;
        } else if (c == '>' && state_ == State::ScriptEscapedDashDash) {
          state_ = State::ScriptData;
        } else {
          state_ = State::ScriptEscaped;
        }
        ++p;
        continue;
      case State::ScriptEscapedLessThan:
        if (c == '/') {
          temp_.clear();
          state_ = State::ScriptEscapedEndTagOpen;
          ++p;
        } else if (is_alpha(c)) {
          temp_.clear();
          state_ = State::ScriptDoubleEscapeStart;
        } else {
          state_ = State::ScriptEscaped;
        }
        continue;
      case State::ScriptDoubleEscapeStart:
      case State::ScriptDoubleEscapeEnd: {
        const bool start = state_ == State::ScriptDoubleEscapeStart;
        if (is_ws(c) || c == '/' || c == '>') {
          const bool script = temp_.view() == "script";
          state_ = start == script ? State::ScriptDoubleEscaped : State::ScriptEscaped;
          ++p;
        } else if (is_alpha(c)) {
          temp_.push(c);
          ++p;
        } else {
          state_ = start ? State::ScriptEscaped : State::ScriptDoubleEscaped;
        }
        continue;
      }
      case State::ScriptDoubleEscaped:
      case State::ScriptDoubleEscapedDash:
      case State::ScriptDoubleEscapedDashDash:
        if (c == '-') {
          state_ = state_ == State::ScriptDoubleEscaped ? State::ScriptDoubleEscapedDash
                                                        : State::ScriptDoubleEscapedDashDash;
        } else if (c == '<') {
          state_ = State::ScriptDoubleEscapedLessThan;
        } else if (c == '>' && state_ == State::ScriptDoubleEscapedDashDash) {
          state_ = State::ScriptData;
        } else {
          state_ = State::ScriptDoubleEscaped;
        }
        ++p;
        continue;
      case State::ScriptDoubleEscapedLessThan:
        if (c == '/') {
          temp_.clear();
          state_ = State::ScriptDoubleEscapeEnd;
          ++p;
        } else {
          state_ = State::ScriptDoubleEscaped;
        }
        continue;
      case State::Plaintext:
        return;
    }
  }
}

}  // namespace detail

namespace detail {

namespace {

// The HTML Standard's "algorithm for extracting a character encoding from a meta element".
std::optional<std::string> charset_from_content(std::string_view s) {
  size_t pos = 0;
  for (;;) {
    size_t at = std::string_view::npos;
    for (size_t i = pos; i + 7 <= s.size(); ++i) {
      if (iequals(s.substr(i, 7), "charset")) {
        at = i;
        break;
      }
    }
    if (at == std::string_view::npos) return std::nullopt;
    size_t i = at + 7;
    while (i < s.size() && is_ws(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') {
      pos = at + 7;
      continue;
    }
    ++i;
    while (i < s.size() && is_ws(s[i])) ++i;
    if (i >= s.size()) return std::nullopt;
    if (s[i] == '"' || s[i] == '\'') {
      const size_t close = s.find(s[i], i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      return std::string(s.substr(i + 1, close - i - 1));
    }
    size_t e = i;
    while (e < s.size() && !is_ws(s[e]) && s[e] != ';') ++e;
    return std::string(s.substr(i, e - i));
  }
}

// Calls f(token) for each token of a list separated by commas and/or ASCII whitespace.
template <typename F>
void for_each_token(std::string_view s, F f) {
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (is_ws(s[i]) || s[i] == ',')) ++i;
    size_t e = i;
    while (e < s.size() && !is_ws(s[e]) && s[e] != ',') ++e;
    if (e > i) f(s.substr(i, e - i));
    i = e;
  }
}

// Subresource rels: a <link> with one of these is not a page to crawl.
bool is_resource_rel(std::string_view token) {
  static constexpr std::string_view kResource[] = {"stylesheet",
                                                   "icon",
                                                   "shortcut",
                                                   "apple-touch-icon",
                                                   "apple-touch-icon-precomposed",
                                                   "mask-icon",
                                                   "preload",
                                                   "prefetch",
                                                   "preconnect",
                                                   "dns-prefetch",
                                                   "modulepreload",
                                                   "prerender",
                                                   "manifest",
                                                   "pingback",
                                                   "expect",
                                                   "compression-dictionary"};
  for (std::string_view r : kResource) {
    if (iequals(token, r)) return true;
  }
  return false;
}

enum class Encoding : uint8_t { Utf8, Windows1252, Iconv };

// The Encoding Standard's labels for UTF-8 and windows-1252 (ISO-8859-1 and US-ASCII are
// windows-1252 there); any other label goes to iconv as written.
Encoding classify_label(std::string_view label, std::string& name) {
  static constexpr std::string_view kUtf8[] = {
      "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8",           "utf8",
      "x-unicode20utf8",   "utf-16",        "utf-16le",      "utf-16be",        "unicodefffe",
      "unicodefeff",       "ucs-2",         "csunicode",     "iso-10646-ucs-2", "unicode"};
  static constexpr std::string_view k1252[] = {"ansi_x3.4-1968",
                                               "ascii",
                                               "cp1252",
                                               "cp819",
                                               "csisolatin1",
                                               "ibm819",
                                               "iso-8859-1",
                                               "iso-ir-100",
                                               "iso8859-1",
                                               "iso88591",
                                               "iso_8859-1",
                                               "iso_8859-1:1987",
                                               "l1",
                                               "latin1",
                                               "us-ascii",
                                               "windows-1252",
                                               "x-cp1252",
                                               "x-user-defined"};
  label = strip_ws(label);
  for (std::string_view l : kUtf8) {
    if (iequals(label, l)) {
      name = "UTF-8";
      return Encoding::Utf8;
    }
  }
  for (std::string_view l : k1252) {
    if (iequals(label, l)) {
      name = "windows-1252";
      return Encoding::Windows1252;
    }
  }
  name.assign(label);
  return Encoding::Iconv;
}

// An iconv conversion descriptor, closed on destruction.
class Iconv {
 public:
  Iconv(const std::string& to, const std::string& from)
      : cd_(iconv_open(to.c_str(), from.c_str())) {}
  ~Iconv() {
    if (ok()) iconv_close(cd_);
  }
  Iconv(const Iconv&) = delete;
  Iconv& operator=(const Iconv&) = delete;
  bool ok() const { return cd_ != reinterpret_cast<iconv_t>(-1); }

  // Converts `in`; false when some input could not be converted (output is then incomplete).
  bool convert(std::string_view in, std::string& out, bool replace_invalid) {
    iconv(cd_, nullptr, nullptr, nullptr, nullptr);
    char* src = const_cast<char*>(in.data());
    size_t left = in.size();
    char buf[256];
    while (left > 0) {
      char* dst = buf;
      size_t room = sizeof buf;
      const size_t r = iconv(cd_, &src, &left, &dst, &room);
      out.append(buf, static_cast<size_t>(dst - buf));
      if (r == static_cast<size_t>(-1) && errno != E2BIG) {
        if (!replace_invalid) return false;
        out += "\xEF\xBF\xBD";
        ++src;
        --left;
        iconv(cd_, nullptr, nullptr, nullptr, nullptr);
      }
    }
    return true;
  }

 private:
  iconv_t cd_;
};

// Decodes one UTF-8 sequence at s[i]; returns its length (1 for an invalid byte, cp = byte).
size_t next_code_point(std::string_view s, size_t i, uint32_t& cp) {
  const unsigned char b = s[i];
  size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) {
    cp = b;
    return 1;
  }
  cp = n == 1 ? b : b & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const unsigned char t = s[i + k];
    if ((t & 0xC0) != 0x80) {
      cp = b;
      return 1;
    }
    cp = cp << 6 | (t & 0x3F);
  }
  return n;
}

void append_percent(std::string& out, unsigned char b) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += '%';
  out += kHex[b >> 4];
  out += kHex[b & 15];
}

}  // namespace

void LinkTokenizer::meta(std::string_view name, std::string_view content, std::string_view charset,
                         std::string_view http_equiv, uint8_t present) {
  if ((present & (1 << Name)) && (present & (1 << Content)) &&
      iequals(strip_ws(decode_attribute(name)), "robots")) {
    for_each_token(decode_attribute(content), [this](std::string_view token) {
      if (iequals(token, "noindex")) robots_.noindex = true;
      if (iequals(token, "nofollow")) robots_.nofollow = true;
      if (iequals(token, "none")) robots_.noindex = robots_.nofollow = true;
    });
  }
  if (meta_charset_) return;
  if (present & (1 << Charset)) {
    const std::string value(strip_ws(decode_attribute(charset)));
    if (!value.empty()) meta_charset_ = value;
  } else if ((present & (1 << HttpEquiv)) && (present & (1 << Content)) &&
             iequals(strip_ws(decode_attribute(http_equiv)), "content-type")) {
    meta_charset_ = charset_from_content(decode_attribute(content));
  }
}

void LinkTokenizer::finish() {
  if (finished_) return;
  finished_ = true;
  state_ = State::Data;  // a tag open at end of file is dropped

  const std::string& label = !options_.charset.empty() ? options_.charset
                             : meta_charset_           ? *meta_charset_
                                                       : std::string("utf-8");
  Encoding encoding = classify_label(label, encoding_);
  std::optional<Iconv> to_utf8;
  std::optional<Iconv> from_utf8;
  if (encoding == Encoding::Iconv) {
    to_utf8.emplace("UTF-8", encoding_);
    from_utf8.emplace(encoding_, "UTF-8");
    if (!to_utf8->ok() || !from_utf8->ok()) {
      encoding = Encoding::Utf8;
      encoding_ = "UTF-8";
    }
  }

  // Attribute bytes → UTF-8 → references resolved → whitespace stripped.
  auto decode = [&](std::string_view bytes, bool strip = true) {
    std::string utf8;
    if (encoding == Encoding::Windows1252) {
      for (unsigned char b : bytes) append_utf8(utf8, windows1252_code_point(b));
      bytes = utf8;
    } else if (encoding == Encoding::Iconv) {
      to_utf8->convert(bytes, utf8, true);
      bytes = utf8;
    }
    std::string decoded = decode_attribute(bytes);
    if (strip) {  // after decoding: "&#32;" and "&Tab;" are whitespace too
      const std::string_view kept = strip_ws(decoded);
      if (kept.size() != decoded.size()) {
        decoded.erase(static_cast<size_t>(kept.data() + kept.size() - decoded.data()));
        decoded.erase(0, static_cast<size_t>(kept.data() - decoded.data()));
      }
    }
    return decoded;
  };

  // The URL Standard encodes the query of a special URL (other than ws, wss) in the document's
  // encoding: rewrite the input's query that way and let the parser see only ASCII there.
  auto parse = [&](const std::string& input, const Url* base) -> std::optional<Url> {
    UrlResult result = Url::parse(input, base);
    if (!result) return std::nullopt;
    if (encoding == Encoding::Utf8 || !result->is_special() ||
        result->scheme_kind() == UrlScheme::Ws || result->scheme_kind() == UrlScheme::Wss) {
      return std::move(result).value();
    }
    const size_t hash = input.find('#');
    const size_t question = input.find('?');
    if (question == std::string::npos || question > hash) return std::move(result).value();
    const size_t query_end = hash == std::string::npos ? input.size() : hash;
    std::string rewritten = input.substr(0, question + 1);
    bool changed = false;
    for (size_t i = question + 1; i < query_end;) {
      uint32_t cp = 0;
      const size_t n = next_code_point(input, i, cp);
      if (cp < 0x80) {
        rewritten += input[i];
        i += n;
        continue;
      }
      changed = true;
      std::string bytes;
      if (encoding == Encoding::Windows1252) {
        if (cp >= 0xA0 && cp <= 0xFF) {
          bytes += static_cast<char>(cp);
        } else {
          for (unsigned b = 0x80; b < 0xA0; ++b) {
            if (windows1252_code_point(static_cast<unsigned char>(b)) == cp) {
              bytes += static_cast<char>(b);
            }
          }
        }
      } else if (!from_utf8->convert(std::string_view(input).substr(i, n), bytes, false)) {
        bytes.clear();
      }
      if (bytes.empty()) {
        rewritten += "%26%23";
        rewritten += std::to_string(cp);
        rewritten += "%3B";
      } else {
        for (unsigned char b : bytes) append_percent(rewritten, b);
      }
      i += n;
    }
    if (!changed) return std::move(result).value();
    rewritten.append(input, query_end, std::string::npos);
    UrlResult again = Url::parse(rewritten, base);
    if (!again) return std::nullopt;
    return std::move(again).value();
  };

  if (raw_base_) base_href_ = decode(*raw_base_);
  if (options_.page_url) {
    base_url_ = options_.page_url;
    if (base_href_) {
      if (std::optional<Url> base = parse(*base_href_, &*options_.page_url)) base_url_ = base;
    }
  }

  links_.reserve(raw_links_.size());
  for (RawLink& raw : raw_links_) {
    Link link;
    link.element = raw.element;
    link.raw = decode(raw.value);
    bool resource = raw.element == LinkElement::Link && !raw.has_rel;
    if (raw.has_rel) {
      link.rel = decode(raw.rel, false);
      bool any = false;
      for_each_token(link.rel, [&](std::string_view token) {
        any = true;
        if (iequals(token, "nofollow")) link.nofollow = true;
        if (raw.element == LinkElement::Link && is_resource_rel(token)) resource = true;
      });
      if (raw.element == LinkElement::Link && !any) resource = true;
    }
    if (resource && !options_.resource_links) continue;
    if (robots_.nofollow) link.nofollow = true;
    if (base_url_) link.url = parse(link.raw, &*base_url_);
    links_.push_back(std::move(link));
  }
  raw_links_.clear();
  raw_links_.shrink_to_fit();
}

}  // namespace detail

std::string_view link_element_name(LinkElement element) noexcept {
  switch (element) {
    case LinkElement::A:
      return "a";
    case LinkElement::Area:
      return "area";
    case LinkElement::Link:
      return "link";
    case LinkElement::Iframe:
      return "iframe";
    case LinkElement::Frame:
      return "frame";
  }
  return "a";
}

LinkExtractor::LinkExtractor(LinkOptions options)
    : impl_(std::make_unique<detail::LinkTokenizer>(std::move(options))) {}
LinkExtractor::~LinkExtractor() = default;
LinkExtractor::LinkExtractor(LinkExtractor&&) noexcept = default;
LinkExtractor& LinkExtractor::operator=(LinkExtractor&&) noexcept = default;

void LinkExtractor::feed(std::string_view chunk) {
  impl_->feed(chunk);
}
void LinkExtractor::finish() {
  impl_->finish();
}
const std::vector<Link>& LinkExtractor::links() const noexcept {
  return impl_->links_;
}
const std::optional<std::string>& LinkExtractor::base_href() const noexcept {
  return impl_->base_href_;
}
const std::optional<Url>& LinkExtractor::base_url() const noexcept {
  return impl_->base_url_;
}
RobotsMeta LinkExtractor::robots() const noexcept {
  return impl_->robots_;
}
const std::optional<std::string>& LinkExtractor::meta_charset() const noexcept {
  return impl_->meta_charset_;
}
const std::string& LinkExtractor::encoding() const noexcept {
  return impl_->encoding_;
}

std::vector<Link> extract_links(std::string_view html, LinkOptions options) {
  LinkExtractor extractor(std::move(options));
  extractor.feed(html);
  extractor.finish();
  return extractor.links();
}

}  // namespace squall

namespace squall {
namespace {

// The HTML Standard's named character references, generated from Python's html.entities.html5
// (which Debian ships), sorted by name.
const NamedReference kNamedReferences[] = {
    {"AElig", "\xc3\x86"},
    {"AElig;", "\xc3\x86"},
    {"AMP", "\x26"},
    {"AMP;", "\x26"},
    {"Aacute", "\xc3\x81"},
    {"Aacute;", "\xc3\x81"},
    {"Abreve;", "\xc4\x82"},
    {"Acirc", "\xc3\x82"},
    {"Acirc;", "\xc3\x82"},
    {"Acy;", "\xd0\x90"},
    {"Afr;", "\xf0\x9d\x94\x84"},
    {"Agrave", "\xc3\x80"},
    {"Agrave;", "\xc3\x80"},
    {"Alpha;", "\xce\x91"},
    {"Amacr;", "\xc4\x80"},
    {"And;", "\xe2\xa9\x93"},
    {"Aogon;", "\xc4\x84"},
    {"Aopf;", "\xf0\x9d\x94\xb8"},
    {"ApplyFunction;", "\xe2\x81\xa1"},
    {"Aring", "\xc3\x85"},
    {"Aring;", "\xc3\x85"},
    {"Ascr;", "\xf0\x9d\x92\x9c"},
    {"Assign;", "\xe2\x89\x94"},
    {"Atilde", "\xc3\x83"},
    {"Atilde;", "\xc3\x83"},
    {"Auml", "\xc3\x84"},
    {"Auml;", "\xc3\x84"},
    {"Backslash;", "\xe2\x88\x96"},
    {"Barv;", "\xe2\xab\xa7"},
    {"Barwed;", "\xe2\x8c\x86"},
    {"Bcy;", "\xd0\x91"},
    {"Because;", "\xe2\x88\xb5"},
    {"Bernoullis;", "\xe2\x84\xac"},
    {"Beta;", "\xce\x92"},
    {"Bfr;", "\xf0\x9d\x94\x85"},
    {"Bopf;", "\xf0\x9d\x94\xb9"},
    {"Breve;", "\xcb\x98"},
    {"Bscr;", "\xe2\x84\xac"},
    {"Bumpeq;", "\xe2\x89\x8e"},
    {"CHcy;", "\xd0\xa7"},
    {"COPY", "\xc2\xa9"},
    {"COPY;", "\xc2\xa9"},
    {"Cacute;", "\xc4\x86"},
    {"Cap;", "\xe2\x8b\x92"},
    {"CapitalDifferentialD;", "\xe2\x85\x85"},
    {"Cayleys;", "\xe2\x84\xad"},
    {"Ccaron;", "\xc4\x8c"},
    {"Ccedil", "\xc3\x87"},
    {"Ccedil;", "\xc3\x87"},
    {"Ccirc;", "\xc4\x88"},
    {"Cconint;", "\xe2\x88\xb0"},
    {"Cdot;", "\xc4\x8a"},
    {"Cedilla;", "\xc2\xb8"},
    {"CenterDot;", "\xc2\xb7"},
    {"Cfr;", "\xe2\x84\xad"},
    {"Chi;", "\xce\xa7"},
    {"CircleDot;", "\xe2\x8a\x99"},
    {"CircleMinus;", "\xe2\x8a\x96"},
    {"CirclePlus;", "\xe2\x8a\x95"},
    {"CircleTimes;", "\xe2\x8a\x97"},
    {"ClockwiseContourIntegral;", "\xe2\x88\xb2"},
    {"CloseCurlyDoubleQuote;", "\xe2\x80\x9d"},
    {"CloseCurlyQuote;", "\xe2\x80\x99"},
    {"Colon;", "\xe2\x88\xb7"},
    {"Colone;", "\xe2\xa9\xb4"},
    {"Congruent;", "\xe2\x89\xa1"},
    {"Conint;", "\xe2\x88\xaf"},
    {"ContourIntegral;", "\xe2\x88\xae"},
    {"Copf;", "\xe2\x84\x82"},
    {"Coproduct;", "\xe2\x88\x90"},
    {"CounterClockwiseContourIntegral;", "\xe2\x88\xb3"},
    {"Cross;", "\xe2\xa8\xaf"},
    {"Cscr;", "\xf0\x9d\x92\x9e"},
    {"Cup;", "\xe2\x8b\x93"},
    {"CupCap;", "\xe2\x89\x8d"},
    {"DD;", "\xe2\x85\x85"},
    {"DDotrahd;", "\xe2\xa4\x91"},
    {"DJcy;", "\xd0\x82"},
    {"DScy;", "\xd0\x85"},
    {"DZcy;", "\xd0\x8f"},
    {"Dagger;", "\xe2\x80\xa1"},
    {"Darr;", "\xe2\x86\xa1"},
    {"Dashv;", "\xe2\xab\xa4"},
    {"Dcaron;", "\xc4\x8e"},
    {"Dcy;", "\xd0\x94"},
    {"Del;", "\xe2\x88\x87"},
    {"Delta;", "\xce\x94"},
    {"Dfr;", "\xf0\x9d\x94\x87"},
    {"DiacriticalAcute;", "\xc2\xb4"},
    {"DiacriticalDot;", "\xcb\x99"},
    {"DiacriticalDoubleAcute;", "\xcb\x9d"},
    {"DiacriticalGrave;", "\x60"},
    {"DiacriticalTilde;", "\xcb\x9c"},
    {"Diamond;", "\xe2\x8b\x84"},
    {"DifferentialD;", "\xe2\x85\x86"},
    {"Dopf;", "\xf0\x9d\x94\xbb"},
    {"Dot;", "\xc2\xa8"},
    {"DotDot;", "\xe2\x83\x9c"},
    {"DotEqual;", "\xe2\x89\x90"},
    {"DoubleContourIntegral;", "\xe2\x88\xaf"},
    {"DoubleDot;", "\xc2\xa8"},
    {"DoubleDownArrow;", "\xe2\x87\x93"},
    {"DoubleLeftArrow;", "\xe2\x87\x90"},
    {"DoubleLeftRightArrow;", "\xe2\x87\x94"},
    {"DoubleLeftTee;", "\xe2\xab\xa4"},
    {"DoubleLongLeftArrow;", "\xe2\x9f\xb8"},
    {"DoubleLongLeftRightArrow;", "\xe2\x9f\xba"},
    {"DoubleLongRightArrow;", "\xe2\x9f\xb9"},
    {"DoubleRightArrow;", "\xe2\x87\x92"},
    {"DoubleRightTee;", "\xe2\x8a\xa8"},
    {"DoubleUpArrow;", "\xe2\x87\x91"},
    {"DoubleUpDownArrow;", "\xe2\x87\x95"},
    {"DoubleVerticalBar;", "\xe2\x88\xa5"},
    {"DownArrow;", "\xe2\x86\x93"},
    {"DownArrowBar;", "\xe2\xa4\x93"},
    {"DownArrowUpArrow;", "\xe2\x87\xb5"},
    {"DownBreve;", "\xcc\x91"},
    {"DownLeftRightVector;", "\xe2\xa5\x90"},
    {"DownLeftTeeVector;", "\xe2\xa5\x9e"},
    {"DownLeftVector;", "\xe2\x86\xbd"},
    {"DownLeftVectorBar;", "\xe2\xa5\x96"},
    {"DownRightTeeVector;", "\xe2\xa5\x9f"},
    {"DownRightVector;", "\xe2\x87\x81"},
    {"DownRightVectorBar;", "\xe2\xa5\x97"},
    {"DownTee;", "\xe2\x8a\xa4"},
    {"DownTeeArrow;", "\xe2\x86\xa7"},
    {"Downarrow;", "\xe2\x87\x93"},
    {"Dscr;", "\xf0\x9d\x92\x9f"},
    {"Dstrok;", "\xc4\x90"},
    {"ENG;", "\xc5\x8a"},
    {"ETH", "\xc3\x90"},
    {"ETH;", "\xc3\x90"},
    {"Eacute", "\xc3\x89"},
    {"Eacute;", "\xc3\x89"},
    {"Ecaron;", "\xc4\x9a"},
    {"Ecirc", "\xc3\x8a"},
    {"Ecirc;", "\xc3\x8a"},
    {"Ecy;", "\xd0\xad"},
    {"Edot;", "\xc4\x96"},
    {"Efr;", "\xf0\x9d\x94\x88"},
    {"Egrave", "\xc3\x88"},
    {"Egrave;", "\xc3\x88"},
    {"Element;", "\xe2\x88\x88"},
    {"Emacr;", "\xc4\x92"},
    {"EmptySmallSquare;", "\xe2\x97\xbb"},
    {"EmptyVerySmallSquare;", "\xe2\x96\xab"},
    {"Eogon;", "\xc4\x98"},
    {"Eopf;", "\xf0\x9d\x94\xbc"},
    {"Epsilon;", "\xce\x95"},
    {"Equal;", "\xe2\xa9\xb5"},
    {"EqualTilde;", "\xe2\x89\x82"},
    {"Equilibrium;", "\xe2\x87\x8c"},
    {"Escr;", "\xe2\x84\xb0"},
    {"Esim;", "\xe2\xa9\xb3"},
    {"Eta;", "\xce\x97"},
    {"Euml", "\xc3\x8b"},
    {"Euml;", "\xc3\x8b"},
    {"Exists;", "\xe2\x88\x83"},
    {"ExponentialE;", "\xe2\x85\x87"},
    {"Fcy;", "\xd0\xa4"},
    {"Ffr;", "\xf0\x9d\x94\x89"},
    {"FilledSmallSquare;", "\xe2\x97\xbc"},
    {"FilledVerySmallSquare;", "\xe2\x96\xaa"},
    {"Fopf;", "\xf0\x9d\x94\xbd"},
    {"ForAll;", "\xe2\x88\x80"},
    {"Fouriertrf;", "\xe2\x84\xb1"},
    {"Fscr;", "\xe2\x84\xb1"},
    {"GJcy;", "\xd0\x83"},
    {"GT", "\x3e"},
    {"GT;", "\x3e"},
    {"Gamma;", "\xce\x93"},
    {"Gammad;", "\xcf\x9c"},
    {"Gbreve;", "\xc4\x9e"},
    {"Gcedil;", "\xc4\xa2"},
    {"Gcirc;", "\xc4\x9c"},
    {"Gcy;", "\xd0\x93"},
    {"Gdot;", "\xc4\xa0"},
    {"Gfr;", "\xf0\x9d\x94\x8a"},
    {"Gg;", "\xe2\x8b\x99"},
    {"Gopf;", "\xf0\x9d\x94\xbe"},
    {"GreaterEqual;", "\xe2\x89\xa5"},
    {"GreaterEqualLess;", "\xe2\x8b\x9b"},
    {"GreaterFullEqual;", "\xe2\x89\xa7"},
    {"GreaterGreater;", "\xe2\xaa\xa2"},
    {"GreaterLess;", "\xe2\x89\xb7"},
    {"GreaterSlantEqual;", "\xe2\xa9\xbe"},
    {"GreaterTilde;", "\xe2\x89\xb3"},
    {"Gscr;", "\xf0\x9d\x92\xa2"},
    {"Gt;", "\xe2\x89\xab"},
    {"HARDcy;", "\xd0\xaa"},
    {"Hacek;", "\xcb\x87"},
    {"Hat;", "\x5e"},
    {"Hcirc;", "\xc4\xa4"},
    {"Hfr;", "\xe2\x84\x8c"},
    {"HilbertSpace;", "\xe2\x84\x8b"},
    {"Hopf;", "\xe2\x84\x8d"},
    {"HorizontalLine;", "\xe2\x94\x80"},
    {"Hscr;", "\xe2\x84\x8b"},
    {"Hstrok;", "\xc4\xa6"},
    {"HumpDownHump;", "\xe2\x89\x8e"},
    {"HumpEqual;", "\xe2\x89\x8f"},
    {"IEcy;", "\xd0\x95"},
    {"IJlig;", "\xc4\xb2"},
    {"IOcy;", "\xd0\x81"},
    {"Iacute", "\xc3\x8d"},
    {"Iacute;", "\xc3\x8d"},
    {"Icirc", "\xc3\x8e"},
    {"Icirc;", "\xc3\x8e"},
    {"Icy;", "\xd0\x98"},
    {"Idot;", "\xc4\xb0"},
    {"Ifr;", "\xe2\x84\x91"},
    {"Igrave", "\xc3\x8c"},
    {"Igrave;", "\xc3\x8c"},
    {"Im;", "\xe2\x84\x91"},
    {"Imacr;", "\xc4\xaa"},
    {"ImaginaryI;", "\xe2\x85\x88"},
    {"Implies;", "\xe2\x87\x92"},
    {"Int;", "\xe2\x88\xac"},
    {"Integral;", "\xe2\x88\xab"},
    {"Intersection;", "\xe2\x8b\x82"},
    {"InvisibleComma;", "\xe2\x81\xa3"},
    {"InvisibleTimes;", "\xe2\x81\xa2"},
    {"Iogon;", "\xc4\xae"},
    {"Iopf;", "\xf0\x9d\x95\x80"},
    {"Iota;", "\xce\x99"},
    {"Iscr;", "\xe2\x84\x90"},
    {"Itilde;", "\xc4\xa8"},
    {"Iukcy;", "\xd0\x86"},
    {"Iuml", "\xc3\x8f"},
    {"Iuml;", "\xc3\x8f"},
    {"Jcirc;", "\xc4\xb4"},
    {"Jcy;", "\xd0\x99"},
    {"Jfr;", "\xf0\x9d\x94\x8d"},
    {"Jopf;", "\xf0\x9d\x95\x81"},
    {"Jscr;", "\xf0\x9d\x92\xa5"},
    {"Jsercy;", "\xd0\x88"},
    {"Jukcy;", "\xd0\x84"},
    {"KHcy;", "\xd0\xa5"},
    {"KJcy;", "\xd0\x8c"},
    {"Kappa;", "\xce\x9a"},
    {"Kcedil;", "\xc4\xb6"},
    {"Kcy;", "\xd0\x9a"},
    {"Kfr;", "\xf0\x9d\x94\x8e"},
    {"Kopf;", "\xf0\x9d\x95\x82"},
    {"Kscr;", "\xf0\x9d\x92\xa6"},
    {"LJcy;", "\xd0\x89"},
    {"LT", "\x3c"},
    {"LT;", "\x3c"},
    {"Lacute;", "\xc4\xb9"},
    {"Lambda;", "\xce\x9b"},
    {"Lang;", "\xe2\x9f\xaa"},
    {"Laplacetrf;", "\xe2\x84\x92"},
    {"Larr;", "\xe2\x86\x9e"},
    {"Lcaron;", "\xc4\xbd"},
    {"Lcedil;", "\xc4\xbb"},
    {"Lcy;", "\xd0\x9b"},
    {"LeftAngleBracket;", "\xe2\x9f\xa8"},
    {"LeftArrow;", "\xe2\x86\x90"},
    {"LeftArrowBar;", "\xe2\x87\xa4"},
    {"LeftArrowRightArrow;", "\xe2\x87\x86"},
    {"LeftCeiling;", "\xe2\x8c\x88"},
    {"LeftDoubleBracket;", "\xe2\x9f\xa6"},
    {"LeftDownTeeVector;", "\xe2\xa5\xa1"},
    {"LeftDownVector;", "\xe2\x87\x83"},
    {"LeftDownVectorBar;", "\xe2\xa5\x99"},
    {"LeftFloor;", "\xe2\x8c\x8a"},
    {"LeftRightArrow;", "\xe2\x86\x94"},
    {"LeftRightVector;", "\xe2\xa5\x8e"},
    {"LeftTee;", "\xe2\x8a\xa3"},
    {"LeftTeeArrow;", "\xe2\x86\xa4"},
    {"LeftTeeVector;", "\xe2\xa5\x9a"},
    {"LeftTriangle;", "\xe2\x8a\xb2"},
    {"LeftTriangleBar;", "\xe2\xa7\x8f"},
    {"LeftTriangleEqual;", "\xe2\x8a\xb4"},
    {"LeftUpDownVector;", "\xe2\xa5\x91"},
    {"LeftUpTeeVector;", "\xe2\xa5\xa0"},
    {"LeftUpVector;", "\xe2\x86\xbf"},
    {"LeftUpVectorBar;", "\xe2\xa5\x98"},
    {"LeftVector;", "\xe2\x86\xbc"},
    {"LeftVectorBar;", "\xe2\xa5\x92"},
    {"Leftarrow;", "\xe2\x87\x90"},
    {"Leftrightarrow;", "\xe2\x87\x94"},
    {"LessEqualGreater;", "\xe2\x8b\x9a"},
    {"LessFullEqual;", "\xe2\x89\xa6"},
    {"LessGreater;", "\xe2\x89\xb6"},
    {"LessLess;", "\xe2\xaa\xa1"},
    {"LessSlantEqual;", "\xe2\xa9\xbd"},
    {"LessTilde;", "\xe2\x89\xb2"},
    {"Lfr;", "\xf0\x9d\x94\x8f"},
    {"Ll;", "\xe2\x8b\x98"},
    {"Lleftarrow;", "\xe2\x87\x9a"},
    {"Lmidot;", "\xc4\xbf"},
    {"LongLeftArrow;", "\xe2\x9f\xb5"},
    {"LongLeftRightArrow;", "\xe2\x9f\xb7"},
    {"LongRightArrow;", "\xe2\x9f\xb6"},
    {"Longleftarrow;", "\xe2\x9f\xb8"},
    {"Longleftrightarrow;", "\xe2\x9f\xba"},
    {"Longrightarrow;", "\xe2\x9f\xb9"},
    {"Lopf;", "\xf0\x9d\x95\x83"},
    {"LowerLeftArrow;", "\xe2\x86\x99"},
    {"LowerRightArrow;", "\xe2\x86\x98"},
    {"Lscr;", "\xe2\x84\x92"},
    {"Lsh;", "\xe2\x86\xb0"},
    {"Lstrok;", "\xc5\x81"},
    {"Lt;", "\xe2\x89\xaa"},
    {"Map;", "\xe2\xa4\x85"},
    {"Mcy;", "\xd0\x9c"},
    {"MediumSpace;", "\xe2\x81\x9f"},
    {"Mellintrf;", "\xe2\x84\xb3"},
    {"Mfr;", "\xf0\x9d\x94\x90"},
    {"MinusPlus;", "\xe2\x88\x93"},
    {"Mopf;", "\xf0\x9d\x95\x84"},
    {"Mscr;", "\xe2\x84\xb3"},
    {"Mu;", "\xce\x9c"},
    {"NJcy;", "\xd0\x8a"},
    {"Nacute;", "\xc5\x83"},
    {"Ncaron;", "\xc5\x87"},
    {"Ncedil;", "\xc5\x85"},
    {"Ncy;", "\xd0\x9d"},
    {"NegativeMediumSpace;", "\xe2\x80\x8b"},
    {"NegativeThickSpace;", "\xe2\x80\x8b"},
    {"NegativeThinSpace;", "\xe2\x80\x8b"},
    {"NegativeVeryThinSpace;", "\xe2\x80\x8b"},
    {"NestedGreaterGreater;", "\xe2\x89\xab"},
    {"NestedLessLess;", "\xe2\x89\xaa"},
    {"NewLine;", "\x0a"},
    {"Nfr;", "\xf0\x9d\x94\x91"},
    {"NoBreak;", "\xe2\x81\xa0"},
    {"NonBreakingSpace;", "\xc2\xa0"},
    {"Nopf;", "\xe2\x84\x95"},
    {"Not;", "\xe2\xab\xac"},
    {"NotCongruent;", "\xe2\x89\xa2"},
    {"NotCupCap;", "\xe2\x89\xad"},
    {"NotDoubleVerticalBar;", "\xe2\x88\xa6"},
    {"NotElement;", "\xe2\x88\x89"},
    {"NotEqual;", "\xe2\x89\xa0"},
    {"NotEqualTilde;", "\xe2\x89\x82\xcc\xb8"},
    {"NotExists;", "\xe2\x88\x84"},
    {"NotGreater;", "\xe2\x89\xaf"},
    {"NotGreaterEqual;", "\xe2\x89\xb1"},
    {"NotGreaterFullEqual;", "\xe2\x89\xa7\xcc\xb8"},
    {"NotGreaterGreater;", "\xe2\x89\xab\xcc\xb8"},
    {"NotGreaterLess;", "\xe2\x89\xb9"},
    {"NotGreaterSlantEqual;", "\xe2\xa9\xbe\xcc\xb8"},
    {"NotGreaterTilde;", "\xe2\x89\xb5"},
    {"NotHumpDownHump;", "\xe2\x89\x8e\xcc\xb8"},
    {"NotHumpEqual;", "\xe2\x89\x8f\xcc\xb8"},
    {"NotLeftTriangle;", "\xe2\x8b\xaa"},
    {"NotLeftTriangleBar;", "\xe2\xa7\x8f\xcc\xb8"},
    {"NotLeftTriangleEqual;", "\xe2\x8b\xac"},
    {"NotLess;", "\xe2\x89\xae"},
    {"NotLessEqual;", "\xe2\x89\xb0"},
    {"NotLessGreater;", "\xe2\x89\xb8"},
    {"NotLessLess;", "\xe2\x89\xaa\xcc\xb8"},
    {"NotLessSlantEqual;", "\xe2\xa9\xbd\xcc\xb8"},
    {"NotLessTilde;", "\xe2\x89\xb4"},
    {"NotNestedGreaterGreater;", "\xe2\xaa\xa2\xcc\xb8"},
    {"NotNestedLessLess;", "\xe2\xaa\xa1\xcc\xb8"},
    {"NotPrecedes;", "\xe2\x8a\x80"},
    {"NotPrecedesEqual;", "\xe2\xaa\xaf\xcc\xb8"},
    {"NotPrecedesSlantEqual;", "\xe2\x8b\xa0"},
    {"NotReverseElement;", "\xe2\x88\x8c"},
    {"NotRightTriangle;", "\xe2\x8b\xab"},
    {"NotRightTriangleBar;", "\xe2\xa7\x90\xcc\xb8"},
    {"NotRightTriangleEqual;", "\xe2\x8b\xad"},
    {"NotSquareSubset;", "\xe2\x8a\x8f\xcc\xb8"},
    {"NotSquareSubsetEqual;", "\xe2\x8b\xa2"},
    {"NotSquareSuperset;", "\xe2\x8a\x90\xcc\xb8"},
    {"NotSquareSupersetEqual;", "\xe2\x8b\xa3"},
    {"NotSubset;", "\xe2\x8a\x82\xe2\x83\x92"},
    {"NotSubsetEqual;", "\xe2\x8a\x88"},
    {"NotSucceeds;", "\xe2\x8a\x81"},
    {"NotSucceedsEqual;", "\xe2\xaa\xb0\xcc\xb8"},
    {"NotSucceedsSlantEqual;", "\xe2\x8b\xa1"},
    {"NotSucceedsTilde;", "\xe2\x89\xbf\xcc\xb8"},
    {"NotSuperset;", "\xe2\x8a\x83\xe2\x83\x92"},
    {"NotSupersetEqual;", "\xe2\x8a\x89"},
    {"NotTilde;", "\xe2\x89\x81"},
    {"NotTildeEqual;", "\xe2\x89\x84"},
    {"NotTildeFullEqual;", "\xe2\x89\x87"},
    {"NotTildeTilde;", "\xe2\x89\x89"},
    {"NotVerticalBar;", "\xe2\x88\xa4"},
    {"Nscr;", "\xf0\x9d\x92\xa9"},
    {"Ntilde", "\xc3\x91"},
    {"Ntilde;", "\xc3\x91"},
    {"Nu;", "\xce\x9d"},
    {"OElig;", "\xc5\x92"},
    {"Oacute", "\xc3\x93"},
    {"Oacute;", "\xc3\x93"},
    {"Ocirc", "\xc3\x94"},
    {"Ocirc;", "\xc3\x94"},
    {"Ocy;", "\xd0\x9e"},
    {"Odblac;", "\xc5\x90"},
    {"Ofr;", "\xf0\x9d\x94\x92"},
    {"Ograve", "\xc3\x92"},
    {"Ograve;", "\xc3\x92"},
    {"Omacr;", "\xc5\x8c"},
    {"Omega;", "\xce\xa9"},
    {"Omicron;", "\xce\x9f"},
    {"Oopf;", "\xf0\x9d\x95\x86"},
    {"OpenCurlyDoubleQuote;", "\xe2\x80\x9c"},
    {"OpenCurlyQuote;", "\xe2\x80\x98"},
    {"Or;", "\xe2\xa9\x94"},
    {"Oscr;", "\xf0\x9d\x92\xaa"},
    {"Oslash", "\xc3\x98"},
    {"Oslash;", "\xc3\x98"},
    {"Otilde", "\xc3\x95"},
    {"Otilde;", "\xc3\x95"},
    {"Otimes;", "\xe2\xa8\xb7"},
    {"Ouml", "\xc3\x96"},
    {"Ouml;", "\xc3\x96"},
    {"OverBar;", "\xe2\x80\xbe"},
    {"OverBrace;", "\xe2\x8f\x9e"},
    {"OverBracket;", "\xe2\x8e\xb4"},
    {"OverParenthesis;", "\xe2\x8f\x9c"},
    {"PartialD;", "\xe2\x88\x82"},
    {"Pcy;", "\xd0\x9f"},
    {"Pfr;", "\xf0\x9d\x94\x93"},
    {"Phi;", "\xce\xa6"},
    {"Pi;", "\xce\xa0"},
    {"PlusMinus;", "\xc2\xb1"},
    {"Poincareplane;", "\xe2\x84\x8c"},
    {"Popf;", "\xe2\x84\x99"},
    {"Pr;", "\xe2\xaa\xbb"},
    {"Precedes;", "\xe2\x89\xba"},
    {"PrecedesEqual;", "\xe2\xaa\xaf"},
    {"PrecedesSlantEqual;", "\xe2\x89\xbc"},
    {"PrecedesTilde;", "\xe2\x89\xbe"},
    {"Prime;", "\xe2\x80\xb3"},
    {"Product;", "\xe2\x88\x8f"},
    {"Proportion;", "\xe2\x88\xb7"},
    {"Proportional;", "\xe2\x88\x9d"},
    {"Pscr;", "\xf0\x9d\x92\xab"},
    {"Psi;", "\xce\xa8"},
    {"QUOT", "\x22"},
    {"QUOT;", "\x22"},
    {"Qfr;", "\xf0\x9d\x94\x94"},
    {"Qopf;", "\xe2\x84\x9a"},
    {"Qscr;", "\xf0\x9d\x92\xac"},
    {"RBarr;", "\xe2\xa4\x90"},
    {"REG", "\xc2\xae"},
    {"REG;", "\xc2\xae"},
    {"Racute;", "\xc5\x94"},
    {"Rang;", "\xe2\x9f\xab"},
    {"Rarr;", "\xe2\x86\xa0"},
    {"Rarrtl;", "\xe2\xa4\x96"},
    {"Rcaron;", "\xc5\x98"},
    {"Rcedil;", "\xc5\x96"},
    {"Rcy;", "\xd0\xa0"},
    {"Re;", "\xe2\x84\x9c"},
    {"ReverseElement;", "\xe2\x88\x8b"},
    {"ReverseEquilibrium;", "\xe2\x87\x8b"},
    {"ReverseUpEquilibrium;", "\xe2\xa5\xaf"},
    {"Rfr;", "\xe2\x84\x9c"},
    {"Rho;", "\xce\xa1"},
    {"RightAngleBracket;", "\xe2\x9f\xa9"},
    {"RightArrow;", "\xe2\x86\x92"},
    {"RightArrowBar;", "\xe2\x87\xa5"},
    {"RightArrowLeftArrow;", "\xe2\x87\x84"},
    {"RightCeiling;", "\xe2\x8c\x89"},
    {"RightDoubleBracket;", "\xe2\x9f\xa7"},
    {"RightDownTeeVector;", "\xe2\xa5\x9d"},
    {"RightDownVector;", "\xe2\x87\x82"},
    {"RightDownVectorBar;", "\xe2\xa5\x95"},
    {"RightFloor;", "\xe2\x8c\x8b"},
    {"RightTee;", "\xe2\x8a\xa2"},
    {"RightTeeArrow;", "\xe2\x86\xa6"},
    {"RightTeeVector;", "\xe2\xa5\x9b"},
    {"RightTriangle;", "\xe2\x8a\xb3"},
    {"RightTriangleBar;", "\xe2\xa7\x90"},
    {"RightTriangleEqual;", "\xe2\x8a\xb5"},
    {"RightUpDownVector;", "\xe2\xa5\x8f"},
    {"RightUpTeeVector;", "\xe2\xa5\x9c"},
    {"RightUpVector;", "\xe2\x86\xbe"},
    {"RightUpVectorBar;", "\xe2\xa5\x94"},
    {"RightVector;", "\xe2\x87\x80"},
    {"RightVectorBar;", "\xe2\xa5\x93"},
    {"Rightarrow;", "\xe2\x87\x92"},
    {"Ropf;", "\xe2\x84\x9d"},
    {"RoundImplies;", "\xe2\xa5\xb0"},
    {"Rrightarrow;", "\xe2\x87\x9b"},
    {"Rscr;", "\xe2\x84\x9b"},
    {"Rsh;", "\xe2\x86\xb1"},
    {"RuleDelayed;", "\xe2\xa7\xb4"},
    {"SHCHcy;", "\xd0\xa9"},
    {"SHcy;", "\xd0\xa8"},
    {"SOFTcy;", "\xd0\xac"},
    {"Sacute;", "\xc5\x9a"},
    {"Sc;", "\xe2\xaa\xbc"},
    {"Scaron;", "\xc5\xa0"},
    {"Scedil;", "\xc5\x9e"},
    {"Scirc;", "\xc5\x9c"},
    {"Scy;", "\xd0\xa1"},
    {"Sfr;", "\xf0\x9d\x94\x96"},
    {"ShortDownArrow;", "\xe2\x86\x93"},
    {"ShortLeftArrow;", "\xe2\x86\x90"},
    {"ShortRightArrow;", "\xe2\x86\x92"},
    {"ShortUpArrow;", "\xe2\x86\x91"},
    {"Sigma;", "\xce\xa3"},
    {"SmallCircle;", "\xe2\x88\x98"},
    {"Sopf;", "\xf0\x9d\x95\x8a"},
    {"Sqrt;", "\xe2\x88\x9a"},
    {"Square;", "\xe2\x96\xa1"},
    {"SquareIntersection;", "\xe2\x8a\x93"},
    {"SquareSubset;", "\xe2\x8a\x8f"},
    {"SquareSubsetEqual;", "\xe2\x8a\x91"},
    {"SquareSuperset;", "\xe2\x8a\x90"},
    {"SquareSupersetEqual;", "\xe2\x8a\x92"},
    {"SquareUnion;", "\xe2\x8a\x94"},
    {"Sscr;", "\xf0\x9d\x92\xae"},
    {"Star;", "\xe2\x8b\x86"},
    {"Sub;", "\xe2\x8b\x90"},
    {"Subset;", "\xe2\x8b\x90"},
    {"SubsetEqual;", "\xe2\x8a\x86"},
    {"Succeeds;", "\xe2\x89\xbb"},
    {"SucceedsEqual;", "\xe2\xaa\xb0"},
    {"SucceedsSlantEqual;", "\xe2\x89\xbd"},
    {"SucceedsTilde;", "\xe2\x89\xbf"},
    {"SuchThat;", "\xe2\x88\x8b"},
    {"Sum;", "\xe2\x88\x91"},
    {"Sup;", "\xe2\x8b\x91"},
    {"Superset;", "\xe2\x8a\x83"},
    {"SupersetEqual;", "\xe2\x8a\x87"},
    {"Supset;", "\xe2\x8b\x91"},
    {"THORN", "\xc3\x9e"},
    {"THORN;", "\xc3\x9e"},
    {"TRADE;", "\xe2\x84\xa2"},
    {"TSHcy;", "\xd0\x8b"},
    {"TScy;", "\xd0\xa6"},
    {"Tab;", "\x09"},
    {"Tau;", "\xce\xa4"},
    {"Tcaron;", "\xc5\xa4"},
    {"Tcedil;", "\xc5\xa2"},
    {"Tcy;", "\xd0\xa2"},
    {"Tfr;", "\xf0\x9d\x94\x97"},
    {"Therefore;", "\xe2\x88\xb4"},
    {"Theta;", "\xce\x98"},
    {"ThickSpace;", "\xe2\x81\x9f\xe2\x80\x8a"},
    {"ThinSpace;", "\xe2\x80\x89"},
    {"Tilde;", "\xe2\x88\xbc"},
    {"TildeEqual;", "\xe2\x89\x83"},
    {"TildeFullEqual;", "\xe2\x89\x85"},
    {"TildeTilde;", "\xe2\x89\x88"},
    {"Topf;", "\xf0\x9d\x95\x8b"},
    {"TripleDot;", "\xe2\x83\x9b"},
    {"Tscr;", "\xf0\x9d\x92\xaf"},
    {"Tstrok;", "\xc5\xa6"},
    {"Uacute", "\xc3\x9a"},
    {"Uacute;", "\xc3\x9a"},
    {"Uarr;", "\xe2\x86\x9f"},
    {"Uarrocir;", "\xe2\xa5\x89"},
    {"Ubrcy;", "\xd0\x8e"},
    {"Ubreve;", "\xc5\xac"},
    {"Ucirc", "\xc3\x9b"},
    {"Ucirc;", "\xc3\x9b"},
    {"Ucy;", "\xd0\xa3"},
    {"Udblac;", "\xc5\xb0"},
    {"Ufr;", "\xf0\x9d\x94\x98"},
    {"Ugrave", "\xc3\x99"},
    {"Ugrave;", "\xc3\x99"},
    {"Umacr;", "\xc5\xaa"},
    {"UnderBar;", "\x5f"},
    {"UnderBrace;", "\xe2\x8f\x9f"},
    {"UnderBracket;", "\xe2\x8e\xb5"},
    {"UnderParenthesis;", "\xe2\x8f\x9d"},
    {"Union;", "\xe2\x8b\x83"},
    {"UnionPlus;", "\xe2\x8a\x8e"},
    {"Uogon;", "\xc5\xb2"},
    {"Uopf;", "\xf0\x9d\x95\x8c"},
    {"UpArrow;", "\xe2\x86\x91"},
    {"UpArrowBar;", "\xe2\xa4\x92"},
    {"UpArrowDownArrow;", "\xe2\x87\x85"},
    {"UpDownArrow;", "\xe2\x86\x95"},
    {"UpEquilibrium;", "\xe2\xa5\xae"},
    {"UpTee;", "\xe2\x8a\xa5"},
    {"UpTeeArrow;", "\xe2\x86\xa5"},
    {"Uparrow;", "\xe2\x87\x91"},
    {"Updownarrow;", "\xe2\x87\x95"},
    {"UpperLeftArrow;", "\xe2\x86\x96"},
    {"UpperRightArrow;", "\xe2\x86\x97"},
    {"Upsi;", "\xcf\x92"},
    {"Upsilon;", "\xce\xa5"},
    {"Uring;", "\xc5\xae"},
    {"Uscr;", "\xf0\x9d\x92\xb0"},
    {"Utilde;", "\xc5\xa8"},
    {"Uuml", "\xc3\x9c"},
    {"Uuml;", "\xc3\x9c"},
    {"VDash;", "\xe2\x8a\xab"},
    {"Vbar;", "\xe2\xab\xab"},
    {"Vcy;", "\xd0\x92"},
    {"Vdash;", "\xe2\x8a\xa9"},
    {"Vdashl;", "\xe2\xab\xa6"},
    {"Vee;", "\xe2\x8b\x81"},
    {"Verbar;", "\xe2\x80\x96"},
    {"Vert;", "\xe2\x80\x96"},
    {"VerticalBar;", "\xe2\x88\xa3"},
    {"VerticalLine;", "\x7c"},
    {"VerticalSeparator;", "\xe2\x9d\x98"},
    {"VerticalTilde;", "\xe2\x89\x80"},
    {"VeryThinSpace;", "\xe2\x80\x8a"},
    {"Vfr;", "\xf0\x9d\x94\x99"},
    {"Vopf;", "\xf0\x9d\x95\x8d"},
    {"Vscr;", "\xf0\x9d\x92\xb1"},
    {"Vvdash;", "\xe2\x8a\xaa"},
    {"Wcirc;", "\xc5\xb4"},
    {"Wedge;", "\xe2\x8b\x80"},
    {"Wfr;", "\xf0\x9d\x94\x9a"},
    {"Wopf;", "\xf0\x9d\x95\x8e"},
    {"Wscr;", "\xf0\x9d\x92\xb2"},
    {"Xfr;", "\xf0\x9d\x94\x9b"},
    {"Xi;", "\xce\x9e"},
    {"Xopf;", "\xf0\x9d\x95\x8f"},
    {"Xscr;", "\xf0\x9d\x92\xb3"},
    {"YAcy;", "\xd0\xaf"},
    {"YIcy;", "\xd0\x87"},
    {"YUcy;", "\xd0\xae"},
    {"Yacute", "\xc3\x9d"},
    {"Yacute;", "\xc3\x9d"},
    {"Ycirc;", "\xc5\xb6"},
    {"Ycy;", "\xd0\xab"},
    {"Yfr;", "\xf0\x9d\x94\x9c"},
    {"Yopf;", "\xf0\x9d\x95\x90"},
    {"Yscr;", "\xf0\x9d\x92\xb4"},
    {"Yuml;", "\xc5\xb8"},
    {"ZHcy;", "\xd0\x96"},
    {"Zacute;", "\xc5\xb9"},
    {"Zcaron;", "\xc5\xbd"},
    {"Zcy;", "\xd0\x97"},
    {"Zdot;", "\xc5\xbb"},
    {"ZeroWidthSpace;", "\xe2\x80\x8b"},
    {"Zeta;", "\xce\x96"},
    {"Zfr;", "\xe2\x84\xa8"},
    {"Zopf;", "\xe2\x84\xa4"},
    {"Zscr;", "\xf0\x9d\x92\xb5"},
    {"aacute", "\xc3\xa1"},
    {"aacute;", "\xc3\xa1"},
    {"abreve;", "\xc4\x83"},
    {"ac;", "\xe2\x88\xbe"},
    {"acE;", "\xe2\x88\xbe\xcc\xb3"},
    {"acd;", "\xe2\x88\xbf"},
    {"acirc", "\xc3\xa2"},
    {"acirc;", "\xc3\xa2"},
    {"acute", "\xc2\xb4"},
    {"acute;", "\xc2\xb4"},
    {"acy;", "\xd0\xb0"},
    {"aelig", "\xc3\xa6"},
    {"aelig;", "\xc3\xa6"},
    {"af;", "\xe2\x81\xa1"},
    {"afr;", "\xf0\x9d\x94\x9e"},
    {"agrave", "\xc3\xa0"},
    {"agrave;", "\xc3\xa0"},
    {"alefsym;", "\xe2\x84\xb5"},
    {"aleph;", "\xe2\x84\xb5"},
    {"alpha;", "\xce\xb1"},
    {"amacr;", "\xc4\x81"},
    {"amalg;", "\xe2\xa8\xbf"},
    {"amp", "\x26"},
    {"amp;", "\x26"},
    {"and;", "\xe2\x88\xa7"},
    {"andand;", "\xe2\xa9\x95"},
    {"andd;", "\xe2\xa9\x9c"},
    {"andslope;", "\xe2\xa9\x98"},
    {"andv;", "\xe2\xa9\x9a"},
    {"ang;", "\xe2\x88\xa0"},
    {"ange;", "\xe2\xa6\xa4"},
    {"angle;", "\xe2\x88\xa0"},
    {"angmsd;", "\xe2\x88\xa1"},
    {"angmsdaa;", "\xe2\xa6\xa8"},
    {"angmsdab;", "\xe2\xa6\xa9"},
    {"angmsdac;", "\xe2\xa6\xaa"},
    {"angmsdad;", "\xe2\xa6\xab"},
    {"angmsdae;", "\xe2\xa6\xac"},
    {"angmsdaf;", "\xe2\xa6\xad"},
    {"angmsdag;", "\xe2\xa6\xae"},
    {"angmsdah;", "\xe2\xa6\xaf"},
    {"angrt;", "\xe2\x88\x9f"},
    {"angrtvb;", "\xe2\x8a\xbe"},
    {"angrtvbd;", "\xe2\xa6\x9d"},
    {"angsph;", "\xe2\x88\xa2"},
    {"angst;", "\xc3\x85"},
    {"angzarr;", "\xe2\x8d\xbc"},
    {"aogon;", "\xc4\x85"},
    {"aopf;", "\xf0\x9d\x95\x92"},
    {"ap;", "\xe2\x89\x88"},
    {"apE;", "\xe2\xa9\xb0"},
    {"apacir;", "\xe2\xa9\xaf"},
    {"ape;", "\xe2\x89\x8a"},
    {"apid;", "\xe2\x89\x8b"},
    {"apos;", "\x27"},
    {"approx;", "\xe2\x89\x88"},
    {"approxeq;", "\xe2\x89\x8a"},
    {"aring", "\xc3\xa5"},
    {"aring;", "\xc3\xa5"},
    {"ascr;", "\xf0\x9d\x92\xb6"},
    {"ast;", "\x2a"},
    {"asymp;", "\xe2\x89\x88"},
    {"asympeq;", "\xe2\x89\x8d"},
    {"atilde", "\xc3\xa3"},
    {"atilde;", "\xc3\xa3"},
    {"auml", "\xc3\xa4"},
    {"auml;", "\xc3\xa4"},
    {"awconint;", "\xe2\x88\xb3"},
    {"awint;", "\xe2\xa8\x91"},
    {"bNot;", "\xe2\xab\xad"},
    {"backcong;", "\xe2\x89\x8c"},
    {"backepsilon;", "\xcf\xb6"},
    {"backprime;", "\xe2\x80\xb5"},
    {"backsim;", "\xe2\x88\xbd"},
    {"backsimeq;", "\xe2\x8b\x8d"},
    {"barvee;", "\xe2\x8a\xbd"},
    {"barwed;", "\xe2\x8c\x85"},
    {"barwedge;", "\xe2\x8c\x85"},
    {"bbrk;", "\xe2\x8e\xb5"},
    {"bbrktbrk;", "\xe2\x8e\xb6"},
    {"bcong;", "\xe2\x89\x8c"},
    {"bcy;", "\xd0\xb1"},
    {"bdquo;", "\xe2\x80\x9e"},
    {"becaus;", "\xe2\x88\xb5"},
    {"because;", "\xe2\x88\xb5"},
    {"bemptyv;", "\xe2\xa6\xb0"},
    {"bepsi;", "\xcf\xb6"},
    {"bernou;", "\xe2\x84\xac"},
    {"beta;", "\xce\xb2"},
    {"beth;", "\xe2\x84\xb6"},
    {"between;", "\xe2\x89\xac"},
    {"bfr;", "\xf0\x9d\x94\x9f"},
    {"bigcap;", "\xe2\x8b\x82"},
    {"bigcirc;", "\xe2\x97\xaf"},
    {"bigcup;", "\xe2\x8b\x83"},
    {"bigodot;", "\xe2\xa8\x80"},
    {"bigoplus;", "\xe2\xa8\x81"},
    {"bigotimes;", "\xe2\xa8\x82"},
    {"bigsqcup;", "\xe2\xa8\x86"},
    {"bigstar;", "\xe2\x98\x85"},
    {"bigtriangledown;", "\xe2\x96\xbd"},
    {"bigtriangleup;", "\xe2\x96\xb3"},
    {"biguplus;", "\xe2\xa8\x84"},
    {"bigvee;", "\xe2\x8b\x81"},
    {"bigwedge;", "\xe2\x8b\x80"},
    {"bkarow;", "\xe2\xa4\x8d"},
    {"blacklozenge;", "\xe2\xa7\xab"},
    {"blacksquare;", "\xe2\x96\xaa"},
    {"blacktriangle;", "\xe2\x96\xb4"},
    {"blacktriangledown;", "\xe2\x96\xbe"},
    {"blacktriangleleft;", "\xe2\x97\x82"},
    {"blacktriangleright;", "\xe2\x96\xb8"},
    {"blank;", "\xe2\x90\xa3"},
    {"blk12;", "\xe2\x96\x92"},
    {"blk14;", "\xe2\x96\x91"},
    {"blk34;", "\xe2\x96\x93"},
    {"block;", "\xe2\x96\x88"},
    {"bne;", "\x3d\xe2\x83\xa5"},
    {"bnequiv;", "\xe2\x89\xa1\xe2\x83\xa5"},
    {"bnot;", "\xe2\x8c\x90"},
    {"bopf;", "\xf0\x9d\x95\x93"},
    {"bot;", "\xe2\x8a\xa5"},
    {"bottom;", "\xe2\x8a\xa5"},
    {"bowtie;", "\xe2\x8b\x88"},
    {"boxDL;", "\xe2\x95\x97"},
    {"boxDR;", "\xe2\x95\x94"},
    {"boxDl;", "\xe2\x95\x96"},
    {"boxDr;", "\xe2\x95\x93"},
    {"boxH;", "\xe2\x95\x90"},
    {"boxHD;", "\xe2\x95\xa6"},
    {"boxHU;", "\xe2\x95\xa9"},
    {"boxHd;", "\xe2\x95\xa4"},
    {"boxHu;", "\xe2\x95\xa7"},
    {"boxUL;", "\xe2\x95\x9d"},
    {"boxUR;", "\xe2\x95\x9a"},
    {"boxUl;", "\xe2\x95\x9c"},
    {"boxUr;", "\xe2\x95\x99"},
    {"boxV;", "\xe2\x95\x91"},
    {"boxVH;", "\xe2\x95\xac"},
    {"boxVL;", "\xe2\x95\xa3"},
    {"boxVR;", "\xe2\x95\xa0"},
    {"boxVh;", "\xe2\x95\xab"},
    {"boxVl;", "\xe2\x95\xa2"},
    {"boxVr;", "\xe2\x95\x9f"},
    {"boxbox;", "\xe2\xa7\x89"},
    {"boxdL;", "\xe2\x95\x95"},
    {"boxdR;", "\xe2\x95\x92"},
    {"boxdl;", "\xe2\x94\x90"},
    {"boxdr;", "\xe2\x94\x8c"},
    {"boxh;", "\xe2\x94\x80"},
    {"boxhD;", "\xe2\x95\xa5"},
    {"boxhU;", "\xe2\x95\xa8"},
    {"boxhd;", "\xe2\x94\xac"},
    {"boxhu;", "\xe2\x94\xb4"},
    {"boxminus;", "\xe2\x8a\x9f"},
    {"boxplus;", "\xe2\x8a\x9e"},
    {"boxtimes;", "\xe2\x8a\xa0"},
    {"boxuL;", "\xe2\x95\x9b"},
    {"boxuR;", "\xe2\x95\x98"},
    {"boxul;", "\xe2\x94\x98"},
    {"boxur;", "\xe2\x94\x94"},
    {"boxv;", "\xe2\x94\x82"},
    {"boxvH;", "\xe2\x95\xaa"},
    {"boxvL;", "\xe2\x95\xa1"},
    {"boxvR;", "\xe2\x95\x9e"},
    {"boxvh;", "\xe2\x94\xbc"},
    {"boxvl;", "\xe2\x94\xa4"},
    {"boxvr;", "\xe2\x94\x9c"},
    {"bprime;", "\xe2\x80\xb5"},
    {"breve;", "\xcb\x98"},
    {"brvbar", "\xc2\xa6"},
    {"brvbar;", "\xc2\xa6"},
    {"bscr;", "\xf0\x9d\x92\xb7"},
    {"bsemi;", "\xe2\x81\x8f"},
    {"bsim;", "\xe2\x88\xbd"},
    {"bsime;", "\xe2\x8b\x8d"},
    {"bsol;", "\x5c"},
    {"bsolb;", "\xe2\xa7\x85"},
    {"bsolhsub;", "\xe2\x9f\x88"},
    {"bull;", "\xe2\x80\xa2"},
    {"bullet;", "\xe2\x80\xa2"},
    {"bump;", "\xe2\x89\x8e"},
    {"bumpE;", "\xe2\xaa\xae"},
    {"bumpe;", "\xe2\x89\x8f"},
    {"bumpeq;", "\xe2\x89\x8f"},
    {"cacute;", "\xc4\x87"},
    {"cap;", "\xe2\x88\xa9"},
    {"capand;", "\xe2\xa9\x84"},
    {"capbrcup;", "\xe2\xa9\x89"},
    {"capcap;", "\xe2\xa9\x8b"},
    {"capcup;", "\xe2\xa9\x87"},
    {"capdot;", "\xe2\xa9\x80"},
    {"caps;", "\xe2\x88\xa9\xef\xb8\x80"},
    {"caret;", "\xe2\x81\x81"},
    {"caron;", "\xcb\x87"},
    {"ccaps;", "\xe2\xa9\x8d"},
    {"ccaron;", "\xc4\x8d"},
    {"ccedil", "\xc3\xa7"},
    {"ccedil;", "\xc3\xa7"},
    {"ccirc;", "\xc4\x89"},
    {"ccups;", "\xe2\xa9\x8c"},
    {"ccupssm;", "\xe2\xa9\x90"},
    {"cdot;", "\xc4\x8b"},
    {"cedil", "\xc2\xb8"},
    {"cedil;", "\xc2\xb8"},
    {"cemptyv;", "\xe2\xa6\xb2"},
    {"cent", "\xc2\xa2"},
    {"cent;", "\xc2\xa2"},
    {"centerdot;", "\xc2\xb7"},
    {"cfr;", "\xf0\x9d\x94\xa0"},
    {"chcy;", "\xd1\x87"},
    {"check;", "\xe2\x9c\x93"},
    {"checkmark;", "\xe2\x9c\x93"},
    {"chi;", "\xcf\x87"},
    {"cir;", "\xe2\x97\x8b"},
    {"cirE;", "\xe2\xa7\x83"},
    {"circ;", "\xcb\x86"},
    {"circeq;", "\xe2\x89\x97"},
    {"circlearrowleft;", "\xe2\x86\xba"},
    {"circlearrowright;", "\xe2\x86\xbb"},
    {"circledR;", "\xc2\xae"},
    {"circledS;", "\xe2\x93\x88"},
    {"circledast;", "\xe2\x8a\x9b"},
    {"circledcirc;", "\xe2\x8a\x9a"},
    {"circleddash;", "\xe2\x8a\x9d"},
    {"cire;", "\xe2\x89\x97"},
    {"cirfnint;", "\xe2\xa8\x90"},
    {"cirmid;", "\xe2\xab\xaf"},
    {"cirscir;", "\xe2\xa7\x82"},
    {"clubs;", "\xe2\x99\xa3"},
    {"clubsuit;", "\xe2\x99\xa3"},
    {"colon;", "\x3a"},
    {"colone;", "\xe2\x89\x94"},
    {"coloneq;", "\xe2\x89\x94"},
    {"comma;", "\x2c"},
    {"commat;", "\x40"},
    {"comp;", "\xe2\x88\x81"},
    {"compfn;", "\xe2\x88\x98"},
    {"complement;", "\xe2\x88\x81"},
    {"complexes;", "\xe2\x84\x82"},
    {"cong;", "\xe2\x89\x85"},
    {"congdot;", "\xe2\xa9\xad"},
    {"conint;", "\xe2\x88\xae"},
    {"copf;", "\xf0\x9d\x95\x94"},
    {"coprod;", "\xe2\x88\x90"},
    {"copy", "\xc2\xa9"},
    {"copy;", "\xc2\xa9"},
    {"copysr;", "\xe2\x84\x97"},
    {"crarr;", "\xe2\x86\xb5"},
    {"cross;", "\xe2\x9c\x97"},
    {"cscr;", "\xf0\x9d\x92\xb8"},
    {"csub;", "\xe2\xab\x8f"},
    {"csube;", "\xe2\xab\x91"},
    {"csup;", "\xe2\xab\x90"},
    {"csupe;", "\xe2\xab\x92"},
    {"ctdot;", "\xe2\x8b\xaf"},
    {"cudarrl;", "\xe2\xa4\xb8"},
    {"cudarrr;", "\xe2\xa4\xb5"},
    {"cuepr;", "\xe2\x8b\x9e"},
    {"cuesc;", "\xe2\x8b\x9f"},
    {"cularr;", "\xe2\x86\xb6"},
    {"cularrp;", "\xe2\xa4\xbd"},
    {"cup;", "\xe2\x88\xaa"},
    {"cupbrcap;", "\xe2\xa9\x88"},
    {"cupcap;", "\xe2\xa9\x86"},
    {"cupcup;", "\xe2\xa9\x8a"},
    {"cupdot;", "\xe2\x8a\x8d"},
    {"cupor;", "\xe2\xa9\x85"},
    {"cups;", "\xe2\x88\xaa\xef\xb8\x80"},
    {"curarr;", "\xe2\x86\xb7"},
    {"curarrm;", "\xe2\xa4\xbc"},
    {"curlyeqprec;", "\xe2\x8b\x9e"},
    {"curlyeqsucc;", "\xe2\x8b\x9f"},
    {"curlyvee;", "\xe2\x8b\x8e"},
    {"curlywedge;", "\xe2\x8b\x8f"},
    {"curren", "\xc2\xa4"},
    {"curren;", "\xc2\xa4"},
    {"curvearrowleft;", "\xe2\x86\xb6"},
    {"curvearrowright;", "\xe2\x86\xb7"},
    {"cuvee;", "\xe2\x8b\x8e"},
    {"cuwed;", "\xe2\x8b\x8f"},
    {"cwconint;", "\xe2\x88\xb2"},
    {"cwint;", "\xe2\x88\xb1"},
    {"cylcty;", "\xe2\x8c\xad"},
    {"dArr;", "\xe2\x87\x93"},
    {"dHar;", "\xe2\xa5\xa5"},
    {"dagger;", "\xe2\x80\xa0"},
    {"daleth;", "\xe2\x84\xb8"},
    {"darr;", "\xe2\x86\x93"},
    {"dash;", "\xe2\x80\x90"},
    {"dashv;", "\xe2\x8a\xa3"},
    {"dbkarow;", "\xe2\xa4\x8f"},
    {"dblac;", "\xcb\x9d"},
    {"dcaron;", "\xc4\x8f"},
    {"dcy;", "\xd0\xb4"},
    {"dd;", "\xe2\x85\x86"},
    {"ddagger;", "\xe2\x80\xa1"},
    {"ddarr;", "\xe2\x87\x8a"},
    {"ddotseq;", "\xe2\xa9\xb7"},
    {"deg", "\xc2\xb0"},
    {"deg;", "\xc2\xb0"},
    {"delta;", "\xce\xb4"},
    {"demptyv;", "\xe2\xa6\xb1"},
    {"dfisht;", "\xe2\xa5\xbf"},
    {"dfr;", "\xf0\x9d\x94\xa1"},
    {"dharl;", "\xe2\x87\x83"},
    {"dharr;", "\xe2\x87\x82"},
    {"diam;", "\xe2\x8b\x84"},
    {"diamond;", "\xe2\x8b\x84"},
    {"diamondsuit;", "\xe2\x99\xa6"},
    {"diams;", "\xe2\x99\xa6"},
    {"die;", "\xc2\xa8"},
    {"digamma;", "\xcf\x9d"},
    {"disin;", "\xe2\x8b\xb2"},
    {"div;", "\xc3\xb7"},
    {"divide", "\xc3\xb7"},
    {"divide;", "\xc3\xb7"},
    {"divideontimes;", "\xe2\x8b\x87"},
    {"divonx;", "\xe2\x8b\x87"},
    {"djcy;", "\xd1\x92"},
    {"dlcorn;", "\xe2\x8c\x9e"},
    {"dlcrop;", "\xe2\x8c\x8d"},
    {"dollar;", "\x24"},
    {"dopf;", "\xf0\x9d\x95\x95"},
    {"dot;", "\xcb\x99"},
    {"doteq;", "\xe2\x89\x90"},
    {"doteqdot;", "\xe2\x89\x91"},
    {"dotminus;", "\xe2\x88\xb8"},
    {"dotplus;", "\xe2\x88\x94"},
    {"dotsquare;", "\xe2\x8a\xa1"},
    {"doublebarwedge;", "\xe2\x8c\x86"},
    {"downarrow;", "\xe2\x86\x93"},
    {"downdownarrows;", "\xe2\x87\x8a"},
    {"downharpoonleft;", "\xe2\x87\x83"},
    {"downharpoonright;", "\xe2\x87\x82"},
    {"drbkarow;", "\xe2\xa4\x90"},
    {"drcorn;", "\xe2\x8c\x9f"},
    {"drcrop;", "\xe2\x8c\x8c"},
    {"dscr;", "\xf0\x9d\x92\xb9"},
    {"dscy;", "\xd1\x95"},
    {"dsol;", "\xe2\xa7\xb6"},
    {"dstrok;", "\xc4\x91"},
    {"dtdot;", "\xe2\x8b\xb1"},
    {"dtri;", "\xe2\x96\xbf"},
    {"dtrif;", "\xe2\x96\xbe"},
    {"duarr;", "\xe2\x87\xb5"},
    {"duhar;", "\xe2\xa5\xaf"},
    {"dwangle;", "\xe2\xa6\xa6"},
    {"dzcy;", "\xd1\x9f"},
    {"dzigrarr;", "\xe2\x9f\xbf"},
    {"eDDot;", "\xe2\xa9\xb7"},
    {"eDot;", "\xe2\x89\x91"},
    {"eacute", "\xc3\xa9"},
    {"eacute;", "\xc3\xa9"},
    {"easter;", "\xe2\xa9\xae"},
    {"ecaron;", "\xc4\x9b"},
    {"ecir;", "\xe2\x89\x96"},
    {"ecirc", "\xc3\xaa"},
    {"ecirc;", "\xc3\xaa"},
    {"ecolon;", "\xe2\x89\x95"},
    {"ecy;", "\xd1\x8d"},
    {"edot;", "\xc4\x97"},
    {"ee;", "\xe2\x85\x87"},
    {"efDot;", "\xe2\x89\x92"},
    {"efr;", "\xf0\x9d\x94\xa2"},
    {"eg;", "\xe2\xaa\x9a"},
    {"egrave", "\xc3\xa8"},
    {"egrave;", "\xc3\xa8"},
    {"egs;", "\xe2\xaa\x96"},
    {"egsdot;", "\xe2\xaa\x98"},
    {"el;", "\xe2\xaa\x99"},
    {"elinters;", "\xe2\x8f\xa7"},
    {"ell;", "\xe2\x84\x93"},
    {"els;", "\xe2\xaa\x95"},
    {"elsdot;", "\xe2\xaa\x97"},
    {"emacr;", "\xc4\x93"},
    {"empty;", "\xe2\x88\x85"},
    {"emptyset;", "\xe2\x88\x85"},
    {"emptyv;", "\xe2\x88\x85"},
    {"emsp13;", "\xe2\x80\x84"},
    {"emsp14;", "\xe2\x80\x85"},
    {"emsp;", "\xe2\x80\x83"},
    {"eng;", "\xc5\x8b"},
    {"ensp;", "\xe2\x80\x82"},
    {"eogon;", "\xc4\x99"},
    {"eopf;", "\xf0\x9d\x95\x96"},
    {"epar;", "\xe2\x8b\x95"},
    {"eparsl;", "\xe2\xa7\xa3"},
    {"eplus;", "\xe2\xa9\xb1"},
    {"epsi;", "\xce\xb5"},
    {"epsilon;", "\xce\xb5"},
    {"epsiv;", "\xcf\xb5"},
    {"eqcirc;", "\xe2\x89\x96"},
    {"eqcolon;", "\xe2\x89\x95"},
    {"eqsim;", "\xe2\x89\x82"},
    {"eqslantgtr;", "\xe2\xaa\x96"},
    {"eqslantless;", "\xe2\xaa\x95"},
    {"equals;", "\x3d"},
    {"equest;", "\xe2\x89\x9f"},
    {"equiv;", "\xe2\x89\xa1"},
    {"equivDD;", "\xe2\xa9\xb8"},
    {"eqvparsl;", "\xe2\xa7\xa5"},
    {"erDot;", "\xe2\x89\x93"},
    {"erarr;", "\xe2\xa5\xb1"},
    {"escr;", "\xe2\x84\xaf"},
    {"esdot;", "\xe2\x89\x90"},
    {"esim;", "\xe2\x89\x82"},
    {"eta;", "\xce\xb7"},
    {"eth", "\xc3\xb0"},
    {"eth;", "\xc3\xb0"},
    {"euml", "\xc3\xab"},
    {"euml;", "\xc3\xab"},
    {"euro;", "\xe2\x82\xac"},
    {"excl;", "\x21"},
    {"exist;", "\xe2\x88\x83"},
    {"expectation;", "\xe2\x84\xb0"},
    {"exponentiale;", "\xe2\x85\x87"},
    {"fallingdotseq;", "\xe2\x89\x92"},
    {"fcy;", "\xd1\x84"},
    {"female;", "\xe2\x99\x80"},
    {"ffilig;", "\xef\xac\x83"},
    {"fflig;", "\xef\xac\x80"},
    {"ffllig;", "\xef\xac\x84"},
    {"ffr;", "\xf0\x9d\x94\xa3"},
    {"filig;", "\xef\xac\x81"},
    {"fjlig;", "\x66\x6a"},
    {"flat;", "\xe2\x99\xad"},
    {"fllig;", "\xef\xac\x82"},
    {"fltns;", "\xe2\x96\xb1"},
    {"fnof;", "\xc6\x92"},
    {"fopf;", "\xf0\x9d\x95\x97"},
    {"forall;", "\xe2\x88\x80"},
    {"fork;", "\xe2\x8b\x94"},
    {"forkv;", "\xe2\xab\x99"},
    {"fpartint;", "\xe2\xa8\x8d"},
    {"frac12", "\xc2\xbd"},
    {"frac12;", "\xc2\xbd"},
    {"frac13;", "\xe2\x85\x93"},
    {"frac14", "\xc2\xbc"},
    {"frac14;", "\xc2\xbc"},
    {"frac15;", "\xe2\x85\x95"},
    {"frac16;", "\xe2\x85\x99"},
    {"frac18;", "\xe2\x85\x9b"},
    {"frac23;", "\xe2\x85\x94"},
    {"frac25;", "\xe2\x85\x96"},
    {"frac34", "\xc2\xbe"},
    {"frac34;", "\xc2\xbe"},
    {"frac35;", "\xe2\x85\x97"},
    {"frac38;", "\xe2\x85\x9c"},
    {"frac45;", "\xe2\x85\x98"},
    {"frac56;", "\xe2\x85\x9a"},
    {"frac58;", "\xe2\x85\x9d"},
    {"frac78;", "\xe2\x85\x9e"},
    {"frasl;", "\xe2\x81\x84"},
    {"frown;", "\xe2\x8c\xa2"},
    {"fscr;", "\xf0\x9d\x92\xbb"},
    {"gE;", "\xe2\x89\xa7"},
    {"gEl;", "\xe2\xaa\x8c"},
    {"gacute;", "\xc7\xb5"},
    {"gamma;", "\xce\xb3"},
    {"gammad;", "\xcf\x9d"},
    {"gap;", "\xe2\xaa\x86"},
    {"gbreve;", "\xc4\x9f"},
    {"gcirc;", "\xc4\x9d"},
    {"gcy;", "\xd0\xb3"},
    {"gdot;", "\xc4\xa1"},
    {"ge;", "\xe2\x89\xa5"},
    {"gel;", "\xe2\x8b\x9b"},
    {"geq;", "\xe2\x89\xa5"},
    {"geqq;", "\xe2\x89\xa7"},
    {"geqslant;", "\xe2\xa9\xbe"},
    {"ges;", "\xe2\xa9\xbe"},
    {"gescc;", "\xe2\xaa\xa9"},
    {"gesdot;", "\xe2\xaa\x80"},
    {"gesdoto;", "\xe2\xaa\x82"},
    {"gesdotol;", "\xe2\xaa\x84"},
    {"gesl;", "\xe2\x8b\x9b\xef\xb8\x80"},
    {"gesles;", "\xe2\xaa\x94"},
    {"gfr;", "\xf0\x9d\x94\xa4"},
    {"gg;", "\xe2\x89\xab"},
    {"ggg;", "\xe2\x8b\x99"},
    {"gimel;", "\xe2\x84\xb7"},
    {"gjcy;", "\xd1\x93"},
    {"gl;", "\xe2\x89\xb7"},
    {"glE;", "\xe2\xaa\x92"},
    {"gla;", "\xe2\xaa\xa5"},
    {"glj;", "\xe2\xaa\xa4"},
    {"gnE;", "\xe2\x89\xa9"},
    {"gnap;", "\xe2\xaa\x8a"},
    {"gnapprox;", "\xe2\xaa\x8a"},
    {"gne;", "\xe2\xaa\x88"},
    {"gneq;", "\xe2\xaa\x88"},
    {"gneqq;", "\xe2\x89\xa9"},
    {"gnsim;", "\xe2\x8b\xa7"},
    {"gopf;", "\xf0\x9d\x95\x98"},
    {"grave;", "\x60"},
    {"gscr;", "\xe2\x84\x8a"},
    {"gsim;", "\xe2\x89\xb3"},
    {"gsime;", "\xe2\xaa\x8e"},
    {"gsiml;", "\xe2\xaa\x90"},
    {"gt", "\x3e"},
    {"gt;", "\x3e"},
    {"gtcc;", "\xe2\xaa\xa7"},
    {"gtcir;", "\xe2\xa9\xba"},
    {"gtdot;", "\xe2\x8b\x97"},
    {"gtlPar;", "\xe2\xa6\x95"},
    {"gtquest;", "\xe2\xa9\xbc"},
    {"gtrapprox;", "\xe2\xaa\x86"},
    {"gtrarr;", "\xe2\xa5\xb8"},
    {"gtrdot;", "\xe2\x8b\x97"},
    {"gtreqless;", "\xe2\x8b\x9b"},
    {"gtreqqless;", "\xe2\xaa\x8c"},
    {"gtrless;", "\xe2\x89\xb7"},
    {"gtrsim;", "\xe2\x89\xb3"},
    {"gvertneqq;", "\xe2\x89\xa9\xef\xb8\x80"},
    {"gvnE;", "\xe2\x89\xa9\xef\xb8\x80"},
    {"hArr;", "\xe2\x87\x94"},
    {"hairsp;", "\xe2\x80\x8a"},
    {"half;", "\xc2\xbd"},
    {"hamilt;", "\xe2\x84\x8b"},
    {"hardcy;", "\xd1\x8a"},
    {"harr;", "\xe2\x86\x94"},
    {"harrcir;", "\xe2\xa5\x88"},
    {"harrw;", "\xe2\x86\xad"},
    {"hbar;", "\xe2\x84\x8f"},
    {"hcirc;", "\xc4\xa5"},
    {"hearts;", "\xe2\x99\xa5"},
    {"heartsuit;", "\xe2\x99\xa5"},
    {"hellip;", "\xe2\x80\xa6"},
    {"hercon;", "\xe2\x8a\xb9"},
    {"hfr;", "\xf0\x9d\x94\xa5"},
    {"hksearow;", "\xe2\xa4\xa5"},
    {"hkswarow;", "\xe2\xa4\xa6"},
    {"hoarr;", "\xe2\x87\xbf"},
    {"homtht;", "\xe2\x88\xbb"},
    {"hookleftarrow;", "\xe2\x86\xa9"},
    {"hookrightarrow;", "\xe2\x86\xaa"},
    {"hopf;", "\xf0\x9d\x95\x99"},
    {"horbar;", "\xe2\x80\x95"},
    {"hscr;", "\xf0\x9d\x92\xbd"},
    {"hslash;", "\xe2\x84\x8f"},
    {"hstrok;", "\xc4\xa7"},
    {"hybull;", "\xe2\x81\x83"},
    {"hyphen;", "\xe2\x80\x90"},
    {"iacute", "\xc3\xad"},
    {"iacute;", "\xc3\xad"},
    {"ic;", "\xe2\x81\xa3"},
    {"icirc", "\xc3\xae"},
    {"icirc;", "\xc3\xae"},
    {"icy;", "\xd0\xb8"},
    {"iecy;", "\xd0\xb5"},
    {"iexcl", "\xc2\xa1"},
    {"iexcl;", "\xc2\xa1"},
    {"iff;", "\xe2\x87\x94"},
    {"ifr;", "\xf0\x9d\x94\xa6"},
    {"igrave", "\xc3\xac"},
    {"igrave;", "\xc3\xac"},
    {"ii;", "\xe2\x85\x88"},
    {"iiiint;", "\xe2\xa8\x8c"},
    {"iiint;", "\xe2\x88\xad"},
    {"iinfin;", "\xe2\xa7\x9c"},
    {"iiota;", "\xe2\x84\xa9"},
    {"ijlig;", "\xc4\xb3"},
    {"imacr;", "\xc4\xab"},
    {"image;", "\xe2\x84\x91"},
    {"imagline;", "\xe2\x84\x90"},
    {"imagpart;", "\xe2\x84\x91"},
    {"imath;", "\xc4\xb1"},
    {"imof;", "\xe2\x8a\xb7"},
    {"imped;", "\xc6\xb5"},
    {"in;", "\xe2\x88\x88"},
    {"incare;", "\xe2\x84\x85"},
    {"infin;", "\xe2\x88\x9e"},
    {"infintie;", "\xe2\xa7\x9d"},
    {"inodot;", "\xc4\xb1"},
    {"int;", "\xe2\x88\xab"},
    {"intcal;", "\xe2\x8a\xba"},
    {"integers;", "\xe2\x84\xa4"},
    {"intercal;", "\xe2\x8a\xba"},
    {"intlarhk;", "\xe2\xa8\x97"},
    {"intprod;", "\xe2\xa8\xbc"},
    {"iocy;", "\xd1\x91"},
    {"iogon;", "\xc4\xaf"},
    {"iopf;", "\xf0\x9d\x95\x9a"},
    {"iota;", "\xce\xb9"},
    {"iprod;", "\xe2\xa8\xbc"},
    {"iquest", "\xc2\xbf"},
    {"iquest;", "\xc2\xbf"},
    {"iscr;", "\xf0\x9d\x92\xbe"},
    {"isin;", "\xe2\x88\x88"},
    {"isinE;", "\xe2\x8b\xb9"},
    {"isindot;", "\xe2\x8b\xb5"},
    {"isins;", "\xe2\x8b\xb4"},
    {"isinsv;", "\xe2\x8b\xb3"},
    {"isinv;", "\xe2\x88\x88"},
    {"it;", "\xe2\x81\xa2"},
    {"itilde;", "\xc4\xa9"},
    {"iukcy;", "\xd1\x96"},
    {"iuml", "\xc3\xaf"},
    {"iuml;", "\xc3\xaf"},
    {"jcirc;", "\xc4\xb5"},
    {"jcy;", "\xd0\xb9"},
    {"jfr;", "\xf0\x9d\x94\xa7"},
    {"jmath;", "\xc8\xb7"},
    {"jopf;", "\xf0\x9d\x95\x9b"},
    {"jscr;", "\xf0\x9d\x92\xbf"},
    {"jsercy;", "\xd1\x98"},
    {"jukcy;", "\xd1\x94"},
    {"kappa;", "\xce\xba"},
    {"kappav;", "\xcf\xb0"},
    {"kcedil;", "\xc4\xb7"},
    {"kcy;", "\xd0\xba"},
    {"kfr;", "\xf0\x9d\x94\xa8"},
    {"kgreen;", "\xc4\xb8"},
    {"khcy;", "\xd1\x85"},
    {"kjcy;", "\xd1\x9c"},
    {"kopf;", "\xf0\x9d\x95\x9c"},
    {"kscr;", "\xf0\x9d\x93\x80"},
    {"lAarr;", "\xe2\x87\x9a"},
    {"lArr;", "\xe2\x87\x90"},
    {"lAtail;", "\xe2\xa4\x9b"},
    {"lBarr;", "\xe2\xa4\x8e"},
    {"lE;", "\xe2\x89\xa6"},
    {"lEg;", "\xe2\xaa\x8b"},
    {"lHar;", "\xe2\xa5\xa2"},
    {"lacute;", "\xc4\xba"},
    {"laemptyv;", "\xe2\xa6\xb4"},
    {"lagran;", "\xe2\x84\x92"},
    {"lambda;", "\xce\xbb"},
    {"lang;", "\xe2\x9f\xa8"},
    {"langd;", "\xe2\xa6\x91"},
    {"langle;", "\xe2\x9f\xa8"},
    {"lap;", "\xe2\xaa\x85"},
    {"laquo", "\xc2\xab"},
    {"laquo;", "\xc2\xab"},
    {"larr;", "\xe2\x86\x90"},
    {"larrb;", "\xe2\x87\xa4"},
    {"larrbfs;", "\xe2\xa4\x9f"},
    {"larrfs;", "\xe2\xa4\x9d"},
    {"larrhk;", "\xe2\x86\xa9"},
    {"larrlp;", "\xe2\x86\xab"},
    {"larrpl;", "\xe2\xa4\xb9"},
    {"larrsim;", "\xe2\xa5\xb3"},
    {"larrtl;", "\xe2\x86\xa2"},
    {"lat;", "\xe2\xaa\xab"},
    {"latail;", "\xe2\xa4\x99"},
    {"late;", "\xe2\xaa\xad"},
    {"lates;", "\xe2\xaa\xad\xef\xb8\x80"},
    {"lbarr;", "\xe2\xa4\x8c"},
    {"lbbrk;", "\xe2\x9d\xb2"},
    {"lbrace;", "\x7b"},
    {"lbrack;", "\x5b"},
    {"lbrke;", "\xe2\xa6\x8b"},
    {"lbrksld;", "\xe2\xa6\x8f"},
    {"lbrkslu;", "\xe2\xa6\x8d"},
    {"lcaron;", "\xc4\xbe"},
    {"lcedil;", "\xc4\xbc"},
    {"lceil;", "\xe2\x8c\x88"},
    {"lcub;", "\x7b"},
    {"lcy;", "\xd0\xbb"},
    {"ldca;", "\xe2\xa4\xb6"},
    {"ldquo;", "\xe2\x80\x9c"},
    {"ldquor;", "\xe2\x80\x9e"},
    {"ldrdhar;", "\xe2\xa5\xa7"},
    {"ldrushar;", "\xe2\xa5\x8b"},
    {"ldsh;", "\xe2\x86\xb2"},
    {"le;", "\xe2\x89\xa4"},
    {"leftarrow;", "\xe2\x86\x90"},
    {"leftarrowtail;", "\xe2\x86\xa2"},
    {"leftharpoondown;", "\xe2\x86\xbd"},
    {"leftharpoonup;", "\xe2\x86\xbc"},
    {"leftleftarrows;", "\xe2\x87\x87"},
    {"leftrightarrow;", "\xe2\x86\x94"},
    {"leftrightarrows;", "\xe2\x87\x86"},
    {"leftrightharpoons;", "\xe2\x87\x8b"},
    {"leftrightsquigarrow;", "\xe2\x86\xad"},
    {"leftthreetimes;", "\xe2\x8b\x8b"},
    {"leg;", "\xe2\x8b\x9a"},
    {"leq;", "\xe2\x89\xa4"},
    {"leqq;", "\xe2\x89\xa6"},
    {"leqslant;", "\xe2\xa9\xbd"},
    {"les;", "\xe2\xa9\xbd"},
    {"lescc;", "\xe2\xaa\xa8"},
    {"lesdot;", "\xe2\xa9\xbf"},
    {"lesdoto;", "\xe2\xaa\x81"},
    {"lesdotor;", "\xe2\xaa\x83"},
    {"lesg;", "\xe2\x8b\x9a\xef\xb8\x80"},
    {"lesges;", "\xe2\xaa\x93"},
    {"lessapprox;", "\xe2\xaa\x85"},
    {"lessdot;", "\xe2\x8b\x96"},
    {"lesseqgtr;", "\xe2\x8b\x9a"},
    {"lesseqqgtr;", "\xe2\xaa\x8b"},
    {"lessgtr;", "\xe2\x89\xb6"},
    {"lesssim;", "\xe2\x89\xb2"},
    {"lfisht;", "\xe2\xa5\xbc"},
    {"lfloor;", "\xe2\x8c\x8a"},
    {"lfr;", "\xf0\x9d\x94\xa9"},
    {"lg;", "\xe2\x89\xb6"},
    {"lgE;", "\xe2\xaa\x91"},
    {"lhard;", "\xe2\x86\xbd"},
    {"lharu;", "\xe2\x86\xbc"},
    {"lharul;", "\xe2\xa5\xaa"},
    {"lhblk;", "\xe2\x96\x84"},
    {"ljcy;", "\xd1\x99"},
    {"ll;", "\xe2\x89\xaa"},
    {"llarr;", "\xe2\x87\x87"},
    {"llcorner;", "\xe2\x8c\x9e"},
    {"llhard;", "\xe2\xa5\xab"},
    {"lltri;", "\xe2\x97\xba"},
    {"lmidot;", "\xc5\x80"},
    {"lmoust;", "\xe2\x8e\xb0"},
    {"lmoustache;", "\xe2\x8e\xb0"},
    {"lnE;", "\xe2\x89\xa8"},
    {"lnap;", "\xe2\xaa\x89"},
    {"lnapprox;", "\xe2\xaa\x89"},
    {"lne;", "\xe2\xaa\x87"},
    {"lneq;", "\xe2\xaa\x87"},
    {"lneqq;", "\xe2\x89\xa8"},
    {"lnsim;", "\xe2\x8b\xa6"},
    {"loang;", "\xe2\x9f\xac"},
    {"loarr;", "\xe2\x87\xbd"},
    {"lobrk;", "\xe2\x9f\xa6"},
    {"longleftarrow;", "\xe2\x9f\xb5"},
    {"longleftrightarrow;", "\xe2\x9f\xb7"},
    {"longmapsto;", "\xe2\x9f\xbc"},
    {"longrightarrow;", "\xe2\x9f\xb6"},
    {"looparrowleft;", "\xe2\x86\xab"},
    {"looparrowright;", "\xe2\x86\xac"},
    {"lopar;", "\xe2\xa6\x85"},
    {"lopf;", "\xf0\x9d\x95\x9d"},
    {"loplus;", "\xe2\xa8\xad"},
    {"lotimes;", "\xe2\xa8\xb4"},
    {"lowast;", "\xe2\x88\x97"},
    {"lowbar;", "\x5f"},
    {"loz;", "\xe2\x97\x8a"},
    {"lozenge;", "\xe2\x97\x8a"},
    {"lozf;", "\xe2\xa7\xab"},
    {"lpar;", "\x28"},
    {"lparlt;", "\xe2\xa6\x93"},
    {"lrarr;", "\xe2\x87\x86"},
    {"lrcorner;", "\xe2\x8c\x9f"},
    {"lrhar;", "\xe2\x87\x8b"},
    {"lrhard;", "\xe2\xa5\xad"},
    {"lrm;", "\xe2\x80\x8e"},
    {"lrtri;", "\xe2\x8a\xbf"},
    {"lsaquo;", "\xe2\x80\xb9"},
    {"lscr;", "\xf0\x9d\x93\x81"},
    {"lsh;", "\xe2\x86\xb0"},
    {"lsim;", "\xe2\x89\xb2"},
    {"lsime;", "\xe2\xaa\x8d"},
    {"lsimg;", "\xe2\xaa\x8f"},
    {"lsqb;", "\x5b"},
    {"lsquo;", "\xe2\x80\x98"},
    {"lsquor;", "\xe2\x80\x9a"},
    {"lstrok;", "\xc5\x82"},
    {"lt", "\x3c"},
    {"lt;", "\x3c"},
    {"ltcc;", "\xe2\xaa\xa6"},
    {"ltcir;", "\xe2\xa9\xb9"},
    {"ltdot;", "\xe2\x8b\x96"},
    {"lthree;", "\xe2\x8b\x8b"},
    {"ltimes;", "\xe2\x8b\x89"},
    {"ltlarr;", "\xe2\xa5\xb6"},
    {"ltquest;", "\xe2\xa9\xbb"},
    {"ltrPar;", "\xe2\xa6\x96"},
    {"ltri;", "\xe2\x97\x83"},
    {"ltrie;", "\xe2\x8a\xb4"},
    {"ltrif;", "\xe2\x97\x82"},
    {"lurdshar;", "\xe2\xa5\x8a"},
    {"luruhar;", "\xe2\xa5\xa6"},
    {"lvertneqq;", "\xe2\x89\xa8\xef\xb8\x80"},
    {"lvnE;", "\xe2\x89\xa8\xef\xb8\x80"},
    {"mDDot;", "\xe2\x88\xba"},
    {"macr", "\xc2\xaf"},
    {"macr;", "\xc2\xaf"},
    {"male;", "\xe2\x99\x82"},
    {"malt;", "\xe2\x9c\xa0"},
    {"maltese;", "\xe2\x9c\xa0"},
    {"map;", "\xe2\x86\xa6"},
    {"mapsto;", "\xe2\x86\xa6"},
    {"mapstodown;", "\xe2\x86\xa7"},
    {"mapstoleft;", "\xe2\x86\xa4"},
    {"mapstoup;", "\xe2\x86\xa5"},
    {"marker;", "\xe2\x96\xae"},
    {"mcomma;", "\xe2\xa8\xa9"},
    {"mcy;", "\xd0\xbc"},
    {"mdash;", "\xe2\x80\x94"},
    {"measuredangle;", "\xe2\x88\xa1"},
    {"mfr;", "\xf0\x9d\x94\xaa"},
    {"mho;", "\xe2\x84\xa7"},
    {"micro", "\xc2\xb5"},
    {"micro;", "\xc2\xb5"},
    {"mid;", "\xe2\x88\xa3"},
    {"midast;", "\x2a"},
    {"midcir;", "\xe2\xab\xb0"},
    {"middot", "\xc2\xb7"},
    {"middot;", "\xc2\xb7"},
    {"minus;", "\xe2\x88\x92"},
    {"minusb;", "\xe2\x8a\x9f"},
    {"minusd;", "\xe2\x88\xb8"},
    {"minusdu;", "\xe2\xa8\xaa"},
    {"mlcp;", "\xe2\xab\x9b"},
    {"mldr;", "\xe2\x80\xa6"},
    {"mnplus;", "\xe2\x88\x93"},
    {"models;", "\xe2\x8a\xa7"},
    {"mopf;", "\xf0\x9d\x95\x9e"},
    {"mp;", "\xe2\x88\x93"},
    {"mscr;", "\xf0\x9d\x93\x82"},
    {"mstpos;", "\xe2\x88\xbe"},
    {"mu;", "\xce\xbc"},
    {"multimap;", "\xe2\x8a\xb8"},
    {"mumap;", "\xe2\x8a\xb8"},
    {"nGg;", "\xe2\x8b\x99\xcc\xb8"},
    {"nGt;", "\xe2\x89\xab\xe2\x83\x92"},
    {"nGtv;", "\xe2\x89\xab\xcc\xb8"},
    {"nLeftarrow;", "\xe2\x87\x8d"},
    {"nLeftrightarrow;", "\xe2\x87\x8e"},
    {"nLl;", "\xe2\x8b\x98\xcc\xb8"},
    {"nLt;", "\xe2\x89\xaa\xe2\x83\x92"},
    {"nLtv;", "\xe2\x89\xaa\xcc\xb8"},
    {"nRightarrow;", "\xe2\x87\x8f"},
    {"nVDash;", "\xe2\x8a\xaf"},
    {"nVdash;", "\xe2\x8a\xae"},
    {"nabla;", "\xe2\x88\x87"},
    {"nacute;", "\xc5\x84"},
    {"nang;", "\xe2\x88\xa0\xe2\x83\x92"},
    {"nap;", "\xe2\x89\x89"},
    {"napE;", "\xe2\xa9\xb0\xcc\xb8"},
    {"napid;", "\xe2\x89\x8b\xcc\xb8"},
    {"napos;", "\xc5\x89"},
    {"napprox;", "\xe2\x89\x89"},
    {"natur;", "\xe2\x99\xae"},
    {"natural;", "\xe2\x99\xae"},
    {"naturals;", "\xe2\x84\x95"},
    {"nbsp", "\xc2\xa0"},
    {"nbsp;", "\xc2\xa0"},
    {"nbump;", "\xe2\x89\x8e\xcc\xb8"},
    {"nbumpe;", "\xe2\x89\x8f\xcc\xb8"},
    {"ncap;", "\xe2\xa9\x83"},
    {"ncaron;", "\xc5\x88"},
    {"ncedil;", "\xc5\x86"},
    {"ncong;", "\xe2\x89\x87"},
    {"ncongdot;", "\xe2\xa9\xad\xcc\xb8"},
    {"ncup;", "\xe2\xa9\x82"},
    {"ncy;", "\xd0\xbd"},
    {"ndash;", "\xe2\x80\x93"},
    {"ne;", "\xe2\x89\xa0"},
    {"neArr;", "\xe2\x87\x97"},
    {"nearhk;", "\xe2\xa4\xa4"},
    {"nearr;", "\xe2\x86\x97"},
    {"nearrow;", "\xe2\x86\x97"},
    {"nedot;", "\xe2\x89\x90\xcc\xb8"},
    {"nequiv;", "\xe2\x89\xa2"},
    {"nesear;", "\xe2\xa4\xa8"},
    {"nesim;", "\xe2\x89\x82\xcc\xb8"},
    {"nexist;", "\xe2\x88\x84"},
    {"nexists;", "\xe2\x88\x84"},
    {"nfr;", "\xf0\x9d\x94\xab"},
    {"ngE;", "\xe2\x89\xa7\xcc\xb8"},
    {"nge;", "\xe2\x89\xb1"},
    {"ngeq;", "\xe2\x89\xb1"},
    {"ngeqq;", "\xe2\x89\xa7\xcc\xb8"},
    {"ngeqslant;", "\xe2\xa9\xbe\xcc\xb8"},
    {"nges;", "\xe2\xa9\xbe\xcc\xb8"},
    {"ngsim;", "\xe2\x89\xb5"},
    {"ngt;", "\xe2\x89\xaf"},
    {"ngtr;", "\xe2\x89\xaf"},
    {"nhArr;", "\xe2\x87\x8e"},
    {"nharr;", "\xe2\x86\xae"},
    {"nhpar;", "\xe2\xab\xb2"},
    {"ni;", "\xe2\x88\x8b"},
    {"nis;", "\xe2\x8b\xbc"},
    {"nisd;", "\xe2\x8b\xba"},
    {"niv;", "\xe2\x88\x8b"},
    {"njcy;", "\xd1\x9a"},
    {"nlArr;", "\xe2\x87\x8d"},
    {"nlE;", "\xe2\x89\xa6\xcc\xb8"},
    {"nlarr;", "\xe2\x86\x9a"},
    {"nldr;", "\xe2\x80\xa5"},
    {"nle;", "\xe2\x89\xb0"},
    {"nleftarrow;", "\xe2\x86\x9a"},
    {"nleftrightarrow;", "\xe2\x86\xae"},
    {"nleq;", "\xe2\x89\xb0"},
    {"nleqq;", "\xe2\x89\xa6\xcc\xb8"},
    {"nleqslant;", "\xe2\xa9\xbd\xcc\xb8"},
    {"nles;", "\xe2\xa9\xbd\xcc\xb8"},
    {"nless;", "\xe2\x89\xae"},
    {"nlsim;", "\xe2\x89\xb4"},
    {"nlt;", "\xe2\x89\xae"},
    {"nltri;", "\xe2\x8b\xaa"},
    {"nltrie;", "\xe2\x8b\xac"},
    {"nmid;", "\xe2\x88\xa4"},
    {"nopf;", "\xf0\x9d\x95\x9f"},
    {"not", "\xc2\xac"},
    {"not;", "\xc2\xac"},
    {"notin;", "\xe2\x88\x89"},
    {"notinE;", "\xe2\x8b\xb9\xcc\xb8"},
    {"notindot;", "\xe2\x8b\xb5\xcc\xb8"},
    {"notinva;", "\xe2\x88\x89"},
    {"notinvb;", "\xe2\x8b\xb7"},
    {"notinvc;", "\xe2\x8b\xb6"},
    {"notni;", "\xe2\x88\x8c"},
    {"notniva;", "\xe2\x88\x8c"},
    {"notnivb;", "\xe2\x8b\xbe"},
    {"notnivc;", "\xe2\x8b\xbd"},
    {"npar;", "\xe2\x88\xa6"},
    {"nparallel;", "\xe2\x88\xa6"},
    {"nparsl;", "\xe2\xab\xbd\xe2\x83\xa5"},
    {"npart;", "\xe2\x88\x82\xcc\xb8"},
    {"npolint;", "\xe2\xa8\x94"},
    {"npr;", "\xe2\x8a\x80"},
    {"nprcue;", "\xe2\x8b\xa0"},
    {"npre;", "\xe2\xaa\xaf\xcc\xb8"},
    {"nprec;", "\xe2\x8a\x80"},
    {"npreceq;", "\xe2\xaa\xaf\xcc\xb8"},
    {"nrArr;", "\xe2\x87\x8f"},
    {"nrarr;", "\xe2\x86\x9b"},
    {"nrarrc;", "\xe2\xa4\xb3\xcc\xb8"},
    {"nrarrw;", "\xe2\x86\x9d\xcc\xb8"},
    {"nrightarrow;", "\xe2\x86\x9b"},
    {"nrtri;", "\xe2\x8b\xab"},
    {"nrtrie;", "\xe2\x8b\xad"},
    {"nsc;", "\xe2\x8a\x81"},
    {"nsccue;", "\xe2\x8b\xa1"},
    {"nsce;", "\xe2\xaa\xb0\xcc\xb8"},
    {"nscr;", "\xf0\x9d\x93\x83"},
    {"nshortmid;", "\xe2\x88\xa4"},
    {"nshortparallel;", "\xe2\x88\xa6"},
    {"nsim;", "\xe2\x89\x81"},
    {"nsime;", "\xe2\x89\x84"},
    {"nsimeq;", "\xe2\x89\x84"},
    {"nsmid;", "\xe2\x88\xa4"},
    {"nspar;", "\xe2\x88\xa6"},
    {"nsqsube;", "\xe2\x8b\xa2"},
    {"nsqsupe;", "\xe2\x8b\xa3"},
    {"nsub;", "\xe2\x8a\x84"},
    {"nsubE;", "\xe2\xab\x85\xcc\xb8"},
    {"nsube;", "\xe2\x8a\x88"},
    {"nsubset;", "\xe2\x8a\x82\xe2\x83\x92"},
    {"nsubseteq;", "\xe2\x8a\x88"},
    {"nsubseteqq;", "\xe2\xab\x85\xcc\xb8"},
    {"nsucc;", "\xe2\x8a\x81"},
    {"nsucceq;", "\xe2\xaa\xb0\xcc\xb8"},
    {"nsup;", "\xe2\x8a\x85"},
    {"nsupE;", "\xe2\xab\x86\xcc\xb8"},
    {"nsupe;", "\xe2\x8a\x89"},
    {"nsupset;", "\xe2\x8a\x83\xe2\x83\x92"},
    {"nsupseteq;", "\xe2\x8a\x89"},
    {"nsupseteqq;", "\xe2\xab\x86\xcc\xb8"},
    {"ntgl;", "\xe2\x89\xb9"},
    {"ntilde", "\xc3\xb1"},
    {"ntilde;", "\xc3\xb1"},
    {"ntlg;", "\xe2\x89\xb8"},
    {"ntriangleleft;", "\xe2\x8b\xaa"},
    {"ntrianglelefteq;", "\xe2\x8b\xac"},
    {"ntriangleright;", "\xe2\x8b\xab"},
    {"ntrianglerighteq;", "\xe2\x8b\xad"},
    {"nu;", "\xce\xbd"},
    {"num;", "\x23"},
    {"numero;", "\xe2\x84\x96"},
    {"numsp;", "\xe2\x80\x87"},
    {"nvDash;", "\xe2\x8a\xad"},
    {"nvHarr;", "\xe2\xa4\x84"},
    {"nvap;", "\xe2\x89\x8d\xe2\x83\x92"},
    {"nvdash;", "\xe2\x8a\xac"},
    {"nvge;", "\xe2\x89\xa5\xe2\x83\x92"},
    {"nvgt;", "\x3e\xe2\x83\x92"},
    {"nvinfin;", "\xe2\xa7\x9e"},
    {"nvlArr;", "\xe2\xa4\x82"},
    {"nvle;", "\xe2\x89\xa4\xe2\x83\x92"},
    {"nvlt;", "\x3c\xe2\x83\x92"},
    {"nvltrie;", "\xe2\x8a\xb4\xe2\x83\x92"},
    {"nvrArr;", "\xe2\xa4\x83"},
    {"nvrtrie;", "\xe2\x8a\xb5\xe2\x83\x92"},
    {"nvsim;", "\xe2\x88\xbc\xe2\x83\x92"},
    {"nwArr;", "\xe2\x87\x96"},
    {"nwarhk;", "\xe2\xa4\xa3"},
    {"nwarr;", "\xe2\x86\x96"},
    {"nwarrow;", "\xe2\x86\x96"},
    {"nwnear;", "\xe2\xa4\xa7"},
    {"oS;", "\xe2\x93\x88"},
    {"oacute", "\xc3\xb3"},
    {"oacute;", "\xc3\xb3"},
    {"oast;", "\xe2\x8a\x9b"},
    {"ocir;", "\xe2\x8a\x9a"},
    {"ocirc", "\xc3\xb4"},
    {"ocirc;", "\xc3\xb4"},
    {"ocy;", "\xd0\xbe"},
    {"odash;", "\xe2\x8a\x9d"},
    {"odblac;", "\xc5\x91"},
    {"odiv;", "\xe2\xa8\xb8"},
    {"odot;", "\xe2\x8a\x99"},
    {"odsold;", "\xe2\xa6\xbc"},
    {"oelig;", "\xc5\x93"},
    {"ofcir;", "\xe2\xa6\xbf"},
    {"ofr;", "\xf0\x9d\x94\xac"},
    {"ogon;", "\xcb\x9b"},
    {"ograve", "\xc3\xb2"},
    {"ograve;", "\xc3\xb2"},
    {"ogt;", "\xe2\xa7\x81"},
    {"ohbar;", "\xe2\xa6\xb5"},
    {"ohm;", "\xce\xa9"},
    {"oint;", "\xe2\x88\xae"},
    {"olarr;", "\xe2\x86\xba"},
    {"olcir;", "\xe2\xa6\xbe"},
    {"olcross;", "\xe2\xa6\xbb"},
    {"oline;", "\xe2\x80\xbe"},
    {"olt;", "\xe2\xa7\x80"},
    {"omacr;", "\xc5\x8d"},
    {"omega;", "\xcf\x89"},
    {"omicron;", "\xce\xbf"},
    {"omid;", "\xe2\xa6\xb6"},
    {"ominus;", "\xe2\x8a\x96"},
    {"oopf;", "\xf0\x9d\x95\xa0"},
    {"opar;", "\xe2\xa6\xb7"},
    {"operp;", "\xe2\xa6\xb9"},
    {"oplus;", "\xe2\x8a\x95"},
    {"or;", "\xe2\x88\xa8"},
    {"orarr;", "\xe2\x86\xbb"},
    {"ord;", "\xe2\xa9\x9d"},
    {"order;", "\xe2\x84\xb4"},
    {"orderof;", "\xe2\x84\xb4"},
    {"ordf", "\xc2\xaa"},
    {"ordf;", "\xc2\xaa"},
    {"ordm", "\xc2\xba"},
    {"ordm;", "\xc2\xba"},
    {"origof;", "\xe2\x8a\xb6"},
    {"oror;", "\xe2\xa9\x96"},
    {"orslope;", "\xe2\xa9\x97"},
    {"orv;", "\xe2\xa9\x9b"},
    {"oscr;", "\xe2\x84\xb4"},
    {"oslash", "\xc3\xb8"},
    {"oslash;", "\xc3\xb8"},
    {"osol;", "\xe2\x8a\x98"},
    {"otilde", "\xc3\xb5"},
    {"otilde;", "\xc3\xb5"},
    {"otimes;", "\xe2\x8a\x97"},
    {"otimesas;", "\xe2\xa8\xb6"},
    {"ouml", "\xc3\xb6"},
    {"ouml;", "\xc3\xb6"},
    {"ovbar;", "\xe2\x8c\xbd"},
    {"par;", "\xe2\x88\xa5"},
    {"para", "\xc2\xb6"},
    {"para;", "\xc2\xb6"},
    {"parallel;", "\xe2\x88\xa5"},
    {"parsim;", "\xe2\xab\xb3"},
    {"parsl;", "\xe2\xab\xbd"},
    {"part;", "\xe2\x88\x82"},
    {"pcy;", "\xd0\xbf"},
    {"percnt;", "\x25"},
    {"period;", "\x2e"},
    {"permil;", "\xe2\x80\xb0"},
    {"perp;", "\xe2\x8a\xa5"},
    {"pertenk;", "\xe2\x80\xb1"},
    {"pfr;", "\xf0\x9d\x94\xad"},
    {"phi;", "\xcf\x86"},
    {"phiv;", "\xcf\x95"},
    {"phmmat;", "\xe2\x84\xb3"},
    {"phone;", "\xe2\x98\x8e"},
    {"pi;", "\xcf\x80"},
    {"pitchfork;", "\xe2\x8b\x94"},
    {"piv;", "\xcf\x96"},
    {"planck;", "\xe2\x84\x8f"},
    {"planckh;", "\xe2\x84\x8e"},
    {"plankv;", "\xe2\x84\x8f"},
    {"plus;", "\x2b"},
    {"plusacir;", "\xe2\xa8\xa3"},
    {"plusb;", "\xe2\x8a\x9e"},
    {"pluscir;", "\xe2\xa8\xa2"},
    {"plusdo;", "\xe2\x88\x94"},
    {"plusdu;", "\xe2\xa8\xa5"},
    {"pluse;", "\xe2\xa9\xb2"},
    {"plusmn", "\xc2\xb1"},
    {"plusmn;", "\xc2\xb1"},
    {"plussim;", "\xe2\xa8\xa6"},
    {"plustwo;", "\xe2\xa8\xa7"},
    {"pm;", "\xc2\xb1"},
    {"pointint;", "\xe2\xa8\x95"},
    {"popf;", "\xf0\x9d\x95\xa1"},
    {"pound", "\xc2\xa3"},
    {"pound;", "\xc2\xa3"},
    {"pr;", "\xe2\x89\xba"},
    {"prE;", "\xe2\xaa\xb3"},
    {"prap;", "\xe2\xaa\xb7"},
    {"prcue;", "\xe2\x89\xbc"},
    {"pre;", "\xe2\xaa\xaf"},
    {"prec;", "\xe2\x89\xba"},
    {"precapprox;", "\xe2\xaa\xb7"},
    {"preccurlyeq;", "\xe2\x89\xbc"},
    {"preceq;", "\xe2\xaa\xaf"},
    {"precnapprox;", "\xe2\xaa\xb9"},
    {"precneqq;", "\xe2\xaa\xb5"},
    {"precnsim;", "\xe2\x8b\xa8"},
    {"precsim;", "\xe2\x89\xbe"},
    {"prime;", "\xe2\x80\xb2"},
    {"primes;", "\xe2\x84\x99"},
    {"prnE;", "\xe2\xaa\xb5"},
    {"prnap;", "\xe2\xaa\xb9"},
    {"prnsim;", "\xe2\x8b\xa8"},
    {"prod;", "\xe2\x88\x8f"},
    {"profalar;", "\xe2\x8c\xae"},
    {"profline;", "\xe2\x8c\x92"},
    {"profsurf;", "\xe2\x8c\x93"},
    {"prop;", "\xe2\x88\x9d"},
    {"propto;", "\xe2\x88\x9d"},
    {"prsim;", "\xe2\x89\xbe"},
    {"prurel;", "\xe2\x8a\xb0"},
    {"pscr;", "\xf0\x9d\x93\x85"},
    {"psi;", "\xcf\x88"},
    {"puncsp;", "\xe2\x80\x88"},
    {"qfr;", "\xf0\x9d\x94\xae"},
    {"qint;", "\xe2\xa8\x8c"},
    {"qopf;", "\xf0\x9d\x95\xa2"},
    {"qprime;", "\xe2\x81\x97"},
    {"qscr;", "\xf0\x9d\x93\x86"},
    {"quaternions;", "\xe2\x84\x8d"},
    {"quatint;", "\xe2\xa8\x96"},
    {"quest;", "\x3f"},
    {"questeq;", "\xe2\x89\x9f"},
    {"quot", "\x22"},
    {"quot;", "\x22"},
    {"rAarr;", "\xe2\x87\x9b"},
    {"rArr;", "\xe2\x87\x92"},
    {"rAtail;", "\xe2\xa4\x9c"},
    {"rBarr;", "\xe2\xa4\x8f"},
    {"rHar;", "\xe2\xa5\xa4"},
    {"race;", "\xe2\x88\xbd\xcc\xb1"},
    {"racute;", "\xc5\x95"},
    {"radic;", "\xe2\x88\x9a"},
    {"raemptyv;", "\xe2\xa6\xb3"},
    {"rang;", "\xe2\x9f\xa9"},
    {"rangd;", "\xe2\xa6\x92"},
    {"range;", "\xe2\xa6\xa5"},
    {"rangle;", "\xe2\x9f\xa9"},
    {"raquo", "\xc2\xbb"},
    {"raquo;", "\xc2\xbb"},
    {"rarr;", "\xe2\x86\x92"},
    {"rarrap;", "\xe2\xa5\xb5"},
    {"rarrb;", "\xe2\x87\xa5"},
    {"rarrbfs;", "\xe2\xa4\xa0"},
    {"rarrc;", "\xe2\xa4\xb3"},
    {"rarrfs;", "\xe2\xa4\x9e"},
    {"rarrhk;", "\xe2\x86\xaa"},
    {"rarrlp;", "\xe2\x86\xac"},
    {"rarrpl;", "\xe2\xa5\x85"},
    {"rarrsim;", "\xe2\xa5\xb4"},
    {"rarrtl;", "\xe2\x86\xa3"},
    {"rarrw;", "\xe2\x86\x9d"},
    {"ratail;", "\xe2\xa4\x9a"},
    {"ratio;", "\xe2\x88\xb6"},
    {"rationals;", "\xe2\x84\x9a"},
    {"rbarr;", "\xe2\xa4\x8d"},
    {"rbbrk;", "\xe2\x9d\xb3"},
    {"rbrace;", "\x7d"},
    {"rbrack;", "\x5d"},
    {"rbrke;", "\xe2\xa6\x8c"},
    {"rbrksld;", "\xe2\xa6\x8e"},
    {"rbrkslu;", "\xe2\xa6\x90"},
    {"rcaron;", "\xc5\x99"},
    {"rcedil;", "\xc5\x97"},
    {"rceil;", "\xe2\x8c\x89"},
    {"rcub;", "\x7d"},
    {"rcy;", "\xd1\x80"},
    {"rdca;", "\xe2\xa4\xb7"},
    {"rdldhar;", "\xe2\xa5\xa9"},
    {"rdquo;", "\xe2\x80\x9d"},
    {"rdquor;", "\xe2\x80\x9d"},
    {"rdsh;", "\xe2\x86\xb3"},
    {"real;", "\xe2\x84\x9c"},
    {"realine;", "\xe2\x84\x9b"},
    {"realpart;", "\xe2\x84\x9c"},
    {"reals;", "\xe2\x84\x9d"},
    {"rect;", "\xe2\x96\xad"},
    {"reg", "\xc2\xae"},
    {"reg;", "\xc2\xae"},
    {"rfisht;", "\xe2\xa5\xbd"},
    {"rfloor;", "\xe2\x8c\x8b"},
    {"rfr;", "\xf0\x9d\x94\xaf"},
    {"rhard;", "\xe2\x87\x81"},
    {"rharu;", "\xe2\x87\x80"},
    {"rharul;", "\xe2\xa5\xac"},
    {"rho;", "\xcf\x81"},
    {"rhov;", "\xcf\xb1"},
    {"rightarrow;", "\xe2\x86\x92"},
    {"rightarrowtail;", "\xe2\x86\xa3"},
    {"rightharpoondown;", "\xe2\x87\x81"},
    {"rightharpoonup;", "\xe2\x87\x80"},
    {"rightleftarrows;", "\xe2\x87\x84"},
    {"rightleftharpoons;", "\xe2\x87\x8c"},
    {"rightrightarrows;", "\xe2\x87\x89"},
    {"rightsquigarrow;", "\xe2\x86\x9d"},
    {"rightthreetimes;", "\xe2\x8b\x8c"},
    {"ring;", "\xcb\x9a"},
    {"risingdotseq;", "\xe2\x89\x93"},
    {"rlarr;", "\xe2\x87\x84"},
    {"rlhar;", "\xe2\x87\x8c"},
    {"rlm;", "\xe2\x80\x8f"},
    {"rmoust;", "\xe2\x8e\xb1"},
    {"rmoustache;", "\xe2\x8e\xb1"},
    {"rnmid;", "\xe2\xab\xae"},
    {"roang;", "\xe2\x9f\xad"},
    {"roarr;", "\xe2\x87\xbe"},
    {"robrk;", "\xe2\x9f\xa7"},
    {"ropar;", "\xe2\xa6\x86"},
    {"ropf;", "\xf0\x9d\x95\xa3"},
    {"roplus;", "\xe2\xa8\xae"},
    {"rotimes;", "\xe2\xa8\xb5"},
    {"rpar;", "\x29"},
    {"rpargt;", "\xe2\xa6\x94"},
    {"rppolint;", "\xe2\xa8\x92"},
    {"rrarr;", "\xe2\x87\x89"},
    {"rsaquo;", "\xe2\x80\xba"},
    {"rscr;", "\xf0\x9d\x93\x87"},
    {"rsh;", "\xe2\x86\xb1"},
    {"rsqb;", "\x5d"},
    {"rsquo;", "\xe2\x80\x99"},
    {"rsquor;", "\xe2\x80\x99"},
    {"rthree;", "\xe2\x8b\x8c"},
    {"rtimes;", "\xe2\x8b\x8a"},
    {"rtri;", "\xe2\x96\xb9"},
    {"rtrie;", "\xe2\x8a\xb5"},
    {"rtrif;", "\xe2\x96\xb8"},
    {"rtriltri;", "\xe2\xa7\x8e"},
    {"ruluhar;", "\xe2\xa5\xa8"},
    {"rx;", "\xe2\x84\x9e"},
    {"sacute;", "\xc5\x9b"},
    {"sbquo;", "\xe2\x80\x9a"},
    {"sc;", "\xe2\x89\xbb"},
    {"scE;", "\xe2\xaa\xb4"},
    {"scap;", "\xe2\xaa\xb8"},
    {"scaron;", "\xc5\xa1"},
    {"sccue;", "\xe2\x89\xbd"},
    {"sce;", "\xe2\xaa\xb0"},
    {"scedil;", "\xc5\x9f"},
    {"scirc;", "\xc5\x9d"},
    {"scnE;", "\xe2\xaa\xb6"},
    {"scnap;", "\xe2\xaa\xba"},
    {"scnsim;", "\xe2\x8b\xa9"},
    {"scpolint;", "\xe2\xa8\x93"},
    {"scsim;", "\xe2\x89\xbf"},
    {"scy;", "\xd1\x81"},
    {"sdot;", "\xe2\x8b\x85"},
    {"sdotb;", "\xe2\x8a\xa1"},
    {"sdote;", "\xe2\xa9\xa6"},
    {"seArr;", "\xe2\x87\x98"},
    {"searhk;", "\xe2\xa4\xa5"},
    {"searr;", "\xe2\x86\x98"},
    {"searrow;", "\xe2\x86\x98"},
    {"sect", "\xc2\xa7"},
    {"sect;", "\xc2\xa7"},
    {"semi;", "\x3b"},
    {"seswar;", "\xe2\xa4\xa9"},
    {"setminus;", "\xe2\x88\x96"},
    {"setmn;", "\xe2\x88\x96"},
    {"sext;", "\xe2\x9c\xb6"},
    {"sfr;", "\xf0\x9d\x94\xb0"},
    {"sfrown;", "\xe2\x8c\xa2"},
    {"sharp;", "\xe2\x99\xaf"},
    {"shchcy;", "\xd1\x89"},
    {"shcy;", "\xd1\x88"},
    {"shortmid;", "\xe2\x88\xa3"},
    {"shortparallel;", "\xe2\x88\xa5"},
    {"shy", "\xc2\xad"},
    {"shy;", "\xc2\xad"},
    {"sigma;", "\xcf\x83"},
    {"sigmaf;", "\xcf\x82"},
    {"sigmav;", "\xcf\x82"},
    {"sim;", "\xe2\x88\xbc"},
    {"simdot;", "\xe2\xa9\xaa"},
    {"sime;", "\xe2\x89\x83"},
    {"simeq;", "\xe2\x89\x83"},
    {"simg;", "\xe2\xaa\x9e"},
    {"simgE;", "\xe2\xaa\xa0"},
    {"siml;", "\xe2\xaa\x9d"},
    {"simlE;", "\xe2\xaa\x9f"},
    {"simne;", "\xe2\x89\x86"},
    {"simplus;", "\xe2\xa8\xa4"},
    {"simrarr;", "\xe2\xa5\xb2"},
    {"slarr;", "\xe2\x86\x90"},
    {"smallsetminus;", "\xe2\x88\x96"},
    {"smashp;", "\xe2\xa8\xb3"},
    {"smeparsl;", "\xe2\xa7\xa4"},
    {"smid;", "\xe2\x88\xa3"},
    {"smile;", "\xe2\x8c\xa3"},
    {"smt;", "\xe2\xaa\xaa"},
    {"smte;", "\xe2\xaa\xac"},
    {"smtes;", "\xe2\xaa\xac\xef\xb8\x80"},
    {"softcy;", "\xd1\x8c"},
    {"sol;", "\x2f"},
    {"solb;", "\xe2\xa7\x84"},
    {"solbar;", "\xe2\x8c\xbf"},
    {"sopf;", "\xf0\x9d\x95\xa4"},
    {"spades;", "\xe2\x99\xa0"},
    {"spadesuit;", "\xe2\x99\xa0"},
    {"spar;", "\xe2\x88\xa5"},
    {"sqcap;", "\xe2\x8a\x93"},
    {"sqcaps;", "\xe2\x8a\x93\xef\xb8\x80"},
    {"sqcup;", "\xe2\x8a\x94"},
    {"sqcups;", "\xe2\x8a\x94\xef\xb8\x80"},
    {"sqsub;", "\xe2\x8a\x8f"},
    {"sqsube;", "\xe2\x8a\x91"},
    {"sqsubset;", "\xe2\x8a\x8f"},
    {"sqsubseteq;", "\xe2\x8a\x91"},
    {"sqsup;", "\xe2\x8a\x90"},
    {"sqsupe;", "\xe2\x8a\x92"},
    {"sqsupset;", "\xe2\x8a\x90"},
    {"sqsupseteq;", "\xe2\x8a\x92"},
    {"squ;", "\xe2\x96\xa1"},
    {"square;", "\xe2\x96\xa1"},
    {"squarf;", "\xe2\x96\xaa"},
    {"squf;", "\xe2\x96\xaa"},
    {"srarr;", "\xe2\x86\x92"},
    {"sscr;", "\xf0\x9d\x93\x88"},
    {"ssetmn;", "\xe2\x88\x96"},
    {"ssmile;", "\xe2\x8c\xa3"},
    {"sstarf;", "\xe2\x8b\x86"},
    {"star;", "\xe2\x98\x86"},
    {"starf;", "\xe2\x98\x85"},
    {"straightepsilon;", "\xcf\xb5"},
    {"straightphi;", "\xcf\x95"},
    {"strns;", "\xc2\xaf"},
    {"sub;", "\xe2\x8a\x82"},
    {"subE;", "\xe2\xab\x85"},
    {"subdot;", "\xe2\xaa\xbd"},
    {"sube;", "\xe2\x8a\x86"},
    {"subedot;", "\xe2\xab\x83"},
    {"submult;", "\xe2\xab\x81"},
    {"subnE;", "\xe2\xab\x8b"},
    {"subne;", "\xe2\x8a\x8a"},
    {"subplus;", "\xe2\xaa\xbf"},
    {"subrarr;", "\xe2\xa5\xb9"},
    {"subset;", "\xe2\x8a\x82"},
    {"subseteq;", "\xe2\x8a\x86"},
    {"subseteqq;", "\xe2\xab\x85"},
    {"subsetneq;", "\xe2\x8a\x8a"},
    {"subsetneqq;", "\xe2\xab\x8b"},
    {"subsim;", "\xe2\xab\x87"},
    {"subsub;", "\xe2\xab\x95"},
    {"subsup;", "\xe2\xab\x93"},
    {"succ;", "\xe2\x89\xbb"},
    {"succapprox;", "\xe2\xaa\xb8"},
    {"succcurlyeq;", "\xe2\x89\xbd"},
    {"succeq;", "\xe2\xaa\xb0"},
    {"succnapprox;", "\xe2\xaa\xba"},
    {"succneqq;", "\xe2\xaa\xb6"},
    {"succnsim;", "\xe2\x8b\xa9"},
    {"succsim;", "\xe2\x89\xbf"},
    {"sum;", "\xe2\x88\x91"},
    {"sung;", "\xe2\x99\xaa"},
    {"sup1", "\xc2\xb9"},
    {"sup1;", "\xc2\xb9"},
    {"sup2", "\xc2\xb2"},
    {"sup2;", "\xc2\xb2"},
    {"sup3", "\xc2\xb3"},
    {"sup3;", "\xc2\xb3"},
    {"sup;", "\xe2\x8a\x83"},
    {"supE;", "\xe2\xab\x86"},
    {"supdot;", "\xe2\xaa\xbe"},
    {"supdsub;", "\xe2\xab\x98"},
    {"supe;", "\xe2\x8a\x87"},
    {"supedot;", "\xe2\xab\x84"},
    {"suphsol;", "\xe2\x9f\x89"},
    {"suphsub;", "\xe2\xab\x97"},
    {"suplarr;", "\xe2\xa5\xbb"},
    {"supmult;", "\xe2\xab\x82"},
    {"supnE;", "\xe2\xab\x8c"},
    {"supne;", "\xe2\x8a\x8b"},
    {"supplus;", "\xe2\xab\x80"},
    {"supset;", "\xe2\x8a\x83"},
    {"supseteq;", "\xe2\x8a\x87"},
    {"supseteqq;", "\xe2\xab\x86"},
    {"supsetneq;", "\xe2\x8a\x8b"},
    {"supsetneqq;", "\xe2\xab\x8c"},
    {"supsim;", "\xe2\xab\x88"},
    {"supsub;", "\xe2\xab\x94"},
    {"supsup;", "\xe2\xab\x96"},
    {"swArr;", "\xe2\x87\x99"},
    {"swarhk;", "\xe2\xa4\xa6"},
    {"swarr;", "\xe2\x86\x99"},
    {"swarrow;", "\xe2\x86\x99"},
    {"swnwar;", "\xe2\xa4\xaa"},
    {"szlig", "\xc3\x9f"},
    {"szlig;", "\xc3\x9f"},
    {"target;", "\xe2\x8c\x96"},
    {"tau;", "\xcf\x84"},
    {"tbrk;", "\xe2\x8e\xb4"},
    {"tcaron;", "\xc5\xa5"},
    {"tcedil;", "\xc5\xa3"},
    {"tcy;", "\xd1\x82"},
    {"tdot;", "\xe2\x83\x9b"},
    {"telrec;", "\xe2\x8c\x95"},
    {"tfr;", "\xf0\x9d\x94\xb1"},
    {"there4;", "\xe2\x88\xb4"},
    {"therefore;", "\xe2\x88\xb4"},
    {"theta;", "\xce\xb8"},
    {"thetasym;", "\xcf\x91"},
    {"thetav;", "\xcf\x91"},
    {"thickapprox;", "\xe2\x89\x88"},
    {"thicksim;", "\xe2\x88\xbc"},
    {"thinsp;", "\xe2\x80\x89"},
    {"thkap;", "\xe2\x89\x88"},
    {"thksim;", "\xe2\x88\xbc"},
    {"thorn", "\xc3\xbe"},
    {"thorn;", "\xc3\xbe"},
    {"tilde;", "\xcb\x9c"},
    {"times", "\xc3\x97"},
    {"times;", "\xc3\x97"},
    {"timesb;", "\xe2\x8a\xa0"},
    {"timesbar;", "\xe2\xa8\xb1"},
    {"timesd;", "\xe2\xa8\xb0"},
    {"tint;", "\xe2\x88\xad"},
    {"toea;", "\xe2\xa4\xa8"},
    {"top;", "\xe2\x8a\xa4"},
    {"topbot;", "\xe2\x8c\xb6"},
    {"topcir;", "\xe2\xab\xb1"},
    {"topf;", "\xf0\x9d\x95\xa5"},
    {"topfork;", "\xe2\xab\x9a"},
    {"tosa;", "\xe2\xa4\xa9"},
    {"tprime;", "\xe2\x80\xb4"},
    {"trade;", "\xe2\x84\xa2"},
    {"triangle;", "\xe2\x96\xb5"},
    {"triangledown;", "\xe2\x96\xbf"},
    {"triangleleft;", "\xe2\x97\x83"},
    {"trianglelefteq;", "\xe2\x8a\xb4"},
    {"triangleq;", "\xe2\x89\x9c"},
    {"triangleright;", "\xe2\x96\xb9"},
    {"trianglerighteq;", "\xe2\x8a\xb5"},
    {"tridot;", "\xe2\x97\xac"},
    {"trie;", "\xe2\x89\x9c"},
    {"triminus;", "\xe2\xa8\xba"},
    {"triplus;", "\xe2\xa8\xb9"},
    {"trisb;", "\xe2\xa7\x8d"},
    {"tritime;", "\xe2\xa8\xbb"},
    {"trpezium;", "\xe2\x8f\xa2"},
    {"tscr;", "\xf0\x9d\x93\x89"},
    {"tscy;", "\xd1\x86"},
    {"tshcy;", "\xd1\x9b"},
    {"tstrok;", "\xc5\xa7"},
    {"twixt;", "\xe2\x89\xac"},
    {"twoheadleftarrow;", "\xe2\x86\x9e"},
    {"twoheadrightarrow;", "\xe2\x86\xa0"},
    {"uArr;", "\xe2\x87\x91"},
    {"uHar;", "\xe2\xa5\xa3"},
    {"uacute", "\xc3\xba"},
    {"uacute;", "\xc3\xba"},
    {"uarr;", "\xe2\x86\x91"},
    {"ubrcy;", "\xd1\x9e"},
    {"ubreve;", "\xc5\xad"},
    {"ucirc", "\xc3\xbb"},
    {"ucirc;", "\xc3\xbb"},
    {"ucy;", "\xd1\x83"},
    {"udarr;", "\xe2\x87\x85"},
    {"udblac;", "\xc5\xb1"},
    {"udhar;", "\xe2\xa5\xae"},
    {"ufisht;", "\xe2\xa5\xbe"},
    {"ufr;", "\xf0\x9d\x94\xb2"},
    {"ugrave", "\xc3\xb9"},
    {"ugrave;", "\xc3\xb9"},
    {"uharl;", "\xe2\x86\xbf"},
    {"uharr;", "\xe2\x86\xbe"},
    {"uhblk;", "\xe2\x96\x80"},
    {"ulcorn;", "\xe2\x8c\x9c"},
    {"ulcorner;", "\xe2\x8c\x9c"},
    {"ulcrop;", "\xe2\x8c\x8f"},
    {"ultri;", "\xe2\x97\xb8"},
    {"umacr;", "\xc5\xab"},
    {"uml", "\xc2\xa8"},
    {"uml;", "\xc2\xa8"},
    {"uogon;", "\xc5\xb3"},
    {"uopf;", "\xf0\x9d\x95\xa6"},
    {"uparrow;", "\xe2\x86\x91"},
    {"updownarrow;", "\xe2\x86\x95"},
    {"upharpoonleft;", "\xe2\x86\xbf"},
    {"upharpoonright;", "\xe2\x86\xbe"},
    {"uplus;", "\xe2\x8a\x8e"},
    {"upsi;", "\xcf\x85"},
    {"upsih;", "\xcf\x92"},
    {"upsilon;", "\xcf\x85"},
    {"upuparrows;", "\xe2\x87\x88"},
    {"urcorn;", "\xe2\x8c\x9d"},
    {"urcorner;", "\xe2\x8c\x9d"},
    {"urcrop;", "\xe2\x8c\x8e"},
    {"uring;", "\xc5\xaf"},
    {"urtri;", "\xe2\x97\xb9"},
    {"uscr;", "\xf0\x9d\x93\x8a"},
    {"utdot;", "\xe2\x8b\xb0"},
    {"utilde;", "\xc5\xa9"},
    {"utri;", "\xe2\x96\xb5"},
    {"utrif;", "\xe2\x96\xb4"},
    {"uuarr;", "\xe2\x87\x88"},
    {"uuml", "\xc3\xbc"},
    {"uuml;", "\xc3\xbc"},
    {"uwangle;", "\xe2\xa6\xa7"},
    {"vArr;", "\xe2\x87\x95"},
    {"vBar;", "\xe2\xab\xa8"},
    {"vBarv;", "\xe2\xab\xa9"},
    {"vDash;", "\xe2\x8a\xa8"},
    {"vangrt;", "\xe2\xa6\x9c"},
    {"varepsilon;", "\xcf\xb5"},
    {"varkappa;", "\xcf\xb0"},
    {"varnothing;", "\xe2\x88\x85"},
    {"varphi;", "\xcf\x95"},
    {"varpi;", "\xcf\x96"},
    {"varpropto;", "\xe2\x88\x9d"},
    {"varr;", "\xe2\x86\x95"},
    {"varrho;", "\xcf\xb1"},
    {"varsigma;", "\xcf\x82"},
    {"varsubsetneq;", "\xe2\x8a\x8a\xef\xb8\x80"},
    {"varsubsetneqq;", "\xe2\xab\x8b\xef\xb8\x80"},
    {"varsupsetneq;", "\xe2\x8a\x8b\xef\xb8\x80"},
    {"varsupsetneqq;", "\xe2\xab\x8c\xef\xb8\x80"},
    {"vartheta;", "\xcf\x91"},
    {"vartriangleleft;", "\xe2\x8a\xb2"},
    {"vartriangleright;", "\xe2\x8a\xb3"},
    {"vcy;", "\xd0\xb2"},
    {"vdash;", "\xe2\x8a\xa2"},
    {"vee;", "\xe2\x88\xa8"},
    {"veebar;", "\xe2\x8a\xbb"},
    {"veeeq;", "\xe2\x89\x9a"},
    {"vellip;", "\xe2\x8b\xae"},
    {"verbar;", "\x7c"},
    {"vert;", "\x7c"},
    {"vfr;", "\xf0\x9d\x94\xb3"},
    {"vltri;", "\xe2\x8a\xb2"},
    {"vnsub;", "\xe2\x8a\x82\xe2\x83\x92"},
    {"vnsup;", "\xe2\x8a\x83\xe2\x83\x92"},
    {"vopf;", "\xf0\x9d\x95\xa7"},
    {"vprop;", "\xe2\x88\x9d"},
    {"vrtri;", "\xe2\x8a\xb3"},
    {"vscr;", "\xf0\x9d\x93\x8b"},
    {"vsubnE;", "\xe2\xab\x8b\xef\xb8\x80"},
    {"vsubne;", "\xe2\x8a\x8a\xef\xb8\x80"},
    {"vsupnE;", "\xe2\xab\x8c\xef\xb8\x80"},
    {"vsupne;", "\xe2\x8a\x8b\xef\xb8\x80"},
    {"vzigzag;", "\xe2\xa6\x9a"},
    {"wcirc;", "\xc5\xb5"},
    {"wedbar;", "\xe2\xa9\x9f"},
    {"wedge;", "\xe2\x88\xa7"},
    {"wedgeq;", "\xe2\x89\x99"},
    {"weierp;", "\xe2\x84\x98"},
    {"wfr;", "\xf0\x9d\x94\xb4"},
    {"wopf;", "\xf0\x9d\x95\xa8"},
    {"wp;", "\xe2\x84\x98"},
    {"wr;", "\xe2\x89\x80"},
    {"wreath;", "\xe2\x89\x80"},
    {"wscr;", "\xf0\x9d\x93\x8c"},
    {"xcap;", "\xe2\x8b\x82"},
    {"xcirc;", "\xe2\x97\xaf"},
    {"xcup;", "\xe2\x8b\x83"},
    {"xdtri;", "\xe2\x96\xbd"},
    {"xfr;", "\xf0\x9d\x94\xb5"},
    {"xhArr;", "\xe2\x9f\xba"},
    {"xharr;", "\xe2\x9f\xb7"},
    {"xi;", "\xce\xbe"},
    {"xlArr;", "\xe2\x9f\xb8"},
    {"xlarr;", "\xe2\x9f\xb5"},
    {"xmap;", "\xe2\x9f\xbc"},
    {"xnis;", "\xe2\x8b\xbb"},
    {"xodot;", "\xe2\xa8\x80"},
    {"xopf;", "\xf0\x9d\x95\xa9"},
    {"xoplus;", "\xe2\xa8\x81"},
    {"xotime;", "\xe2\xa8\x82"},
    {"xrArr;", "\xe2\x9f\xb9"},
    {"xrarr;", "\xe2\x9f\xb6"},
    {"xscr;", "\xf0\x9d\x93\x8d"},
    {"xsqcup;", "\xe2\xa8\x86"},
    {"xuplus;", "\xe2\xa8\x84"},
    {"xutri;", "\xe2\x96\xb3"},
    {"xvee;", "\xe2\x8b\x81"},
    {"xwedge;", "\xe2\x8b\x80"},
    {"yacute", "\xc3\xbd"},
    {"yacute;", "\xc3\xbd"},
    {"yacy;", "\xd1\x8f"},
    {"ycirc;", "\xc5\xb7"},
    {"ycy;", "\xd1\x8b"},
    {"yen", "\xc2\xa5"},
    {"yen;", "\xc2\xa5"},
    {"yfr;", "\xf0\x9d\x94\xb6"},
    {"yicy;", "\xd1\x97"},
    {"yopf;", "\xf0\x9d\x95\xaa"},
    {"yscr;", "\xf0\x9d\x93\x8e"},
    {"yucy;", "\xd1\x8e"},
    {"yuml", "\xc3\xbf"},
    {"yuml;", "\xc3\xbf"},
    {"zacute;", "\xc5\xba"},
    {"zcaron;", "\xc5\xbe"},
    {"zcy;", "\xd0\xb7"},
    {"zdot;", "\xc5\xbc"},
    {"zeetrf;", "\xe2\x84\xa8"},
    {"zeta;", "\xce\xb6"},
    {"zfr;", "\xf0\x9d\x94\xb7"},
    {"zhcy;", "\xd0\xb6"},
    {"zigrarr;", "\xe2\x87\x9d"},
    {"zopf;", "\xf0\x9d\x95\xab"},
    {"zscr;", "\xf0\x9d\x93\x8f"},
    {"zwj;", "\xe2\x80\x8d"},
    {"zwnj;", "\xe2\x80\x8c"},
};
static_assert(std::size(kNamedReferences) == kNamedReferenceCount);

}  // namespace
}  // namespace squall
