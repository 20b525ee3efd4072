// Bodies compressed in the test as a server compresses them, a piece at a time (zlib, brotli and
// zstd in process), for bodies too large to hold: decompression bombs and big text files.
//
//   test::Compressor gzip(http::ContentCoding::Gzip);
//   for (...) send(gzip.write(piece));
//   send(gzip.finish());
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "squall/http/decode.h"

namespace squall::test {

class Compressor {
 public:
  // gzip (RFC 1952), deflate (a zlib stream), br or zstd, at the library's `level` (zlib 1-9,
  // brotli 0-11, zstd 1-19; -1 for each library's default).
  explicit Compressor(http::ContentCoding coding, int level = -1);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  // Compresses `data`; returns what came out so far (often nothing).
  std::string write(std::string_view data);
  // Ends the stream; returns the rest. The compressor is spent afterwards.
  std::string finish();

  class Engine;  // one library's stream (compress.cpp)

 private:
  std::unique_ptr<Engine> engine_;
};

// `size` zero bytes (rounded up to whole MiB) compressed with `coding`: a decompression bomb.
// Made fast: gzip and zstd as 1 MiB members (frames) compressed once and repeated, which
// decoders take as one body; deflate as one zlib stream at level 9, brotli at quality 5.
std::string compressed_zeros(http::ContentCoding coding, size_t size);

// `size` bytes of a web server's access log (addresses, times, paths, statuses, sizes, user
// agents drawn from a fixed seed): real-ish text that gzip -6 compresses about 10:1.
std::string access_log(size_t size, uint32_t seed = 1);

}  // namespace squall::test
