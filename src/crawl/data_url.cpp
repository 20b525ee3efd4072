// data: URLs, decoded as the Fetch Standard's data: URL processor does.
#include <optional>
#include <string>
#include <utility>

#include "squall/crawl/data_url.h"

#include "squall/crawl/sniff.h"
#include "squall/url/ascii.h"
#include "squall/url/base64.h"

namespace squall {

std::optional<DataUrl> data_url(const Url& url) {
  if (url.scheme_kind() != UrlScheme::Data) return std::nullopt;
  // Everything after "data:" up to the fragment.
  std::string_view input = url.dedup_key().substr(url.scheme().size() + 1);
  size_t comma = input.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view mime = strip_ascii_whitespace(input.substr(0, comma));
  DataUrl result;
  result.body = percent_decode(input.substr(comma + 1));
  // ";base64", with optional spaces before "base64", marks a base64 body.
  if (mime.size() >= 6 && iequals(mime.substr(mime.size() - 6), "base64")) {
    std::string_view rest = mime.substr(0, mime.size() - 6);
    while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
    if (!rest.empty() && rest.back() == ';') {
      auto decoded = forgiving_base64_decode(result.body);
      if (!decoded) return std::nullopt;
      result.body = std::move(*decoded);
      mime = rest.substr(0, rest.size() - 1);
    }
  }
  std::string type(mime.starts_with(';') ? "text/plain" : "");
  type += mime;
  if (auto parsed = parse_mime_type(type)) {
    result.mime_type = parsed->serialize();
    result.essence = parsed->essence();
    result.charset = parsed->parameter("charset").value_or("");
  } else {
    result.mime_type = "text/plain;charset=US-ASCII";
    result.essence = "text/plain";
    result.charset = "US-ASCII";
  }
  return result;
}

}  // namespace squall
