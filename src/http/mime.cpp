// The built-in extension → media type table, searched by binary search.
#include "squall/http/mime.h"

#include <algorithm>
#include <array>
#include <utility>

#include "squall/url/ascii.h"

namespace squall::http {

namespace {

using Entry = std::pair<std::string_view, std::string_view>;

// Sorted by extension (lower case) so that lookups are a binary search; a test checks the order.
constexpr std::array kTypes = {
    Entry{"7z", "application/x-7z-compressed"},
    Entry{"aac", "audio/aac"},
    Entry{"apng", "image/apng"},
    Entry{"atom", "application/atom+xml"},
    Entry{"avi", "video/x-msvideo"},
    Entry{"avif", "image/avif"},
    Entry{"bin", "application/octet-stream"},
    Entry{"bmp", "image/bmp"},
    Entry{"bz2", "application/x-bzip2"},
    Entry{"css", "text/css; charset=utf-8"},
    Entry{"csv", "text/csv; charset=utf-8"},
    Entry{"doc", "application/msword"},
    Entry{"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
    Entry{"eot", "application/vnd.ms-fontobject"},
    Entry{"epub", "application/epub+zip"},
    Entry{"flac", "audio/flac"},
    Entry{"gif", "image/gif"},
    Entry{"gz", "application/gzip"},
    Entry{"htm", "text/html; charset=utf-8"},
    Entry{"html", "text/html; charset=utf-8"},
    Entry{"ico", "image/vnd.microsoft.icon"},
    Entry{"ics", "text/calendar; charset=utf-8"},
    Entry{"jpeg", "image/jpeg"},
    Entry{"jpg", "image/jpeg"},
    Entry{"js", "text/javascript; charset=utf-8"},
    Entry{"json", "application/json"},
    Entry{"jsonld", "application/ld+json"},
    Entry{"map", "application/json"},
    Entry{"md", "text/markdown; charset=utf-8"},
    Entry{"mid", "audio/midi"},
    Entry{"midi", "audio/midi"},
    Entry{"mjs", "text/javascript; charset=utf-8"},
    Entry{"mov", "video/quicktime"},
    Entry{"mp3", "audio/mpeg"},
    Entry{"mp4", "video/mp4"},
    Entry{"mpeg", "video/mpeg"},
    Entry{"oga", "audio/ogg"},
    Entry{"ogg", "audio/ogg"},
    Entry{"ogv", "video/ogg"},
    Entry{"opus", "audio/opus"},
    Entry{"otf", "font/otf"},
    Entry{"pdf", "application/pdf"},
    Entry{"png", "image/png"},
    Entry{"ppt", "application/vnd.ms-powerpoint"},
    Entry{"pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
    Entry{"rss", "application/rss+xml"},
    Entry{"rtf", "application/rtf"},
    Entry{"svg", "image/svg+xml"},
    Entry{"svgz", "image/svg+xml"},
    Entry{"tar", "application/x-tar"},
    Entry{"tgz", "application/gzip"},
    Entry{"tif", "image/tiff"},
    Entry{"tiff", "image/tiff"},
    Entry{"ts", "video/mp2t"},
    Entry{"ttf", "font/ttf"},
    Entry{"txt", "text/plain; charset=utf-8"},
    Entry{"wasm", "application/wasm"},
    Entry{"wav", "audio/wav"},
    Entry{"weba", "audio/webm"},
    Entry{"webm", "video/webm"},
    Entry{"webmanifest", "application/manifest+json"},
    Entry{"webp", "image/webp"},
    Entry{"woff", "font/woff"},
    Entry{"woff2", "font/woff2"},
    Entry{"xhtml", "application/xhtml+xml"},
    Entry{"xls", "application/vnd.ms-excel"},
    Entry{"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
    Entry{"xml", "application/xml"},
    Entry{"xz", "application/x-xz"},
    Entry{"yaml", "application/yaml"},
    Entry{"yml", "application/yaml"},
    Entry{"zip", "application/zip"},
    Entry{"zst", "application/zstd"},
};

constexpr bool sorted() {
  for (size_t i = 1; i < kTypes.size(); ++i) {
    if (!(kTypes[i - 1].first < kTypes[i].first)) return false;
  }
  return true;
}
static_assert(sorted(), "kTypes must stay sorted by extension");

constexpr std::string_view kDefault = "application/octet-stream";
// Longer than any extension in the table: such a name cannot match, so no copy is needed.
constexpr size_t kMaxExtension = 16;

}  // namespace

std::string_view mime_type(std::string_view filename) noexcept {
  size_t slash = filename.find_last_of('/');
  if (slash != std::string_view::npos) filename.remove_prefix(slash + 1);
  size_t dot = filename.rfind('.');
  if (dot == std::string_view::npos) return kDefault;
  std::string_view ext = filename.substr(dot + 1);
  if (ext.empty() || ext.size() > kMaxExtension) return kDefault;
  char lowered[kMaxExtension];
  for (size_t i = 0; i < ext.size(); ++i) lowered[i] = ascii_lower(ext[i]);
  std::string_view key(lowered, ext.size());
  auto it = std::lower_bound(kTypes.begin(), kTypes.end(), key,
                             [](const Entry& e, std::string_view k) { return e.first < k; });
  if (it == kTypes.end() || it->first != key) return kDefault;
  return it->second;
}

}  // namespace squall::http
