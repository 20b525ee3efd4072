// Tests for StaticFiles: the pieces (ranges, validators, path checks) and a real server
// answering curl and raw sockets.
#include "squall/http/static_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <filesystem>
#include <fstream>

#include "http/web_peers.h"
#include "squall/http/http_date.h"
#include "squall/http/web.h"
#include "squall/net/address.h"
#include "support/process.h"

namespace squall::http {
namespace {

using test::curl;
using test::Reply;

TEST(ParseRange, ReadsSingleSuffixAndOpenRanges) {
  auto r = parse_range("bytes=0-99", 1000);
  ASSERT_EQ(r.kind, RangeRequest::Satisfiable);
  EXPECT_EQ(r.ranges, (std::vector<ByteRange>{{0, 99}}));
  EXPECT_EQ(parse_range("bytes=-100", 1000).ranges, (std::vector<ByteRange>{{900, 999}}));
  EXPECT_EQ(parse_range("bytes=990-", 1000).ranges, (std::vector<ByteRange>{{990, 999}}));
  EXPECT_EQ(parse_range("bytes=-5000", 1000).ranges, (std::vector<ByteRange>{{0, 999}}));
  EXPECT_EQ(parse_range("bytes=500-5000", 1000).ranges, (std::vector<ByteRange>{{500, 999}}));
  EXPECT_EQ(parse_range(" Bytes = 1-2 , 5-6", 10).kind, RangeRequest::Ignore);
  EXPECT_EQ(parse_range("bytes= 1-2 , 5-6 ,", 10).ranges, (std::vector<ByteRange>{{1, 2}, {5, 6}}));
}

TEST(ParseRange, KnowsUnsatisfiableFromMalformed) {
  EXPECT_EQ(parse_range("bytes=1000-", 1000).kind, RangeRequest::Unsatisfiable);
  EXPECT_EQ(parse_range("bytes=-0", 1000).kind, RangeRequest::Unsatisfiable);
  EXPECT_EQ(parse_range("bytes=0-", 0).kind, RangeRequest::Unsatisfiable);
  EXPECT_EQ(parse_range("bytes=2000-3000, 5-6", 10).ranges, (std::vector<ByteRange>{{5, 6}}));
  for (std::string_view bad : {"", "bytes=", "items=0-1", "bytes=5-1", "bytes=a-b", "bytes=1",
                               "bytes=--1", "bytes=1-2-3", "bytes=99999999999999999999-"}) {
    EXPECT_EQ(parse_range(bad, 1000).kind, RangeRequest::Ignore) << bad;
  }
  std::string many = "bytes=0-0";
  for (int i = 1; i < 17; ++i) many += test::cat(",", std::to_string(i), "-", std::to_string(i));
  EXPECT_EQ(parse_range(many, 1000, 16).kind, RangeRequest::Ignore);
  EXPECT_EQ(parse_range(many, 1000, 17).ranges.size(), 17u);
}

TEST(Etag, ChangesWithSizeAndTimeAndMatchesWeakly) {
  timespec t{1700000000, 5};
  std::string tag = make_etag(1024, t);
  EXPECT_EQ(tag.front(), '"');
  EXPECT_EQ(tag.back(), '"');
  EXPECT_NE(tag, make_etag(1025, t));
  EXPECT_NE(tag, make_etag(1024, timespec{1700000000, 6}));
  EXPECT_TRUE(etag_matches(tag, tag));
  EXPECT_TRUE(etag_matches(test::cat("\"x\", W/", tag), tag));
  EXPECT_TRUE(etag_matches("*", tag));
  EXPECT_FALSE(etag_matches("\"x\"", tag));
  EXPECT_FALSE(etag_matches("", tag));
}

TEST(CheckStaticPath, NormalisesHarmlessPaths) {
  EXPECT_EQ(check_static_path("").path, "");
  EXPECT_EQ(check_static_path("a/b.txt").path, "a/b.txt");
  EXPECT_EQ(check_static_path("a//./b%20c.txt").path, "a/b c.txt");
  EXPECT_EQ(check_static_path("dir/").path, "dir");
  EXPECT_EQ(check_static_path("..hidden/x..y").path, "..hidden/x..y");
}

TEST(CheckStaticPath, RefusesEveryWayOut) {
  for (std::string_view bad :
       {"..", "../etc/passwd", "a/../../b", "%2e%2e/x", "%2E%2E/x", ".%2e/x", "a/%2e%2e", "..%2fx",
        "a%2F..%2F..%2Fx", "a%5c..%5cx", "a\\..\\x", "%5C"}) {
    EXPECT_EQ(check_static_path(bad).status, 403) << bad;
  }
  EXPECT_EQ(check_static_path("a%00.txt").status, 400);
  EXPECT_EQ(check_static_path(std::string_view("a\0b", 3)).status, 400);
}

// A site on disk, served by one worker, with a secret beside it (outside the root).
class StaticTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_.write("secret.txt", "TOP SECRET");
    root_ = dir_.path() / "site";
    dir_.write("site/index.html", "<h1>home</h1>");
    dir_.write("site/hello.txt", "hello, world\n");
    for (int i = 0; i < 1000; ++i) data_.push_back(static_cast<char>('a' + i % 26));
    dir_.write("site/data.bin", data_);
    dir_.write("site/sub/index.html", "sub index");
    dir_.write("site/style.css", "body{}");
    dir_.write("site/noindex/file.txt", "x");
    std::filesystem::create_symlink(dir_.path() / "secret.txt", root_ / "escape.txt");
    std::filesystem::create_symlink("../secret.txt", root_ / "relative_escape.txt");
    std::filesystem::create_symlink(dir_.path(), root_ / "up");
    std::filesystem::create_symlink("hello.txt", root_ / "inside.txt");
    StaticOptions options;
    options.kernel_confinement = GetParam();
    workers_ = std::make_unique<HttpWorkers>(
        1, Address::parse("127.0.0.1:0"),
        [root = root_, options] { return StaticFiles(root, options).handler(); });
  }
  void TearDown() override { workers_->stop(std::chrono::seconds(5)); }
  std::string url(std::string_view path) const {
    std::string u = "http://127.0.0.1:";
    u.append(std::to_string(workers_->port())).append(path);
    return u;
  }
  uint16_t port() const { return workers_->port(); }

  test::TempDir dir_;
  std::filesystem::path root_;
  std::string data_;
  std::unique_ptr<HttpWorkers> workers_;
};

TEST_P(StaticTest, ServesAFileWithTypeLengthAndValidators) {
  Reply r = curl({url("/hello.txt")});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello, world\n");
  EXPECT_EQ(r.header("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r.header("Content-Length"), "13");
  EXPECT_EQ(r.header("Accept-Ranges"), "bytes");
  EXPECT_FALSE(r.header("ETag").empty());
  struct stat info {};
  ASSERT_EQ(::stat((root_ / "hello.txt").c_str(), &info), 0);
  EXPECT_EQ(r.header("Last-Modified"),
            format_http_date(HttpClock::time_point(std::chrono::seconds(info.st_mtim.tv_sec))));
  EXPECT_EQ(curl({url("/style.css")}).header("Content-Type"), "text/css; charset=utf-8");
}

TEST_P(StaticTest, HeadSendsTheHeadersOfGetWithoutABody) {
  Reply r = curl({"-I", url("/data.bin")});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("Content-Length"), "1000");
  EXPECT_EQ(r.body, "");
}

TEST_P(StaticTest, AnswersARangeWith206) {
  Reply r = curl({"-r", "0-99", url("/data.bin")});
  EXPECT_EQ(r.status, 206);
  EXPECT_EQ(r.header("Content-Range"), "bytes 0-99/1000");
  EXPECT_EQ(r.body, data_.substr(0, 100));
  Reply tail = curl({"-r", "-10", url("/data.bin")});
  EXPECT_EQ(tail.header("Content-Range"), "bytes 990-999/1000");
  EXPECT_EQ(tail.body, data_.substr(990));
}

TEST_P(StaticTest, AnswersSeveralRangesAsMultipartByteranges) {
  Reply r = curl({"-r", "0-1,10-12", url("/data.bin")});
  EXPECT_EQ(r.status, 206);
  auto boundary = r.header("Content-Type");
  ASSERT_EQ(boundary.substr(0, 31), "multipart/byteranges; boundary=");
  boundary = boundary.substr(31);
  EXPECT_EQ(r.header("Content-Length"), std::to_string(r.body.size()));
  std::string want = test::cat("\r\n--", boundary,
                               "\r\nContent-Type: application/octet-stream\r\n"
                               "Content-Range: bytes 0-1/1000\r\n\r\n",
                               data_.substr(0, 2), "\r\n--", boundary,
                               "\r\nContent-Type: application/octet-stream\r\n"
                               "Content-Range: bytes 10-12/1000\r\n\r\n",
                               data_.substr(10, 3), "\r\n--", boundary, "--\r\n");
  EXPECT_EQ(r.body, want);
}

TEST_P(StaticTest, AnUnsatisfiableRangeIs416WithTheSize) {
  Reply r = curl({"-r", "5000-6000", url("/data.bin")});
  EXPECT_EQ(r.status, 416);
  EXPECT_EQ(r.header("Content-Range"), "bytes */1000");
}

TEST_P(StaticTest, IfRangeWithAnOldValidatorGetsTheWholeFile) {
  Reply r = curl({"-r", "0-9", "-H", "If-Range: \"stale\"", url("/data.bin")});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, data_);
}

TEST_P(StaticTest, ConditionalRequestsGet304) {
  Reply first = curl({url("/hello.txt")});
  std::string etag = first.header("ETag");
  Reply same = curl({"-H", test::cat("If-None-Match: ", etag), url("/hello.txt")});
  EXPECT_EQ(same.status, 304);
  EXPECT_EQ(same.body, "");
  EXPECT_EQ(same.header("ETag"), etag);
  EXPECT_EQ(curl({"-H", "If-None-Match: \"other\"", url("/hello.txt")}).status, 200);
  // curl -z DATE sends If-Modified-Since.
  EXPECT_EQ(curl({"-z", first.header("Last-Modified"), url("/hello.txt")}).status, 304);
  EXPECT_EQ(curl({"-z", "Sun, 06 Nov 1994 08:49:37 GMT", url("/hello.txt")}).status, 200);
}

TEST_P(StaticTest, DirectoriesRedirectToTheirSlashThenServeTheirIndex) {
  Reply redirect = curl({url("/sub?x=1")});
  EXPECT_EQ(redirect.status, 301);
  EXPECT_EQ(redirect.header("Location"), "/sub/?x=1");
  EXPECT_EQ(test::run_curl({"-L", url("/sub")}), "sub index");
  EXPECT_EQ(curl({url("/")}).body, "<h1>home</h1>");
  EXPECT_EQ(curl({url("/noindex/")}).status, 404);
  // A path starting with "//" must not become a protocol-relative Location.
  Reply doubled = test::raw_get(port(), "//sub");
  EXPECT_EQ(doubled.status, 301);
  EXPECT_EQ(doubled.header("Location"), "/sub/");
}

TEST_P(StaticTest, MissingFilesAre404AndOtherMethods405) {
  EXPECT_EQ(curl({url("/missing.txt")}).status, 404);
  EXPECT_EQ(curl({url("/hello.txt/x")}).status, 404);
  Reply post = curl({"-X", "POST", url("/hello.txt")});
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("Allow"), "GET, HEAD");
}

TEST_P(StaticTest, NoRequestReachesOutsideTheRoot) {
  for (std::string_view target :
       {"/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/.%2e/secret.txt",
        "/sub/../../secret.txt", "/sub/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt",
        "/sub%2f..%2f..%2fsecret.txt", "/..%5csecret.txt", "/..\\secret.txt", "/secret.txt%00",
        "/%00", "/up/secret.txt", "/escape.txt", "/relative_escape.txt"}) {
    Reply r = test::raw_get(port(), target);
    EXPECT_TRUE(r.status == 400 || r.status == 403 || r.status == 404)
        << target << " → " << r.status;
    EXPECT_EQ(r.body.find("TOP SECRET"), std::string::npos) << target;
  }
  // curl normalises dot segments unless told not to.
  Reply as_is = curl({"--path-as-is", url("/../secret.txt")});
  EXPECT_EQ(as_is.body.find("TOP SECRET"), std::string::npos);
  EXPECT_EQ(test::raw_get(port(), "/escape.txt").status, 403);
}

TEST_P(StaticTest, SymlinksInsideTheRootAreFollowed) {
  EXPECT_EQ(curl({url("/inside.txt")}).body, "hello, world\n");
}

TEST_P(StaticTest, KeepAliveConnectionsAreReused) {
  std::string out = test::run_curl({"-v", url("/hello.txt"), url("/data.bin"), url("/sub/")});
  EXPECT_NE(out.find("hello, world"), std::string::npos);
  EXPECT_NE(out.find("sub index"), std::string::npos);
  EXPECT_NE(out.find("Re-using existing connection"), std::string::npos) << out;
}

// Every case twice: confined by openat2, and by the real-path check used where it is missing.
INSTANTIATE_TEST_SUITE_P(Confinement, StaticTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Openat2" : "RealPath"; });

TEST(StaticFiles, RefusesARootThatIsNotADirectoryAndABadPrefix) {
  test::TempDir dir;
  auto file = dir.write("f", "x");
  EXPECT_THROW(StaticFiles(dir.path() / "missing"), SystemError);
  EXPECT_THROW(StaticFiles{file}, SystemError);
  EXPECT_THROW(StaticFiles(dir.path(), {.prefix = "static"}), InvalidArgumentError);
}

TEST(StaticFiles, MountsUnderAPrefixInAnApplication) {
  test::TempDir dir;
  dir.write("assets/app.js", "let x;");
  dir.write("assets/img/logo.svg", "<svg/>");
  auto root = dir.path() / "assets";
  HttpWorkers workers(1, Address::parse("127.0.0.1:0"), [root] {
    Application app({{"/static/{path*}", StaticFiles(root, {.prefix = "/static/"})},
                     {"/", [](Request&, Response& resp) { return resp.finish("home"); }}});
    return app.handler();
  });
  std::string base = test::cat("http://127.0.0.1:", std::to_string(workers.port()));
  EXPECT_EQ(curl({test::cat(base, "/static/app.js")}).body, "let x;");
  EXPECT_EQ(curl({test::cat(base, "/static/img/logo.svg")}).header("Content-Type"),
            "image/svg+xml");
  EXPECT_EQ(curl({test::cat(base, "/static/missing")}).status, 404);
  EXPECT_EQ(curl({test::cat(base, "/")}).body, "home");
  workers.stop(std::chrono::seconds(5));
}

TEST(StaticFiles, UsesTheKernelsConfinementWhereTheKernelHasIt) {
  utsname u{};
  ASSERT_EQ(uname(&u), 0);
  int major = 0, minor = 0;
  ASSERT_EQ(std::sscanf(u.release, "%d.%d", &major, &minor), 2);
  if (major > 5 || (major == 5 && minor >= 6)) {
    EXPECT_TRUE(openat2_available());
  }
}

TEST(HiddenPath, AnySegmentStartingWithADotButWellKnown) {
  for (std::string_view hidden : {".env", ".git/config", "a/.hidden/x", "a/b/.htpasswd", "..hidden",
                                  ".well-known/.secret", "a/."})
    EXPECT_TRUE(hidden_path(hidden)) << hidden;
  for (std::string_view shown :
       {"", "a", "a/b.txt", "x..y/z", "a.b/c.", ".well-known/acme/t", "a/.well-known"})
    EXPECT_FALSE(hidden_path(shown)) << shown;
}

}  // namespace
}  // namespace squall::http
