// Tests for Headers, keep-alive rules, reason phrases and head serialisation.
#include "squall/http/message.h"

#include <gtest/gtest.h>

#include <array>

#include "squall/http/parser.h"

namespace squall::http {
namespace {

TEST(Headers, FindsFieldsWhateverTheCaseOfTheName) {
  Headers h{{"Content-Type", "text/html"}, {"X-Id", "7"}};
  EXPECT_EQ(h.get("content-type"), "text/html");
  EXPECT_EQ(h.get("CONTENT-TYPE"), "text/html");
  EXPECT_TRUE(h.contains("x-id"));
  EXPECT_FALSE(h.contains("x-i"));
  EXPECT_EQ(h.get("Missing"), std::nullopt);
}

TEST(Headers, KeepsDuplicatesInTheOrderTheyWereAdded) {
  Headers h;
  h.add("Set-Cookie", "a=1");
  h.add("Server", "s");
  h.add("set-cookie", "b=2");
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(h.get("Set-Cookie"), "a=1");
  EXPECT_EQ(h.get_all("SET-COOKIE"), (std::vector<std::string_view>{"a=1", "b=2"}));
  EXPECT_EQ(h[2].name, "set-cookie");
}

TEST(Headers, JoinsRepeatedValuesWithCommas) {
  Headers h{{"Accept", "text/html"}, {"X", "y"}, {"accept", "*/*"}};
  EXPECT_EQ(h.get_joined("Accept"), "text/html, */*");
  EXPECT_EQ(h.get_joined("Missing"), "");
}

TEST(Headers, SetReplacesEveryValueAtThePositionOfTheFirst) {
  Headers h{{"A", "1"}, {"B", "2"}, {"a", "3"}, {"C", "4"}};
  h.set("a", "new");
  EXPECT_EQ(h, (Headers{{"a", "new"}, {"B", "2"}, {"C", "4"}}));
  h.set("D", "appended");
  EXPECT_EQ(h[3].name, "D");
  EXPECT_EQ(h.size(), 4u);
}

TEST(Headers, RemoveDropsEveryFieldOfTheNameAndCountsThem) {
  Headers h{{"A", "1"}, {"B", "2"}, {"a", "3"}};
  EXPECT_EQ(h.remove("A"), 2u);
  EXPECT_EQ(h, (Headers{{"B", "2"}}));
  EXPECT_EQ(h.remove("A"), 0u);
  h.clear();
  EXPECT_TRUE(h.empty());
}

TEST(Headers, FindsTokensInCommaSeparatedLists) {
  Headers h{{"Connection", "keep-alive, Upgrade"}, {"connection", " TE ,close"}};
  EXPECT_TRUE(h.has_token("connection", "upgrade"));
  EXPECT_TRUE(h.has_token("Connection", "close"));
  EXPECT_TRUE(h.has_token("Connection", "te"));
  EXPECT_FALSE(h.has_token("Connection", "keep"));
  EXPECT_FALSE(h.has_token("Upgrade", "close"));
}

TEST(Headers, ComparesNamesAsciiCaseInsensitivelyOnly) {
  EXPECT_TRUE(iequals("Content-Length", "content-LENGTH"));
  EXPECT_FALSE(iequals("Content-Length", "Content-Lengt"));
  EXPECT_FALSE(iequals("\xc3\xa9", "\xc3\x89"));
  EXPECT_FALSE(iequals("[", "{"));  // '[' | 0x20 == '{', but they are not letters
}

TEST(Headers, ValidatesNamesAndValuesForSending) {
  EXPECT_TRUE(is_token("X-Custom_Header.1~"));
  EXPECT_FALSE(is_token(""));
  EXPECT_FALSE(is_token("Bad Name"));
  EXPECT_FALSE(is_token("Bad:Name"));
  EXPECT_TRUE(is_field_value("text/html; charset=utf-8"));
  EXPECT_TRUE(is_field_value(""));
  EXPECT_TRUE(is_field_value("a\tb caf\xc3\xa9"));
  EXPECT_FALSE(is_field_value("injected\r\nX: y"));
  EXPECT_FALSE(is_field_value("a\nb"));
  EXPECT_FALSE(is_field_value(std::string_view("a\0b", 3)));
  EXPECT_FALSE(is_field_value(" padded"));
  EXPECT_FALSE(is_field_value("padded\t"));
}

TEST(Headers, EveryByteAtEveryPlaceOfAValueIsJudgedAsTheGrammarSays) {
  // Values are checked a word at a time: each byte value at each offset of two words, and two
  // bad bytes in one word, against the rule (VCHAR, obs-text, SP and HTAB; no CTL, no DEL).
  for (int c = 0; c < 256; ++c) {
    bool allowed = (c >= 0x20 && c != 0x7f) || c == '\t';
    for (size_t at = 1; at < 17; ++at) {
      std::string value(18, 'v');
      value[at] = static_cast<char>(c);
      EXPECT_EQ(is_field_value(value), allowed) << "byte " << c << " at " << at;
      std::string token(18, 't');
      token[at] = static_cast<char>(c);
      EXPECT_EQ(is_token(token), is_token(std::string(1, static_cast<char>(c))));
    }
  }
  EXPECT_FALSE(
      is_field_value("abc\x7f\x01"
                     "defgh"));
  EXPECT_TRUE(
      is_field_value("a\t\t\xff\x80"
                     "bcdefgh\t\x9f"));
  EXPECT_FALSE(
      is_field_value("a\t\t\xff\x80"
                     "bcdefgh\t\x1f"));
}

TEST(KeepAlive, DefaultsToOnForHttp11AndOffForHttp10) {
  EXPECT_TRUE(keep_alive({1, 1}, {}));
  EXPECT_FALSE(keep_alive({1, 1}, {{"Connection", "close"}}));
  EXPECT_FALSE(keep_alive({1, 1}, {{"Connection", "Keep-Alive, Close"}}));
  EXPECT_FALSE(keep_alive({1, 0}, {}));
  EXPECT_TRUE(keep_alive({1, 0}, {{"Connection", "Keep-Alive"}}));
}

TEST(Methods, KnowWhichOnesAreIdempotentCaseSensitively) {
  for (std::string_view m : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})
    EXPECT_TRUE(is_idempotent(m)) << m;
  for (std::string_view m : {"POST", "PATCH", "CONNECT", "get", ""})
    EXPECT_FALSE(is_idempotent(m)) << m;
}

TEST(ReasonPhrase, NamesTheStandardCodesAndNothingElse) {
  EXPECT_EQ(reason_phrase(200), "OK");
  EXPECT_EQ(reason_phrase(404), "Not Found");
  EXPECT_EQ(reason_phrase(414), "URI Too Long");
  EXPECT_EQ(reason_phrase(431), "Request Header Fields Too Large");
  EXPECT_EQ(reason_phrase(799), "");
}

TEST(WriteHead, SerialisesARequestThatTheParserReadsBack) {
  RequestHead head{
      "POST", "/submit?x=1", {1, 1}, {{"Host", "example.com"}, {"Content-Length", "3"}}};
  std::string out;
  write_head(out, head);
  EXPECT_EQ(out, "POST /submit?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 3\r\n\r\n");
  std::array<HeaderView, 8> storage;
  RequestView view;
  ParseResult r = parse_request(out, view, storage);
  ASSERT_EQ(r.status, ParseStatus::Ok);
  EXPECT_EQ(r.consumed, out.size());
  EXPECT_EQ(to_head(view), head);
}

TEST(WriteHead, SerialisesAResponseWithTheStandardReasonWhenNoneIsGiven) {
  ResponseHead head{{1, 0}, 404, "", {{"Content-Length", "0"}}};
  std::string out;
  write_head(out, head);
  EXPECT_EQ(out, "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n");
  std::array<HeaderView, 8> storage;
  ResponseView view;
  ASSERT_EQ(parse_response(out, view, storage).status, ParseStatus::Ok);
  ResponseHead back = to_head(view);
  EXPECT_EQ(back.status, 404);
  EXPECT_EQ(back.reason, "Not Found");
  EXPECT_EQ(back.headers, head.headers);
  out.clear();
  write_head(out, ResponseHead{{1, 1}, 299, "", {}});
  EXPECT_EQ(out, "HTTP/1.1 299 \r\n\r\n");
}

}  // namespace
}  // namespace squall::http
