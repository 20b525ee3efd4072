// Where a redirect leads: the Location field resolved against the current URL as a browser
// resolves it (the WHATWG URL Standard), and held to http and https.
//
// HttpClient takes every hop of a redirect chain through resolve_redirect, so a hostile
// Location gets the same parser `squall url` uses, and a clear refusal instead of a hop.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "squall/url/url.h"

namespace squall::http {

struct Redirect {
  std::optional<Url> url;  // the next hop, an http(s) URL with a host; nullopt when refused
  std::string refusal;     // why there is no next hop, for the fetch's error message
};

// Resolves `location` against `current`. Refused: a Location that does not parse, or one that
// names another scheme than http or https ("javascript:", "ftp:", "data:").
Redirect resolve_redirect(const Url& current, std::string_view location);

// Whether a redirect with `code` turns the request into a GET without a body, as browsers and
// Tornado do: 303 for every method but HEAD, 301 and 302 for POST. 307 and 308 never do.
bool redirect_turns_to_get(int code, std::string_view method) noexcept;

// 301, 302, 303, 307 and 308.
constexpr bool is_redirect(int code) noexcept {
  return code == 301 || code == 302 || code == 303 || code == 307 || code == 308;
}

}  // namespace squall::http
