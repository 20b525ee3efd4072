// Which proxy a command uses for a URL: its flag, or the variables curl and wget read.
//
//   proxy_for(url, "", std::nullopt, {{"http_proxy", "proxy.lan:3128"}}) == "http://proxy.lan:3128"
//
// As curl does: an http URL takes http_proxy (lower case only: HTTP_PROXY can be set by a CGI
// request's "Proxy:" header), an https URL https_proxy or HTTPS_PROXY, either falls back to
// all_proxy or ALL_PROXY. A proxy given on the command line wins over them. The no-proxy list
// (the --noproxy flag, else no_proxy or NO_PROXY) is comma-separated: "*" matches every host,
// a name matches itself and the names beneath it (a leading dot is ignored), an IP address
// matches itself. A proxy without a scheme is an http:// one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "squall/url/url.h"

namespace squall::cli {

// Name and value of each environment variable a command may read.
using Environment = std::vector<std::pair<std::string, std::string>>;

// The proxy variables (and their no-proxy lists) of this process's environment.
Environment proxy_environment();

// The proxy for `url` ("http://host:port", "" for none). `flag` is the command line's proxy
// ("" when not given), `noproxy` its no-proxy list.
std::string proxy_for(const Url& url, std::string_view flag,
                      const std::optional<std::string>& noproxy, const Environment& env);

// Whether the no-proxy `list` names `host` (see above).
bool no_proxy_matches(std::string_view list, std::string_view host);

}  // namespace squall::cli
