// CookieJar: the Netscape cookie file format read line by line, and RFC 6265's matching rules.
#include "squall/http/cookie_jar.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "squall/core/error.h"
#include "squall/http/cookies.h"
#include "squall/url/ascii.h"

namespace squall::http {

namespace {

bool domain_matches(const CookieJar::Cookie& c, std::string_view host) {
  if (iequals(host, c.domain)) return true;
  return c.subdomains && host.size() > c.domain.size() &&
         host[host.size() - c.domain.size() - 1] == '.' &&
         iequals(host.substr(host.size() - c.domain.size()), c.domain);
}

// RFC 6265 section 5.1.4: the cookie path is the request path, or a prefix of it ending at a
// '/' of either.
bool path_matches(std::string_view cookie_path, std::string_view path) {
  if (!path.starts_with(cookie_path)) return false;
  return path.size() == cookie_path.size() || cookie_path.ends_with('/') ||
         path[cookie_path.size()] == '/';
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
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.starts_with("#HttpOnly_"))
      line.remove_prefix(10);
    else if (line.starts_with('#'))
      continue;
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    std::vector<std::string_view> f;
    for (size_t start = 0;;) {
      size_t tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    Cookie c;
    bool ok = (f.size() == 7 || f.size() == 6) && parse_flag(f[1], c.subdomains) &&
              parse_flag(f[3], c.secure);
    if (ok) {
      c.domain = ascii_lower(f[0]);
      if (c.domain.starts_with('.')) c.domain.erase(0, 1);
      c.path = f[2].empty() ? "/" : std::string(f[2]);
      std::string expiry(f[4]);
      ok = !c.domain.empty() && !expiry.empty() &&
           expiry.find_first_not_of("0123456789") == std::string::npos && expiry.size() < 19;
      if (ok) c.expires = std::stoll(expiry);
      c.name = f[5];
      // A line of six fields has an empty value, as curl writes a cookie set to "".
      if (f.size() == 7) c.value = f[6];
      ok = ok && is_cookie_name(c.name) && is_cookie_value(c.value);
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

std::string CookieJar::header_for(const Url& url, std::chrono::system_clock::time_point now) const {
  int64_t unix_now =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  std::vector<const Cookie*> matching;
  for (const Cookie& c : cookies_) {
    if (c.expires != 0 && c.expires <= unix_now) continue;
    if (c.secure && url.scheme() != "https") continue;
    if (!domain_matches(c, url.host()) || !path_matches(c.path, url.path())) continue;
    matching.push_back(&c);
  }
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

}  // namespace squall::http
