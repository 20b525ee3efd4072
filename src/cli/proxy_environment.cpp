// Which proxy a command uses for a URL: its flag, or http_proxy, https_proxy, all_proxy and
// no_proxy from the environment.
#include "squall/cli/proxy_environment.h"

#include <cstdlib>

#include "squall/url/ascii.h"

namespace squall::cli {

namespace {

constexpr const char* kVariables[] = {"http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy",
                                      "ALL_PROXY",  "no_proxy",    "NO_PROXY"};

std::optional<std::string_view> lookup(const Environment& env, std::string_view name) {
  for (const auto& [key, value] : env)
    if (key == name && !value.empty()) return value;
  return std::nullopt;
}

std::string with_scheme(std::string_view proxy) {
  if (proxy.find("://") != std::string_view::npos) return std::string(proxy);
  return "http://" + std::string(proxy);
}

}  // namespace

Environment proxy_environment() {
  Environment env;
  for (const char* name : kVariables)
    if (const char* value = std::getenv(name)) env.emplace_back(name, value);
  return env;
}

bool no_proxy_matches(std::string_view list, std::string_view host) {
  if (host.size() > 1 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view entry = strip_ascii_whitespace(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (entry == "*") return true;
    if (entry.starts_with('.')) entry.remove_prefix(1);
    if (entry.size() > 1 && entry.front() == '[' && entry.back() == ']')
      entry = entry.substr(1, entry.size() - 2);
    if (entry.empty()) continue;
    if (iequals(host, entry)) return true;
    if (host.size() > entry.size() && host[host.size() - entry.size() - 1] == '.' &&
        iequals(host.substr(host.size() - entry.size()), entry))
      return true;
  }
  return false;
}

std::string proxy_for(const Url& url, std::string_view flag,
                      const std::optional<std::string>& noproxy, const Environment& env) {
  std::optional<std::string_view> skip =
      noproxy ? std::optional<std::string_view>(*noproxy) : lookup(env, "no_proxy");
  if (!noproxy && !skip) skip = lookup(env, "NO_PROXY");
  if (skip && no_proxy_matches(*skip, url.hostname_for_connect())) return {};
  if (!flag.empty()) return with_scheme(flag);
  bool https = url.scheme_kind() == UrlScheme::Https;
  std::optional<std::string_view> proxy =
      https ? lookup(env, "https_proxy") : lookup(env, "http_proxy");
  if (!proxy && https) proxy = lookup(env, "HTTPS_PROXY");
  if (!proxy) proxy = lookup(env, "all_proxy");
  if (!proxy) proxy = lookup(env, "ALL_PROXY");
  return proxy ? with_scheme(*proxy) : std::string();
}

}  // namespace squall::cli
