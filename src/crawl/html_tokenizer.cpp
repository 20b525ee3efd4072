// The streaming HTML tokenizer's state machine, and the character references of attribute values.
#include "html_tokenizer.h"

#include <algorithm>
#include <cstring>

#include "html_entities.h"
#include "squall/url/charset.h"

namespace squall::detail::html {

namespace {

constexpr size_t kLongestReferenceName = 32;

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

// The names of the Tags, in lower case; empty for Other.
constexpr std::string_view kTagNames[kTagCount] = {
    "",       "a",     "area", "link",    "iframe",   "frame",    "base",  "meta",
    "script", "style", "xmp",  "noembed", "noframes", "textarea", "title", "plaintext",
};

// The Tag named `name` in any case: the candidates of its length, then one comparison.
Tag tag_named(std::string_view name) {
  if (name.empty()) return Tag::Other;
  auto is = [name](Tag tag) { return iequals(name, kTagNames[static_cast<size_t>(tag)]); };
  switch (name.size()) {
    case 1:
      return (name[0] | 0x20) == 'a' ? Tag::A : Tag::Other;
    case 3:
      return is(Tag::Xmp) ? Tag::Xmp : Tag::Other;
    case 4:
      for (Tag tag : {Tag::Area, Tag::Link, Tag::Base, Tag::Meta})
        if (is(tag)) return tag;
      return Tag::Other;
    case 5:
      for (Tag tag : {Tag::Frame, Tag::Style, Tag::Title})
        if (is(tag)) return tag;
      return Tag::Other;
    case 6:
      for (Tag tag : {Tag::Iframe, Tag::Script})
        if (is(tag)) return tag;
      return Tag::Other;
    case 7:
      return is(Tag::Noembed) ? Tag::Noembed : Tag::Other;
    case 8:
      for (Tag tag : {Tag::Noframes, Tag::Textarea})
        if (is(tag)) return tag;
      return Tag::Other;
    case 9:
      return is(Tag::Plaintext) ? Tag::Plaintext : Tag::Other;
    default:
      return Tag::Other;
  }
}

// The bytes that end a tag or attribute name.
constexpr std::array<bool, 256> kEndsName = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : {' ', '\t', '\n', '\f', '\r', '/', '>'}) t[c] = true;
  return t;
}();

// The attribute named `name` in any case, or NoAttr: the candidates of its length, then one
// comparison.
Attr attribute_named(std::string_view name) {
  auto either = [name](std::string_view a, Attr attr_a, std::string_view b, Attr attr_b) {
    return iequals(name, a) ? attr_a : iequals(name, b) ? attr_b : NoAttr;
  };
  switch (name.size()) {
    case 3:
      return either("src", Src, "rel", Rel);
    case 4:
      return either("href", Href, "name", Name);
    case 7:
      return either("content", Content, "charset", Charset);
    case 10:
      return iequals(name, "http-equiv") ? HttpEquiv : NoAttr;
    default:
      return NoAttr;
  }
}

}  // namespace

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
    while (run < in.size() && run - start < kLongestReferenceName && is_ascii_alphanumeric(in[run]))
      ++run;
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
        (in[after] == '=' || is_ascii_alphanumeric(in[after]))) {
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

void Tokenizer::end_tag_name(std::string_view name) {
  // An end tag's name matters to nobody: it ends no element here, and its attributes are not kept.
  tag_ = end_tag_ ? Tag::Other : tag_named(name);
  wanted_ = end_tag_ ? 0 : kept_[static_cast<size_t>(tag_)];
  attributes_.present = 0;
  keeping_ = NoAttr;
  too_large_ = false;
  if (wanted_ != 0) attributes_.bytes.clear();
}

// Called when an attribute name is complete: decides whether its value is kept.
void Tokenizer::end_attribute_name(std::string_view name) {
  keeping_ = NoAttr;
  if (wanted_ == 0) return;
  const Attr attr = attribute_named(name);
  if (attr == NoAttr || !(wanted_ & (1 << attr)) || attributes_.has(attr)) return;
  attributes_.present |= static_cast<uint8_t>(1 << attr);
  attributes_.begin[attr] = static_cast<uint32_t>(attributes_.bytes.size());
  attributes_.size[attr] = 0;
  keeping_ = attr;
}

void Tokenizer::emit_tag() {
  keeping_ = NoAttr;
  state_ = State::Data;
  if (end_tag_) return;
  if (!too_large_ && attributes_.present != 0) start_tag(tag_, attributes_);
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
      raw_end_tag_ = kTagNames[static_cast<size_t>(tag_)];
      in_title_ = tag_ == Tag::Title && !title_seen_;
      title_seen_ = title_seen_ || in_title_;
      break;
    case Tag::Plaintext:
      state_ = State::Plaintext;
      break;
    default:
      break;
  }
}

// The tokenizer proper. Each case consumes input from p and leaves through `continue` with p
// advanced, or reconsumes the same byte in another state by not advancing. The states that
// cover long runs (data, attribute values, comments, raw text) skip ahead with memchr.
void Tokenizer::feed(std::string_view chunk) {
  const char* p = chunk.data();
  const char* const end = p + chunk.size();
  while (p < end) {
    const unsigned char c = *p;
    switch (state_) {
      // The states a start tag goes through come first, in that order, so that each falls
      // through to the next instead of going back to the switch.
      case State::Data: {
        const void* lt = std::memchr(p, '<', static_cast<size_t>(end - p));
        if (lt == nullptr) return;
        p = static_cast<const char*>(lt) + 1;
        state_ = State::TagOpen;
        if (p == end) return;
        [[fallthrough]];
      }
      case State::TagOpen: {
        const unsigned char t = *p;
        if (is_ascii_alpha(t)) {
          begin_tag(false);
        } else if (t == '/' && p + 1 < end && is_ascii_alpha(p[1])) {
          // The end tag open state, taken here when both of its bytes are at hand.
          begin_tag(true);
          ++p;
        } else {
          if (t == '!') {
            state_ = State::MarkupDeclarationOpen;
            ++p;
          } else if (t == '/') {
            state_ = State::EndTagOpen;
            ++p;
          } else if (t == '?') {
            state_ = State::BogusComment;
          } else {
            state_ = State::Data;
          }
          continue;
        }
        state_ = State::TagName;
        [[fallthrough]];
      }
      case State::TagName: {
        // Names run until whitespace, '/' or '>'; read the run in one tight loop. A start tag's
        // name is read where it lies, unless a chunk boundary splits it.
        const char* stop = p;
        while (stop < end && !kEndsName[static_cast<unsigned char>(*stop)]) ++stop;
        const bool whole = stop < end && name_.size == 0;
        if (!end_tag_ && !whole) {
          for (const char* q = p; q < stop; ++q) name_.push(static_cast<unsigned char>(*q));
        }
        const std::string_view name =
            whole ? std::string_view(p, static_cast<size_t>(stop - p)) : name_.view();
        p = stop;
        if (p == end) return;
        const unsigned char d = *p++;
        if (end_tag_ && d == '>') {  // "</p>": nothing to read, nothing to report
          state_ = State::Data;
          continue;
        }
        end_tag_name(name);
        if (d == '/') {
          state_ = State::SelfClosingStartTag;
          continue;
        }
        if (!is_ascii_whitespace(d)) {
          emit_tag();
          continue;
        }
        state_ = State::BeforeAttrName;
        [[fallthrough]];
      }
      case State::BeforeAttrName: {
        while (p < end && is_ascii_whitespace(*p)) ++p;
        if (p == end) return;
        const unsigned char a = *p;
        if (a == '/' || a == '>') {
          state_ = State::AfterAttrName;
          continue;
        }
        attr_.clear();
        if (a == '=') {
          attr_.push(a);
          ++p;
        }
        state_ = State::AttrName;
        [[fallthrough]];
      }
      case State::AttrName: {
        const char* stop = p;
        while (stop < end && !kEndsName[static_cast<unsigned char>(*stop)] && *stop != '=') ++stop;
        // Only tags with attributes to keep need the name, read where it lies when it can be.
        const bool whole = stop < end && attr_.size == 0;
        if (wanted_ != 0 && !whole) {
          for (const char* q = p; q < stop; ++q) attr_.push(static_cast<unsigned char>(*q));
        }
        const std::string_view name =
            whole ? std::string_view(p, static_cast<size_t>(stop - p)) : attr_.view();
        p = stop;
        if (p == end) return;
        end_attribute_name(name);
        if (*p != '=') {
          state_ = State::AfterAttrName;
          continue;
        }
        ++p;
        state_ = State::BeforeAttrValue;
        [[fallthrough]];
      }
      case State::BeforeAttrValue: {
        while (p < end && is_ascii_whitespace(*p)) ++p;
        if (p == end) return;
        const unsigned char v = *p;
        if (v == '>') {
          ++p;
          emit_tag();
          continue;
        }
        if (v != '"' && v != '\'') {
          state_ = State::AttrValueUnquoted;
          continue;
        }
        state_ = v == '"' ? State::AttrValueDouble : State::AttrValueSingle;
        ++p;
        [[fallthrough]];
      }
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
        if (in_title_) title_text(std::string_view(p, lt ? static_cast<const char*>(lt) : end));
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
          if (in_title_) title_text("<");
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
          if (in_title_) title_text("</");
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
          in_title_ = false;
          begin_tag(true);
          end_tag_name({});
          if (c == '>') {
            emit_tag();
          } else {
            state_ = c == '/' ? State::SelfClosingStartTag : State::BeforeAttrName;
          }
        } else if (is_ascii_alpha(c)) {
          temp_.push(c);
          ++p;
        } else {
          if (in_title_) {
            title_text("</");
            title_text(temp_.view());
          }
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

}  // namespace squall::detail::html
