// The streaming HTML tokenizer behind LinkExtractor, and the decoding and resolution of its links.
#include "squall/crawl/links.h"

#include "html_entities.h"
#include "squall/url/ascii.h"
#include "squall/url/charset.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <utility>

namespace squall {

namespace {

using detail::kNamedReferenceCount;
using detail::kNamedReferences;
using detail::NamedReference;

constexpr size_t kLongestReferenceName = 32;

bool is_alnum(unsigned char c) {
  return is_ascii_alpha(c) || is_ascii_digit(c);
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
      while (j < in.size() && (hex ? is_ascii_hex(in[j]) : is_ascii_digit(in[j]))) {
        const unsigned char d = in[j];
        const auto v = static_cast<uint32_t>(hex_value(d));
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
      if (size < bytes.size()) bytes[size] = static_cast<char>(ascii_lower(c));
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
        } else if (is_ascii_alpha(c)) {
          begin_tag(false);
          state_ = State::TagName;
        } else if (c == '?') {
          state_ = State::BogusComment;
        } else {
          state_ = State::Data;
        }
        continue;
      case State::EndTagOpen:
        if (is_ascii_alpha(c)) {
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
        if (is_ascii_whitespace(d)) {
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
        if (is_ascii_whitespace(c)) {
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
        if (is_ascii_whitespace(c)) {
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
        if (is_ascii_whitespace(c)) {
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
        while (stop < end && !is_ascii_whitespace(*stop) && *stop != '>') ++stop;
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
        if (is_ascii_whitespace(c)) {
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
        if (is_ascii_alpha(c)) {
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
        if ((is_ascii_whitespace(c) || c == '/' || c == '>') && appropriate_end_tag()) {
          ++p;
          begin_tag(true);
          end_tag_name();
          if (c == '>') {
            emit_tag();
          } else {
            state_ = c == '/' ? State::SelfClosingStartTag : State::BeforeAttrName;
          }
        } else if (is_ascii_alpha(c)) {
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
        } else if (is_ascii_alpha(c)) {
          temp_.clear();
          state_ = State::ScriptDoubleEscapeStart;
        } else {
          state_ = State::ScriptEscaped;
        }
        continue;
      case State::ScriptDoubleEscapeStart:
      case State::ScriptDoubleEscapeEnd: {
        const bool start = state_ == State::ScriptDoubleEscapeStart;
        if (is_ascii_whitespace(c) || c == '/' || c == '>') {
          const bool script = temp_.view() == "script";
          state_ = start == script ? State::ScriptDoubleEscaped : State::ScriptEscaped;
          ++p;
        } else if (is_ascii_alpha(c)) {
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
    while (i < s.size() && is_ascii_whitespace(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') {
      pos = at + 7;
      continue;
    }
    ++i;
    while (i < s.size() && is_ascii_whitespace(s[i])) ++i;
    if (i >= s.size()) return std::nullopt;
    if (s[i] == '"' || s[i] == '\'') {
      const size_t close = s.find(s[i], i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      return std::string(s.substr(i + 1, close - i - 1));
    }
    size_t e = i;
    while (e < s.size() && !is_ascii_whitespace(s[e]) && s[e] != ';') ++e;
    return std::string(s.substr(i, e - i));
  }
}

// Calls f(token) for each token of a list separated by commas and/or ASCII whitespace.
template <typename F>
void for_each_token(std::string_view s, F f) {
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (is_ascii_whitespace(s[i]) || s[i] == ',')) ++i;
    size_t e = i;
    while (e < s.size() && !is_ascii_whitespace(s[e]) && s[e] != ',') ++e;
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

}  // namespace

void LinkTokenizer::meta(std::string_view name, std::string_view content, std::string_view charset,
                         std::string_view http_equiv, uint8_t present) {
  if ((present & (1 << Name)) && (present & (1 << Content)) &&
      iequals(strip_ascii_whitespace(decode_attribute(name)), "robots")) {
    for_each_token(decode_attribute(content), [this](std::string_view token) {
      if (iequals(token, "noindex")) robots_.noindex = true;
      if (iequals(token, "nofollow")) robots_.nofollow = true;
      if (iequals(token, "none")) robots_.noindex = robots_.nofollow = true;
    });
  }
  if (meta_charset_) return;
  if (present & (1 << Charset)) {
    const std::string value(strip_ascii_whitespace(decode_attribute(charset)));
    if (!value.empty()) meta_charset_ = value;
  } else if ((present & (1 << HttpEquiv)) && (present & (1 << Content)) &&
             iequals(strip_ascii_whitespace(decode_attribute(http_equiv)), "content-type")) {
    meta_charset_ = charset_from_content(decode_attribute(content));
  }
}

void LinkTokenizer::finish() {
  if (finished_) return;
  finished_ = true;
  state_ = State::Data;  // a tag open at end of file is dropped

  TextDecoder decoder(!options_.charset.empty() ? std::string_view(options_.charset)
                      : meta_charset_           ? std::string_view(*meta_charset_)
                                                : std::string_view("utf-8"));
  encoding_ = decoder.encoding();

  // Attribute bytes → UTF-8 → references resolved → whitespace stripped.
  std::string utf8;
  auto decode = [&](std::string_view bytes, bool strip = true) {
    if (!decoder.is_utf8()) {
      utf8.clear();
      decoder.decode(bytes, utf8);
      bytes = utf8;
    }
    std::string decoded = decode_attribute(bytes);
    if (strip) {  // after decoding: "&#32;" and "&Tab;" are whitespace too
      const std::string_view kept = strip_ascii_whitespace(decoded);
      if (kept.size() != decoded.size()) {
        decoded.erase(static_cast<size_t>(kept.data() + kept.size() - decoded.data()));
        decoded.erase(0, static_cast<size_t>(kept.data() - decoded.data()));
      }
    }
    return decoded;
  };

  // The URL Standard encodes the query of a special URL (other than ws, wss) in the document's
  // encoding; the URL parser does, given the encoding's name.
  const std::string_view query_encoding = decoder.is_utf8() ? std::string_view() : encoding_;
  auto parse = [&](const std::string& input, const Url* base) -> std::optional<Url> {
    UrlResult result = Url::parse(input, base, query_encoding);
    if (!result) return std::nullopt;
    return std::move(result).value();
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
