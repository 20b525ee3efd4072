// CookieJar: the cookies a client keeps from responses and sends back (RFC 6265 §5.3's storage
// model), and curl's Netscape cookie file.
//
//   CookieJar jar;
//   jar.load_netscape(read_file("cookies.txt"));
//   request.cookie_jar = &jar;           // HttpClient stores and sends cookies on every hop
//   ... co_await client.fetch(request) ...
//   write_file("cookies.txt", jar.to_netscape());
//
// Storage, simplified where a command-line client can be: a Set-Cookie whose Domain does not
// domain-match the host, or names an IP address other than the host, is ignored (there is no
// public suffix check); without Domain a cookie is host-only; without Path it takes the
// directory of the request's path; Max-Age wins over Expires; a cookie that is already expired
// removes the one it replaces (same name, domain and path). Secure cookies go only to https;
// HttpOnly is kept for the file. Session cookies (no expiry) are kept until the jar ends.
// Threads: a jar belongs to the loop of the client that uses it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/http/message.h"
#include "squall/url/url.h"

namespace squall::http {

struct StoredCookie {
  std::string name;
  std::string value;
  std::string domain;  // lower case, no leading dot
  std::string path;
  bool host_only = true;  // only `domain` itself, not the hosts beneath it
  bool secure = false;
  bool http_only = false;
  std::optional<std::chrono::system_clock::time_point> expires;  // nullopt: a session cookie
};

class CookieJar {
 public:
  // Stores every Set-Cookie field of a response to `url`.
  void store(const Url& url, const Headers& response_headers);
  // Stores one Set-Cookie value received from `url`.
  void store(const Url& url, std::string_view set_cookie);
  // The Cookie field value for a request to `url` ("a=1; b=2", longer paths first), or "".
  std::string header_for(const Url& url) const;

  // Adds the cookies of a Netscape cookie file (curl's and wget's format: one cookie a line,
  // seven tab-separated fields, '#' comments, "#HttpOnly_" before a domain marking HttpOnly).
  // Malformed and expired lines are skipped.
  void load_netscape(std::string_view text);
  // Every unexpired cookie in that format, under the header curl writes.
  std::string to_netscape() const;

  const std::vector<StoredCookie>& cookies() const noexcept { return cookies_; }

 private:
  void put(StoredCookie cookie);
  std::vector<StoredCookie> cookies_;
};

}  // namespace squall::http
