// The request flags fetch and crawl share: -H fields, -b cookies and -x proxies.
#include "squall/cli/request_options.h"

#include "squall/core/error.h"

namespace squall::cli {

std::string add_header_flag(std::string_view line, http::Headers& headers) {
  size_t colon = line.find(':');
  std::string_view name = line.substr(0, colon);
  if (colon == std::string_view::npos || name.empty())
    return "bad header '" + std::string(line) + "' (give -H 'Name: value')";
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  headers.add(name, value);
  return {};
}

void add_cookie_flag(std::string_view arg, std::string& cookie_header, http::CookieJar& jar) {
  if (arg.find('=') == std::string_view::npos) {
    http::CookieJar file = http::CookieJar::load(std::string(arg));
    for (const auto& c : file.cookies()) jar.add(c);
    return;
  }
  if (!cookie_header.empty()) cookie_header += "; ";
  cookie_header += arg;
}

http::ProxySettings proxy_settings(const std::optional<std::string>& proxy,
                                   const std::optional<std::string>& noproxy) {
  http::ProxySettings proxies = http::ProxySettings::from_environment();
  if (proxy) proxies.use_for_all(http::normalize_proxy(*proxy));
  if (noproxy) proxies.no_proxy = *noproxy;
  return proxies;
}

}  // namespace squall::cli
