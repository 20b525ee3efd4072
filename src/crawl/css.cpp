// CSS selectors to XPath 1.0: a recursive-descent parser over css_tokenizer's tokens that writes
// the XPath of each compound selector as it reads it.
#include "squall/crawl/css.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "css_tokenizer.h"
#include "squall/url/ascii.h"
#include "squall/url/utf8.h"

namespace squall {

namespace {

using detail::CssToken;
using detail::CssTokenType;

constexpr std::string_view kToLower = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'";
// An+B coefficients beyond this are refused rather than risk overflow; no page has a billion
// siblings.
constexpr int64_t kMaxNthCoefficient = 1'000'000'000;
// How much of the selector an error message repeats.
constexpr size_t kMaxEcho = 120;

// An XPath string literal for `s`; XPath 1.0 has no escapes, so a string holding both quote
// characters is built with concat().
std::string literal(std::string_view s) {
  const auto quoted = [](std::string& out, std::string_view text, char quote) {
    out += quote;
    out.append(text);
    out += quote;
  };
  std::string out;
  if (s.find('\'') == std::string_view::npos || s.find('"') == std::string_view::npos) {
    quoted(out, s, s.find('\'') == std::string_view::npos ? '\'' : '"');
    return out;
  }
  out = "concat(";
  for (size_t start = 0; start < s.size();) {
    if (start > 0) out += ", ";
    // A run of apostrophes goes in double quotes; a run of anything else in single quotes.
    const bool apostrophes = s[start] == '\'';
    size_t end = apostrophes ? s.find_first_not_of('\'', start) : s.find('\'', start);
    if (end == std::string_view::npos) end = s.size();
    quoted(out, s.substr(start, end - start), apostrophes ? '"' : '\'');
    start = end;
  }
  out += ')';
  return out;
}

// A name XPath can write as a name test: the ASCII subset of NCName cssselect also trusts.
bool is_safe_name(std::string_view s) {
  if (s.empty() || !(is_ascii_alpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(is_ascii_alphanumeric(c) || c == '_' || c == '.' || c == '-')) return false;
  }
  return true;
}

// The number of characters XPath's string-length() counts in valid UTF-8.
size_t code_points(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// A node test selecting elements named `name`: "p", or "*[name() = 'x:y']".
std::string name_test(const std::string& name) {
  return is_safe_name(name) ? name : "*[name() = " + literal(name) + "]";
}

std::string attribute_test(const std::string& name) {
  return is_safe_name(name) ? "@" + name : "@*[name() = " + literal(name) + "]";
}

// Predicates ANDed as one predicate: "[c]" or "[(c1) and (c2)]"; nothing for none.
std::string predicate(const std::vector<std::string>& conditions) {
  if (conditions.empty()) return {};
  if (conditions.size() == 1) return "[" + conditions[0] + "]";
  std::string out = "[";
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (i > 0) out += " and ";
    out += "(" + conditions[i] + ")";
  }
  return out + "]";
}

std::string joined(const std::vector<std::string>& conditions, std::string_view op) {
  if (conditions.size() == 1) return conditions[0];
  std::string out;
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (i > 0) out += op;
    out += "(" + conditions[i] + ")";
  }
  return out;
}

// One location step being built: what comes before it, its node test and its conditions.
// Conditions stay a flat list (one predicate of ANDed terms) so that a long compound selector
// does not nest parentheses as deep as it is long.
struct Step {
  std::string path;                     // e.g. "descendant-or-self::ul/", "following-sibling::"
  std::string element = "*";            // the node test
  std::string type;                     // the element name a type selector gave, lower-cased
  std::vector<std::string> conditions;  // ANDed
  bool scope = false;                   // :scope, the context node itself

  bool bare() const { return element == "*" && conditions.empty(); }
  std::string str() const { return path + element + predicate(conditions); }
  // Moves the node test into the conditions, for axes where it must share a predicate with
  // position() or be negated.
  void add_name_test() {
    if (element == "*") return;
    conditions.push_back("name() = " + literal(type));
    element = "*";
  }
};

enum class Pseudo : uint8_t { None, Text, Attr };

struct PseudoElement {
  Pseudo kind = Pseudo::None;
  std::string attribute;  // for ::attr(), lower-cased
  size_t offset = 0;
};

// The conditions of :nth-child() and its kin: the 0-based index `count` satisfies
// count + 1 = a*n + b for some integer n >= 0. Empty when every index does.
std::string nth_condition(const std::string& count, int64_t a, int64_t b) {
  const int64_t c = b - 1;  // count = a*n + c
  if (a == 0) return c < 0 ? "0" : count + " = " + std::to_string(c);
  if (a < 0 && c < 0) return "0";
  std::vector<std::string> terms;
  if (a > 0 && c > 0) terms.push_back(count + " >= " + std::to_string(c));
  if (a < 0) terms.push_back(count + " <= " + std::to_string(c));
  const int64_t step = a < 0 ? -a : a;
  if (step != 1) {
    // count - c must be a multiple of step; count + k with k = -c mod step keeps it positive.
    const int64_t k = ((-c % step) + step) % step;
    const std::string shifted = k == 0 ? count : "(" + count + " + " + std::to_string(k) + ")";
    terms.push_back(shifted + " mod " + std::to_string(step) + " = 0");
  }
  if (terms.empty()) return {};
  return terms.size() == 1 ? terms[0] : terms[0] + " and " + terms[1];
}

// Parses an+b (CSS Syntax section 6) from the argument's text, whitespace already trimmed.
std::optional<std::pair<int64_t, int64_t>> parse_an_plus_b(std::string_view s) {
  if (iequals(s, "odd")) return std::pair<int64_t, int64_t>{2, 1};
  if (iequals(s, "even")) return std::pair<int64_t, int64_t>{2, 0};
  size_t i = 0;
  // Digits into `value`, which keeps its old value when there are none.
  const auto integer = [&](int64_t& value) {
    const size_t start = i;
    int64_t n = 0;
    while (i < s.size() && is_ascii_digit(s[i])) {
      n = n * 10 + (s[i++] - '0');
      if (n > kMaxNthCoefficient) return false;
    }
    if (i > start) value = n;
    return i > start;
  };
  const auto skip_space = [&] {
    while (i < s.size() && s[i] == ' ') ++i;
  };
  int64_t sign = 1;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) sign = s[i++] == '-' ? -1 : 1;
  int64_t a = 1;
  const bool has_a = integer(a);
  if (i == s.size() || (s[i] != 'n' && s[i] != 'N')) {
    if (!has_a || i != s.size()) return std::nullopt;
    return std::pair<int64_t, int64_t>{0, sign * a};
  }
  ++i;
  skip_space();
  if (i == s.size()) return std::pair<int64_t, int64_t>{sign * a, 0};
  if (s[i] != '+' && s[i] != '-') return std::nullopt;
  const int64_t b_sign = s[i++] == '-' ? -1 : 1;
  skip_space();
  int64_t b = 0;
  if (!integer(b) || i != s.size()) return std::nullopt;
  return std::pair<int64_t, int64_t>{sign * a, b_sign * b};
}

// The conditions of the HTML pseudo-classes, after cssselect's HTMLTranslator, except that an
// <input> of any type is a form control, as the HTML Standard says (cssselect's test,
// @type != 'hidden', leaves out hidden inputs and, by accident, inputs without a type).
std::string disabled_condition() {
  constexpr std::string_view kControls =
      "name(.) = 'input' or name(.) = 'button' or name(.) = 'select' or name(.) = 'textarea'";
  return "(@disabled and (" + std::string(kControls) +
         " or name(.) = 'command' or name(.) = 'fieldset' or name(.) = 'optgroup' or "
         "name(.) = 'option')) or ((" +
         std::string(kControls) + ") and ancestor::fieldset[@disabled])";
}

std::string enabled_condition() {
  return "(@href and (name(.) = 'a' or name(.) = 'link' or name(.) = 'area')) or "
         "((name(.) = 'command' or name(.) = 'fieldset' or name(.) = 'optgroup') and "
         "not(@disabled)) or ((name(.) = 'input' or name(.) = 'button' or name(.) = 'select' or "
         "name(.) = 'textarea' or name(.) = 'keygen') and not(@disabled or "
         "ancestor::fieldset[@disabled])) or (name(.) = 'option' and not(@disabled or "
         "ancestor::optgroup[@disabled]))";
}

// What each argument-less pseudo-class adds, except the *-of-type ones (they need the element
// name) and :scope.
std::optional<std::string> simple_pseudo_class(const std::string& name) {
  if (name == "root") return "not(parent::*)";
  if (name == "first-child") return "count(preceding-sibling::*) = 0";
  if (name == "last-child") return "count(following-sibling::*) = 0";
  if (name == "only-child") return "count(parent::*/child::*) = 1";
  if (name == "empty") return "not(*) and not(string-length())";
  if (name == "link") return "@href and (name(.) = 'a' or name(.) = 'link' or name(.) = 'area')";
  if (name == "checked") {
    return "(@selected and name(.) = 'option') or (@checked and (name(.) = 'input' or "
           "name(.) = 'command') and (@type = 'checkbox' or @type = 'radio'))";
  }
  if (name == "disabled") return disabled_condition();
  if (name == "enabled") return enabled_condition();
  // Dynamic states: a document without a browser has no hovered, focused or visited element.
  if (name == "visited" || name == "hover" || name == "active" || name == "focus" ||
      name == "target") {
    return "0";
  }
  return std::nullopt;
}

struct Failure {
  std::string what;
  size_t offset = 0;
};

class Parser {
 public:
  Parser(std::string_view source, std::vector<CssToken> tokens)
      : source_(source), tokens_(std::move(tokens)) {}

  // The whole selector group.
  bool parse(std::string& xpath) {
    skip_whitespace();
    while (true) {
      std::string one;
      if (!complex_selector(one)) return false;
      if (!xpath.empty()) xpath += " | ";
      xpath += one;
      const CssToken& t = peek();
      if (t.type == CssTokenType::End) return true;
      ++pos_;  // the comma complex_selector stopped at
      skip_whitespace();
    }
  }

  const Failure& failure() const { return failure_; }

 private:
  const CssToken& peek() const { return tokens_[pos_]; }
  const CssToken& next() {
    const CssToken& t = tokens_[pos_];
    if (t.type != CssTokenType::End) ++pos_;
    return t;
  }
  bool skip_whitespace() {
    bool skipped = false;
    while (peek().type == CssTokenType::Whitespace) {
      ++pos_;
      skipped = true;
    }
    return skipped;
  }
  static bool is_delim(const CssToken& t, char c) {
    return t.type == CssTokenType::Delim && t.value.size() == 1 && t.value[0] == c;
  }
  static bool is_combinator(const CssToken& t) {
    return is_delim(t, '>') || is_delim(t, '+') || is_delim(t, '~');
  }

  bool fail(size_t offset, std::string what) {
    failure_ = {std::move(what), offset};
    return false;
  }
  bool expected(std::string_view what, const CssToken& found) {
    return fail(found.offset, "expected " + std::string(what) + ", found " + describe(found));
  }
  std::string describe(const CssToken& t) const {
    if (t.type == CssTokenType::End) return "the end of the selector";
    if (t.type == CssTokenType::Whitespace) return "whitespace";
    std::string_view text = source_.substr(t.offset, t.end - t.offset);
    if (text.size() == 1 && (static_cast<unsigned char>(text[0]) < 0x20 || text[0] == 0x7F)) {
      const auto c = static_cast<unsigned char>(text[0]);
      return std::string("U+00") + kUpperHex[c >> 4] + kUpperHex[c & 15];
    }
    if (text.size() > 24) {
      size_t cut = 20;
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      return "'" + std::string(text.substr(0, cut)) + "...'";
    }
    return "'" + std::string(text) + "'";
  }

  // One selector of a group, up to ',' or the end: compound selectors joined by combinators,
  // then an optional pseudo-element.
  bool complex_selector(std::string& out) {
    Step step;
    PseudoElement pseudo;
    if (!compound(step, {}, 0, &pseudo, true)) return false;
    const bool scoped = step.scope;
    if (!combined(step, &pseudo, 0, false)) return false;
    out = (scoped ? "" : "descendant-or-self::") + finish(step, pseudo);
    return true;
  }

  // The compound selectors after the first, each with the combinator before it, joined onto
  // `step`: up to ',' or the end of the selector, or inside :has() (`nested`) up to ',' or ')'.
  bool combined(Step& step, PseudoElement* pseudo, int depth, bool nested) {
    while (true) {
      const bool space = skip_whitespace();
      const CssToken& t = peek();
      if (t.type == CssTokenType::Comma ||
          t.type == (nested ? CssTokenType::RightParen : CssTokenType::End)) {
        return true;
      }
      if (!is_combinator(t) && !space) {
        return expected(
            nested ? "a combinator, ',' or ')'" : "a combinator, ',' or the end of the selector",
            t);
      }
      if (pseudo && pseudo->kind != Pseudo::None) return pseudo_element_not_last(*pseudo, t);
      char combinator = ' ';
      if (is_combinator(t)) {
        combinator = t.value[0];
        ++pos_;
        skip_whitespace();
      }
      Step right;
      if (!compound(right, {}, depth, pseudo, false)) return false;
      step = combine(std::move(step), combinator, std::move(right));
    }
  }

  bool pseudo_element_not_last(const PseudoElement& pseudo, const CssToken& found) {
    const std::string name = pseudo.kind == Pseudo::Text ? "::text" : "::attr()";
    return fail(found.offset, "the pseudo-element " + name + " (offset " +
                                  std::to_string(pseudo.offset) +
                                  ") must end the selector, found " + describe(found));
  }

  static Step combine(Step left, char combinator, Step right) {
    switch (combinator) {
      case '>':
        right.path = left.str() + "/";
        break;
      case '+':
        right.path = left.str() + "/following-sibling::";
        right.add_name_test();
        right.conditions.push_back("position() = 1");
        break;
      case '~':
        right.path = left.str() + "/following-sibling::";
        break;
      default:
        right.path = left.str() + "/descendant-or-self::*/";
        break;
    }
    return right;
  }

  // The pseudo-element applied to what `step` selects; parsel's rules, so that "div ::text" is
  // every text node under a div, the div's own text included.
  static std::string finish(const Step& step, const PseudoElement& pseudo) {
    constexpr std::string_view kAnyDescendant = "descendant-or-self::*/";
    const bool after_descendant = step.bare() && step.path.ends_with(kAnyDescendant);
    switch (pseudo.kind) {
      case Pseudo::Text:
        if (!step.bare()) return step.str() + "/text()";
        if (step.path.empty()) return "text()";
        if (after_descendant) return step.path.substr(0, step.path.size() - 2) + "text()";
        return step.path + "*/text()";
      case Pseudo::Attr:
        if (after_descendant) return step.path + attribute_test(pseudo.attribute);
        return step.str() + "/" + attribute_test(pseudo.attribute);
      case Pseudo::None:
        break;
    }
    return step.str();
  }

  // A compound selector: an optional type or universal selector, then ids, classes, attribute
  // selectors, pseudo-classes and (where `pseudo` is given) one pseudo-element. `outer_type` is
  // the element name of the compound a :not() or :is() argument belongs to.
  bool compound(Step& step, const std::string& outer_type, int depth, PseudoElement* pseudo,
                bool first) {
    bool any = false;
    const CssToken& t = peek();
    if (t.type == CssTokenType::Ident || is_delim(t, '*')) {
      if (!count_simple_selector(t)) return false;
      ++pos_;
      if (is_delim(peek(), '|')) return namespaces_unsupported(peek());
      if (t.type == CssTokenType::Ident) {
        step.type = ascii_lower(t.value);
        step.element = step.type;
        if (!is_safe_name(step.type)) step.add_name_test();
      }
      any = true;
    } else if (is_delim(t, '|')) {
      return namespaces_unsupported(t);
    }
    const std::string& type = step.type.empty() ? outer_type : step.type;
    while (true) {
      const CssToken& q = peek();
      const bool qualifier = q.type == CssTokenType::Hash || is_delim(q, '.') ||
                             q.type == CssTokenType::LeftBracket || q.type == CssTokenType::Colon;
      if (!qualifier) break;
      if (pseudo && pseudo->kind != Pseudo::None) return pseudo_element_not_last(*pseudo, q);
      if (step.scope &&
          !(q.type == CssTokenType::Colon && tokens_[pos_ + 1].type == CssTokenType::Colon)) {
        return fail(q.offset, ":scope must stand alone at the start of a selector");
      }
      if (!count_simple_selector(q)) return false;
      ++pos_;
      bool ok = true;
      if (q.type == CssTokenType::Hash) {
        step.conditions.push_back("@id = " + literal(q.value));
      } else if (q.type == CssTokenType::LeftBracket) {
        ok = attribute(step);
      } else if (q.type == CssTokenType::Colon) {
        ok = pseudo_selector(step, type, depth, pseudo, first && !any);
      } else {
        const CssToken& name = next();
        if (name.type != CssTokenType::Ident || name.offset != q.end) {
          return expected("a class name after '.'", name);
        }
        ok = includes(step, "@class", name.value);
      }
      if (!ok) return false;
      any = true;
    }
    if (!any) return expected("a selector", t);
    return true;
  }

  bool count_simple_selector(const CssToken& t) {
    if (++simple_selectors_ <= kMaxCssSimpleSelectors) return true;
    return fail(t.offset, "the selector has more than " + std::to_string(kMaxCssSimpleSelectors) +
                              " simple selectors");
  }

  bool namespaces_unsupported(const CssToken& bar) {
    return fail(bar.offset, "namespace prefixes (ns|name) are not supported");
  }

  // [class~=value]: a whitespace-separated token.
  static bool includes(Step& step, const std::string& attr, std::string_view value,
                       const std::string& subject = {}) {
    const std::string& s = subject.empty() ? attr : subject;
    const bool token = !value.empty() && value.find_first_of(" \t\r\n\f") == std::string::npos;
    step.conditions.push_back(token
                                  ? attr + " and contains(concat(' ', normalize-space(" + s +
                                        "), ' '), " + literal(" " + std::string(value) + " ") + ")"
                                  : "0");
    return true;
  }

  // An attribute selector, after '['.
  bool attribute(Step& step) {
    skip_whitespace();
    const CssToken& name = next();
    if (is_delim(name, '|') || (is_delim(name, '*') && is_delim(peek(), '|'))) {
      return namespaces_unsupported(name);
    }
    if (name.type != CssTokenType::Ident) return expected("an attribute name after '['", name);
    if (is_delim(peek(), '|') && !is_delim(tokens_[pos_ + 1], '=')) {
      return namespaces_unsupported(peek());
    }
    const std::string attr = attribute_test(ascii_lower(name.value));
    skip_whitespace();
    const CssToken& op = next();
    if (op.type == CssTokenType::RightBracket) {
      step.conditions.push_back(attr);
      return true;
    }
    char matcher = 0;
    if (is_delim(op, '=')) {
      matcher = '=';
    } else if (op.type == CssTokenType::Delim && op.value.size() == 1 &&
               std::string_view("~|^$*!").find(op.value[0]) != std::string_view::npos &&
               is_delim(peek(), '=') && peek().offset == op.end) {
      matcher = op.value[0];
      ++pos_;
    } else {
      return expected("']' or an operator (=, ~=, |=, ^=, $=, *=, !=) after the attribute name",
                      op);
    }
    skip_whitespace();
    const CssToken& value_token = next();
    if (value_token.type != CssTokenType::Ident && value_token.type != CssTokenType::String) {
      return expected("an attribute value (an identifier or a quoted string)", value_token);
    }
    skip_whitespace();
    bool fold = false;
    if (peek().type == CssTokenType::Ident &&
        (iequals(peek().value, "i") || iequals(peek().value, "s"))) {
      fold = iequals(next().value, "i");
      skip_whitespace();
    }
    const CssToken& close = next();
    if (close.type != CssTokenType::RightBracket) {
      return expected("']' to end the attribute selector", close);
    }
    const std::string value = fold ? ascii_lower(value_token.value) : value_token.value;
    // With the i flag, the attribute's value is compared lowered; it must exist all the same.
    const std::string s = fold ? "translate(" + attr + ", " + std::string(kToLower) + ")" : attr;
    const std::string exists = fold ? attr + " and " : "";
    std::string condition;
    switch (matcher) {
      case '=':
        condition = exists + s + " = " + literal(value);
        break;
      case '~':
        return includes(step, attr, value, s);
      case '|':
        condition = attr + " and (" + s + " = " + literal(value) + " or starts-with(" + s + ", " +
                    literal(value + "-") + "))";
        break;
      case '^':
        condition =
            value.empty() ? "0" : attr + " and starts-with(" + s + ", " + literal(value) + ")";
        break;
      case '$':
        condition = value.empty()
                        ? "0"
                        : attr + " and substring(" + s + ", string-length(" + s + ") - " +
                              std::to_string(code_points(value) - 1) + ") = " + literal(value);
        break;
      case '*':
        condition = value.empty() ? "0" : attr + " and contains(" + s + ", " + literal(value) + ")";
        break;
      default:  // '!', cssselect's: no such attribute, or another value
        condition =
            value.empty() ? s + " != ''" : "not(" + attr + ") or " + s + " != " + literal(value);
        break;
    }
    step.conditions.push_back(std::move(condition));
    return true;
  }

  // A pseudo-class or pseudo-element, after ':'.
  bool pseudo_selector(Step& step, const std::string& type, int depth, PseudoElement* pseudo,
                       bool may_scope) {
    const CssToken& t = next();
    // The second ':' of '::' follows the first directly, or it would be whitespace.
    if (t.type == CssTokenType::Colon) return pseudo_element(pseudo, t.offset - 1);
    if (t.type == CssTokenType::Function) return functional_pseudo_class(step, t, type, depth);
    if (t.type != CssTokenType::Ident) return expected("a pseudo-class name after ':'", t);
    const std::string name = ascii_lower(t.value);
    if (name == "before" || name == "after" || name == "first-line" || name == "first-letter") {
      return fail(t.offset, "the pseudo-element ::" + name +
                                " is not supported (squall has ::text and ::attr(name))");
    }
    if (name == "scope") {
      if (!may_scope) return fail(t.offset, ":scope must stand alone at the start of a selector");
      step.scope = true;
      step.element.assign(1, '.');  // not = ".": GCC 12 at -O3 misreports it under -Wrestrict
      return true;
    }
    if (name == "first-of-type" || name == "last-of-type" || name == "only-of-type") {
      if (type.empty()) return of_type_needs_name(t, ":" + name);
      const std::string siblings = name_test(type);
      if (name == "first-of-type") {
        step.conditions.push_back("count(preceding-sibling::" + siblings + ") = 0");
      } else if (name == "last-of-type") {
        step.conditions.push_back("count(following-sibling::" + siblings + ") = 0");
      } else {
        step.conditions.push_back("count(parent::*/child::" + siblings + ") = 1");
      }
      return true;
    }
    std::optional<std::string> condition = simple_pseudo_class(name);
    if (!condition) {
      return fail(t.offset,
                  "unknown pseudo-class :" + name +
                      (name == "text" || name == "attr" ? " (write ::" + name + ")" : ""));
    }
    step.conditions.push_back(std::move(*condition));
    return true;
  }

  bool of_type_needs_name(const CssToken& t, const std::string& name) {
    return fail(t.offset, name + " needs an element name before it (as in p" + name +
                              "): XPath 1.0 cannot compare an element's name with its siblings'");
  }

  // ::text or ::attr(name), after the '::' at `offset`.
  bool pseudo_element(PseudoElement* pseudo, size_t offset) {
    if (!pseudo) {
      return fail(offset,
                  "a pseudo-element cannot appear inside :not(), :is(), :where() or "
                  ":has()");
    }
    const CssToken& t = next();
    pseudo->offset = offset;
    if (t.type == CssTokenType::Ident && iequals(t.value, "text")) {
      pseudo->kind = Pseudo::Text;
      return true;
    }
    if (t.type == CssTokenType::Function && iequals(t.value, "attr")) {
      std::string name;
      if (!single_argument(name, "::attr()")) return false;
      pseudo->kind = Pseudo::Attr;
      pseudo->attribute = ascii_lower(name);
      return true;
    }
    if (t.type != CssTokenType::Ident && t.type != CssTokenType::Function) {
      return expected("a pseudo-element name after '::'", t);
    }
    return fail(t.offset, "unknown pseudo-element ::" + ascii_lower(t.value) +
                              " (squall has ::text and ::attr(name))");
  }

  // The one identifier or string of :contains(), :lang() or ::attr(), and the ')'.
  bool single_argument(std::string& value, std::string_view function) {
    skip_whitespace();
    const CssToken& arg = next();
    if (arg.type != CssTokenType::Ident && arg.type != CssTokenType::String) {
      return expected("a string or an identifier as the argument of " + std::string(function), arg);
    }
    value = arg.value;
    skip_whitespace();
    const CssToken& close = next();
    if (close.type != CssTokenType::RightParen) {
      return expected("')' to end " + std::string(function), close);
    }
    return true;
  }

  bool functional_pseudo_class(Step& step, const CssToken& function, const std::string& type,
                               int depth) {
    const std::string name = ascii_lower(function.value);
    if (name == "not" || name == "is" || name == "where" || name == "matches" || name == "has") {
      if (depth + 1 > kMaxCssNesting) {
        return fail(function.offset, "selectors nest more than " + std::to_string(kMaxCssNesting) +
                                         " deep in :not(), :is(), :where() and :has()");
      }
      std::vector<std::string> alternatives;
      bool matches_all = false;
      const bool ok = name == "has" ? relative_list(alternatives, depth + 1)
                                    : compound_list(alternatives, matches_all, type, depth + 1,
                                                    ":" + name + "()");
      if (!ok) return false;
      if (name == "not") {
        step.conditions.push_back(matches_all ? "0" : "not(" + joined(alternatives, " or ") + ")");
      } else if (!matches_all) {
        step.conditions.push_back(joined(alternatives, " or "));
      }
      return true;
    }
    if (name == "contains" || name == "lang") {
      std::string value;
      if (!single_argument(value, ":" + name + "()")) return false;
      if (name == "contains") {
        step.conditions.push_back("contains(., " + literal(value) + ")");
      } else {
        step.conditions.push_back(
            "ancestor-or-self::*[@lang][1][starts-with(concat(translate(@lang, " +
            std::string(kToLower) + "), '-'), " + literal(ascii_lower(value) + "-") + ")]");
      }
      return true;
    }
    const bool last = name == "nth-last-child" || name == "nth-last-of-type";
    const bool of_type = name == "nth-of-type" || name == "nth-last-of-type";
    if (!(last || of_type || name == "nth-child")) {
      return fail(function.offset, "unknown pseudo-class :" + name + "()");
    }
    const std::string label = ":" + name + "()";
    std::string text;
    if (!raw_argument(text, label)) return false;
    const std::optional<std::pair<int64_t, int64_t>> ab = parse_an_plus_b(text);
    if (!ab) {
      return fail(function.end,
                  "invalid argument '" + text + "' for " + label +
                      ": expected an+b (such as 2n+1, numbers up to 1000000000), odd or even");
    }
    if (of_type && type.empty()) return of_type_needs_name(function, ":" + name + "()");
    const std::string axis = last ? "following-sibling::" : "preceding-sibling::";
    const std::string count = "count(" + axis + (of_type ? name_test(type) : "*") + ")";
    std::string condition = nth_condition(count, ab->first, ab->second);
    if (!condition.empty()) step.conditions.push_back(std::move(condition));
    return true;
  }

  // The text of the tokens up to ')', whitespace as single spaces, trimmed: an+b.
  bool raw_argument(std::string& text, const std::string& label) {
    while (true) {
      const CssToken& t = next();
      if (t.type == CssTokenType::RightParen) break;
      if (t.type == CssTokenType::End) return expected("')' to end " + label, t);
      if (t.type == CssTokenType::Function || t.type == CssTokenType::LeftParen) {
        return expected("an+b, odd or even in " + label, t);
      }
      if (t.type == CssTokenType::Whitespace) {
        if (!text.empty()) text += ' ';
      } else {
        text += source_.substr(t.offset, t.end - t.offset);
      }
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return true;
  }

  // The compound selectors of :not(), :is(), :where() or :matches(), through ')': each one's
  // conditions ANDed (its element name among them), one string per selector. `matches_all` when
  // one of them has no condition at all.
  bool compound_list(std::vector<std::string>& out, bool& matches_all, const std::string& type,
                     int depth, const std::string& label) {
    while (true) {
      skip_whitespace();
      Step step;
      if (!compound(step, type, depth, nullptr, false)) return false;
      step.add_name_test();
      if (step.conditions.empty()) {
        matches_all = true;
      } else {
        out.push_back(joined(step.conditions, " and "));
      }
      skip_whitespace();
      const CssToken& t = next();
      if (t.type == CssTokenType::RightParen) return true;
      if (t.type != CssTokenType::Comma) {
        return expected("',' or ')' (" + label + " takes selectors without combinators)", t);
      }
    }
  }

  // The relative selectors of :has() ("a b", "> a", "+ a", "~ a"), through ')': each one a path
  // from the element, true when it selects something.
  bool relative_list(std::vector<std::string>& out, int depth) {
    while (true) {
      skip_whitespace();
      char combinator = ' ';
      if (is_combinator(peek())) {
        combinator = next().value[0];
        skip_whitespace();
      }
      Step step;
      if (!compound(step, {}, depth, nullptr, false)) return false;
      switch (combinator) {
        case '>':
          break;
        case '+':
          step.path = "following-sibling::";
          step.add_name_test();
          step.conditions.push_back("position() = 1");
          break;
        case '~':
          step.path = "following-sibling::";
          break;
        default:
          step.path = "descendant::";
          break;
      }
      if (!combined(step, nullptr, depth, true)) return false;
      out.push_back(step.str());
      if (next().type == CssTokenType::RightParen) return true;
    }
  }

  std::string_view source_;
  std::vector<CssToken> tokens_;
  size_t pos_ = 0;
  int simple_selectors_ = 0;
  Failure failure_;
};

// The offset of the first byte that makes `s` invalid UTF-8, if any.
std::optional<size_t> invalid_utf8_offset(std::string_view s) {
  if (is_valid_utf8(s)) return std::nullopt;
  Utf8Validator validator;
  size_t lead = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) lead = i;
    if (!validator.feed(s.substr(i, 1))) return i;
  }
  return lead;
}

// The selector as an error message quotes it: cut at a character boundary when long.
std::string echo(std::string_view selector) {
  if (selector.size() <= kMaxEcho) return std::string(selector);
  size_t cut = kMaxEcho;
  while (cut > 0 && (static_cast<unsigned char>(selector[cut]) & 0xC0) == 0x80) --cut;
  return std::string(selector.substr(0, cut)) + "...";
}

}  // namespace

CssTranslation CssTranslation::translated(std::string xpath) {
  CssTranslation result;
  result.xpath_ = std::move(xpath);
  return result;
}

CssTranslation CssTranslation::failure(std::string error, size_t offset) {
  CssTranslation result;
  result.error_ = error.empty() ? "invalid CSS selector" : std::move(error);
  result.offset_ = offset;
  return result;
}

CssTranslation css_to_xpath(std::string_view selector) {
  if (selector.size() > kMaxCssSelectorLength) {
    return CssTranslation::failure("invalid CSS selector: it is " +
                                       std::to_string(selector.size()) + " bytes long, at most " +
                                       std::to_string(kMaxCssSelectorLength) + " are accepted",
                                   kMaxCssSelectorLength);
  }
  if (const std::optional<size_t> bad = invalid_utf8_offset(selector)) {
    return CssTranslation::failure(
        "invalid CSS selector: invalid UTF-8 at offset " + std::to_string(*bad), *bad);
  }
  const auto failed = [&](const std::string& what, size_t offset) {
    return CssTranslation::failure("invalid CSS selector '" + echo(selector) + "' at offset " +
                                       std::to_string(offset) + ": " + what,
                                   offset);
  };
  std::vector<CssToken> tokens;
  detail::CssTokenError token_error;
  if (!detail::css_tokenize(selector, tokens, token_error)) {
    return failed(token_error.what, token_error.offset);
  }
  Parser parser(selector, std::move(tokens));
  std::string xpath;
  if (!parser.parse(xpath)) return failed(parser.failure().what, parser.failure().offset);
  return CssTranslation::translated(std::move(xpath));
}

}  // namespace squall
