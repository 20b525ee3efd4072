// The request flags fetch and crawl share: -H fields, -b cookies, -x proxies and TLS trust.
#include "squall/cli/request_options.h"

#include <filesystem>
#include <fstream>

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

bool add_cookie_flag(std::string_view arg, std::string& cookie_header, http::CookieJar& jar,
                     bool missing_ok) {
  if (arg.find('=') == std::string_view::npos) {
    std::filesystem::path path(arg);
    std::error_code ec;
    if (missing_ok && !std::filesystem::exists(path, ec) && !ec) return true;
    http::CookieJar file = http::CookieJar::load(path);
    for (const auto& c : file.cookies()) jar.add(c);
    return true;
  }
  if (!cookie_header.empty()) cookie_header += "; ";
  cookie_header += arg;
  return false;
}

http::ProxySettings proxy_settings(const std::optional<std::string>& proxy,
                                   const std::optional<std::string>& noproxy) {
  http::ProxySettings proxies = http::ProxySettings::from_environment();
  if (proxy) proxies.use_for_all(http::normalize_proxy(*proxy));
  if (noproxy) proxies.no_proxy = *noproxy;
  return proxies;
}

TlsTrust tls_trust(bool insecure, const std::string& cacert) {
  TlsTrust trust;
  trust.verify = !insecure;
  if (!cacert.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(cacert, ec) || !std::ifstream(cacert))
      throw InvalidArgumentError("cannot read the --cacert file '" + cacert + "'");
    trust.ca_file = cacert;
  }
  return trust;
}

}  // namespace squall::cli
