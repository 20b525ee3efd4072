// JSON lines output: one JSON object per crawled page, what `squall crawl --jsonl` writes.
//
//   JsonLinesWriter out = JsonLinesWriter::open("pages.jsonl");  // "-": standard output
//   out.write(page, fetched_at);
//   out.flush();
//   if (auto offset = out.offset()) store.set_meta("jsonl_offset", std::to_string(*offset));
//
// Each line is {"url", "final_url", "status", "depth", "parent", "content_type", "length",
// "fetched_at", "elapsed_ms", "links", "error", "error_kind", "title", "redirects",
// "content_length", "last_modified", "etag"} in that order, and "outlinks" last when the writer
// was opened with `links` (CrawledPage says what each holds). parent, error, error_kind, title,
// content_length, last_modified and etag are null when absent; redirects and outlinks are arrays
// of URLs; fetched_at is UTC with milliseconds ("2026-11-29T23:01:02.345Z"), elapsed_ms has three
// decimals. A fetch that got no HTTP status has status 599 and its error_kind. Strings go through
// append_json_string, so every line parses whatever bytes a server sent. A file is appended to;
// offset() after flush() is a line boundary, which the crawler stores to truncate back to on resume
// (as it does for WARC). Writes are buffered stdio, on the calling thread; a writer is used by one
// thread at a time.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "squall/crawl/crawled_page.h"

namespace squall {

class JsonLinesWriter {
 public:
  // Opens `path` for appending (created if missing), or takes standard output for "-"; with
  // `links` each line ends with the page's outlinks. Throws squall::Error (kind System) naming
  // the path when it cannot be opened.
  static JsonLinesWriter open(const std::string& path, bool links = false);

  JsonLinesWriter(JsonLinesWriter&& other) noexcept;
  JsonLinesWriter& operator=(JsonLinesWriter&& other) noexcept;
  JsonLinesWriter(const JsonLinesWriter&) = delete;
  JsonLinesWriter& operator=(const JsonLinesWriter&) = delete;
  ~JsonLinesWriter();  // closes a file it opened (standard output stays open)

  // The line of `page`, fetched at `fetched_at` (Unix time in milliseconds).
  void write(const CrawledPage& page, int64_t fetched_at);
  // Pushes buffered lines to the file or standard output (fflush).
  void flush();
  // Bytes in the file after everything flushed: a line boundary. Nothing for standard output,
  // which has no length to cut back to.
  std::optional<uint64_t> offset() const;

 private:
  JsonLinesWriter(std::FILE* file, bool owned, bool links) noexcept
      : file_(file), owned_(owned), links_(links) {}
  void close() noexcept;

  std::FILE* file_ = nullptr;
  bool owned_ = false;  // opened here, closed here; false for standard output
  bool links_ = false;  // write each page's outlinks
  std::string line_;    // the line being written, reused
  static constexpr size_t kBufferSize = size_t{1} << 16;
  std::unique_ptr<char[]> buffer_;  // the file's stdio buffer (none for standard output)
};

// Appends the line of `page`, fetched at `fetched_at` (Unix time in milliseconds), newline
// included, as JsonLinesWriter writes it (its outlinks with `links`): for writers of their own
// (the result worker's export of a crawl over Redis, engine/crawler.h).
void append_page_line(std::string& out, const CrawledPage& page, int64_t fetched_at, bool links);

// Appends `s` as a JSON string: quotes, backslashes and control characters escaped; bytes that
// are not valid UTF-8 become U+FFFD, so the output always parses.
void append_json_string(std::string& out, std::string_view s);

// Appends `value` as compact JSON text, as nlohmann's dump() writes it, strings as
// append_json_string does: a faster writer for the engine's hot path (every task's dicts and
// track are stored as text). Doubles are written shortest-round-trip and keep a fraction ("1.0");
// NaN and infinities become null.
void append_json(std::string& out, const nlohmann::json& value);

// Appends `d` as append_json writes a double: shortest round trip, with a fraction ("1.0"); NaN
// and infinities as null.
void append_json_number(std::string& out, double d);

// Writes a JSON object into a string member by member, with no JSON value built: the engine's
// track of each task is written so. Members come in the order they are given, each key once
// (the caller's care); strings as append_json_string writes them.
//
//   JsonObjectWriter w(out);
//   w.boolean("ok", true).integer("status_code", 200);
//   JsonObjectWriter inner(w.member("fetch"));  // a nested object
//   inner.end();
//   w.end();
class JsonObjectWriter {
 public:
  explicit JsonObjectWriter(std::string& out) : out_(out) { out_.push_back('{'); }
  JsonObjectWriter& null(std::string_view key) {
    this->key(key).append("null");
    return *this;
  }
  JsonObjectWriter& boolean(std::string_view key, bool v) {
    this->key(key).append(v ? "true" : "false");
    return *this;
  }
  JsonObjectWriter& integer(std::string_view key, int64_t v);
  JsonObjectWriter& number(std::string_view key, double v) {
    append_json_number(this->key(key), v);
    return *this;
  }
  JsonObjectWriter& string(std::string_view key, std::string_view v) {
    append_json_string(this->key(key), v);
    return *this;
  }
  // `v` as a string, or null when it is empty (an error or an exception: none).
  JsonObjectWriter& string_or_null(std::string_view key, std::string_view v) {
    return v.empty() ? null(key) : string(key, v);
  }
  // Starts a member whose value the caller appends to the string returned, before the next.
  std::string& member(std::string_view key) { return this->key(key); }
  void end() { out_.push_back('}'); }

 private:
  // Appends `,"key":` (no comma before the first).
  std::string& key(std::string_view key);
  std::string& out_;
  bool first_ = true;
};

// Reads JSON text as nlohmann::json::parse(text, nullptr, false) does (the same value, numbers
// of the same types, and a discarded value for text that is not one JSON document), in about a
// quarter of its time: the engine's hot path reads every task's dicts and every message of the
// split engine with it.
nlohmann::json parse_json(std::string_view text);
// parse_json's object, or {} for empty text and anything that is not a JSON object: how the
// engine reads a stored dict.
nlohmann::json parse_json_object(std::string_view text);

}  // namespace squall
