// CSS selectors for HTML pages, translated to XPath 1.0 as cssselect's HTMLTranslator does.
//
// lxml, pyquery and parsel (Scrapy) all select with CSS by translating it to XPath through
// cssselect; squall does the same, so that one tree and one engine (libxml2's) serve both kinds
// of selector, and a selector picks the nodes a pyquery or Scrapy user expects. The usual way in
// is Selector::css (squall/crawl/selector.h); css_to_xpath is the translation alone.
//
//   css_to_xpath("div.item > a[href^='http']").xpath()
//   // descendant-or-self::div[@class and contains(concat(' ', normalize-space(@class), ' '),
//   //   ' item ')]/a[@href and starts-with(@href, 'http')]
//
// The grammar is Selectors Level 3 over the tokens of CSS Syntax Level 3 (identifiers and strings
// with escapes, hashes, numbers, comments, whitespace): type and universal selectors (element names
// ASCII case-insensitive, as HTML's are), #id, .class (a whitespace-separated token), attribute
// selectors [a] [a=v] [a~=v] [a|=v] [a^=v] [a$=v] [a*=v], cssselect's [a!=v], each with Level 4's
// `i` flag (ASCII case-insensitive value) or `s`; attribute names are ASCII case-insensitive;
// the combinators ' ', '>', '+', '~'; groups (a, b); and these pseudo-classes:
//   :root :first-child :last-child :only-child :first-of-type :last-of-type :only-of-type :empty
//   :nth-child(an+b) :nth-last-child() :nth-of-type() :nth-last-of-type() (an+b, odd, even)
//   :not(s, ...) :is(s, ...) :where(s, ...) :matches(s, ...) (compound selectors, nestable)
//   :has(rel, ...) (relative selectors: "a b", "> a", "+ a", "~ a")
//   :contains("text") (cssselect's: the element's string value contains the text)
//   :lang(en) :checked :disabled :enabled :link, and :scope at the start of a selector (the node
//   a Selector::css call starts from)
//   :visited :hover :active :focus :target, which match nothing in a document without a browser
// and parsel's pseudo-elements, last in a selector: ::text (the text nodes of what the rest
// selects; "div ::text" is every text node under a div) and ::attr(name) (that attribute node).
//
// Where squall knowingly differs from cssselect 1.2:
// - :disabled and :enabled count an <input> of any type as a form control, as the HTML Standard
//   does; cssselect's test (@type != 'hidden') leaves out hidden inputs and, by accident, inputs
//   without a type attribute (text fields).
// - odd and even in an+b are ASCII case-insensitive, as CSS Syntax says; whitespace may stand
//   inside the parentheses of :not() and the others.
// - :first-of-type and the other *-of-type pseudo-classes inside :not() or :is() take the element
//   name of the selector around them (li:not(:first-of-type)); cssselect refuses them there. They
//   still need an element name: XPath 1.0 cannot compare an element's name with its siblings',
//   so *:first-of-type is an error, as in cssselect.
// - :not() takes a list and nests; the attribute `i` flag and :scope are Level 4.
// - :is(), :where() and :matches() are ANDed with the rest of their compound selector, and :has()
//   takes any relative selector ("a b", "> a.x"); cssselect ORs :is() with what precedes it and
//   applies the qualifiers of a :has() argument (the ".x" of "> a.x") to the outer element.
// - Namespace prefixes (ns|a, [ns|a]) and other pseudo-elements (::before) are errors.
//
// A selector that cannot be translated gives a CssTranslation whose error() names the offset and
// what was expected there. Never throws except std::bad_alloc. Pure: callable from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace squall {

// The longest selector accepted, in bytes; the translation is at most ~100 times longer.
inline constexpr size_t kMaxCssSelectorLength = 8192;
// How deep :not(), :is(), :where() and :has() may nest inside each other.
inline constexpr int kMaxCssNesting = 16;
// The most simple selectors (type, #id, .class, [attribute], pseudo-class) in one selector group.
// libxml2 evaluates location steps and "and" terms recursively and gives up past 5,000 deep; this
// keeps every translation well inside that.
inline constexpr int kMaxCssSimpleSelectors = 1024;

// The XPath expression a selector stands for, or why it has none.
class CssTranslation {
 public:
  static CssTranslation translated(std::string xpath);
  static CssTranslation failure(std::string error, size_t offset);

  bool ok() const noexcept { return error_.empty(); }
  explicit operator bool() const noexcept { return ok(); }
  // An XPath 1.0 expression selecting from the context node (descendant-or-self::…, several
  // joined by " | " for a group); empty when !ok().
  const std::string& xpath() const noexcept { return xpath_; }
  // What went wrong, e.g. "invalid CSS selector 'a[' at offset 2: expected an attribute name
  // after '[', found the end of the selector"; empty when ok().
  const std::string& error() const noexcept { return error_; }
  // The byte offset in the selector that error() names; 0 when ok().
  size_t offset() const noexcept { return offset_; }

 private:
  std::string xpath_;
  std::string error_;
  size_t offset_ = 0;
};

// Translates a selector group (UTF-8) to XPath 1.0. See the top of this file for what is
// supported.
CssTranslation css_to_xpath(std::string_view selector);

}  // namespace squall
