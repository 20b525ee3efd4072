// CookieJar: the cookies a client keeps and sends back: those a server sets (Set-Cookie, RFC
// 6265 section 5.3's storage model) and those of a Netscape cookie file (what `curl -b FILE` and
// `wget --load-cookies FILE` read and `curl -c FILE` writes, and browsers' cookies.txt exports).
//
//   CookieJar jar = CookieJar::load("cookies.txt");
//   request.cookie_jar = &jar;  // HttpClient stores and sends cookies on every hop
//   ... co_await client.fetch(request) ...
//   write_file("cookies.txt", jar.to_netscape());
//   std::string cookie = jar.header_for(url);  // or the Cookie value for a request of one's own
//
// Sending: a cookie goes to a URL whose host is its domain (or beneath it, for a domain cookie;
// never beneath an IP address), whose path is within the cookie's path (section 5.1.4), over
// https when it is secure, and until it expires; longer paths first (section 5.4).
//
// Storing, simplified where a command-line client can be: a Set-Cookie whose Domain does not
// domain-match the host, or names an IP address other than the host, is ignored (there is no
// public suffix check); without Domain a cookie is host-only; without Path it takes the
// directory of the request's path; Max-Age wins over Expires. A cookie replaces the one with
// its name, domain and path; one that is already expired removes it. A name or value the
// Cookie field and the file cannot carry (an empty name, a control byte, ';') is not stored.
//
// The file: one cookie a line, seven fields separated by tabs: domain, whether subdomains
// match (TRUE/FALSE), path, secure (TRUE/FALSE), expiry (Unix seconds, 0 for a session cookie),
// name, value (a line of six fields has an empty value, as curl writes a cookie set to "").
// Lines starting with '#' are comments, except that a "#HttpOnly_" prefix marks an HttpOnly
// cookie (curl writes it); blank lines are skipped.
//
// Threads: a plain value, read from any thread; the jar of a request belongs to the loop of the
// client that stores into it.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "squall/http/message.h"
#include "squall/url/url.h"

namespace squall::http {

class CookieJar {
 public:
  using Clock = std::chrono::system_clock;

  struct Cookie {
    std::string name, value;
    std::string domain;  // lower case, without a leading dot
    std::string path = "/";
    bool subdomains = false;  // a domain cookie: the names beneath `domain` get it too
    bool secure = false;      // only over https
    bool http_only = false;   // kept for the file, where curl marks it
    int64_t expires = 0;      // Unix seconds; 0: a session cookie, kept as long as the jar
  };

  // Reads a cookie file. Throws InvalidArgumentError naming the file (and the line) when it
  // cannot be read or a line is not a cookie.
  static CookieJar load(const std::filesystem::path& file);
  // Parses the text of a cookie file; `name` is the file's name for messages.
  static CookieJar parse(std::string_view text, std::string_view name);

  // Stores every Set-Cookie field of a response to `url`.
  void store(const Url& url, const Headers& response_headers, Clock::time_point now = Clock::now());
  // Stores one Set-Cookie value received from `url`.
  void store(const Url& url, std::string_view set_cookie, Clock::time_point now = Clock::now());
  // Puts `cookie` in the jar, in place of the one with its name, domain and path.
  void add(Cookie cookie);

  // The Cookie field value for `url` at `now` ("a=1; b=2", cookies with longer paths first, in
  // the order they were stored among equals), or empty when no cookie matches.
  std::string header_for(const Url& url, Clock::time_point now = Clock::now()) const;
  // Every cookie unexpired at `now` as a Netscape cookie file, under the header curl writes.
  std::string to_netscape(Clock::time_point now = Clock::now()) const;

  bool empty() const noexcept { return cookies_.empty(); }
  // In the order they were stored; expired ones may remain until replaced (none is sent).
  const std::vector<Cookie>& cookies() const noexcept { return cookies_; }

 private:
  std::vector<Cookie> cookies_;
};

}  // namespace squall::http
