// Tests for HTTP date formatting and parsing.
#include "squall/http/http_date.h"

#include <gtest/gtest.h>

namespace squall::http {
namespace {

using std::chrono::seconds;

const HttpClock::time_point kRfcExample{seconds(784111777)};  // Sun, 06 Nov 1994 08:49:37 GMT

TEST(HttpDate, FormatsImfFixdate) {
  EXPECT_EQ(format_http_date(kRfcExample), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(format_http_date(HttpClock::time_point{}), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(format_http_date(kRfcExample + std::chrono::milliseconds(999)),
            "Sun, 06 Nov 1994 08:49:37 GMT");
}

TEST(HttpDate, ParsesTheThreeFormsARecipientMustAccept) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), kRfcExample);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), kRfcExample);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), kRfcExample);
  EXPECT_EQ(parse_http_date("  Sun, 06 Nov 1994 08:49:37 GMT "), kRfcExample);
}

TEST(HttpDate, RoundTripsDatesAcrossLeapYears) {
  for (int64_t t : {0LL, 951782400LL, 1709164800LL, 4102444799LL, 1234567890LL}) {
    HttpClock::time_point tp{seconds(t)};
    EXPECT_EQ(parse_http_date(format_http_date(tp)), tp) << format_http_date(tp);
  }
}

TEST(HttpDate, RefusesMalformedOrImpossibleDates) {
  EXPECT_EQ(parse_http_date(""), std::nullopt);
  EXPECT_EQ(parse_http_date("yesterday"), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 UTC"), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT trailing"), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 30 Feb 1994 08:49:37 GMT"), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 24:49:37 GMT"), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 6 Nov 1994 08:49:37 GMT"), std::nullopt);
}

TEST(RetryAfter, IsSecondsOrADateAsAWaitFromNow) {
  HttpClock::time_point now{seconds(784111777)};  // Sun, 06 Nov 1994 08:49:37 GMT
  EXPECT_EQ(parse_retry_after("120", now), seconds(120));
  EXPECT_EQ(parse_retry_after(" 0 ", now), seconds(0));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:50:37 GMT", now), seconds(60));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), seconds(0)) << "past";
  EXPECT_EQ(parse_retry_after("99999999999", now), seconds(366 * 24 * 3600));
  EXPECT_EQ(parse_retry_after("", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("-5", now), std::nullopt);
  EXPECT_EQ(parse_retry_after("soon", now), std::nullopt);
}

}  // namespace
}  // namespace squall::http
