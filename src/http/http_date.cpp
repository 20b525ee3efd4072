// Formatting and parsing HTTP dates without locale or strptime, which both depend on the
// process's environment.
#include "squall/http/http_date.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <ctime>

namespace squall::http {

namespace {

constexpr std::array<std::string_view, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 7> kLongDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm): exact for every year,
// independent of the TZ variable that timegm's neighbours consult.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) noexcept {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool leap(int y) noexcept {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int y, int m) noexcept {
  static constexpr int kDaysIn[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDaysIn[m - 1];
}

// A small cursor over the input: each step consumes what it matched or fails.
struct Cursor {
  std::string_view s;
  bool lit(std::string_view want) {
    if (s.substr(0, want.size()) != want) return false;
    s.remove_prefix(want.size());
    return true;
  }
  // Always succeeds; skips `ch` when it is next (asctime pads a one-digit day with a space).
  bool optional(char ch) {
    if (!s.empty() && s.front() == ch) s.remove_prefix(1);
    return true;
  }
  bool digits(size_t min, size_t max, int& out) {
    size_t n = 0;
    int v = 0;
    while (n < max && n < s.size() && s[n] >= '0' && s[n] <= '9') v = v * 10 + (s[n++] - '0');
    if (n < min) return false;
    s.remove_prefix(n);
    out = v;
    return true;
  }
  bool month(int& out) {
    for (size_t i = 0; i < kMonths.size(); ++i) {
      if (lit(kMonths[i])) {
        out = static_cast<int>(i) + 1;
        return true;
      }
    }
    return false;
  }
  bool time(int& h, int& m, int& sec) {
    return digits(2, 2, h) && lit(":") && digits(2, 2, m) && lit(":") && digits(2, 2, sec);
  }
};

std::optional<HttpClock::time_point> make_time(int y, int mon, int d, int h, int m, int s) {
  if (mon < 1 || mon > 12 || d < 1 || d > days_in_month(y, mon) || h > 23 || m > 59 || s > 60) {
    return std::nullopt;
  }
  int64_t secs = days_from_civil(y, static_cast<unsigned>(mon), static_cast<unsigned>(d)) * 86400 +
                 h * 3600 + m * 60 + s;
  return HttpClock::time_point(std::chrono::seconds(secs));
}

}  // namespace

std::string format_http_date(HttpClock::time_point t) {
  int64_t secs = std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
  if (secs < 0) secs = 0;
  std::time_t tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[40];
  int n = std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT",
                        kDays[static_cast<size_t>(tm.tm_wday)].data(), tm.tm_mday,
                        kMonths[static_cast<size_t>(tm.tm_mon)].data(), tm.tm_year + 1900,
                        tm.tm_hour, tm.tm_min, tm.tm_sec);
  return std::string(buf, static_cast<size_t>(n));
}

std::optional<HttpClock::time_point> parse_http_date(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  int y = 0, mon = 0, d = 0, h = 0, m = 0, sec = 0;
  for (auto day : kDays) {
    Cursor c{s};
    if (!c.lit(day)) continue;
    if (c.lit(", ")) {
      // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
      if (c.digits(2, 2, d) && c.lit(" ") && c.month(mon) && c.lit(" ") && c.digits(4, 4, y) &&
          c.lit(" ") && c.time(h, m, sec) && c.lit(" GMT") && c.s.empty()) {
        return make_time(y, mon, d, h, m, sec);
      }
      return std::nullopt;
    }
    if (c.lit(" ")) {
      // asctime: Sun Nov  6 08:49:37 1994
      if (c.month(mon) && c.lit(" ") && c.optional(' ') && c.digits(1, 2, d) && c.lit(" ") &&
          c.time(h, m, sec) && c.lit(" ") && c.digits(4, 4, y) && c.s.empty()) {
        return make_time(y, mon, d, h, m, sec);
      }
      return std::nullopt;
    }
    break;
  }
  for (auto day : kLongDays) {
    Cursor c{s};
    if (!c.lit(day)) continue;
    // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT; a two-digit year within 50 years of now is meant
    // (RFC 9110 §5.6.7), which for the years this form was used is 19xx or 20xx by the cutoff 70.
    if (c.lit(", ") && c.digits(2, 2, d) && c.lit("-") && c.month(mon) && c.lit("-") &&
        c.digits(2, 2, y) && c.lit(" ") && c.time(h, m, sec) && c.lit(" GMT") && c.s.empty()) {
      return make_time(y < 70 ? 2000 + y : 1900 + y, mon, d, h, m, sec);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace squall::http

namespace squall::http {

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value,
                                                      HttpClock::time_point now) {
  constexpr int64_t kYear = 366 * 24 * 3600;
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (value.find_first_not_of("0123456789") == std::string_view::npos) {
    if (value.size() > 8) return std::chrono::seconds(kYear);
    int64_t n = 0;
    for (char c : value) n = n * 10 + (c - '0');
    return std::chrono::seconds(std::min(n, kYear));
  }
  std::optional<HttpClock::time_point> date = parse_http_date(value);
  if (!date) return std::nullopt;
  if (*date <= now) return std::chrono::seconds(0);
  return std::chrono::duration_cast<std::chrono::seconds>(*date - now);
}

}  // namespace squall::http
