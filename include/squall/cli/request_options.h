// Request flags that `squall fetch` and `squall crawl` share, read one way for both: -H
// ("Name: value"), -b (a cookie string, or a cookie file as curl takes it) and -x with the
// environment's proxy variables.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "squall/http/cookie_jar.h"
#include "squall/http/message.h"
#include "squall/http/proxy.h"

namespace squall::cli {

// Adds the field of a -H argument ("Name: value", whitespace after the colon skipped) to
// `headers`. Returns the usage error ("bad header '...' (give -H 'Name: value')") when there is
// no colon or no name, else empty.
std::string add_header_flag(std::string_view line, http::Headers& headers);

// A -b argument as curl reads it: with a '=' it is cookies to send ("a=1; b=2"), appended to
// `cookie_header` ("; " between); without one it names a cookie file, loaded into `jar`
// (CookieJar::load; its errors name the file).
void add_cookie_flag(std::string_view arg, std::string& cookie_header, http::CookieJar& jar);

// The proxies of a command as curl picks them: the environment's (ProxySettings::
// from_environment), then `proxy` (-x) for every URL and `noproxy` (--noproxy) in place of
// no_proxy, when given. Throws InvalidArgumentError naming a bad proxy.
http::ProxySettings proxy_settings(const std::optional<std::string>& proxy,
                                   const std::optional<std::string>& noproxy = std::nullopt);

}  // namespace squall::cli
