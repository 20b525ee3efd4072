// The decompression-bomb guard of ContentDecoder: bombs of every coding stop at the ratio, real
// text of any size decodes untouched.
#include <gtest/gtest.h>

// GCC 12 warns about std::function inside <regex>'s matcher at -O1 with sanitizers
// (-Wmaybe-uninitialized, a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
#include <string>

#include "squall/http/decode.h"
#include "support/compress.h"

namespace squall::http {
namespace {

using test::compressed_zeros;
using test::Compressor;

constexpr size_t kMiB = size_t{1} << 20;

struct Outcome {
  size_t delivered = 0;  // bytes the sink saw
  size_t fed = 0;        // body bytes fed before the decoder stopped
  std::string error;     // what() of the DecodeError, or empty
  bool ratio = false;    // the error was the ratio guard's
};

// Feeds `body` 16 KiB at a time, as a socket would hand it over.
Outcome decode_streamed(std::string_view coding, std::string_view body, RatioGuard guard = {}) {
  ContentDecoder decoder(coding, ContentDecoder::kUnbounded, guard);
  Outcome o;
  try {
    for (size_t at = 0; at < body.size(); at += 16 * 1024) {
      decoder.feed(body.substr(at, 16 * 1024),
                   [&](std::string_view bytes) { o.delivered += bytes.size(); });
    }
    decoder.finish();
  } catch (const DecodeError& e) {
    o.error = e.what();
    o.ratio = e.ratio_exceeded();
    EXPECT_EQ(e.kind(), ErrorKind::TooLarge) << e.what();
  }
  o.fed = decoder.encoded_size();
  return o;
}

// A bomb stops once past the guard's size, before passing its ratio of what was fed.
void expect_stopped(std::string_view coding, std::string_view body) {
  Outcome o = decode_streamed(coding, body);
  EXPECT_TRUE(o.ratio) << coding << ": " << o.error;
  EXPECT_NE(o.error.find("decompression bomb: the "), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("where no real page passes 200:1 beyond 16777216 bytes"),
            std::string::npos)
      << o.error;
  EXPECT_GT(o.delivered, RatioGuard::kDefaultAfter / 2) << coding;
  EXPECT_LE(o.delivered, std::max(RatioGuard::kDefaultAfter, 200 * o.fed)) << coding;
}

TEST(DecodeGuard, ZerosInEveryCodingStopAtTheRatio) {
  for (ContentCoding coding :
       {ContentCoding::Gzip, ContentCoding::Deflate, ContentCoding::Brotli, ContentCoding::Zstd}) {
    std::string bomb = compressed_zeros(coding, 24 * kMiB);
    SCOPED_TRACE(content_coding_name(coding));
    // gzip and deflate reach about 1000:1 on zeros, brotli and zstd far more.
    EXPECT_LT(bomb.size(), 24 * kMiB / 900);
    expect_stopped(content_coding_name(coding), bomb);
  }
}

TEST(DecodeGuard, TheMessageNamesTheCodingTheSizesAndTheRatio) {
  std::string bomb = compressed_zeros(ContentCoding::Gzip, 24 * kMiB);
  Outcome o = decode_streamed("gzip", bomb);
  std::smatch m;
  ASSERT_TRUE(std::regex_match(o.error, m,
                               std::regex("too large: decompression bomb: the gzip body decoded "
                                          "to ([0-9]+) bytes from ([0-9]+) \\(([0-9]+):1, where "
                                          "no real page passes 200:1 beyond 16777216 bytes\\)")))
      << o.error;
  size_t decoded = std::stoull(m[1]), from = std::stoull(m[2]);
  EXPECT_GT(decoded, RatioGuard::kDefaultAfter);
  EXPECT_EQ(from, o.fed);
  EXPECT_EQ(std::stoull(m[3]), decoded / from);
  EXPECT_GT(decoded / from, 200u);
}

TEST(DecodeGuard, AStackedBombStopsInWhicheverStageBreaksTheRatio) {
  // "gzip, br": the zeros were gzipped, then brotli'd; the gzip stage decodes the bomb.
  Compressor br(ContentCoding::Brotli, 11);
  std::string body = br.write(compressed_zeros(ContentCoding::Gzip, 24 * kMiB));
  body += br.finish();
  expect_stopped("gzip, br", body);
  Outcome o = decode_streamed("gzip, br", body);
  EXPECT_NE(o.error.find("the gzip body"), std::string::npos) << o.error;

  // "gzip, gzip" whose inner member ends early: the outer stage's bomb would be dropped as
  // padding after it, yet still burn the time to decode; the outer stage stops at the ratio.
  Compressor inner(ContentCoding::Gzip);
  std::string member = inner.write("hi");
  member += inner.finish();
  Compressor outer(ContentCoding::Gzip, 9);
  std::string padded = outer.write(member);
  const std::string zeros(kMiB, '\0');
  for (int i = 0; i < 24; ++i) padded += outer.write(zeros);
  padded += outer.finish();
  Outcome dropped = decode_streamed("gzip, gzip", padded);
  EXPECT_TRUE(dropped.ratio) << dropped.error;
  EXPECT_EQ(dropped.delivered, 2u);
}

TEST(DecodeGuard, OneHundredMiBOfTextAtTenToOneDecodesUntouched) {
  // A server's gzip of a 100 MiB log is 10 MiB: 100 members of 1 MiB each (concatenated members
  // are one gzip body), so the test compresses 1 MiB once. zstd frames concatenate the same way.
  std::string block = test::access_log(kMiB);
  for (ContentCoding coding : {ContentCoding::Gzip, ContentCoding::Zstd}) {
    SCOPED_TRACE(content_coding_name(coding));
    Compressor compressor(coding, coding == ContentCoding::Gzip ? 6 : 3);
    std::string member = compressor.write(block);
    member += compressor.finish();
    EXPECT_GT(member.size(), block.size() / 16);
    EXPECT_LT(member.size(), block.size() / 6);
    ContentDecoder decoder(content_coding_name(coding));
    size_t delivered = 0;
    bool same = true;
    for (int i = 0; i < 100; ++i) {
      decoder.feed(member, [&](std::string_view bytes) {
        same = same && block.compare(delivered % kMiB, bytes.size(), bytes) == 0;
        delivered += bytes.size();
      });
    }
    decoder.finish();
    EXPECT_EQ(delivered, 100 * kMiB);
    EXPECT_TRUE(same);
  }
}

TEST(DecodeGuard, TheGuardCanBeMovedOrTurnedOff) {
  std::string bomb = compressed_zeros(ContentCoding::Zstd, 24 * kMiB);
  Outcome off = decode_streamed("zstd", bomb, RatioGuard{.max_ratio = 0});
  EXPECT_EQ(off.error, "");
  EXPECT_EQ(off.delivered, 24 * kMiB);
  Outcome early = decode_streamed("zstd", bomb, RatioGuard{.max_ratio = 200, .after = kMiB});
  EXPECT_TRUE(early.ratio);
  EXPECT_LE(early.delivered, kMiB);
  // Below the size the guard starts at, any ratio is fine: a small blank image served gzipped.
  Outcome small = decode_streamed("gzip", compressed_zeros(ContentCoding::Gzip, 8 * kMiB));
  EXPECT_EQ(small.error, "");
  EXPECT_EQ(small.delivered, 8 * kMiB);
}

TEST(DecodeGuard, MaxOutputStillBoundsABufferedBodyFirst) {
  std::string bomb = compressed_zeros(ContentCoding::Gzip, 24 * kMiB);
  try {
    decode_content("gzip", bomb, 32 * kMiB);
    ADD_FAILURE() << "decoded";
  } catch (const DecodeError& e) {
    // The guard stops it at 16 MiB, before the 32 MiB bound is reached.
    EXPECT_TRUE(e.ratio_exceeded()) << e.what();
  }
  try {
    decode_content("gzip", bomb, kMiB);
    ADD_FAILURE() << "decoded";
  } catch (const DecodeError& e) {
    EXPECT_FALSE(e.ratio_exceeded());
    EXPECT_STREQ(e.what(),
                 "too large: decoded body exceeds the limit of 1048576 bytes (max_body_size)");
  }
}

}  // namespace
}  // namespace squall::http
