// AccessLog: the combined and common lines, escaping, and the writer behind the buffer.
#include "squall/http/access_log.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "squall/core/error.h"
#include "support/process.h"

namespace squall::http {
namespace {

// The line tests compare, dated 2026-12-01 13:55:36 UTC in the local time zone of TZ=UTC.
class AccessLogLine : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    if (tz) saved_ = tz;
    had_ = tz != nullptr;
    ::setenv("TZ", "UTC", 1);
    ::tzset();
  }
  void TearDown() override {
    if (had_) {
      ::setenv("TZ", saved_.c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }
  static constexpr std::time_t kWhen = 1796133336;  // 2026-12-01 13:55:36 UTC

  static std::string line(const AccessLogEntry& e, AccessLogFormat f = AccessLogFormat::Combined) {
    std::string out;
    format_access_log_line(e, f, kWhen, out);
    return out;
  }

  std::string saved_;
  bool had_ = false;
};

AccessLogEntry entry() {
  AccessLogEntry e;
  e.peer = "127.0.0.1:51234";
  e.method = "GET";
  e.target = "/a/b?x=1";
  e.version = Version{1, 1};
  e.status = 200;
  e.bytes = 1234;
  e.referer = "http://example.test/";
  e.user_agent = "curl/7.88.1";
  return e;
}

TEST_F(AccessLogLine, CombinedIsNginxsDefaultFormat) {
  EXPECT_EQ(line(entry()),
            "127.0.0.1 - - [01/Dec/2026:13:55:36 +0000] \"GET /a/b?x=1 HTTP/1.1\" 200 1234 "
            "\"http://example.test/\" \"curl/7.88.1\"\n");
}

TEST_F(AccessLogLine, CommonLeavesOutRefererAndUserAgent) {
  EXPECT_EQ(line(entry(), AccessLogFormat::Common),
            "127.0.0.1 - - [01/Dec/2026:13:55:36 +0000] \"GET /a/b?x=1 HTTP/1.1\" 200 1234\n");
}

TEST_F(AccessLogLine, MissingFieldsAreDashesAndHeadSendsNoBytes) {
  AccessLogEntry e = entry();
  e.referer = {};
  e.user_agent = {};
  e.method = "HEAD";
  e.version = Version{1, 0};
  EXPECT_EQ(line(e),
            "127.0.0.1 - - [01/Dec/2026:13:55:36 +0000] \"HEAD /a/b?x=1 HTTP/1.0\" 200 0 \"-\" "
            "\"-\"\n");
}

TEST_F(AccessLogLine, AnIpv6PeerIsWrittenWithoutBracketsOrPort) {
  AccessLogEntry e = entry();
  e.peer = "[::1]:4000";
  EXPECT_TRUE(line(e).starts_with("::1 - - [")) << line(e);
}

TEST_F(AccessLogLine, BytesThatCouldForgeALineOrFieldAreEscaped) {
  AccessLogEntry e = entry();
  e.user_agent = "evil\"agent\n127.0.0.1 - - fake\\ \x01\xff";
  e.target = "/\"x\"";
  std::string l = line(e);
  EXPECT_EQ(l,
            "127.0.0.1 - - [01/Dec/2026:13:55:36 +0000] \"GET /\\x22x\\x22 HTTP/1.1\" 200 1234 "
            "\"http://example.test/\" \"evil\\x22agent\\x0A127.0.0.1 - - fake\\x5C \\x01\\xFF\"\n");
}

TEST(AccessLogFormatName, CombinedAndCommonOnly) {
  EXPECT_EQ(parse_access_log_format("combined"), AccessLogFormat::Combined);
  EXPECT_EQ(parse_access_log_format("common"), AccessLogFormat::Common);
  EXPECT_EQ(parse_access_log_format("json"), std::nullopt);
}

TEST(AccessLog, EveryLineIsInTheFileOnceTheLogIsDestroyed) {
  test::TempDir dir;
  std::string path = (dir.path() / "access.log").string();
  {
    AccessLog log(path, AccessLogFormat::Common);
    auto sink = log.sink();
    for (int i = 0; i < 1000; ++i) sink(entry());
    EXPECT_EQ(log.dropped(), 0u);
  }
  std::string text = test::read_file(path);
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, 1000u);
  // Appended, never truncated: a second log on the same file adds to it.
  { AccessLog(path, AccessLogFormat::Common).write(entry()); }
  EXPECT_EQ(test::read_file(path).size(), text.size() + text.size() / 1000);
}

TEST(AccessLog, LinesBeyondTheBufferAreDroppedAndCounted) {
  test::TempDir dir;
  std::string path = (dir.path() / "access.log").string();
  {
    AccessLog log(path, AccessLogFormat::Combined, 16);  // smaller than any line
    for (int i = 0; i < 5; ++i) log.write(entry());
    EXPECT_EQ(log.dropped(), 5u);
  }
  EXPECT_EQ(test::read_file(path), "");
}

TEST(AccessLog, AFileThatCannotBeOpenedIsASystemErrorNamingIt) {
  try {
    AccessLog log("/nonexistent/squall/access.log");
    FAIL() << "opened";
  } catch (const SystemError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/squall/access.log"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace squall::http
