// Sitemaps (the sitemaps.org protocol 0.9): the URLs a site lists for crawlers, read as they
// arrive.
//
//   SitemapParser parser([&](std::string_view loc) {
//     if (parser.kind() == SitemapKind::Index) ... another sitemap to read ...
//     else ... a page URL ...
//   });
//   parser.feed(bytes);  // as many times as the body comes in
//   parser.finish();
//
// It reads the protocol's three forms: an XML <urlset> of <url><loc>, an XML <sitemapindex> of
// <sitemap><loc>, and a text file of one URL per line; each may be gzip-compressed (told by the
// gzip magic bytes, whatever the file's name or Content-Type says). The root is matched by local
// name, so a file with a missing or wrong namespace is read too (as Scrapy does), and <url>,
// <sitemap> and <loc> must be in the root's namespace, so that an extension's <image:loc> is not
// taken for a page; other elements (<lastmod>, <changefreq>, <priority>, extensions) are skipped.
// Each <loc> is passed to the sink with surrounding whitespace stripped and entities resolved, as
// written otherwise (the caller parses and checks it); empty ones and ones longer than kMaxLocBytes
// are dropped.
//
// Bounded whatever a peer sends: the XML is parsed by libxml2's SAX push parser (no tree, no
// network, no external or custom entities, so no entity expansion), in pieces; at most
// limits.max_urls locs are reported and at most limits.max_bytes bytes (after gunzip) are read,
// the protocol's 50,000 URLs and 50 MiB; past either the parser stops and truncated() says so.
// Bad input never throws: parsing stops at the first error, error() says what it was, and the
// locs reported before it stand. A parser belongs to one thread; it does no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace squall {

enum class SitemapKind : uint8_t {
  Unknown,  // not decided yet, or a root element that is neither urlset nor sitemapindex
  UrlSet,   // <urlset>: page URLs
  Index,    // <sitemapindex>: sitemap URLs
  Text,     // one page URL per line
};

struct SitemapLimits {
  size_t max_urls = 50000;
  size_t max_bytes = size_t{50} << 20;
};

namespace detail {
struct SitemapState;
}

class SitemapParser {
 public:
  // A URL longer than this is dropped (the protocol allows 2,048 characters, after escaping).
  static constexpr size_t kMaxLocBytes = 8192;

  // `sink` gets each loc as it is read; kind() already tells what the file lists. It may not
  // call feed() or finish().
  explicit SitemapParser(std::function<void(std::string_view loc)> sink, SitemapLimits limits = {});
  ~SitemapParser();
  SitemapParser(const SitemapParser&) = delete;
  SitemapParser& operator=(const SitemapParser&) = delete;

  // The next bytes of the file, split anywhere. Ignored once parsing has stopped.
  void feed(std::string_view bytes);
  // The file is complete: the last line of a text file counts, and XML or gzip that stops short
  // is an error. Idempotent.
  void finish();

  SitemapKind kind() const noexcept;
  // Locs passed to the sink so far.
  size_t urls() const noexcept;
  // A limit stopped the parser (the rest of the file was not read).
  bool truncated() const noexcept;
  // Why parsing stopped before the end ("not XML: ...", "gzip: ..."); empty when it did not.
  const std::string& error() const noexcept;

 private:
  std::unique_ptr<detail::SitemapState> state_;
};

}  // namespace squall
