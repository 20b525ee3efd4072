// WARC 1.1 output: a crawl's requests and responses as web archives keep them (ISO 28500).
//
//   WarcWriter warc = WarcWriter::open("crawl.warc.gz");
//   WarcRecorder recorder(max_page_size);
//   request.capture = &recorder;  // the HTTP client hands it each exchange's bytes
//   co_await client.fetch(std::move(request));
//   for (const WarcExchange& x : recorder.exchanges()) warc.write_exchange(x);
//   warc.flush();
//
// As WARC 1.1 says and Heritrix and wget do, a response record holds the response as it came off
// the wire (status line, header fields, and the body with its transfer and content codings, so
// that a replay tool can serve it), and a request record the bytes the client sent, both under
// the URL of that exchange; each redirect hop is an exchange of its own.
//
// Every record is a gzip member of its own, so a reader may seek to any record and a file cut
// at a record boundary is still valid; offset() after flush() is such a boundary, which the
// crawler stores to truncate back to on resume. A new file starts with a warcinfo record.
// Records carry WARC-Record-ID (a random UUID URN), WARC-Date, WARC-Target-URI, Content-Type
// application/http with its msgtype, WARC-Block-Digest and (for whole responses)
// WARC-Payload-Digest as SHA-1 in base 32, the payload being the body without its transfer
// coding (WARC 1.1's "entity-body"), WARC-IP-Address when known, WARC-Truncated for a response
// cut short, and WARC-Concurrent-To linking a request to its response. Writes are blocking file
// I/O (local disk, small records).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/http/wire_capture.h"

namespace squall {

// One HTTP exchange as it crossed the wire: what WarcRecorder keeps and write_exchange writes.
struct WarcExchange {
  std::string url;                             // the URL the exchange fetched
  std::string ip_address;                      // the peer's address; empty when unknown
  std::chrono::system_clock::time_point date;  // when the exchange began
  std::string request;                         // the bytes sent
  std::string response;                        // the bytes received
  std::string payload_digest;                  // warc_sha1 of the payload; empty when truncated
  // WARC-Truncated: "length" when the response was longer than the recorder keeps,
  // "disconnect" when the exchange failed before the response's end; empty when whole.
  std::string truncated;
};

namespace detail {
class Sha1;
}

// Keeps the exchanges of one fetch as the HTTP client reports them (HttpRequest::capture):
// those that received at least one response byte, in order. Memory is bounded by
// `max_response_bytes` per response (the rest is dropped and the exchange marked truncated) and
// the request heads. Belongs to the fetch's thread.
class WarcRecorder final : public http::WireCapture {
 public:
  explicit WarcRecorder(size_t max_response_bytes);
  ~WarcRecorder() override;
  WarcRecorder(const WarcRecorder&) = delete;
  WarcRecorder& operator=(const WarcRecorder&) = delete;

  const std::vector<WarcExchange>& exchanges() const noexcept { return exchanges_; }

  void begin(const Url& url, const Connection& connection) override;
  void request_head(std::string_view head) override;
  void sent(std::string_view bytes) override;
  void response_head(std::string_view head) override;
  void received(std::string_view bytes) override;
  void payload(std::string_view bytes) override;
  void end(bool complete) override;

 private:
  size_t max_response_bytes_;
  std::vector<WarcExchange> exchanges_;
  std::optional<WarcExchange> current_;
  std::unique_ptr<detail::Sha1> digest_;
};

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

  // A response record and its request record (WARC-Concurrent-To the response). Returns the
  // response record's WARC-Record-ID.
  std::string write_exchange(const WarcExchange& exchange);
  // A response record: `response` as received; `payload_digest` its WARC-Payload-Digest and
  // `truncated` its WARC-Truncated, each left out when empty. Returns the record's ID.
  std::string write_response(std::string_view url, std::string_view response,
                             Clock::time_point date, std::string_view ip_address = {},
                             std::string_view payload_digest = {}, std::string_view truncated = {});
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
  // A record's header fields beyond those every record has.
  struct Fields {
    std::string_view ip_address, concurrent_to, payload_digest, truncated;
  };
  std::string write_record(std::string_view type, std::string_view url,
                           std::string_view content_type, std::string_view block,
                           Clock::time_point date, const Fields& fields);
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
