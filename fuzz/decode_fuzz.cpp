// Fuzzes the content decoders: one piece or two must agree, and the output never passes the bound.
//
// Input: byte 0 picks the Content-Encoding, byte 1 where the body is cut in two, the rest is the
// body. The bound is small so that bombs are cheap to find.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "squall/http/decode.h"

using namespace squall;
using namespace squall::http;

namespace {

constexpr size_t kBound = 256 * 1024;

constexpr std::string_view kCodings[] = {"gzip",        "deflate",    "br",
                                         "zstd",        "identity",   "gzip, br",
                                         "br, deflate", "zstd, gzip", "x-gzip, zstd"};

void check(bool condition) {
  if (!condition) std::abort();
}

struct Outcome {
  std::string output;
  std::optional<ErrorKind> error;
};

Outcome decode(std::string_view coding, std::string_view body, size_t cut) {
  Outcome outcome;
  ContentDecoder decoder(coding, kBound);
  try {
    for (std::string_view piece : {body.substr(0, cut), body.substr(cut)}) {
      decoder.feed(piece, [&](std::string_view bytes) {
        check(!bytes.empty());
        outcome.output.append(bytes);
        check(outcome.output.size() <= kBound);
      });
    }
    decoder.finish();
  } catch (const DecodeError& e) {
    check(e.kind() == ErrorKind::Protocol || e.kind() == ErrorKind::TooLarge);
    outcome.error = e.kind();
  }
  check(decoder.decoded_size() == outcome.output.size());
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  std::string_view coding = kCodings[data[0] % std::size(kCodings)];
  std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);
  size_t cut = body.empty() ? 0 : data[1] * body.size() / 255;
  Outcome whole = decode(coding, body, body.size());
  Outcome split = decode(coding, body, cut);
  // Whether a body decodes does not depend on how it arrives, nor what it decodes to. A failing
  // body may hand on more or less before the error (brotli holds output back in its window), but
  // what both handed on agrees.
  check(whole.error.has_value() == split.error.has_value());
  if (!whole.error) check(whole.output == split.output);
  size_t common = std::min(whole.output.size(), split.output.size());
  check(whole.output.compare(0, common, split.output, 0, common) == 0);
  return 0;
}
