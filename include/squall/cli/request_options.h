// Request flags that `squall fetch` and `squall crawl` share, read one way for both: -H
// ("Name: value"), -b (a cookie string, or a cookie file as curl takes it), -x with the
// environment's proxy variables, and -k and --cacert.
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
// `cookie_header` ("; " between); without one it names a cookie file, whose cookies are added
// to `jar` (CookieJar::load, which throws InvalidArgumentError naming the file and line). A
// file that does not exist adds nothing when `missing_ok` (curl's way, so that fetch's "-b jar
// -c jar" works from the first run) and is that error otherwise. Returns whether `arg` named a
// file.
bool add_cookie_flag(std::string_view arg, std::string& cookie_header, http::CookieJar& jar,
                     bool missing_ok = false);

// The proxies of a command as curl picks them: the environment's (ProxySettings::
// from_environment), then `proxy` (-x) for every URL and `noproxy` (--noproxy) in place of
// no_proxy, when given. Throws InvalidArgumentError naming a bad proxy.
http::ProxySettings proxy_settings(const std::optional<std::string>& proxy,
                                   const std::optional<std::string>& noproxy = std::nullopt);

// How a command checks the servers' certificates.
struct TlsTrust {
  bool verify = true;   // false with -k
  std::string ca_file;  // --cacert: a PEM bundle trusted instead of the system's; "" for those
};

// -k (`insecure`) and --cacert (`cacert`, "" when not given). Throws InvalidArgumentError
// ("cannot read the --cacert file '...'") when `cacert` is not a file that can be read.
TlsTrust tls_trust(bool insecure, const std::string& cacert);

}  // namespace squall::cli
