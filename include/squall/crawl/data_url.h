// data: URLs decoded as the Fetch Standard's data: URL processor does.
#pragma once

#include <optional>
#include <string>

#include "squall/url/url.h"

namespace squall {

// The result of the data: URL processor.
struct DataUrl {
  std::string mime_type;  // serialized MIME type, e.g. "text/plain;charset=US-ASCII"
  std::string essence;    // type/subtype in lower case, e.g. "text/html"
  std::string charset;    // the charset parameter as written, or empty when there is none
  std::string body;       // the decoded bytes (percent-decoded, then base64-decoded if ";base64")
};

// Decodes a data: URL: its MIME type (defaulting to "text/plain;charset=US-ASCII" when absent or
// invalid) and body. nullopt when the scheme is not data, when there is no ',' or when ";base64"
// is given and the body is not valid base64.
std::optional<DataUrl> data_url(const Url& url);

}  // namespace squall
