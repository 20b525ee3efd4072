// Content encoding: one-shot gzip through zlib and zstd through libzstd.
#include "squall/http/encode.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>

#include "squall/core/error.h"

namespace squall::http {

namespace {

std::string gzip(std::string_view body) {
  z_stream z{};
  // windowBits 15 + 16: a gzip wrapper instead of zlib's.
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error(ErrorKind::System, "gzip: cannot start the compressor");
  std::string out(deflateBound(&z, static_cast<uLong>(body.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int status = Z_OK;
  // avail_in is 32 bits: feed larger bodies in pieces.
  std::string_view rest = body;
  while (status == Z_OK) {
    if (z.avail_in == 0 && !rest.empty()) {
      size_t piece = std::min<size_t>(rest.size(), UINT_MAX);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(rest.data()));
      z.avail_in = static_cast<uInt>(piece);
      rest.remove_prefix(piece);
    }
    status = deflate(&z, rest.empty() ? Z_FINISH : Z_NO_FLUSH);
  }
  size_t written = z.total_out;
  deflateEnd(&z);
  if (status != Z_STREAM_END) throw Error(ErrorKind::System, "gzip: the compressor failed");
  out.resize(written);
  return out;
}

std::string zstd(std::string_view body) {
  std::string out(ZSTD_compressBound(body.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), body.data(), body.size(), 3);
  if (ZSTD_isError(n)) {
    std::string detail = "zstd: ";
    detail.append(ZSTD_getErrorName(n));
    throw Error(ErrorKind::System, detail);
  }
  out.resize(n);
  return out;
}

}  // namespace

std::string encode_content(ContentCoding coding, std::string_view body) {
  switch (coding) {
    case ContentCoding::Gzip:
      return gzip(body);
    case ContentCoding::Zstd:
      return zstd(body);
    default:
      break;
  }
  std::string detail = "encode_content: no encoder for ";
  detail.append(content_coding_name(coding));
  throw InvalidArgumentError(detail);
}

}  // namespace squall::http
