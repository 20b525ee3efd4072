// Fuzzes squall::RespParser: the first byte picks small limits and the size of the pieces; the rest
// is what a server sent. The parser must report the same replies and the same failure whether it
// reads the bytes whole or in pieces, never take more than it was given, never hand out a reply
// that costs more than max_reply_bytes or nests deeper than max_depth, and stay failed once failed.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "squall/net/resp.h"

namespace {

using squall::RedisReply;
using squall::RespEvent;
using squall::RespLimits;
using squall::RespParser;

void check(bool condition) {
  if (!condition) std::abort();
}

// What a reply costs against max_reply_bytes, and how deep it nests.
size_t cost(const RedisReply& r, size_t depth, size_t& max_depth) {
  if (r.is_aggregate() && depth > max_depth) max_depth = depth;
  size_t total = sizeof(RedisReply) + r.str.size();
  for (const auto& e : r.elements) total += cost(e, depth + 1, max_depth);
  return total;
}

struct Report {
  std::vector<std::string> replies;
  std::string failure;
  bool operator==(const Report&) const = default;
};

Report parse(const std::string& bytes, size_t piece, RespLimits limits) {
  RespParser parser(limits);
  Report report;
  size_t offset = 0;
  while (offset < bytes.size() && report.failure.empty()) {
    size_t n = std::min(piece, bytes.size() - offset);
    std::string_view input(bytes.data() + offset, n);
    offset += n;
    while (!input.empty()) {
      auto [event, used] = parser.next(input);
      check(used <= input.size());
      input.remove_prefix(used);
      if (event == RespEvent::NeedMore) {
        check(input.empty());
      } else if (event == RespEvent::Reply) {
        RedisReply r = parser.take();
        size_t depth = 0;
        check(cost(r, 1, depth) <= limits.max_reply_bytes);
        check(depth <= limits.max_depth);
        report.replies.push_back(r.to_string());
      } else {
        check(!parser.fail_reason().empty());
        check(parser.failed());
        report.failure = parser.fail_reason();
        auto again = parser.next("+OK\r\n");
        check(again.event == RespEvent::Fail && again.used == 0);
        break;
      }
    }
  }
  return report;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t knobs = data[0];
  RespLimits limits;
  if (knobs & 1) limits.max_reply_bytes = 4096;
  if (knobs & 2) limits.max_depth = 3;
  const size_t piece = (knobs >> 2) + 1;  // 1 to 64 bytes
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  Report whole = parse(bytes, bytes.size() + 1, limits);
  Report pieces = parse(bytes, piece, limits);
  check(whole == pieces);
  return 0;
}
