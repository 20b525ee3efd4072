// `squall fetch` and `squall crawl`, the built command, against a server that sends a real
// decompression bomb (1.1 GB of zeros in about 1.1 MB of gzip or zstd), and a real-ish 100 MiB
// log compressed 10:1 that must come through untouched.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "squall/core.h"
#include "squall/http/h1_connection.h"
#include "squall/net/net_error.h"
#include "support/compress.h"
#include "support/process.h"
#include "support/server_thread.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using http::ContentCoding;
using test::Process;
using test::TempDir;
using namespace std::chrono_literals;

const std::string& kSquall = test::squall_binary();
constexpr size_t kMiB = size_t{1} << 20;

// 1 MiB of the access log, gzipped once: the log is this member sent 100 times, which a client
// decodes as one gzip body of 100 MiB.
const std::string& log_block() {
  static const std::string block = test::access_log(kMiB);
  return block;
}
const std::string& log_member() {
  static const std::string member = [] {
    test::Compressor gzip(ContentCoding::Gzip, 6);
    std::string out = gzip.write(log_block());
    out += gzip.finish();
    return out;
  }();
  return member;
}

// Sends 1100 MiB of zeros as gzip members or zstd frames of 1 MiB each, chunked, one piece per
// write: the bomb is never held whole, and the server stops when the client hangs up.
Task<void> send_bomb(Stream& s, ContentCoding coding) {
  std::string piece = test::compressed_zeros(coding, kMiB);
  co_await s.write("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: " +
                   std::string(http::content_coding_name(coding)) +
                   "\r\nTransfer-Encoding: chunked\r\n\r\n");
  std::string chunk;
  http::append_chunk_size(chunk, piece.size());
  chunk += piece;
  chunk += "\r\n";
  for (int i = 0; i < 1100; ++i) co_await s.write(std::string_view(chunk));
  co_await s.write(http::kLastChunk);
}

Task<void> serve(Stream& s) {
  for (;;) {
    std::string head;
    try {
      head = co_await s.read_until("\r\n\r\n", 64 * 1024);
    } catch (const NetError&) {
      co_return;
    }
    std::string_view path(head);
    path = path.substr(path.find(' ') + 1);
    path = path.substr(0, path.find(' '));
    if (path == "/bomb.gz" || path == "/bomb.zst") {
      co_await send_bomb(s, path == "/bomb.gz" ? ContentCoding::Gzip : ContentCoding::Zstd);
    } else if (path == "/access.log") {
      co_await s.write(
          "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\n"
          "Content-Length: " +
          std::to_string(100 * log_member().size()) + "\r\n\r\n");
      for (int i = 0; i < 100; ++i) co_await s.write(std::string_view(log_member()));
    } else if (path == "/") {
      std::string page = "<a href=/bomb.gz>bomb</a> <a href=/page.html>page</a>";
      co_await s.write("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " +
                       std::to_string(page.size()) + "\r\n\r\n" + page);
    } else if (path == "/page.html") {
      co_await s.write(
          "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 4\r\n\r\npage");
    } else {
      co_await s.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    }
  }
}

// Runs the built squall with `args` in `dir`; its exit status (-1 if it did not exit).
int squall(const std::vector<std::string>& args, const TempDir& dir, std::string& output) {
  std::vector<std::string> argv = {kSquall};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p = Process::start(argv, dir.path());
  int status = p.wait(120s);
  output = p.output();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

TEST(FetchBomb, AGzipOrZstdBombStopsWithExit63NamingTheRatioAndTheFlag) {
  test::ServerThread server(serve);
  TempDir work;
  for (std::string path : {"/bomb.gz", "/bomb.zst"}) {
    SCOPED_TRACE(path);
    std::string err;
    EXPECT_EQ(squall({"fetch", server.url(path), "-o", "out"}, work, err), 63) << err;
    EXPECT_TRUE(contains(err, "squall fetch: too large: decompression bomb: the ")) << err;
    EXPECT_TRUE(contains(err, ":1, where no real page passes 200:1 beyond 16777216 bytes) (GET " +
                                  server.url(path) + "); --max-ratio 0 turns the guard off\n"))
        << err;
    // What reached the file stops at the guard's 16 MiB, not at the bomb's 1.1 GB.
    size_t written = std::filesystem::file_size(work.path() / "out");
    EXPECT_GT(written, 8 * kMiB);
    EXPECT_LE(written, 16 * kMiB);
  }
}

TEST(FetchBomb, MaxRatioZeroTurnsTheGuardOff) {
  test::ServerThread server(serve);
  TempDir work;
  std::string err;
  // Without the guard only --max-filesize stops the bomb, at 48 MiB.
  EXPECT_EQ(squall({"fetch", server.url("/bomb.gz"), "-o", "out", "--max-ratio", "0",
                    "--max-filesize", std::to_string(48 * kMiB)},
                   work, err),
            63)
      << err;
  EXPECT_TRUE(contains(err, "decoded body exceeds the limit of 50331648 bytes")) << err;
  EXPECT_FALSE(contains(err, "--max-ratio")) << err;
  EXPECT_GT(std::filesystem::file_size(work.path() / "out"), 32 * kMiB);
  // A ratio of 2000 lets zeros through too (gzip's is about 1000:1).
  EXPECT_EQ(squall({"fetch", server.url("/bomb.gz"), "-o", "out", "--max-ratio", "2000",
                    "--max-filesize", std::to_string(48 * kMiB)},
                   work, err),
            63)
      << err;
  EXPECT_TRUE(contains(err, "decoded body exceeds the limit of 50331648 bytes")) << err;
}

TEST(FetchBomb, AHundredMiBLogCompressedTenToOneDownloadsUntouched) {
  ASSERT_GT(log_member().size(), kMiB / 12) << "the log compresses about 10:1, not more";
  ASSERT_LT(log_member().size(), kMiB / 8);
  test::ServerThread server(serve);
  TempDir work;
  std::string err;
  ASSERT_EQ(squall({"fetch", server.url("/access.log"), "-o", "access.log"}, work, err), 0) << err;
  std::ifstream in(work.path() / "access.log", std::ios::binary);
  std::string piece(kMiB, '\0');
  int pieces = 0;
  while (in.read(piece.data(), static_cast<std::streamsize>(piece.size()))) {
    ASSERT_TRUE(piece == log_block()) << "MiB " << pieces << " differs";
    ++pieces;
  }
  EXPECT_EQ(in.gcount(), 0);
  EXPECT_EQ(pieces, 100);
}

TEST(FetchBomb, ACrawlDropsTheBombPageAndSaysWhy) {
  test::ServerThread server(serve);
  TempDir work;
  std::string err;
  // A page limit above the guard's 16 MiB (the default, 10 MiB, would stop the bomb first).
  ASSERT_EQ(squall({"crawl", server.url("/"), "--max-page-size", std::to_string(512 * kMiB),
                    "--retries", "0", "--jsonl", "pages.jsonl"},
                   work, err),
            0)
      << err;
  EXPECT_TRUE(contains(err, "errors: decompression bomb×1")) << err;
  EXPECT_TRUE(contains(err, "--max-ratio 0 turns it off")) << err;
  std::map<std::string, nlohmann::json> pages;
  std::istringstream lines(test::read_file(work.path() / "pages.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    auto page = nlohmann::json::parse(line);
    pages[page["url"].get<std::string>()] = page;
  }
  ASSERT_EQ(pages.size(), 3u) << test::read_file(work.path() / "pages.jsonl");
  std::string error = pages[server.url("/bomb.gz")]["error"].get<std::string>();
  EXPECT_TRUE(contains(error, "too large: decompression bomb: the gzip body decoded to ")) << error;
  EXPECT_TRUE(contains(error, "where no real page passes 200:1")) << error;
  EXPECT_EQ(pages[server.url("/page.html")]["status"], 200);
}

}  // namespace
}  // namespace squall
