// CookieJar: Set-Cookie stored, the Cookie field built by RFC 6265's matching rules, and the
// Netscape cookie file read and written line by line.
#include "squall/http/cookie_jar.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <optional>

#include "squall/core/error.h"
#include "squall/http/http_date.h"
#include "squall/net/address.h"
#include "squall/url/ascii.h"

namespace squall::http {

namespace {

using Cookie = CookieJar::Cookie;

int64_t unix_seconds(CookieJar::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

bool expired(const Cookie& c, int64_t now) {
  return c.expires != 0 && c.expires <= now;
}

bool same_cookie(const Cookie& a, const Cookie& b) {
  return a.name == b.name && a.domain == b.domain && a.path == b.path;
}

bool is_ip(std::string_view host) {
  return Address::from_ip(host, 0).has_value();
}

// RFC 6265 section 5.1.3: `host` is `domain` or a name beneath it (never for an IP address).
bool domain_matches(std::string_view host, std::string_view domain) {
  if (iequals(host, domain)) return true;
  return !is_ip(host) && host.size() > domain.size() &&
         host[host.size() - domain.size() - 1] == '.' &&
         iequals(host.substr(host.size() - domain.size()), domain);
}

// RFC 6265 section 5.1.4: the cookie path is the request path, or a prefix of it ending at a
// '/' of either.
bool path_matches(std::string_view request_path, std::string_view cookie_path) {
  if (!request_path.starts_with(cookie_path)) return false;
  return request_path.size() == cookie_path.size() || cookie_path.ends_with('/') ||
         request_path[cookie_path.size()] == '/';
}

// RFC 6265 section 5.1.4's default-path: the request path up to its last '/'.
std::string default_path(std::string_view path) {
  size_t slash = path.rfind('/');
  if (!path.starts_with('/') || slash == 0 || slash == std::string_view::npos) return "/";
  return std::string(path.substr(0, slash));
}

// What the Cookie field can carry back and a file line can hold. Section 5.2 takes any name and
// value without ';' or a control byte (a tab would also split the file's line): looser than the
// cookie-octets of section 4.1.1, which servers are asked to keep to and browsers do not enforce.
bool storable(std::string_view name, std::string_view value) {
  auto plain = [](std::string_view s) {
    return std::none_of(s.begin(), s.end(), [](char ch) {
      auto c = static_cast<unsigned char>(ch);
      return c < 0x20 || c == 0x7f || c == ';';
    });
  };
  return !name.empty() && name.find('=') == std::string_view::npos && plain(name) && plain(value);
}

std::optional<int64_t> integer(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool parse_flag(std::string_view field, bool& out) {
  if (iequals(field, "TRUE")) {
    out = true;
    return true;
  }
  if (iequals(field, "FALSE")) {
    out = false;
    return true;
  }
  return false;
}

}  // namespace

CookieJar CookieJar::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InvalidArgumentError("cannot read the cookie file '" + file.string() + "'");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse(text, file.string());
}

CookieJar CookieJar::parse(std::string_view text, std::string_view name) {
  CookieJar jar;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_no;
    if (line.ends_with('\r')) line.remove_suffix(1);
    Cookie c;
    if (line.starts_with("#HttpOnly_")) {
      c.http_only = true;
      line.remove_prefix(10);
    } else if (line.starts_with('#')) {
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    std::vector<std::string_view> f;
    for (size_t start = 0;;) {
      size_t tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    bool ok = (f.size() == 7 || f.size() == 6) && parse_flag(f[1], c.subdomains) &&
              parse_flag(f[3], c.secure);
    if (ok) {
      std::string_view domain = f[0];
      if (domain.starts_with('.')) domain.remove_prefix(1);
      c.domain = ascii_lower(domain);
      c.path = f[2].empty() ? "/" : std::string(f[2]);
      auto expiry = integer(f[4]);
      c.name = f[5];
      if (f.size() == 7) c.value = f[6];
      ok = !c.domain.empty() && expiry && *expiry >= 0 && storable(c.name, c.value);
      if (ok) c.expires = *expiry;
    }
    if (!ok)
      throw InvalidArgumentError(
          "cookie file '" + std::string(name) + "' line " + std::to_string(line_no) +
          " is not a cookie (want domain, TRUE/FALSE, path, TRUE/FALSE, expiry, name, value "
          "separated by tabs)");
    jar.add(std::move(c));
  }
  return jar;
}

void CookieJar::store(const Url& url, const Headers& response_headers, Clock::time_point now) {
  for (std::string_view value : response_headers.get_all("Set-Cookie")) store(url, value, now);
}

void CookieJar::store(const Url& url, std::string_view set_cookie, Clock::time_point now) {
  size_t semi = set_cookie.find(';');
  std::string_view pair = strip_ascii_whitespace(set_cookie.substr(0, semi));
  size_t eq = pair.find('=');
  if (eq == std::string_view::npos) return;
  Cookie c;
  c.name = std::string(strip_ascii_whitespace(pair.substr(0, eq)));
  c.value = std::string(strip_ascii_whitespace(pair.substr(eq + 1)));
  if (!storable(c.name, c.value)) return;
  std::string_view host = url.hostname_for_connect();
  c.domain = ascii_lower(host);
  c.path = default_path(url.path());
  int64_t unix_now = unix_seconds(now);
  std::optional<int64_t> max_age, expires;
  std::string_view attributes =
      semi == std::string_view::npos ? std::string_view() : set_cookie.substr(semi + 1);
  while (!attributes.empty()) {
    size_t next = attributes.find(';');
    std::string_view attribute = strip_ascii_whitespace(attributes.substr(0, next));
    attributes = next == std::string_view::npos ? std::string_view() : attributes.substr(next + 1);
    size_t equals = attribute.find('=');
    std::string_view key = strip_ascii_whitespace(attribute.substr(0, equals));
    std::string_view value = equals == std::string_view::npos
                                 ? std::string_view()
                                 : strip_ascii_whitespace(attribute.substr(equals + 1));
    if (iequals(key, "domain")) {
      if (value.starts_with('.')) value.remove_prefix(1);
      if (value.empty()) continue;
      if (!domain_matches(host, value)) return;  // a cookie for another site
      c.domain = ascii_lower(value);
      c.subdomains = !is_ip(host);  // an address has no names beneath it
    } else if (iequals(key, "path") && value.starts_with('/')) {
      c.path = std::string(value);
    } else if (iequals(key, "max-age")) {
      // Zero or less: the earliest time there is, which is already past (0 means a session).
      if (auto seconds = integer(value))
        max_age = *seconds <= 0 ? 1 : unix_now + std::min<int64_t>(*seconds, int64_t{1} << 40);
    } else if (iequals(key, "expires")) {
      // Sites write "Wed, 21-Oct-2026 07:28:00 GMT" as often as the IMF-fixdate.
      std::string date(value);
      auto when = parse_http_date(date);
      if (!when) {
        std::replace(date.begin(), date.end(), '-', ' ');
        when = parse_http_date(date);
      }
      if (when) expires = std::max<int64_t>(unix_seconds(*when), 1);
    } else if (iequals(key, "secure")) {
      c.secure = true;
    } else if (iequals(key, "httponly")) {
      c.http_only = true;
    }
  }
  c.expires = max_age ? *max_age : expires.value_or(0);
  if (expired(c, unix_now)) {
    std::erase_if(cookies_, [&](const Cookie& old) { return same_cookie(old, c); });
    return;
  }
  add(std::move(c));
}

void CookieJar::add(Cookie cookie) {
  auto same = std::find_if(cookies_.begin(), cookies_.end(),
                           [&](const Cookie& c) { return same_cookie(c, cookie); });
  if (same != cookies_.end())
    *same = std::move(cookie);
  else
    cookies_.push_back(std::move(cookie));
}

std::string CookieJar::header_for(const Url& url, Clock::time_point now) const {
  std::string_view host = url.hostname_for_connect();
  bool https = url.scheme_kind() == UrlScheme::Https;
  int64_t unix_now = unix_seconds(now);
  std::vector<const Cookie*> matching;
  for (const Cookie& c : cookies_) {
    if (expired(c, unix_now) || (c.secure && !https)) continue;
    if (c.subdomains ? !domain_matches(host, c.domain) : !iequals(host, c.domain)) continue;
    if (!path_matches(url.path(), c.path)) continue;
    matching.push_back(&c);
  }
  // Section 5.4: longer paths first; among equals, the order they were stored in.
  std::stable_sort(matching.begin(), matching.end(), [](const Cookie* a, const Cookie* b) {
    return a->path.size() > b->path.size();
  });
  std::string header;
  for (const Cookie* c : matching) {
    if (!header.empty()) header += "; ";
    header.append(c->name).append("=").append(c->value);
  }
  return header;
}

std::string CookieJar::to_netscape(Clock::time_point now) const {
  std::string out =
      "# Netscape HTTP Cookie File\n"
      "# https://curl.se/docs/http-cookies.html\n"
      "# This file was generated by squall. Edit at your own risk.\n\n";
  int64_t unix_now = unix_seconds(now);
  for (const Cookie& c : cookies_) {
    if (expired(c, unix_now)) continue;
    if (c.http_only) out += "#HttpOnly_";
    if (c.subdomains) out += '.';
    out.append(c.domain).append(c.subdomains ? "\tTRUE\t" : "\tFALSE\t");
    out.append(c.path).append(c.secure ? "\tTRUE\t" : "\tFALSE\t");
    out.append(std::to_string(c.expires)).append("\t");
    out.append(c.name).append("\t").append(c.value).append("\n");
  }
  return out;
}

}  // namespace squall::http
