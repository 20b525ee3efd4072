// Accept-Encoding weights and compressible media types.
#include "squall/http/content_negotiation.h"

#include <gtest/gtest.h>

namespace squall::http {
namespace {

using C = ContentCoding;

std::vector<C> choose(std::string_view accept) {
  return acceptable_codings(accept, {C::Zstd, C::Gzip});
}

TEST(AcceptableCodings, WhatTheFieldNamesInTheServersOrderWhenWeighedAlike) {
  EXPECT_EQ(choose("gzip, deflate, br, zstd"), (std::vector<C>{C::Zstd, C::Gzip}));
  EXPECT_EQ(choose("gzip"), (std::vector<C>{C::Gzip}));
  EXPECT_EQ(choose("ZSTD"), (std::vector<C>{C::Zstd}));
  EXPECT_EQ(choose("x-gzip"), (std::vector<C>{C::Gzip}));
  EXPECT_EQ(choose("br, deflate"), (std::vector<C>{}));
  EXPECT_EQ(choose(""), (std::vector<C>{}));
  EXPECT_EQ(choose("identity"), (std::vector<C>{}));
}

TEST(AcceptableCodings, QValuesOrderAndZeroRefuses) {
  EXPECT_EQ(choose("zstd;q=0.5, gzip"), (std::vector<C>{C::Gzip, C::Zstd}));
  EXPECT_EQ(choose("zstd;q=0.5, gzip;q=0.501"), (std::vector<C>{C::Gzip, C::Zstd}));
  EXPECT_EQ(choose("zstd ; q=1.000 , gzip;Q=0.9"), (std::vector<C>{C::Zstd, C::Gzip}));
  EXPECT_EQ(choose("gzip;q=0, zstd;q=0.0"), (std::vector<C>{}));
}

TEST(AcceptableCodings, StarCoversWhatIsNotNamed) {
  EXPECT_EQ(choose("*"), (std::vector<C>{C::Zstd, C::Gzip}));
  EXPECT_EQ(choose("gzip;q=0, *"), (std::vector<C>{C::Zstd}));
  EXPECT_EQ(choose("*;q=0"), (std::vector<C>{}));
  EXPECT_EQ(choose("gzip, *;q=0"), (std::vector<C>{C::Gzip}));
}

TEST(AcceptableCodings, MalformedElementsAreSkipped) {
  EXPECT_EQ(choose("zstd;q=2, gzip"), (std::vector<C>{C::Gzip}));
  EXPECT_EQ(choose("zstd;q=abc, ,;, gzip;q=0.3"), (std::vector<C>{C::Gzip}));
  EXPECT_EQ(choose(",,,"), (std::vector<C>{}));
}

TEST(CompressibleType, TextAndStructuredTextButNotMediaOrArchives) {
  for (const char* t : {"text/html; charset=utf-8", "text/css", "TEXT/PLAIN", "application/json",
                        "application/ld+json", "application/atom+xml", "image/svg+xml",
                        "text/javascript; charset=utf-8", "application/wasm"})
    EXPECT_TRUE(compressible_type(t)) << t;
  for (const char* t :
       {"image/png", "image/jpeg", "application/gzip", "application/zip", "video/mp4", "font/woff2",
        "application/octet-stream", "application/pdf", "", "text"})
    EXPECT_FALSE(compressible_type(t)) << t;
}

}  // namespace
}  // namespace squall::http
