// The tokenizer of CSS Syntax Level 3 under css_to_xpath (private to src/crawl).
//
// It follows section 4.3 ("Tokenization") for the tokens a selector is made of: identifiers,
// functions, at-keywords, hashes, strings, numbers, percentages, dimensions, whitespace, the
// punctuation tokens and delimiters, with escapes resolved and comments dropped. It keeps the
// byte range of every token, so that the parser can point at it and read an+b back from the
// source. Where the standard recovers, it fails instead, because a selector that does not say what
// it means should not select anything: an unclosed string or comment, a string broken by a
// newline, and a character XPath 1.0 cannot write (a C0 control other than tab, LF and CR, or
// U+FFFE, U+FFFF) in a name or a string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace squall::detail {

enum class CssTokenType : uint8_t {
  Ident,
  Function,  // an identifier and the '(' right after it
  AtKeyword,
  Hash,
  String,
  Number,
  Percentage,
  Dimension,
  Whitespace,
  Colon,
  Comma,
  LeftBracket,
  RightBracket,
  LeftParen,
  RightParen,
  Delim,
  End,  // after the last token, at the end of the input
};

struct CssToken {
  CssTokenType type = CssTokenType::End;
  size_t offset = 0;  // the token's first byte in the input
  size_t end = 0;     // one past its last byte
  // Unescaped UTF-8: the name of an identifier, function, at-keyword or hash; the contents of a
  // string; the character of a delimiter. Empty for the others (their text is the byte range).
  std::string value;
};

struct CssTokenError {
  std::string what;
  size_t offset = 0;
};

// Tokenizes `input`, which must be valid UTF-8, into `tokens`, the last one End. False, with
// `error` saying why and where, for the failures listed at the top of this file.
bool css_tokenize(std::string_view input, std::vector<CssToken>& tokens, CssTokenError& error);

}  // namespace squall::detail
