// encode_content: gzip and zstd that our decoder and the command-line tools read back.
#include "squall/http/encode.h"

#include <gtest/gtest.h>

#include <random>

#include "squall/core/error.h"
#include "support/process.h"

namespace squall::http {
namespace {

std::string sample_text() {
  std::string text;
  for (int i = 0; i < 5000; ++i) text.append("line ").append(std::to_string(i % 97)).append("\n");
  return text;
}

TEST(EncodeContent, GzipAndZstdRoundTripThroughTheDecoder) {
  std::string text = sample_text();
  for (ContentCoding c : {ContentCoding::Gzip, ContentCoding::Zstd}) {
    std::string encoded = encode_content(c, text);
    EXPECT_LT(encoded.size(), text.size() / 4) << content_coding_name(c);
    EXPECT_EQ(decode_content(content_coding_name(c), encoded), text) << content_coding_name(c);
    EXPECT_EQ(encode_content(c, text), encoded) << "the same bytes each time";
    EXPECT_EQ(decode_content(content_coding_name(c), encode_content(c, "")), "");
  }
}

TEST(EncodeContent, IncompressibleBytesStillRoundTrip) {
  std::mt19937 rng(7);
  std::string noise(100000, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  for (ContentCoding c : {ContentCoding::Gzip, ContentCoding::Zstd})
    EXPECT_EQ(decode_content(content_coding_name(c), encode_content(c, noise)), noise);
}

TEST(EncodeContent, TheGzipAndZstdToolsReadTheOutput) {
  test::TempDir dir;
  std::string text = sample_text();
  for (auto [c, tool] : {std::pair{ContentCoding::Gzip, "gzip"}, {ContentCoding::Zstd, "zstd"}}) {
    std::filesystem::path file = dir.write(std::string("body.") + tool, encode_content(c, text));
    test::Process p = test::Process::start(
        {"sh", "-c", std::string(tool) + " -dc \"$0\" > \"$0.out\"", file.string()});
    ASSERT_EQ(p.wait(std::chrono::seconds(30)), 0) << p.output();
    EXPECT_EQ(test::read_file(file.string() + ".out"), text) << tool;
  }
}

TEST(EncodeContent, CodingsWithoutAnEncoderAreRefused) {
  EXPECT_THROW(encode_content(ContentCoding::Brotli, "x"), InvalidArgumentError);
  EXPECT_THROW(encode_content(ContentCoding::Deflate, "x"), InvalidArgumentError);
}

}  // namespace
}  // namespace squall::http
