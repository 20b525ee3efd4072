// HTTP dates (RFC 9110 §5.6.7): Last-Modified, If-Modified-Since, Expires.
//
// Sent as IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"); received in any of the three forms a
// recipient must accept (IMF-fixdate, the obsolete RFC 850 form and asctime). Resolution is one
// second, as the format allows.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace squall::http {

using HttpClock = std::chrono::system_clock;

// IMF-fixdate for `t` (truncated to the second). Times before 1970 are written as 1970-01-01.
std::string format_http_date(HttpClock::time_point t);

// The time an HTTP date names, or nullopt when `s` is none of the three forms (or names an
// impossible date such as Feb 30). Surrounding whitespace is ignored.
std::optional<HttpClock::time_point> parse_http_date(std::string_view s);

}  // namespace squall::http

namespace squall::http {

// A Retry-After value (RFC 9110 section 10.2.3) as a wait from `now`: delay-seconds, or an HTTP
// date (one already past is no wait). Delay-seconds beyond about a year are taken as a year.
// nullopt when the value is neither.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value,
                                                      HttpClock::time_point now);

}  // namespace squall::http
