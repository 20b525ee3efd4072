// WARC output: records as the format defines them, each a gzip member that real tools read.
#include "squall/crawl/warc.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <map>
#include <sstream>

#include "squall/core/error.h"
#include "support/process.h"
#include "support/warc_records.h"

namespace squall {
namespace {

using test::Process;
using test::TempDir;

using test::gzip_members;
using test::parse_warc_record;
using test::WarcRecord;

TEST(Warc, Sha1DigestIsBase32) {
  // SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d, in RFC 4648 base 32.
  EXPECT_EQ(warc_sha1("abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
  EXPECT_EQ(warc_sha1(""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
}

TEST(Warc, DateIsUtcToTheSecond) {
  auto t = std::chrono::system_clock::from_time_t(1796000000);
  EXPECT_EQ(warc_date(t), "2026-11-30T00:53:20Z");
}

TEST(Warc, WritesWarcinfoRequestAndResponseAsGzipMembers) {
  TempDir dir;
  auto path = dir.path() / "crawl.warc.gz";
  auto now = std::chrono::system_clock::now();
  std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\n";
  std::string request = "GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  std::string response_id;
  {
    WarcWriter w = WarcWriter::open(path, {.description = "a test crawl"});
    response_id = w.write_response("http://127.0.0.1/a", head + "hello", now, "127.0.0.1",
                                   warc_sha1("hello"));
    std::string request_id = w.write_request("http://127.0.0.1/a", request, now, response_id);
    EXPECT_NE(request_id, response_id);
    w.flush();
    EXPECT_EQ(w.offset(), std::filesystem::file_size(path));
    EXPECT_EQ(w.records(), 3u);
  }
  auto records = gzip_members(test::read_file(path));
  ASSERT_EQ(records.size(), 3u);

  WarcRecord info = parse_warc_record(records[0]);
  EXPECT_EQ(info.fields["WARC-Type"], "warcinfo");
  EXPECT_EQ(info.fields["WARC-Filename"], "crawl.warc.gz");
  EXPECT_EQ(info.fields["Content-Type"], "application/warc-fields");
  EXPECT_NE(info.block.find("format: WARC File Format 1.1\r\n"), std::string::npos);
  EXPECT_NE(info.block.find("description: a test crawl\r\n"), std::string::npos);

  WarcRecord response = parse_warc_record(records[1]);
  EXPECT_EQ(response.fields["WARC-Type"], "response");
  EXPECT_EQ(response.fields["WARC-Record-ID"], response_id);
  EXPECT_EQ(response.fields["WARC-Target-URI"], "http://127.0.0.1/a");
  EXPECT_EQ(response.fields["WARC-IP-Address"], "127.0.0.1");
  EXPECT_EQ(response.fields["Content-Type"], "application/http;msgtype=response");
  EXPECT_EQ(response.fields["WARC-Date"], warc_date(now));
  EXPECT_EQ(response.block, head + "hello");
  EXPECT_EQ(response.fields["WARC-Block-Digest"], warc_sha1(head + "hello"));
  EXPECT_EQ(response.fields["WARC-Payload-Digest"], warc_sha1("hello"));
  EXPECT_EQ(response_id.substr(0, 10), "<urn:uuid:");
  EXPECT_EQ(response_id.size(), 47u);
  EXPECT_EQ(response_id[24], '4') << "a version 4 UUID";

  WarcRecord req = parse_warc_record(records[2]);
  EXPECT_EQ(req.fields["WARC-Type"], "request");
  EXPECT_EQ(req.fields["WARC-Concurrent-To"], response_id);
  EXPECT_EQ(req.fields["Content-Type"], "application/http;msgtype=request");
  EXPECT_EQ(req.block, request);
  EXPECT_EQ(req.fields.count("WARC-Payload-Digest"), 0u);
}

TEST(Warc, TheRecorderKeepsExchangesThatGotAnAnswerAndMarksTheCutOnes) {
  const Url url = *Url::parse("http://h/a#frag");
  WarcRecorder recorder(30);
  recorder.begin(url, {"127.0.0.1:80"});  // resent after a stale connection: nothing came
  recorder.request_head("GET /a HTTP/1.1\r\n\r\n");
  recorder.end(false);
  recorder.begin(url, {"127.0.0.1:80", nullptr, true});
  recorder.request_head("POST /a HTTP/1.1\r\n\r\n");
  recorder.sent("q=1");
  recorder.response_head("HTTP/1.1 200 OK\r\n\r\n");
  recorder.payload("abc");
  recorder.received("abc");
  recorder.end(true);
  recorder.begin(url, {"127.0.0.1:80"});
  recorder.response_head("HTTP/1.1 200 OK\r\n\r\n");
  recorder.received("01234567890123456789");  // past the 30 bytes kept
  recorder.end(true);
  recorder.begin(url, {"127.0.0.1:80"});
  recorder.response_head("HTTP/1.1 200 OK\r\n\r\n");
  recorder.received("abc");
  recorder.end(false);
  const auto& x = recorder.exchanges();
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(x[0].url, "http://h/a");
  EXPECT_EQ(x[0].ip_address, "127.0.0.1");
  EXPECT_EQ(x[0].request, "POST /a HTTP/1.1\r\n\r\nq=1");
  EXPECT_EQ(x[0].response, "HTTP/1.1 200 OK\r\n\r\nabc");
  EXPECT_EQ(x[0].payload_digest, warc_sha1("abc"));
  EXPECT_EQ(x[0].truncated, "");
  EXPECT_EQ(x[1].response.size(), 30u);
  EXPECT_EQ(x[1].truncated, "length");
  EXPECT_EQ(x[1].payload_digest, "") << "no payload digest for a cut record";
  EXPECT_EQ(x[2].truncated, "disconnect");

  TempDir dir;
  auto path = dir.path() / "x.warc.gz";
  std::string id;
  {
    WarcWriter w = WarcWriter::open(path);
    id = w.write_exchange(x[1]);
  }
  auto records = test::read_warc(path);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].fields["WARC-Record-ID"], id);
  EXPECT_EQ(records[1].fields["WARC-Truncated"], "length");
  EXPECT_EQ(records[1].fields.count("WARC-Payload-Digest"), 0u);
  EXPECT_EQ(records[2].fields["WARC-Type"], "request");
  EXPECT_EQ(records[2].fields["WARC-Concurrent-To"], id);
  EXPECT_EQ(records[2].fields["WARC-Target-URI"], "http://h/a");
}

TEST(Warc, ReopeningAppendsWithoutASecondWarcinfo) {
  TempDir dir;
  auto path = dir.path() / "crawl.warc.gz";
  auto now = std::chrono::system_clock::now();
  { WarcWriter::open(path).write_response("http://h/1", "HTTP/1.1 204 No Content\r\n\r\n", now); }
  uint64_t first_size = std::filesystem::file_size(path);
  {
    WarcWriter w = WarcWriter::open(path);
    EXPECT_EQ(w.offset(), first_size);
    w.write_response("http://h/2", "HTTP/1.1 204 No Content\r\n\r\n", now);
  }
  auto records = gzip_members(test::read_file(path));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(parse_warc_record(records[0]).fields["WARC-Type"], "warcinfo");
  EXPECT_EQ(parse_warc_record(records[2]).fields["WARC-Target-URI"], "http://h/2");
}

TEST(Warc, AFileCutAtAnOffsetIsStillValid) {
  TempDir dir;
  auto path = dir.path() / "crawl.warc.gz";
  auto now = std::chrono::system_clock::now();
  uint64_t boundary;
  {
    WarcWriter w = WarcWriter::open(path);
    w.write_response("http://h/kept", "HTTP/1.1 200 OK\r\n\r\nkept", now);
    w.flush();
    boundary = w.offset();
    w.write_response("http://h/dropped", "HTTP/1.1 200 OK\r\n\r\ndropped", now);
  }
  std::filesystem::resize_file(path, boundary);
  auto records = gzip_members(test::read_file(path));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(parse_warc_record(records[1]).fields["WARC-Target-URI"], "http://h/kept");
}

TEST(Warc, RealGzipReadsTheFile) {
  TempDir dir;
  auto path = dir.path() / "crawl.warc.gz";
  {
    WarcWriter w = WarcWriter::open(path);
    std::string big(300000, 'x');
    w.write_response("http://h/big", "HTTP/1.1 200 OK\r\n\r\n" + big,
                     std::chrono::system_clock::now());
  }
  Process gzip = Process::start({"gzip", "-t", path.string()});
  int status = gzip.wait(std::chrono::seconds(30));
  ASSERT_NE(status, -1);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << gzip.output();
}

TEST(Warc, UncompressedRecordsWhenAsked) {
  TempDir dir;
  auto path = dir.path() / "crawl.warc";
  { WarcWriter::open(path, {.gzip = false}); }
  std::string text = test::read_file(path);
  EXPECT_EQ(parse_warc_record(text).fields["WARC-Type"], "warcinfo");
}

TEST(Warc, AnUnwritablePathIsAClearError) {
  try {
    WarcWriter::open("/nonexistent-dir/x.warc.gz");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::System);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.warc.gz"), std::string::npos);
  }
}

}  // namespace
}  // namespace squall
