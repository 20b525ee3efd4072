// Content encoding, the other way from decode.h: a whole body compressed as gzip or zstd.
//
//   std::string gz = encode_content(ContentCoding::Gzip, text);   // Content-Encoding: gzip
//
// For bodies already in memory (the static file server compresses text files up to a bound):
// the output is one gzip member (RFC 1952, zlib's default level 6) or one zstd frame (RFC 8878,
// level 3, its content size recorded), which decode_content() and every browser read back. The
// output depends only on the input and the library's version, so a representation compressed
// twice is the same bytes.
#pragma once

#include <string>
#include <string_view>

#include "squall/http/decode.h"

namespace squall::http {

// `body` compressed with `coding`. Gzip and Zstd only: InvalidArgumentError for the others
// (deflate's two meanings make it a poor choice to send; br has no encoder here). Throws
// Error (kind System) if the library fails (out of memory).
std::string encode_content(ContentCoding coding, std::string_view body);

}  // namespace squall::http
