// Fuzzes squall::LinkExtractor: the page fed whole and split at offsets taken from the input must
// give the same links, base, robots, charset and title; raw links carry no surrounding whitespace,
// and a title no whitespace at its ends nor two spaces in a row.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/crawl/links.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

struct Outcome {
  std::vector<std::string> links;
  std::optional<std::string> base;
  std::optional<std::string> charset;
  bool noindex;
  bool nofollow;
  std::optional<std::string> title;
  bool operator==(const Outcome&) const = default;
};

Outcome run(const std::vector<std::string_view>& chunks, const squall::LinkOptions& options) {
  squall::LinkExtractor extractor(options);
  for (std::string_view chunk : chunks) extractor.feed(chunk);
  extractor.finish();
  extractor.finish();
  Outcome out{{},
              extractor.base_href(),
              extractor.meta_charset(),
              extractor.robots().noindex,
              extractor.robots().nofollow,
              extractor.title()};
  if (const auto& title = extractor.title()) {
    check(title->find("  ") == std::string::npos);
    if (!title->empty()) check(title->front() != ' ' && title->back() != ' ');
  }
  for (const squall::Link& link : extractor.links()) {
    std::string s(squall::link_element_name(link.element));
    s += '\0' + link.raw + '\0' + link.rel + (link.nofollow ? "\1" : "\0");
    s += link.url ? link.url->href() : "-";
    out.links.push_back(std::move(s));
    if (!link.raw.empty()) {
      for (char c : {link.raw.front(), link.raw.back()}) {
        check(c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f');
      }
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const size_t cut1 = data[0];
  const size_t cut2 = data[1] * 7;
  const uint8_t flags = data[2];
  const std::string_view page(reinterpret_cast<const char*>(data) + 3, size - 3);

  squall::LinkOptions options;
  options.page_url = *squall::Url::parse("http://example.com/dir/page?q#f");
  options.resource_links = flags & 1;
  if (flags & 2) options.charset = "windows-1252";
  if (flags & 4) options.charset = "Shift_JIS";

  const Outcome whole = run({page}, options);
  const size_t a = std::min(cut1, page.size());
  const size_t b = std::min(std::max(a, cut2), page.size());
  const Outcome split = run({page.substr(0, a), page.substr(a, b - a), page.substr(b)}, options);
  check(whole == split);
  return 0;
}
