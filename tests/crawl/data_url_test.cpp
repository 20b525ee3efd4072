// Tests for the data: URL processor: cases from the Fetch Standard's text.
#include "squall/crawl/data_url.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace squall {
namespace {

using namespace std::literals;

struct DataCase {
  const char* input;
  const char* mime_type;  // nullptr: data_url() must fail
  std::string_view body;
};

TEST(DataUrl, DecodesDataUrlsPerTheFetchStandard) {
  for (const DataCase& c : std::vector<DataCase>{
           {"data:,Hello", "text/plain;charset=US-ASCII", "Hello"},
           {"data:text/html,<p>Hi</p>", "text/html", "<p>Hi</p>"},
           {"data:;base64,SGVsbG8=", "text/plain;charset=US-ASCII", "Hello"},
           {"data:text/plain;base64,SGVs bG8=", "text/plain", "Hello"},
           {"data:text/plain;base64,SGVsbG8", "text/plain", "Hello"},
           {"data:text/plain;base64,S\x0cGV\tsb\nG8=", "text/plain", "Hello"},
           {"data:;base64,SGVsbG8==", nullptr, ""},
           {"data:;base64,S", nullptr, ""},
           {"data:;base64,!!!!", nullptr, ""},
           {"data:;base64,SGk=SGk=", nullptr, ""},
           {"data:text/plain;charset=utf-8,%C3%A9", "text/plain;charset=utf-8", "\xC3\xA9"},
           {"data:text/html;charset=UTF-8;base64,PGI+", "text/html;charset=UTF-8", "<b>"},
           {"data:foo,x", "text/plain;charset=US-ASCII", "x"},
           {"data:TEXT/HTML,x", "text/html", "x"},
           {"data:text/plain", nullptr, ""},
           {"data:text/plain;a=b;a=c,x", "text/plain;a=b", "x"},
           {"data:text/plain;charset=\"utf 8\",x", "text/plain;charset=\"utf 8\"", "x"},
           {"data:text/plain ; base64 ,SGk=", "text/plain", "Hi"},
           {"data:text/plain;BASE64,SGk=", "text/plain", "Hi"},
           {"data:,a%2Cb", "text/plain;charset=US-ASCII", "a,b"},
           {"data:,a#frag", "text/plain;charset=US-ASCII", "a"},
           {"data:,a?b", "text/plain;charset=US-ASCII", "a?b"},
           {"data:text/plain;base64,SGk=#x", "text/plain", "Hi"},
           {"DATA:,x", "text/plain;charset=US-ASCII", "x"},
           {"data:;charset=utf-8,x", "text/plain;charset=utf-8", "x"},
           {"data:base64,SGk=", "text/plain;charset=US-ASCII", "SGk="},
           {"data:text/plain;base64;x=y,SGk=", "text/plain;x=y", "SGk="},
           {"data:,%00%FF", "text/plain;charset=US-ASCII", "\0\xFF"sv},
           {"data:application/octet-stream;base64,AAEC", "application/octet-stream", "\0\1\2"sv},
           {"data:image/svg+xml;utf8,<svg/>", "image/svg+xml", "<svg/>"},
       }) {
    SCOPED_TRACE(c.input);
    auto url = Url::parse(c.input);
    ASSERT_TRUE(url.ok());
    auto data = data_url(*url);
    if (c.mime_type == nullptr) {
      EXPECT_FALSE(data.has_value());
      continue;
    }
    ASSERT_TRUE(data.has_value());
    EXPECT_EQ(data->mime_type, c.mime_type);
    EXPECT_EQ(data->body, c.body);
  }
}

TEST(DataUrl, SplitsTheDataUrlMimeTypeIntoEssenceAndCharset) {
  auto url = Url::parse("data:Text/HTML;Charset=Shift_JIS;q=1,x");
  ASSERT_TRUE(url.ok());
  auto data = data_url(*url);
  ASSERT_TRUE(data.has_value());
  EXPECT_EQ(data->essence, "text/html");
  EXPECT_EQ(data->charset, "Shift_JIS");
  EXPECT_EQ(data->mime_type, "text/html;charset=Shift_JIS;q=1");
  auto fallback = data_url(*Url::parse("data:,x"));
  ASSERT_TRUE(fallback.has_value());
  EXPECT_EQ(fallback->essence, "text/plain");
  EXPECT_EQ(fallback->charset, "US-ASCII");
  EXPECT_FALSE(data_url(*Url::parse("http://a/")).has_value());
}

}  // namespace
}  // namespace squall
