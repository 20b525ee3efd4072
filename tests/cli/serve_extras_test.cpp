// Tests for what `squall serve` adds to a plain file server, run as a user runs it: a port in
// use refused, --bind with a name, the access log, hidden paths, listings and compression.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <utime.h>

#include <csignal>
#include <filesystem>
// GCC 12 warns about std::function inside <regex>'s matcher at -O1 with sanitizers
// (-Wmaybe-uninitialized, a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
#include <set>
#include <string>

#include "cli/serve_peer.h"
#include "http/web_peers.h"
#include "squall/http/decode.h"
#include "support/process.h"

namespace squall::test {
namespace {

// The exit status of a `squall serve` that must give up at once (-1 if it kept running).
int exit_status(Process& p) {
  int status = p.wait(std::chrono::seconds(20));
  if (status == -1) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Process start_failing_serve(const std::vector<std::string>& args) {
  std::vector<std::string> argv{squall_binary().string(), "serve"};
  argv.insert(argv.end(), args.begin(), args.end());
  return Process::start(argv);
}

// SIGTERM, and the clean exit a test relies on before it reads what the server wrote.
void stop_cleanly(Process& p) {
  int status = p.stop(SIGTERM, std::chrono::seconds(10));
  ASSERT_TRUE(WIFEXITED(status)) << p.output();
  EXPECT_EQ(WEXITSTATUS(status), 0) << p.output();
}

std::string base_url(uint16_t port) {
  return cat("http://127.0.0.1:", std::to_string(port));
}

// --- a port in use ---------------------------------------------------------------------------

// Another program listening with SO_REUSEPORT, as a second squall or nginx's `reuseport` does:
// the case where Linux would let a SO_REUSEPORT listener join it.
Process start_reuseport_listener(uint16_t port) {
  Process p = Process::start({"python3", "-c",
                              "import socket, sys, time\n"
                              "s = socket.socket()\n"
                              "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                              "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)\n"
                              "s.bind(('127.0.0.1', int(sys.argv[1])))\n"
                              "s.listen()\n"
                              "while True: time.sleep(60)\n",
                              std::to_string(port)});
  wait_for_port(port, "python3 listener", &p);
  return p;
}

TEST(SquallServeExtras, APortAnotherProgramListensOnIsRefusedNamingThePort) {
  TempDir dir;
  dir.write("a.txt", "A");
  uint16_t port = free_port();
  Process other = start_reuseport_listener(port);
  for (std::string workers : {"1", "2"}) {
    Process p = start_failing_serve(
        {dir.path().string(), "--port", std::to_string(port), "--workers", workers});
    EXPECT_EQ(exit_status(p), 2) << p.output();
    EXPECT_NE(p.output().find("address already in use"), std::string::npos) << p.output();
    EXPECT_NE(p.output().find(cat("port ", std::to_string(port))), std::string::npos) << p.output();
    EXPECT_EQ(p.output().find("Serving"), std::string::npos) << p.output();
  }
}

TEST(SquallServeExtras, APortPythonsHttpServerHoldsIsRefused) {
  TempDir dir;
  uint16_t port = free_port();
  Process python = Process::start(
      {"python3", "-m", "http.server", std::to_string(port), "--bind", "127.0.0.1"}, dir.path());
  wait_for_port(port, "python3 -m http.server", &python);
  Process p = start_failing_serve({dir.path().string(), "--port", std::to_string(port)});
  EXPECT_EQ(exit_status(p), 2) << p.output();
  EXPECT_NE(p.output().find("address already in use"), std::string::npos) << p.output();
}

TEST(SquallServeExtras, ASecondServeOnTheSamePortFailsAndTheFirstKeepsEveryConnection) {
  TempDir dir;
  dir.write("a.txt", "first");
  Process first;
  uint16_t port = start_serve(
      first, {dir.path().string(), "--port", std::to_string(free_port()), "--workers", "3"});
  ASSERT_NE(port, 0) << first.output();
  for (std::vector<std::string> extra :
       {std::vector<std::string>{"--workers", "3"}, {"--workers", "1"}, {"--bind", "0.0.0.0"}}) {
    std::vector<std::string> args{dir.path().string(), "--port", std::to_string(port)};
    args.insert(args.end(), extra.begin(), extra.end());
    Process second = start_failing_serve(args);
    EXPECT_EQ(exit_status(second), 2) << second.output();
    EXPECT_NE(second.output().find("address already in use"), std::string::npos) << second.output();
  }
  for (int i = 0; i < 8; ++i) EXPECT_EQ(curl({base_url(port) + "/a.txt"}).body, "first");
  stop_cleanly(first);
}

// --- --bind ------------------------------------------------------------------------------------

TEST(SquallServeExtras, BindAcceptsAHostNameAndListensOnItsAddress) {
  TempDir dir;
  dir.write("a.txt", "local");
  Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0", "--bind", "localhost"});
  ASSERT_NE(port, 0) << p.output();
  EXPECT_NE(p.output().find(cat(" at http://127.0.0.1:", std::to_string(port), "/")),
            std::string::npos)
      << p.output();
  EXPECT_EQ(curl({cat("http://localhost:", std::to_string(port), "/a.txt")}).body, "local");
  stop_cleanly(p);
}

TEST(SquallServeExtras, BindToANameThatDoesNotResolveSaysSo) {
  TempDir dir;
  Process p = start_failing_serve({dir.path().string(), "--bind", "nowhere.invalid"});
  EXPECT_EQ(exit_status(p), 2) << p.output();
  EXPECT_NE(p.output().find("--bind"), std::string::npos) << p.output();
  EXPECT_NE(p.output().find("nowhere.invalid"), std::string::npos) << p.output();
}

// --- the access log ----------------------------------------------------------------------------

const char* const kTime = R"(\[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\])";

TEST(SquallServeExtras, AccessLogWritesCombinedLinesToAFile) {
  TempDir dir;
  dir.write("a.txt", "A");
  std::filesystem::path log = dir.path() / "logs" / "access.log";
  std::filesystem::create_directories(log.parent_path());
  Process p;
  uint16_t port = start_serve(
      p, {dir.path().string(), "--port", "0", "--access-log", log.string(), "--workers", "2"});
  ASSERT_NE(port, 0) << p.output();
  std::string url = base_url(port) + "/a.txt";
  EXPECT_EQ(curl({url, "-A", "agent \"quoted\"", "-e", "http://example.test/from"}).body, "A");
  EXPECT_EQ(curl({"-I", url}).status, 200);
  EXPECT_EQ(curl({base_url(port) + "/missing"}).status, 404);
  stop_cleanly(p);
  std::string lines = read_file(log);
  std::string a = cat(R"(127\.0\.0\.1 - - )", kTime, R"( "GET /a\.txt HTTP/1\.1" 200 1 )",
                      R"("http://example\.test/from" "agent \\x22quoted\\x22"\n)");
  std::string head =
      cat(R"(127\.0\.0\.1 - - )", kTime, R"( "HEAD /a\.txt HTTP/1\.1" 200 0 "-" "curl/[^"]+"\n)");
  std::string missing =
      cat(R"(127\.0\.0\.1 - - )", kTime, R"( "GET /missing HTTP/1\.1" 404 \d+ "-" "curl/[^"]+"\n)");
  EXPECT_TRUE(std::regex_match(lines, std::regex(a + head + missing))) << lines;
  EXPECT_EQ(p.output().find("GET /a.txt"), std::string::npos) << "the log went to the file only";
}

TEST(SquallServeExtras, AccessLogOnStandardOutputInCommonFormat) {
  TempDir dir;
  dir.write("a.txt", "A");
  Process p;
  uint16_t port = start_serve(
      p, {dir.path().string(), "--port", "0", "--access-log", "-", "--log-format", "common"});
  ASSERT_NE(port, 0) << p.output();
  EXPECT_EQ(curl({base_url(port) + "/a.txt?x=%22"}).body, "A");
  stop_cleanly(p);
  std::smatch m;
  std::string out = p.output();
  EXPECT_TRUE(std::regex_search(out, m,
                                std::regex(cat(R"(\n127\.0\.0\.1 - - )", kTime,
                                               R"( "GET /a\.txt\?x=%22 HTTP/1\.1" 200 1\n)"))))
      << out;
}

TEST(SquallServeExtras, AnAccessLogThatCannotBeOpenedIsAnError) {
  TempDir dir;
  Process p = start_failing_serve(
      {dir.path().string(), "--port", "0", "--access-log", (dir.path() / "no/such/dir").string()});
  EXPECT_EQ(exit_status(p), 2) << p.output();
  EXPECT_NE(p.output().find("access log"), std::string::npos) << p.output();
  Process bad = start_failing_serve({dir.path().string(), "--log-format", "json"});
  EXPECT_EQ(exit_status(bad), 2) << bad.output();
  EXPECT_NE(bad.output().find("--log-format"), std::string::npos) << bad.output();
}

// --- hidden paths ------------------------------------------------------------------------------

void write_hidden_site(const TempDir& dir) {
  dir.write(".env", "SECRET=1");
  dir.write(".git/config", "[core]");
  dir.write("a/.hidden/x", "x");
  dir.write("a/visible.txt", "visible");
  dir.write(".well-known/security.txt", "Contact: mailto:security@example.test");
}

TEST(SquallServeExtras, HiddenPathsAre404WhateverTheirSpelling) {
  TempDir dir;
  write_hidden_site(dir);
  Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0"});
  ASSERT_NE(port, 0) << p.output();
  for (const char* target : {"/.env", "/.git/config", "/.git/", "/.git", "/a/.hidden/x",
                             "/%2egit/config", "/%2Eenv", "/a/%2ehidden/x", "/a/./.hidden/x"}) {
    Reply r = raw_get(port, target);
    EXPECT_EQ(r.status, 404) << target;
    EXPECT_EQ(r.body.find("SECRET"), std::string::npos) << target;
  }
  EXPECT_EQ(raw_get(port, "/%2e%2e/").status, 403);
  EXPECT_EQ(raw_get(port, "/a/%2e%2e/.env").status, 403);
  EXPECT_EQ(raw_get(port, "/a/visible.txt").body, "visible");
  EXPECT_EQ(raw_get(port, "/.well-known/security.txt").status, 200);
  stop_cleanly(p);
}

TEST(SquallServeExtras, DotfilesServesHiddenPaths) {
  TempDir dir;
  write_hidden_site(dir);
  Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0", "--dotfiles"});
  ASSERT_NE(port, 0) << p.output();
  EXPECT_EQ(raw_get(port, "/.env").body, "SECRET=1");
  EXPECT_EQ(raw_get(port, "/a/.hidden/x").body, "x");
  EXPECT_EQ(raw_get(port, "/%2e%2e/").status, 403);
  stop_cleanly(p);
}

// --- listings ----------------------------------------------------------------------------------

TEST(SquallServeExtras, ListShowsADirectoryWithoutIndexSortedAndEscaped) {
  TempDir dir;
  dir.write("d/b.txt", "bb");
  dir.write("d/a<script>&\"'.txt", "x");
  dir.write("d/zdir/inner.txt", "i");
  dir.write("d/adir/inner.txt", "i");
  dir.write("d/.secret", "s");
  dir.write("withindex/index.html", "<p>index</p>");
  Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0", "--list"});
  ASSERT_NE(port, 0) << p.output();
  Reply r = curl({base_url(port) + "/d/"});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(r.body.find("<title>Index of /d/</title>"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("<script>"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find(".secret"), std::string::npos) << r.body;
  size_t up = r.body.find("<a href=\"../\">../</a>");
  size_t adir = r.body.find("<a href=\"adir/\">adir/</a>");
  size_t zdir = r.body.find("<a href=\"zdir/\">zdir/</a>");
  size_t odd =
      r.body.find("<a href=\"a%3Cscript%3E%26%22%27.txt\">a&lt;script&gt;&amp;&quot;&#39;.txt</a>");
  size_t b = r.body.find("<a href=\"b.txt\">b.txt</a>");
  ASSERT_NE(up, std::string::npos) << r.body;
  ASSERT_NE(adir, std::string::npos) << r.body;
  ASSERT_NE(zdir, std::string::npos) << r.body;
  ASSERT_NE(odd, std::string::npos) << r.body;
  ASSERT_NE(b, std::string::npos) << r.body;
  EXPECT_LT(up, adir);
  EXPECT_LT(adir, zdir);
  EXPECT_LT(zdir, odd);  // directories first, then files, each by name
  EXPECT_LT(odd, b);
  // Each link leads to what it names.
  EXPECT_EQ(curl({base_url(port) + "/d/a%3Cscript%3E%26%22%27.txt"}).body, "x");
  EXPECT_EQ(curl({base_url(port) + "/withindex/"}).body, "<p>index</p>");
  EXPECT_EQ(curl({base_url(port) + "/d/.secret"}).status, 404);
  Reply root = curl({base_url(port) + "/"});
  EXPECT_EQ(root.body.find("href=\"../\""), std::string::npos) << root.body;
  EXPECT_NE(root.body.find("href=\"d/\""), std::string::npos) << root.body;
  stop_cleanly(p);
}

TEST(SquallServeExtras, WithoutListADirectoryWithoutIndexIs404) {
  TempDir dir;
  dir.write("d/b.txt", "bb");
  Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0"});
  ASSERT_NE(port, 0) << p.output();
  Reply r = curl({base_url(port) + "/d/"});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body.find("b.txt"), std::string::npos);
  stop_cleanly(p);
}

// --- compression -------------------------------------------------------------------------------

std::string page_text() {
  std::string text;
  for (int i = 0; i < 400; ++i) text.append("<p>line ").append(std::to_string(i)).append("</p>\n");
  return text;
}

TEST(SquallServeExtras, TextGoesOutInTheCodingTheClientAcceptsWithItsOwnETag) {
  TempDir dir;
  const std::string text = page_text();
  dir.write("page.html", text);
  dir.write("image.png", text);  // not a text type, whatever its bytes
  Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0"});
  ASSERT_NE(port, 0) << p.output();
  const std::string url = base_url(port) + "/page.html";

  Reply plain = curl({url});
  EXPECT_EQ(plain.body, text);
  EXPECT_EQ(plain.header("Content-Encoding"), "");
  EXPECT_EQ(plain.header("Vary"), "Accept-Encoding");

  Reply gz = curl({url, "-H", "Accept-Encoding: gzip"});
  EXPECT_EQ(gz.header("Content-Encoding"), "gzip");
  EXPECT_EQ(gz.header("Vary"), "Accept-Encoding");
  EXPECT_LT(gz.body.size(), text.size());
  EXPECT_EQ(std::to_string(gz.body.size()), gz.header("Content-Length"));
  EXPECT_EQ(http::decode_content("gzip", gz.body), text);

  Reply zst = curl({url, "-H", "Accept-Encoding: zstd"});
  EXPECT_EQ(zst.header("Content-Encoding"), "zstd");
  EXPECT_EQ(http::decode_content("zstd", zst.body), text);

  // curl --compressed decodes whatever it chose; the client weighs codings, the server obeys.
  EXPECT_EQ(run_curl({"--compressed", url}), text);
  EXPECT_EQ(curl({url, "-H", "Accept-Encoding: zstd;q=0.5, gzip"}).header("Content-Encoding"),
            "gzip");
  EXPECT_EQ(curl({url, "-H", "Accept-Encoding: gzip;q=0, *;q=0"}).header("Content-Encoding"), "");

  // One ETag per encoding, and each revalidates only its own.
  std::set<std::string> etags{plain.header("ETag"), gz.header("ETag"), zst.header("ETag")};
  EXPECT_EQ(etags.size(), 3u);
  Reply again =
      curl({url, "-H", "Accept-Encoding: gzip", "-H", "If-None-Match: " + gz.header("ETag")});
  EXPECT_EQ(again.status, 304);
  EXPECT_EQ(again.header("ETag"), gz.header("ETag"));
  EXPECT_EQ(again.header("Vary"), "Accept-Encoding");
  EXPECT_EQ(curl({url, "-H", "Accept-Encoding: zstd", "-H", "If-None-Match: " + gz.header("ETag")})
                .status,
            200);

  // HEAD says what GET sends.
  Reply head = curl({"-I", url, "-H", "Accept-Encoding: gzip"});
  EXPECT_EQ(head.header("Content-Length"), gz.header("Content-Length"));
  EXPECT_EQ(head.header("Content-Encoding"), "gzip");

  // A range is a range of the file itself, never of one encoding.
  Reply range = curl({url, "-H", "Accept-Encoding: gzip", "-r", "3-9"});
  EXPECT_EQ(range.status, 206);
  EXPECT_EQ(range.header("Content-Encoding"), "");
  EXPECT_EQ(range.body, text.substr(3, 7));

  Reply png = curl({base_url(port) + "/image.png", "-H", "Accept-Encoding: gzip"});
  EXPECT_EQ(png.header("Content-Encoding"), "");
  EXPECT_EQ(png.header("Vary"), "");
  EXPECT_EQ(png.body, text);
  stop_cleanly(p);
}

TEST(SquallServeExtras, APrecompressedSiblingIsPreferredUnlessOlderThanTheFile) {
  TempDir dir;
  const std::string text = page_text();
  dir.write("app.js", text);
  // The sibling's content proves which bytes were sent.
  std::filesystem::path gz = dir.write("app.js.gz", "");
  {
    Process gzip =
        Process::start({"sh", "-c", "printf 'from the sibling' | gzip -9 > \"$0\"", gz.string()});
    ASSERT_EQ(gzip.wait(std::chrono::seconds(20)), 0) << gzip.output();
  }
  dir.write("old.css", text);
  std::filesystem::path old_gz = dir.write("old.css.gz", "stale");
  std::filesystem::last_write_time(
      old_gz, std::filesystem::last_write_time(dir.path() / "old.css") - std::chrono::hours(1));
  Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0"});
  ASSERT_NE(port, 0) << p.output();

  Reply r = curl({base_url(port) + "/app.js", "-H", "Accept-Encoding: zstd, gzip"});
  EXPECT_EQ(r.header("Content-Encoding"), "gzip");  // an existing file beats compressing anew
  EXPECT_EQ(r.header("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(http::decode_content("gzip", r.body), "from the sibling");
  Reply zst = curl({base_url(port) + "/app.js", "-H", "Accept-Encoding: zstd"});
  EXPECT_EQ(http::decode_content("zstd", zst.body), text);

  Reply old = curl({base_url(port) + "/old.css", "-H", "Accept-Encoding: gzip"});
  EXPECT_EQ(old.header("Content-Encoding"), "gzip");
  EXPECT_EQ(http::decode_content("gzip", old.body), text);
  stop_cleanly(p);
}

TEST(SquallServeExtras, NoCompressSendsTextAsItIs) {
  TempDir dir;
  dir.write("page.html", page_text());
  Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0", "--no-compress"});
  ASSERT_NE(port, 0) << p.output();
  Reply r = curl({base_url(port) + "/page.html", "-H", "Accept-Encoding: gzip, zstd"});
  EXPECT_EQ(r.header("Content-Encoding"), "");
  EXPECT_EQ(r.header("Vary"), "");
  EXPECT_EQ(r.body, page_text());
  stop_cleanly(p);
}

}  // namespace
}  // namespace squall::test
