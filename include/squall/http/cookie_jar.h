// CookieJar: cookies from a Netscape cookie file (what `curl -b FILE` and `wget
// --load-cookies FILE` read, and browsers' cookies.txt exports), sent to the URLs they match.
//
//   CookieJar jar = CookieJar::load("cookies.txt");
//   std::string cookie = jar.header_for(url, std::chrono::system_clock::now());
//   if (!cookie.empty()) request.headers.add("Cookie", cookie);
//
// The file: one cookie a line, seven fields separated by tabs: domain, whether subdomains
// match (TRUE/FALSE), path, secure (TRUE/FALSE), expiry (Unix seconds, 0 for a session cookie),
// name, value. Lines starting with '#' are comments, except that a "#HttpOnly_" prefix marks
// the domain of an HttpOnly cookie (curl writes it); blank lines are skipped. A cookie goes to a
// URL whose host is its domain (or beneath it, when subdomains match), whose path is within the
// cookie's path (RFC 6265 section 5.1.4), over https when it is secure, and until it expires.
// The jar only reads: Set-Cookie answers are not taken in. A plain value, safe to read from any
// thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "squall/url/url.h"

namespace squall::http {

class CookieJar {
 public:
  struct Cookie {
    std::string domain;  // lower case, without a leading dot
    bool subdomains = false;
    std::string path = "/";
    bool secure = false;
    int64_t expires = 0;  // Unix seconds; 0: a session cookie, never expired here
    std::string name, value;
  };

  // Reads a cookie file. Throws InvalidArgumentError naming the file (and the line) when it
  // cannot be read or a line is not a cookie.
  static CookieJar load(const std::filesystem::path& file);
  // Parses the text of a cookie file; `name` is the file's name for messages.
  static CookieJar parse(std::string_view text, std::string_view name);

  void add(Cookie cookie) { cookies_.push_back(std::move(cookie)); }
  // The Cookie field value for `url` at `now` ("a=1; b=2", cookies with longer paths first, as
  // RFC 6265 section 5.4 orders them), or empty when no cookie matches.
  std::string header_for(const Url& url, std::chrono::system_clock::time_point now) const;

  bool empty() const noexcept { return cookies_.empty(); }
  const std::vector<Cookie>& cookies() const noexcept { return cookies_; }

 private:
  std::vector<Cookie> cookies_;
};

}  // namespace squall::http
