// Cookies: the Cookie request header parsed, and Set-Cookie values built safely (RFC 6265).
//
//   auto cookies = parse_cookies(request_headers.get_joined("Cookie"));   // name → value
//   std::string line = format_set_cookie("sid", token, {.max_age = 3600s, .http_only = true});
//
// Parsing is lenient, as browsers and servers are with what clients send: pairs split on ';',
// whitespace trimmed, a value in double quotes unquoted, pieces without '=' or with an empty
// name skipped. Building is strict, because a Set-Cookie value is written into a response head:
// every name, value and attribute is checked so that no CR, LF or ';' from user data can inject
// a header or an attribute, and a bad one throws InvalidArgumentError naming it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace squall::http {

// The cookies of a Cookie header value, in order, as views into `header`. A name may repeat
// (several paths set it); the first one is the most specific path, as browsers send them.
std::vector<std::pair<std::string_view, std::string_view>> parse_cookies(std::string_view header);

enum class SameSite { Unset, Lax, Strict, None };

struct CookieOptions {
  std::string path = "/";
  std::string domain;  // empty: a host-only cookie
  std::optional<std::chrono::seconds> max_age;
  std::optional<std::chrono::system_clock::time_point> expires;
  bool secure = false;
  bool http_only = false;
  SameSite same_site = SameSite::Unset;
};

// True when `s` is a valid cookie name (an RFC 9110 token) / value (cookie-octets, optionally
// in double quotes: no control byte, space, '"' inside, ',', ';' or '\').
bool is_cookie_name(std::string_view s) noexcept;
bool is_cookie_value(std::string_view s) noexcept;

// The value of a Set-Cookie header: "name=value; Path=/; Max-Age=60; HttpOnly". Throws
// InvalidArgumentError if the name or value is invalid, or the path or domain holds a control
// byte or ';'. SameSite=None without Secure is refused too, since browsers drop such cookies.
std::string format_set_cookie(std::string_view name, std::string_view value,
                              const CookieOptions& options = {});

}  // namespace squall::http
