// Link extraction: the crawlable links of an HTML page, found by a streaming tokenizer.
//
// LinkExtractor follows the HTML Standard's tokenization rules (section 13.2.5) for everything
// links depend on: start and end tags, attributes in every quoting form (names lower-cased, the
// first of duplicate attributes wins), comments (with "<!-->", "<!--->" and "--!>"), bogus
// comments ("<?", "</ >", "<!x"), DOCTYPE, raw text (script with its escaped states, style, xmp,
// iframe, noembed, noframes), RCDATA (title, textarea), plaintext, and character references in
// attribute values (every named reference of the standard, numeric references with the
// standard's replacements, the legacy no-semicolon rule for attributes).
//
// It is fed bytes as they arrive: feed() may be called with chunks of any size, split anywhere,
// and keeps between calls only the tag being read (its kept attribute values, capped at
// kMaxTagBytes) and a few bytes of state, so a page is never buffered twice. finish() ends the
// page and resolves every link; results are read after it.
//
// What it reports: a[href], area[href], link[href] with a crawlable rel (see LinkOptions),
// iframe[src], frame[src], in document order, each with its rel and nofollow flag; the first
// <base href>; <meta name=robots content> (noindex, nofollow, none); the first
// <meta charset> or <meta http-equiv=content-type content="...charset=...">; the text of the first
// <title>.
//
// Where it knowingly differs from a full HTML5 parser (tree construction, which gumbo and
// browsers run on top of tokenization):
// - Foreign content (svg, math) is tokenized as HTML: <![CDATA[...]]> is a bogus comment ending
//   at the first '>', and <script>, <style>, <title> inside svg still start raw text. An
//   svg <a href> (an SVG element, not an HTML one) is reported as an HTML <a>.
// - Tokens the tree builder drops are still reported: <a>, <iframe> inside <select>, anything
//   after <frameset>, <frame> outside a frameset, <iframe>/<xmp>/<noembed> start tags that a
//   <select> ignores (their raw text still starts here).
// - Links inside <template> are reported (they live in the template's contents, which lxml and
//   gumbo expose but a browser does not render).
// - The scripting flag is off: <noscript> content is markup, as in gumbo and lxml.
// - A tag whose kept attribute values exceed kMaxTagBytes yields nothing.
// - The first <meta charset> anywhere counts (a browser's prescan looks at 1024 bytes only).
//
// Encodings: tokenization works on bytes, which is exact for UTF-8 and every ASCII-compatible
// encoding whose multibyte sequences avoid '"', '\'', '<', '>', '=', '/' and whitespace
// (windows-1252, ISO-8859-*, Shift_JIS, EUC-JP, EUC-KR, GBK, Big5). Attribute values are
// decoded to UTF-8 from the page's encoding: windows-1252 (with its labels latin1, iso-8859-1,
// ascii, ...) and UTF-8 natively, every other label through glibc's iconv; a label iconv does not
// know is read as UTF-8. UTF-16 pages are not supported. Invalid UTF-8 is kept as bytes (the URL
// parser percent-encodes them) where a browser would decode it to U+FFFD.
// As the URL Standard says, the query of an http(s), ftp or file link on a non-UTF-8 page is
// percent-encoded in the page's encoding, characters it cannot represent as "&#N;".
//
// A LinkExtractor belongs to one thread at a time; it has no loop and does no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/url/url.h"

namespace squall {

namespace detail {
class LinkTokenizer;
}

// The element a link came from.
enum class LinkElement : uint8_t { A, Area, Link, Iframe, Frame };

// "a", "area", "link", "iframe" or "frame".
std::string_view link_element_name(LinkElement element) noexcept;

struct Link;

struct LinkOptions {
  // The URL the page was fetched from. With it, finish() resolves each link against the
  // document's base URL (the first <base href> resolved against page_url, else page_url).
  std::optional<Url> page_url;
  // The page's encoding label from the response headers (see sniff.h's declared_charset), e.g.
  // "utf-8", "windows-1252", "Shift_JIS". Empty: the first <meta> charset, else UTF-8.
  std::string charset;
  // Also report <link> elements whose rel names a subresource (stylesheet, icon, preload, ...)
  // and <link> without rel. Off: a <link> is reported when its rel has a token and none of its
  // tokens is a subresource one.
  bool resource_links = false;
  // Streaming: each link goes to on_link as soon as it can be resolved, and links() stays
  // empty, so a page of a million links costs a bounded buffer instead of a million Links. The
  // first `held_links` links are held (raw) until then or finish(), whichever comes first, so
  // that a <base href>, <meta name=robots> or <meta charset> in the head applies to them. After
  // the `held_links`-th link, a <base href> or <meta charset> is ignored and a <meta name=robots>
  // nofollow marks only the links after it (a full parse would apply each to the whole page).
  std::function<void(Link&&)> on_link;
  size_t held_links = 10000;
};

struct Link {
  LinkElement element = LinkElement::A;
  // The attribute value (href or src) decoded to UTF-8, character references resolved and
  // leading and trailing ASCII whitespace stripped.
  std::string raw;
  // The rel attribute, decoded but otherwise as written; empty when absent.
  std::string rel;
  // Whether rel has the token "nofollow" (ASCII case-insensitive), or the page's
  // <meta name=robots> says nofollow.
  bool nofollow = false;
  // `raw` resolved against the document's base URL; nullopt without LinkOptions::page_url or
  // when `raw` does not parse.
  std::optional<Url> url;
};

// What <meta name=robots content="..."> says (all such elements combined).
struct RobotsMeta {
  bool noindex = false;   // "noindex" or "none"
  bool nofollow = false;  // "nofollow" or "none"
};

class LinkExtractor {
 public:
  // The most bytes of kept attribute values one tag may hold; beyond it the tag is dropped.
  static constexpr size_t kMaxTagBytes = 64 * 1024;
  // The most bytes of <title> text kept; the rest is dropped.
  static constexpr size_t kMaxTitleBytes = 4096;

  explicit LinkExtractor(LinkOptions options = {});
  ~LinkExtractor();
  // Moves keep the state mid-page; a moved-from extractor may only be destroyed or assigned to.
  LinkExtractor(LinkExtractor&&) noexcept;
  LinkExtractor& operator=(LinkExtractor&&) noexcept;

  // Tokenizes the next bytes of the page. Chunks may split the page anywhere. Must not be called
  // after finish().
  void feed(std::string_view chunk);
  // Ends the page (a tag still open is dropped, as the standard says at end of file), decodes
  // the links from the page's encoding and resolves them. Idempotent.
  void finish();

  // The links in document order. Complete after finish(); empty with LinkOptions::on_link.
  const std::vector<Link>& links() const noexcept;
  // The first <base href> value (decoded, whitespace-stripped); nullopt when there is none.
  const std::optional<std::string>& base_href() const noexcept;
  // The document's base URL after finish(): base_href() resolved against page_url when it
  // parses, else page_url; nullopt without page_url.
  const std::optional<Url>& base_url() const noexcept;
  RobotsMeta robots() const noexcept;
  // The charset the first <meta charset> or <meta http-equiv=content-type> names, as written.
  const std::optional<std::string>& meta_charset() const noexcept;
  // The encoding finish() decoded the page with, by its canonical name ("UTF-8",
  // "windows-1252", or the label as given to iconv).
  const std::string& encoding() const noexcept;
  // The text of the page's first <title> after finish(), as document.title gives it: decoded
  // from the page's encoding, character references resolved (by the attribute rules, so
  // "&copyx" stays as written), ASCII whitespace stripped and each inner run of it one space;
  // nullopt when the page has no <title>. At most kMaxTitleBytes of the page's bytes are read.
  const std::optional<std::string>& title() const noexcept;

 private:
  std::unique_ptr<detail::LinkTokenizer> impl_;
};

// Runs a LinkExtractor over a whole page: feed(html), finish(), links().
std::vector<Link> extract_links(std::string_view html, LinkOptions options = {});

}  // namespace squall
