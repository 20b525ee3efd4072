// CSS Syntax Level 3 tokenization for selectors (section 4.3).
#include "css_tokenizer.h"

#include <cstdio>
#include <utility>

#include "squall/url/ascii.h"
#include "squall/url/charset.h"

namespace squall::detail {

namespace {

constexpr uint32_t kReplacement = 0xFFFD;
constexpr int kEof = -1;

constexpr bool is_newline(int c) noexcept {
  return c == '\n' || c == '\r' || c == '\f';
}
constexpr bool is_whitespace(int c) noexcept {
  return c == ' ' || c == '\t' || is_newline(c);
}
// Ident-start code points; NUL counts because preprocessing turns it into U+FFFD.
constexpr bool is_name_start(int c) noexcept {
  return is_ascii_alpha(c) || c == '_' || c >= 0x80 || c == 0;
}
constexpr bool is_name(int c) noexcept {
  return is_name_start(c) || is_ascii_digit(c) || c == '-';
}

// The length of the UTF-8 sequence a lead byte starts (the input is valid UTF-8).
size_t sequence_length(unsigned char lead) noexcept {
  if (lead < 0x80) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

uint32_t decode(std::string_view s, size_t at, size_t length) noexcept {
  const auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i])); };
  switch (length) {
    case 1:
      return b(at);
    case 2:
      return ((b(at) & 0x1F) << 6) | (b(at + 1) & 0x3F);
    case 3:
      return ((b(at) & 0x0F) << 12) | ((b(at + 1) & 0x3F) << 6) | (b(at + 2) & 0x3F);
    default:
      return ((b(at) & 0x07) << 18) | ((b(at + 1) & 0x3F) << 12) | ((b(at + 2) & 0x3F) << 6) |
             (b(at + 3) & 0x3F);
  }
}

// The tokens of one character that are not delimiters.
constexpr std::pair<char, CssTokenType> kPunctuation[] = {
    {'(', CssTokenType::LeftParen},   {')', CssTokenType::RightParen},
    {'[', CssTokenType::LeftBracket}, {']', CssTokenType::RightBracket},
    {',', CssTokenType::Comma},       {':', CssTokenType::Colon}};

// XML 1.0's Char production, which every character of an XPath expression must match.
constexpr bool is_xml_char(uint32_t cp) noexcept {
  if (cp < 0x20) return cp == '\t' || cp == '\n' || cp == '\r';
  return cp != 0xFFFE && cp != 0xFFFF;
}

class Tokenizer {
 public:
  Tokenizer(std::string_view input, std::vector<CssToken>& tokens, CssTokenError& error)
      : in_(input), tokens_(tokens), error_(error) {}

  bool run() {
    while (pos_ < in_.size()) {
      if (at(pos_) == '/' && at(pos_ + 1) == '*') {
        const size_t close = in_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) return fail(pos_, "unclosed comment: add '*/'");
        pos_ = close + 2;
        continue;
      }
      CssToken token;
      token.offset = pos_;
      if (!next(token)) return false;
      token.end = pos_;
      tokens_.push_back(std::move(token));
    }
    CssToken end;
    end.offset = end.end = in_.size();
    tokens_.push_back(std::move(end));
    return true;
  }

 private:
  int at(size_t i) const noexcept {
    return i < in_.size() ? static_cast<unsigned char>(in_[i]) : kEof;
  }
  bool fail(size_t offset, std::string what) {
    error_.what = std::move(what);
    error_.offset = offset;
    return false;
  }

  // Section 4.3.8: a backslash not followed by a newline (EOF included: it escapes to U+FFFD).
  bool valid_escape(size_t i) const noexcept { return at(i) == '\\' && !is_newline(at(i + 1)); }
  // Section 4.3.9.
  bool starts_ident(size_t i) const noexcept {
    const int c = at(i);
    if (c == '-') return at(i + 1) == '-' || is_name_start(at(i + 1)) || valid_escape(i + 1);
    if (c == '\\') return valid_escape(i);
    return c != kEof && is_name_start(c);
  }
  // Section 4.3.10.
  bool starts_number(size_t i) const noexcept {
    int c = at(i);
    if (c == '+' || c == '-') c = at(++i);
    if (c == '.') c = at(++i);
    return is_ascii_digit(c);
  }

  bool next(CssToken& token) {
    const int c = at(pos_);
    if (is_whitespace(c)) {
      while (is_whitespace(at(pos_))) ++pos_;
      token.type = CssTokenType::Whitespace;
      return true;
    }
    switch (c) {
      case '"':
      case '\'':
        return string(token, static_cast<char>(c));
      case '#':
        if (is_name(at(pos_ + 1)) || valid_escape(pos_ + 1)) {
          ++pos_;
          token.type = CssTokenType::Hash;
          return name(token);
        }
        return delim(token);
      case '@':
        if (starts_ident(pos_ + 1)) {
          ++pos_;
          token.type = CssTokenType::AtKeyword;
          return name(token);
        }
        return delim(token);
      default:
        break;
    }
    for (const auto& [character, type] : kPunctuation) {
      if (c == character) {
        token.type = type;
        ++pos_;
        return true;
      }
    }
    if (starts_number(pos_)) return numeric(token);
    if (starts_ident(pos_)) {
      token.type = CssTokenType::Ident;
      if (!name(token)) return false;
      if (at(pos_) == '(') {
        ++pos_;
        token.type = CssTokenType::Function;
      }
      return true;
    }
    return delim(token);
  }

  bool delim(CssToken& token) {
    token.type = CssTokenType::Delim;
    const size_t length = sequence_length(static_cast<unsigned char>(in_[pos_]));
    token.value.assign(in_.substr(pos_, length));
    pos_ += length;
    return true;
  }

  // Appends the code point at pos_ (NUL as U+FFFD) and moves past it.
  uint32_t copy_code_point(std::string& out) {
    const size_t length = sequence_length(static_cast<unsigned char>(in_[pos_]));
    uint32_t cp = decode(in_, pos_, length);
    if (cp == 0) cp = kReplacement;
    append_utf8(out, cp);
    pos_ += length;
    return cp;
  }

  // Section 4.3.7, with pos_ just after the backslash.
  uint32_t escape(std::string& out) {
    if (pos_ >= in_.size()) {
      append_utf8(out, kReplacement);
      return kReplacement;
    }
    if (!is_ascii_hex(at(pos_))) return copy_code_point(out);
    uint32_t cp = 0;
    for (int digits = 0; digits < 6 && is_ascii_hex(at(pos_)); ++digits, ++pos_) {
      cp = cp * 16 + static_cast<uint32_t>(hex_value(at(pos_)));
    }
    if (at(pos_) == '\r' && at(pos_ + 1) == '\n') {
      pos_ += 2;
    } else if (is_whitespace(at(pos_))) {
      ++pos_;
    }
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = kReplacement;
    append_utf8(out, cp);
    return cp;
  }

  // Reads one character of a name or string into token.value, refusing what XPath cannot hold.
  bool take(uint32_t cp, size_t where) {
    if (is_xml_char(cp)) return true;
    char hex[16];
    std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp));
    return fail(where, std::string("the character ") + hex +
                           " cannot be matched: XPath 1.0 has no way to write it");
  }

  // Section 4.3.11: the name starting at pos_ into token.value.
  bool name(CssToken& token) {
    while (pos_ < in_.size()) {
      const size_t where = pos_;
      uint32_t cp;
      if (is_name(at(pos_))) {
        cp = copy_code_point(token.value);
      } else if (valid_escape(pos_)) {
        ++pos_;
        cp = escape(token.value);
      } else {
        break;
      }
      if (!take(cp, where)) return false;
    }
    return true;
  }

  // Section 4.3.5, with pos_ on the opening quote.
  bool string(CssToken& token, char quote) {
    token.type = CssTokenType::String;
    const size_t start = pos_++;
    while (true) {
      const int c = at(pos_);
      if (c == kEof) {
        return fail(start, std::string("unclosed string: add ") + quote + " to end it");
      }
      if (c == quote) {
        ++pos_;
        return true;
      }
      if (is_newline(c)) {
        return fail(pos_, "a newline ends the string started at offset " + std::to_string(start) +
                              " (write \\A for a newline in a string)");
      }
      const size_t where = pos_;
      uint32_t cp;
      if (c == '\\') {
        ++pos_;
        if (pos_ >= in_.size()) continue;  // a backslash at the end escapes nothing
        if (is_newline(at(pos_))) {        // an escaped newline continues the string
          pos_ += at(pos_) == '\r' && at(pos_ + 1) == '\n' ? 2 : 1;
          continue;
        }
        cp = escape(token.value);
      } else {
        cp = copy_code_point(token.value);
      }
      if (!take(cp, where)) return false;
    }
  }

  // Section 4.3.3 and 4.3.12; only the byte range matters to selectors (an+b reads it back).
  bool numeric(CssToken& token) {
    if (at(pos_) == '+' || at(pos_) == '-') ++pos_;
    while (is_ascii_digit(at(pos_))) ++pos_;
    if (at(pos_) == '.' && is_ascii_digit(at(pos_ + 1))) {
      ++pos_;
      while (is_ascii_digit(at(pos_))) ++pos_;
    }
    if ((at(pos_) == 'e' || at(pos_) == 'E') &&
        (is_ascii_digit(at(pos_ + 1)) ||
         ((at(pos_ + 1) == '+' || at(pos_ + 1) == '-') && is_ascii_digit(at(pos_ + 2))))) {
      pos_ += 2;
      while (is_ascii_digit(at(pos_))) ++pos_;
    }
    if (starts_ident(pos_)) {
      token.type = CssTokenType::Dimension;
      CssToken unit;
      return name(unit);
    }
    if (at(pos_) == '%') {
      ++pos_;
      token.type = CssTokenType::Percentage;
      return true;
    }
    token.type = CssTokenType::Number;
    return true;
  }

  std::string_view in_;
  std::vector<CssToken>& tokens_;
  CssTokenError& error_;
  size_t pos_ = 0;
};

}  // namespace

bool css_tokenize(std::string_view input, std::vector<CssToken>& tokens, CssTokenError& error) {
  return Tokenizer(input, tokens, error).run();
}

}  // namespace squall::detail
