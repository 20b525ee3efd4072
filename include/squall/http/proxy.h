// ProxySettings: which forwarding proxy a request goes through, chosen per URL as curl and wget
// choose it from their flags and the environment.
//
//   ProxySettings proxies = ProxySettings::from_environment();  // http_proxy, https_proxy, ...
//   if (flag_given) proxies.use_for_all(normalize_proxy(flag));  // -x/--proxy wins
//   request.proxy = std::string(proxies.for_url(url));             // "" goes direct
//
// The environment, as curl reads it: `http_proxy` (lower case only: a CGI program gets the
// client's "Proxy:" header as HTTP_PROXY, so curl ignores that name), `https_proxy` or
// `HTTPS_PROXY`, `all_proxy` or `ALL_PROXY` for a scheme without its own, and `no_proxy` or
// `NO_PROXY`; the lower-case name wins when both are set. `no_proxy` is a comma-separated list of
// host names, domains (matching the domain and every name beneath it, with or without a leading
// dot) and IP addresses, or `*` for every host; it applies to a proxy given by flag too, as in
// curl. A proxy without a scheme ("127.0.0.1:3128") is an http:// proxy. Plain values; no I/O
// beyond reading the environment in from_environment().
#pragma once

#include <string>
#include <string_view>

#include "squall/url/url.h"

namespace squall::http {

struct ProxySettings {
  std::string http;   // for http:// URLs; empty: direct
  std::string https;  // for https:// URLs (tunnelled with CONNECT); empty: direct
  std::string no_proxy;

  // The settings the environment gives (see above), each proxy normalized.
  static ProxySettings from_environment();
  // One proxy for both schemes (curl's -x); no_proxy is kept.
  void use_for_all(const std::string& proxy);
  // The proxy for `url`, or empty to go direct (no proxy for its scheme, or its host is listed
  // in no_proxy). ws:// URLs take the http proxy and wss:// ones the https proxy, as curl's do.
  std::string_view for_url(const Url& url) const;
  // Whether no_proxy lists `host` (a URL's serialized host: "example.com", "10.0.0.1", "[::1]").
  bool bypasses(std::string_view host) const;
};

// `proxy` as the client takes it: "http://" put in front when no scheme is given. Throws
// InvalidArgumentError naming it when it is not an http:// URL with a host.
std::string normalize_proxy(std::string_view proxy);

}  // namespace squall::http
