// ProxySettings: the environment's proxy variables read as curl reads them, and no_proxy matching.
#include "squall/http/proxy.h"

#include <cstdlib>

#include "squall/core/error.h"
#include "squall/url/ascii.h"

namespace squall::http {

namespace {

// The first of the variables that is set and not empty.
std::string env(std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const char* v = std::getenv(name); v && *v) return v;
  return {};
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string normalize_proxy(std::string_view proxy) {
  std::string text(trim(proxy));
  if (text.find("://") == std::string::npos) text = "http://" + text;
  UrlResult url = Url::parse(text);
  if (!url || url->scheme() != "http" || !url->has_host() || url->host().empty())
    throw InvalidArgumentError("bad proxy '" + std::string(proxy) +
                               "': give http://[user:password@]host:port (only http:// proxies "
                               "are supported)");
  return text;
}

ProxySettings ProxySettings::from_environment() {
  ProxySettings p;
  std::string all = env({"all_proxy", "ALL_PROXY"});
  std::string http = env({"http_proxy"});
  std::string https = env({"https_proxy", "HTTPS_PROXY"});
  if (http.empty()) http = all;
  if (https.empty()) https = all;
  if (!http.empty()) p.http = normalize_proxy(http);
  if (!https.empty()) p.https = normalize_proxy(https);
  p.no_proxy = env({"no_proxy", "NO_PROXY"});
  return p;
}

void ProxySettings::use_for_all(const std::string& proxy) {
  http = proxy;
  https = proxy;
}

std::string_view ProxySettings::for_url(const Url& url) const {
  const UrlScheme scheme = url.scheme_kind();
  const std::string& proxy = scheme == UrlScheme::Https || scheme == UrlScheme::Wss ? https : http;
  if (proxy.empty() || bypasses(url.host())) return {};
  return proxy;
}

bool ProxySettings::bypasses(std::string_view host) const {
  // IPv6 entries are written with or without brackets.
  std::string_view bare = host;
  if (bare.size() > 2 && bare.front() == '[') bare = bare.substr(1, bare.size() - 2);
  std::string_view rest = no_proxy;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view entry = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (entry == "*") return true;
    if (entry.size() > 2 && entry.front() == '[' && entry.back() == ']')
      entry = entry.substr(1, entry.size() - 2);
    if (!entry.empty() && entry.front() == '.') entry.remove_prefix(1);
    if (entry.empty()) continue;
    if (iequals(bare, entry)) return true;
    // A domain covers the names beneath it: "example.com" covers "www.example.com".
    if (bare.size() > entry.size() && bare[bare.size() - entry.size() - 1] == '.' &&
        iequals(bare.substr(bare.size() - entry.size()), entry))
      return true;
  }
  return false;
}

}  // namespace squall::http
