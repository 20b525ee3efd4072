// CookieJar: Set-Cookie stored, Cookie built, and the Netscape cookie file read and written.
#include "squall/http/cookie_jar.h"

#include <algorithm>
#include <charconv>

#include "squall/http/http_date.h"
#include "squall/net/address.h"
#include "squall/url/ascii.h"

namespace squall::http {

namespace {

using Clock = std::chrono::system_clock;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

bool is_ip(std::string_view host) {
  return Address::from_ip(host, 0).has_value();
}

// RFC 6265 §5.1.3: `host` is `domain` or a name beneath it (never for an IP address).
bool domain_matches(std::string_view host, std::string_view domain) {
  if (iequals(host, domain)) return true;
  return !is_ip(host) && host.size() > domain.size() &&
         host[host.size() - domain.size() - 1] == '.' &&
         iequals(host.substr(host.size() - domain.size()), domain);
}

// RFC 6265 §5.1.4.
bool path_matches(std::string_view request_path, std::string_view cookie_path) {
  if (request_path == cookie_path) return true;
  return request_path.starts_with(cookie_path) &&
         (cookie_path.ends_with('/') || request_path[cookie_path.size()] == '/');
}

// RFC 6265 §5.1.4's default-path: the request path up to its last '/'.
std::string default_path(std::string_view path) {
  size_t slash = path.rfind('/');
  if (!path.starts_with('/') || slash == 0 || slash == std::string_view::npos) return "/";
  return std::string(path.substr(0, slash));
}

bool expired(const StoredCookie& c, Clock::time_point now) {
  return c.expires && *c.expires <= now;
}

std::optional<int64_t> integer(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

void CookieJar::store(const Url& url, const Headers& response_headers) {
  for (std::string_view value : response_headers.get_all("Set-Cookie")) store(url, value);
}

void CookieJar::store(const Url& url, std::string_view set_cookie) {
  size_t semi = set_cookie.find(';');
  std::string_view pair = strip_ascii_whitespace(set_cookie.substr(0, semi));
  size_t eq = pair.find('=');
  if (eq == std::string_view::npos) return;
  StoredCookie c;
  c.name = std::string(strip_ascii_whitespace(pair.substr(0, eq)));
  c.value = std::string(strip_ascii_whitespace(pair.substr(eq + 1)));
  if (c.name.empty()) return;
  std::string_view host = url.hostname_for_connect();
  c.domain = lower(host);
  c.path = default_path(url.path());
  std::optional<Clock::time_point> max_age, expires;
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
    if (iequals(key, "domain") && !value.empty()) {
      if (value.starts_with('.')) value.remove_prefix(1);
      if (!domain_matches(host, value)) return;  // a cookie for another site
      c.domain = lower(value);
      c.host_only = is_ip(host);  // an address has no names beneath it
    } else if (iequals(key, "path") && value.starts_with('/')) {
      c.path = std::string(value);
    } else if (iequals(key, "max-age")) {
      if (auto seconds = integer(value))
        max_age = Clock::now() + std::chrono::seconds(std::max<int64_t>(*seconds, -1));
    } else if (iequals(key, "expires")) {
      // Sites write "Wed, 21-Oct-2026 07:28:00 GMT" as often as the IMF-fixdate.
      std::string date(value);
      expires = parse_http_date(date);
      if (!expires) {
        std::replace(date.begin(), date.end(), '-', ' ');
        expires = parse_http_date(date);
      }
    } else if (iequals(key, "secure")) {
      c.secure = true;
    } else if (iequals(key, "httponly")) {
      c.http_only = true;
    }
  }
  c.expires = max_age ? max_age : expires;
  put(std::move(c));
}

void CookieJar::put(StoredCookie cookie) {
  auto same = std::find_if(cookies_.begin(), cookies_.end(), [&](const StoredCookie& c) {
    return c.name == cookie.name && c.domain == cookie.domain && c.path == cookie.path;
  });
  bool gone = expired(cookie, Clock::now());
  if (same != cookies_.end()) {
    if (gone) {
      cookies_.erase(same);
    } else {
      *same = std::move(cookie);
    }
  } else if (!gone) {
    cookies_.push_back(std::move(cookie));
  }
}

std::string CookieJar::header_for(const Url& url) const {
  std::string_view host = url.hostname_for_connect();
  std::string_view path = url.path();
  bool https = url.scheme_kind() == UrlScheme::Https;
  auto now = Clock::now();
  std::vector<const StoredCookie*> matching;
  for (const auto& c : cookies_) {
    if (expired(c, now) || (c.secure && !https)) continue;
    if (c.host_only ? !iequals(host, c.domain) : !domain_matches(host, c.domain)) continue;
    if (!path_matches(path, c.path)) continue;
    matching.push_back(&c);
  }
  // RFC 6265 §5.4: longer paths first; among equals, the order they were stored in.
  std::stable_sort(matching.begin(), matching.end(),
                   [](const auto* a, const auto* b) { return a->path.size() > b->path.size(); });
  std::string header;
  for (const auto* c : matching) {
    if (!header.empty()) header += "; ";
    header += c->name;
    header += '=';
    header += c->value;
  }
  return header;
}

void CookieJar::load_netscape(std::string_view text) {
  auto now = Clock::now();
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    StoredCookie c;
    if (line.starts_with("#HttpOnly_")) {
      c.http_only = true;
      line.remove_prefix(10);
    }
    if (line.empty() || line.starts_with('#')) continue;
    std::vector<std::string_view> fields;
    while (fields.size() < 6) {
      size_t tab = line.find('\t');
      if (tab == std::string_view::npos) break;
      fields.push_back(line.substr(0, tab));
      line.remove_prefix(tab + 1);
    }
    if (fields.size() != 6) continue;
    fields.push_back(line);  // the value, which may be empty
    std::string_view domain = fields[0];
    c.host_only = fields[1] != "TRUE";
    if (domain.starts_with('.')) {
      domain.remove_prefix(1);
      c.host_only = false;
    }
    auto expiry = integer(fields[4]);
    if (domain.empty() || !expiry) continue;
    c.domain = lower(domain);
    c.path = std::string(fields[2]);
    c.secure = fields[3] == "TRUE";
    if (*expiry != 0) c.expires = Clock::time_point(std::chrono::seconds(*expiry));
    c.name = std::string(fields[5]);
    c.value = std::string(fields[6]);
    if (!expired(c, now) && !c.name.empty()) put(std::move(c));
  }
}

std::string CookieJar::to_netscape() const {
  std::string out =
      "# Netscape HTTP Cookie File\n"
      "# https://curl.se/docs/http-cookies.html\n"
      "# This file was generated by squall. Edit at your own risk.\n\n";
  auto now = Clock::now();
  for (const auto& c : cookies_) {
    if (expired(c, now)) continue;
    if (c.http_only) out += "#HttpOnly_";
    if (!c.host_only) out += '.';
    out += c.domain;
    out += c.host_only ? "\tFALSE\t" : "\tTRUE\t";
    out += c.path;
    out += c.secure ? "\tTRUE\t" : "\tFALSE\t";
    out += std::to_string(
        c.expires ? std::chrono::duration_cast<std::chrono::seconds>(c.expires->time_since_epoch())
                        .count()
                  : 0);
    out += '\t';
    out += c.name;
    out += '\t';
    out += c.value;
    out += '\n';
  }
  return out;
}

}  // namespace squall::http
