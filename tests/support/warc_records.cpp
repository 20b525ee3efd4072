// WARC files read back record by record, for tests.
#include "support/warc_records.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <sstream>

#include "support/process.h"

namespace squall::test {

std::vector<std::string> gzip_members(const std::string& file) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < file.size()) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
    std::string member;
    char buf[4096];
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(file.data() + at));
    z.avail_in = static_cast<uInt>(file.size() - at);
    int rc;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      rc = inflate(&z, Z_NO_FLUSH);
      member.append(buf, sizeof buf - z.avail_out);
    } while (rc == Z_OK);
    EXPECT_EQ(rc, Z_STREAM_END) << "member at " << at;
    at += z.total_in;
    inflateEnd(&z);
    if (rc != Z_STREAM_END) break;
    out.push_back(member);
  }
  return out;
}

WarcRecord parse_warc_record(const std::string& text) {
  WarcRecord r;
  EXPECT_EQ(text.substr(0, 10), "WARC/1.1\r\n");
  size_t end = text.find("\r\n\r\n");
  if (end == std::string::npos) {
    ADD_FAILURE() << "a WARC record without the blank line after its fields";
    return r;
  }
  std::istringstream head(text.substr(10, end - 10));
  for (std::string line; std::getline(head, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t colon = line.find(": ");
    EXPECT_NE(colon, std::string::npos) << line;
    if (colon != std::string::npos) r.fields[line.substr(0, colon)] = line.substr(colon + 2);
  }
  size_t length = std::stoul(r.fields["Content-Length"]);
  r.block = text.substr(end + 4, length);
  EXPECT_EQ(r.block.size(), length) << "a block shorter than its Content-Length";
  EXPECT_EQ(text.substr(end + 4 + r.block.size()), "\r\n\r\n") << "record must end with two CRLFs";
  return r;
}

std::vector<WarcRecord> read_warc(const std::filesystem::path& path) {
  std::vector<WarcRecord> out;
  for (const std::string& member : gzip_members(read_file(path)))
    out.push_back(parse_warc_record(member));
  return out;
}

}  // namespace squall::test
