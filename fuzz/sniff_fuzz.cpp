// Fuzzes MIME type parsing and sniffing: no crash, serialization round-trips, HTML types are HTML.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "squall/crawl/sniff.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // The first line is a Content-Type value, the rest the body.
  const size_t eol = input.find('\n');
  const std::string_view content_type = input.substr(0, eol);
  const std::string_view body =
      eol == std::string_view::npos ? std::string_view() : input.substr(eol + 1);

  // Serializing a parsed type and parsing it again gives the same type.
  if (const std::optional<squall::MimeType> mime = squall::parse_mime_type(content_type)) {
    const std::optional<squall::MimeType> again = squall::parse_mime_type(mime->serialize());
    check(again && *again == *mime);
  }
  const std::optional<squall::MimeType> supplied = squall::extract_mime_type(content_type);

  for (bool no_sniff : {false, true}) {
    const squall::MimeType computed = squall::sniff_mime_type(content_type, body, no_sniff);
    check(computed == squall::sniff_mime_type(content_type, body, no_sniff));
    check(!computed.type.empty() && !computed.subtype.empty());
    const bool html = squall::is_html(content_type, body, no_sniff);
    // A supplied HTML type is never second-guessed, except text/html that is really a feed.
    if (supplied && supplied->is_html() && computed.essence() == supplied->essence()) check(html);
    if (computed.is_html()) check(html);
    if (no_sniff && supplied)
      check(computed == *supplied || supplied->essence() == "unknown/unknown" ||
            supplied->essence() == "application/unknown");
  }
  const squall::MimeType unknown = squall::sniff_mime_type(std::nullopt, body);
  check(unknown.parameters.empty());
  (void)squall::declared_charset(content_type, body);
  return 0;
}
