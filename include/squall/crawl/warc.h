// WARC 1.1 output: a crawl's requests and responses as web archives keep them (ISO 28500).
//
//   WarcWriter warc = WarcWriter::open("crawl.warc.gz");
//   std::string id = warc.write_response(url, head_bytes, body, fetched_at, "127.0.0.1");
//   warc.write_request(url, request_bytes, fetched_at, id);
//   warc.flush();
//
// Every record is a gzip member of its own, so a reader may seek to any record and a file cut
// at a record boundary is still valid; offset() after flush() is such a boundary, which the
// crawler stores to truncate back to on resume. A new file starts with a warcinfo record.
// Records carry WARC-Record-ID (a random UUID URN), WARC-Date, WARC-Target-URI, Content-Type
// application/http with its msgtype, WARC-Block-Digest and (for responses) WARC-Payload-Digest
// as SHA-1 in base 32, WARC-IP-Address when known, and WARC-Concurrent-To linking a request
// to its response. Writes are blocking file I/O (local disk, small records).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace squall {

struct WarcOptions {
  bool gzip = true;                 // one gzip member per record (.warc.gz)
  std::string software = "squall";  // the warcinfo record's `software` field
  std::string description;          // an optional `description` field
};

class WarcWriter {
 public:
  // Opens `path` for appending (created if missing; a warcinfo record starts a new or empty
  // file). Throws squall::Error (kind System) naming the path when it cannot be opened.
  static WarcWriter open(const std::filesystem::path& path, WarcOptions options = {});

  WarcWriter(WarcWriter&& other) noexcept;
  WarcWriter& operator=(WarcWriter&& other) noexcept;
  WarcWriter(const WarcWriter&) = delete;
  WarcWriter& operator=(const WarcWriter&) = delete;
  ~WarcWriter();  // flushes and closes

  using Clock = std::chrono::system_clock;

  // A response record: `head` is the status line and header fields as received (ending with
  // the blank line), `body` the payload. Returns the record's WARC-Record-ID.
  std::string write_response(std::string_view url, std::string_view head, std::string_view body,
                             Clock::time_point date, std::string_view ip_address = {});
  // A request record: the request as sent, linked to its response by `concurrent_to` (a record
  // ID returned by write_response; empty for none). Returns the record's ID.
  std::string write_request(std::string_view url, std::string_view request, Clock::time_point date,
                            std::string_view concurrent_to = {});

  // Pushes buffered records to the file (fflush). Throws squall::Error on a write failure.
  void flush();
  // Bytes in the file after everything written so far: a record boundary.
  uint64_t offset() const noexcept { return offset_; }
  const std::filesystem::path& path() const noexcept { return path_; }
  uint64_t records() const noexcept { return records_; }

 private:
  WarcWriter() = default;
  std::string write_record(std::string_view type, std::string_view url,
                           std::string_view content_type, std::string_view block,
                           std::string_view payload, Clock::time_point date,
                           std::string_view ip_address, std::string_view concurrent_to);
  void append(std::string_view bytes);
  void close() noexcept;

  std::filesystem::path path_;
  WarcOptions options_;
  std::FILE* file_ = nullptr;
  uint64_t offset_ = 0;
  uint64_t records_ = 0;
  std::string scratch_;  // the record being assembled, reused
  std::string packed_;   // its gzip member, reused
};

// The WARC-Date form of a time: "2026-11-29T23:01:02Z".
std::string warc_date(std::chrono::system_clock::time_point time);
// "sha1:" and the RFC 4648 base-32 SHA-1 of `bytes`, as WARC digests are written.
std::string warc_sha1(std::string_view bytes);

}  // namespace squall
