// The streaming HTML tokenizer under LinkExtractor (private to src/crawl).
//
// It runs the HTML Standard's tokenizer states (section 13.2.5; links.h lists what they cover and
// where they differ from a browser's) over the page's bytes, but builds no tokens: it tells apart
// only the tags of html::Tag, keeps only the attribute values a caller asks for, and hands each
// start tag that kept some to start_tag(). Start tags of raw text, RCDATA and plaintext elements
// switch it into those states, as the tree builder would.
//
// feed() takes chunks split anywhere; between calls it keeps only the tag being read and a few
// bytes of state. A Tokenizer belongs to one thread at a time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "squall/crawl/links.h"
#include "squall/url/ascii.h"

namespace squall::detail::html {

// The elements the tokenizer tells apart: those links and page metadata come from, and those
// whose content is not markup. Every other element is Other.
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
inline constexpr size_t kTagCount = static_cast<size_t>(Tag::Plaintext) + 1;

// The attributes a start tag can keep; each is a bit in a mask and a slot in Attributes.
enum Attr : uint8_t { Href, Src, Rel, Name, Content, Charset, HttpEquiv, kAttrCount, NoAttr };

// The attributes kept from one start tag: which were present (of duplicates, the first counts)
// and their values as the page's bytes, not yet decoded from its encoding, character references
// unresolved (see decode_attribute). The values lie one after another in one buffer, which every
// tag of the page reuses: a tag costs no allocation.
struct Attributes {
  uint8_t present = 0;
  std::string bytes;
  std::array<uint32_t, kAttrCount> begin{};  // where each present value starts in `bytes`
  std::array<uint32_t, kAttrCount> size{};
  bool has(Attr attr) const { return (present & (1 << attr)) != 0; }
  // The attribute's value; empty when it is absent.
  std::string_view value(Attr attr) const {
    return has(attr) ? std::string_view(bytes).substr(begin[attr], size[attr]) : std::string_view();
  }
};

// For each Tag, the mask of the attributes its start tags keep; 0 for the tags nobody reads.
using KeptAttributes = std::array<uint8_t, kTagCount>;

class Tokenizer {
 public:
  explicit Tokenizer(const KeptAttributes& kept) : kept_(kept) {}
  virtual ~Tokenizer() = default;
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // Tokenizes the next bytes of the page.
  void feed(std::string_view chunk);
  // Ends the page: a tag still open is dropped, as the standard says at end of file.
  void end() { state_ = State::Data; }

 protected:
  // Called when a start tag that kept at least one attribute is complete, before its content is
  // tokenized; never for a tag whose kept values exceed LinkExtractor::kMaxTagBytes. The values
  // are valid during the call only.
  virtual void start_tag(Tag tag, const Attributes& attributes) = 0;
  // Called with the content of the page's first <title> element as it is tokenized, in pieces:
  // the page's bytes, character references unresolved. A "</" that does not end the element is
  // passed on lower-cased (and without its name past 15 bytes), as its name was read.
  virtual void title_text(std::string_view) {}

 private:
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
  // Called when a tag's name is complete (`name` in any case; ignored for an end tag).
  void end_tag_name(std::string_view name);
  void end_attribute_name(std::string_view name);
  void emit_tag();
  void keep(const char* begin, const char* end) {
    if (keeping_ == NoAttr) return;
    const auto size = static_cast<size_t>(end - begin);
    if (attributes_.bytes.size() + size > LinkExtractor::kMaxTagBytes) {
      too_large_ = true;
      keeping_ = NoAttr;
      return;
    }
    attributes_.bytes.append(begin, size);
    attributes_.size[keeping_] += static_cast<uint32_t>(size);
  }
  bool appropriate_end_tag() const {
    return temp_.size <= temp_.bytes.size() && temp_.view() == raw_end_tag_;
  }

  const KeptAttributes kept_;
  State state_ = State::Data;
  bool end_tag_ = false;
  ShortName name_;  // the tag name, when a chunk boundary splits it
  ShortName attr_;  // the attribute name, when a chunk boundary splits it
  ShortName temp_;  // the standard's temporary buffer in raw text
  Tag tag_ = Tag::Other;
  uint8_t wanted_ = 0;  // attributes this tag keeps
  Attr keeping_ = NoAttr;
  bool too_large_ = false;
  Attributes attributes_;         // present: seen so far on this tag
  std::string_view raw_end_tag_;  // the start tag name a raw-text end tag must match
  bool in_title_ = false;         // in the first <title>'s RCDATA
  bool title_seen_ = false;
};

// Resolves an attribute value once it is UTF-8 as the tokenizer's attribute value states would
// have: CR and CRLF become LF, NUL becomes U+FFFD, and character references are resolved (every
// named reference of the standard, numeric ones with its replacements, and the legacy rule for
// attributes that leaves "&amp=" and "&copyx" as written).
std::string decode_attribute(std::string_view utf8);

}  // namespace squall::detail::html
