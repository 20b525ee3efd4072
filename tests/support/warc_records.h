// WARC files read back record by record, for tests: each gzip member inflated, each record's
// version line, header fields and block split as WARC 1.1 lays them out. Failures are test
// failures (GoogleTest's EXPECT), so a broken file fails the test that reads it.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace squall::test {

// Inflates every gzip member of `file` in turn.
std::vector<std::string> gzip_members(const std::string& file);

struct WarcRecord {
  std::map<std::string, std::string> fields;  // by name as written; the last of repeats
  std::string block;                          // Content-Length bytes
};

// One record: "WARC/1.1", its fields, a blank line, Content-Length bytes of block, two CRLFs.
WarcRecord parse_warc_record(const std::string& text);

// Every record of a .warc.gz file (one record per gzip member), in order.
std::vector<WarcRecord> read_warc(const std::filesystem::path& path);

}  // namespace squall::test
