// Fuzzes squall::SitemapParser: the file fed whole, split at offsets taken from the input, and
// byte by byte must give the same locs, kind, truncation and failure (libxml2's message may name
// the error differently when bytes come one by one); every loc is stripped,
// non-empty and within kMaxLocBytes, and never more than the limit are reported.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "squall/crawl/sitemap.h"
#include "squall/url/ascii.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

struct Outcome {
  std::vector<std::string> locs;
  squall::SitemapKind kind;
  bool truncated;
  bool failed;
  bool operator==(const Outcome&) const = default;
};

Outcome run(const std::vector<std::string_view>& chunks, squall::SitemapLimits limits) {
  Outcome out;
  squall::SitemapParser parser([&](std::string_view loc) { out.locs.emplace_back(loc); }, limits);
  for (std::string_view chunk : chunks) parser.feed(chunk);
  parser.finish();
  parser.finish();
  out.kind = parser.kind();
  out.truncated = parser.truncated();
  out.failed = !parser.error().empty();
  check(parser.urls() == out.locs.size());
  check(out.locs.size() <= limits.max_urls);
  for (const std::string& loc : out.locs) {
    check(!loc.empty() && loc.size() <= squall::SitemapParser::kMaxLocBytes);
    check(!squall::is_ascii_whitespace(loc.front()) && !squall::is_ascii_whitespace(loc.back()));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const size_t cut1 = data[0];
  const size_t cut2 = data[1] * 7;
  const uint8_t flags = data[2];
  const std::string_view file(reinterpret_cast<const char*>(data) + 3, size - 3);

  // Small limits now and then, so that truncation is reached.
  squall::SitemapLimits limits;
  if (flags & 1) limits.max_urls = flags >> 4;
  if (flags & 2) limits.max_bytes = static_cast<size_t>(flags) * 4;

  const Outcome whole = run({file}, limits);
  const size_t a = std::min(cut1, file.size());
  const size_t b = std::min(std::max(a, cut2), file.size());
  check(run({file.substr(0, a), file.substr(a, b - a), file.substr(b)}, limits) == whole);
  if (file.size() <= 4096) {
    std::vector<std::string_view> bytes;
    for (size_t i = 0; i < file.size(); ++i) bytes.push_back(file.substr(i, 1));
    check(run(bytes, limits) == whole);
  }
  return 0;
}
