// Tests for content decoding: data compressed by the real tools, every split, bombs and damage.
#include "squall/http/decode.h"

#include <gtest/gtest.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "support/bytes.h"
#include "support/process.h"

namespace squall::http {
namespace {

using test::splits;
using test::TempDir;

// Pages of text that compress like HTML does, longer than a stage's 16 KiB buffer.
std::string sample_text(size_t size = 100 * 1024) {
  static const char* const words[] = {"<p>",   "squall", "crawler", "</a>",   "loop", "the",
                                      "fetch", "<div>",  "tornado", "gevent", "\n",   "coroutine"};
  std::mt19937 random(7);
  std::string text;
  while (text.size() < size) {
    text.append(words[random() % std::size(words)]);
    text.push_back(static_cast<char>('a' + random() % 26));
    text.push_back(' ');
  }
  text.resize(size);
  return text;
}

// Runs `command` with `input` on its standard input and returns its standard output.
std::string run_tool(const std::string& command, std::string_view input) {
  TempDir dir;
  auto in = dir.write("in", input);
  auto out = dir.path() / "out";
  std::string line = command;
  line.append(" < '").append(in.string()).append("' > '").append(out.string()).append("'");
  int status = std::system(line.c_str());
  if (status != 0) throw std::runtime_error("tool failed: " + command);
  return test::read_file(out);
}

// Debian's python3 has zlib and brotli; the pyenv python on PATH may lack brotli.
std::string python(const std::string& expression, std::string_view input) {
  std::string command =
      "/usr/bin/python3 -c 'import sys, zlib, brotli; d = sys.stdin.buffer.read(); ";
  command.append("sys.stdout.buffer.write(").append(expression).append(")'");
  return run_tool(command, input);
}

std::string gzip(std::string_view data) {
  return run_tool("gzip -c -6", data);
}
std::string zlib_deflate(std::string_view data) {
  return python("zlib.compress(d, 6)", data);
}
std::string raw_deflate(std::string_view data) {
  return python("(lambda c: c.compress(d) + c.flush())(zlib.compressobj(6, zlib.DEFLATED, -15))",
                data);
}
std::string brotli(std::string_view data) {
  return python("brotli.compress(d, quality=5)", data);
}
std::string zstd(std::string_view data) {
  return run_tool("zstd -q -c -3", data);
}

// Decodes `body` fed in the chunks of one split.
std::string decode_split(std::string_view coding, const test::Split& split,
                         size_t max_output = ContentDecoder::kUnbounded) {
  ContentDecoder decoder(coding, max_output);
  std::string out;
  for (const auto& chunk : split.chunks) decoder.feed(chunk.view(), out);
  decoder.finish();
  EXPECT_EQ(decoder.decoded_size(), out.size());
  return out;
}

void expect_decodes_at_every_split(std::string_view coding, std::string_view body,
                                   std::string_view expected) {
  for (const auto& split : splits(body)) {
    EXPECT_EQ(decode_split(coding, split), expected) << coding << " split " << split.name;
  }
}

// The error a whole-body decode throws, as "kind: message", or "" when it succeeds.
std::string decode_error(std::string_view coding, std::string_view body,
                         size_t max_output = ContentDecoder::kUnbounded) {
  try {
    decode_content(coding, body, max_output);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

class DecodeTest : public ::testing::Test {
 protected:
  std::string text_ = sample_text();
};

TEST_F(DecodeTest, GzipFromTheGzipToolDecodesAtEverySplit) {
  std::string body = gzip(text_);
  ASSERT_LT(body.size(), text_.size() / 2);
  expect_decodes_at_every_split("gzip", body, text_);
  expect_decodes_at_every_split("x-gzip", body, text_);
  expect_decodes_at_every_split(" GZip ", body, text_);
}

TEST_F(DecodeTest, DeflateAsZlibStreamAndAsRawDeflateBothDecode) {
  expect_decodes_at_every_split("deflate", zlib_deflate(text_), text_);
  expect_decodes_at_every_split("deflate", raw_deflate(text_), text_);
  // A tiny raw stream: the sniffing must work on the first two bytes alone.
  expect_decodes_at_every_split("deflate", raw_deflate("a"), "a");
  expect_decodes_at_every_split("deflate", zlib_deflate("a"), "a");
}

TEST_F(DecodeTest, BrotliFromPythonBrotliDecodesAtEverySplit) {
  expect_decodes_at_every_split("br", brotli(text_), text_);
}

TEST_F(DecodeTest, ZstdFromTheZstdToolDecodesAtEverySplit) {
  expect_decodes_at_every_split("zstd", zstd(text_), text_);
}

TEST_F(DecodeTest, IdentityAndEmptyEncodingPassBytesThrough) {
  for (std::string_view coding : {"", "identity", " , identity ,"}) {
    ContentDecoder decoder(coding);
    EXPECT_TRUE(decoder.identity());
    expect_decodes_at_every_split(coding, text_, text_);
  }
}

TEST_F(DecodeTest, StackedCodingsAreUndoneInReverseOrder) {
  // "gzip, br": gzipped first, then brotli'd.
  std::string body = brotli(gzip(text_));
  expect_decodes_at_every_split("gzip, br", body, text_);
  expect_decodes_at_every_split("gzip,identity, br", body, text_);
  std::string three = zstd(raw_deflate(gzip(text_)));
  expect_decodes_at_every_split("gzip, deflate, zstd", three, text_);
  EXPECT_NE(decode_error("br, gzip", body), "");
}

TEST_F(DecodeTest, ConcatenatedGzipMembersAndZstdFramesAllDecode) {
  std::string half = text_.substr(0, text_.size() / 2);
  std::string rest = text_.substr(text_.size() / 2);
  expect_decodes_at_every_split("gzip", gzip(half) + gzip(rest), text_);
  expect_decodes_at_every_split("zstd", zstd(half) + zstd(rest), text_);
}

TEST_F(DecodeTest, BytesAfterTheLastGzipMemberAreIgnoredAsBrowsersDo) {
  std::string padded = gzip(text_);
  padded.append(std::string(7, '\0'));
  expect_decodes_at_every_split("gzip", padded, text_);
  std::string one_more = gzip(text_);
  one_more.push_back('\x1f');  // could start a member, but the body ends
  expect_decodes_at_every_split("gzip", one_more, text_);
}

TEST_F(DecodeTest, BytesAfterTheEndOfOtherStreamsAreAnError) {
  EXPECT_EQ(decode_error("deflate", zlib_deflate(text_) + "xyz"),
            "protocol: bad deflate data: bytes after the end of the stream");
  EXPECT_EQ(decode_error("br", brotli(text_) + "xy"),
            "protocol: bad br data: bytes after the end of the stream");
  EXPECT_NE(decode_error("zstd", zstd(text_) + "garbage!"), "");
}

TEST_F(DecodeTest, AnEmptyBodyIsEmptyWhateverItsCoding) {
  for (std::string_view coding : {"gzip", "deflate", "br", "zstd", "gzip, br"}) {
    EXPECT_EQ(decode_content(coding, ""), "") << coding;
  }
}

TEST_F(DecodeTest, TruncatedStreamsAreProtocolErrorsNamingTheCoding) {
  struct Case {
    const char* coding;
    std::string body;
  };
  Case cases[] = {{"gzip", gzip(text_)},
                  {"deflate", zlib_deflate(text_)},
                  {"deflate", raw_deflate(text_)},
                  {"br", brotli(text_)},
                  {"zstd", zstd(text_)}};
  for (const auto& c : cases) {
    for (size_t cut : {size_t{1}, size_t{5}, c.body.size() / 2, c.body.size() - 1}) {
      std::string expected = "protocol: bad ";
      expected.append(c.coding).append(
          " data: truncated (the body ended inside the compressed stream)");
      EXPECT_EQ(decode_error(c.coding, c.body.substr(0, cut)), expected)
          << c.coding << " cut at " << cut;
    }
  }
}

TEST_F(DecodeTest, CorruptDataIsAProtocolErrorSayingWhatZlibBrotliOrZstdFound) {
  EXPECT_EQ(decode_error("gzip", "not gzip at all"),
            "protocol: bad gzip data: incorrect header check");
  std::string gz = gzip(text_);
  gz[gz.size() - 6] ^= 0x55;  // inside the CRC-32
  EXPECT_EQ(decode_error("gzip", gz), "protocol: bad gzip data: incorrect data check");
  // brotli has no checksum: only a malformed stream, not flipped content, is detectable.
  EXPECT_EQ(decode_error("br", std::string(16, '\xff')).rfind("protocol: bad br data: ", 0), 0u);
  std::string zs = zstd(text_);
  zs[0] ^= 0x55;  // the magic number
  EXPECT_EQ(decode_error("zstd", zs), "protocol: bad zstd data: Unknown frame descriptor");
}

TEST_F(DecodeTest, UnknownCodingIsAnErrorNamingIt) {
  EXPECT_EQ(decode_error("gzip, compress", "x"),
            "protocol: unsupported content coding \"compress\" (squall decodes gzip, deflate, "
            "br, zstd)");
  EXPECT_THROW(ContentDecoder("sdch"), DecodeError);
  EXPECT_THROW(parse_content_encoding("gzip, gzip, gzip, gzip, gzip"), DecodeError);
  EXPECT_EQ(parse_content_encoding("gzip, gzip, gzip, gzip").size(), 4u);
  EXPECT_EQ(parse_content_encoding("X-GZIP,deflate , br,zstd"),
            (std::vector<ContentCoding>{ContentCoding::Gzip, ContentCoding::Deflate,
                                        ContentCoding::Brotli, ContentCoding::Zstd}));
}

// A bomb: a small body that decodes to far more than the limit. The sink never sees more than
// the limit, and the error is TooLarge.
void expect_bomb_stopped(std::string_view coding, std::string_view body) {
  constexpr size_t kLimit = 1 << 20;
  ContentDecoder decoder(coding, kLimit);
  size_t seen = 0;
  try {
    for (size_t at = 0; at < body.size(); at += 4096) {
      decoder.feed(body.substr(at, 4096), [&](std::string_view bytes) { seen += bytes.size(); });
    }
    decoder.finish();
    ADD_FAILURE() << coding << " bomb decoded without an error";
  } catch (const DecodeError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TooLarge) << e.what();
    EXPECT_STREQ(e.what(),
                 "too large: decoded body exceeds the limit of 1048576 bytes (max_body_size)");
  }
  EXPECT_LE(seen, kLimit);
  EXPECT_GT(seen, kLimit / 2) << "decoding should run up to the limit";
  EXPECT_THROW(decoder.feed("x", [](std::string_view) {}), InvalidStateError);
}

TEST_F(DecodeTest, DecompressionBombsStopAtMaxOutputWithTooLarge) {
  std::string zeros(16 << 20, '\0');
  std::string gz = gzip(zeros);
  ASSERT_LT(gz.size(), 32u * 1024);
  expect_bomb_stopped("gzip", gz);
  expect_bomb_stopped("deflate", zlib_deflate(zeros));
  expect_bomb_stopped("br", brotli(zeros));
  expect_bomb_stopped("zstd", zstd(zeros));
  // A bomb inside another coding stops in the inner stage even if the outer would drop it.
  expect_bomb_stopped("gzip, br", brotli(gz));
  expect_bomb_stopped("identity", zeros.substr(0, 2 << 20));
}

TEST_F(DecodeTest, TheLimitAllowsABodyOfExactlyMaxOutput) {
  std::string body = gzip(text_);
  EXPECT_EQ(decode_content("gzip", body, text_.size()), text_);
  EXPECT_EQ(decode_error("gzip", body, text_.size() - 1),
            "too large: decoded body exceeds the limit of 102399 bytes (max_body_size)");
}

// A zstd frame of `data` that declares a 32 MiB window: memory a peer may not make us allocate.
std::string zstd_with_32_mib_window(std::string_view data) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, 25);
  ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0);
  std::string out(ZSTD_compressBound(data.size()), '\0');
  ZSTD_outBuffer output{out.data(), out.size(), 0};
  ZSTD_inBuffer input{data.data(), data.size(), 0};
  // Input given before the end is of unknown total size, so the frame keeps the 32 MiB window.
  size_t r = ZSTD_compressStream2(context, &output, &input, ZSTD_e_continue);
  ZSTD_inBuffer none{nullptr, 0, 0};
  size_t left = ZSTD_isError(r) ? r : ZSTD_compressStream2(context, &output, &none, ZSTD_e_end);
  ZSTD_freeCCtx(context);
  if (left != 0) throw std::runtime_error("zstd could not compress the sample");
  out.resize(output.pos);
  return out;
}

TEST_F(DecodeTest, ZstdWindowsOver8MiBAreRefused) {
  EXPECT_EQ(decode_error("zstd", zstd_with_32_mib_window(text_)),
            "protocol: bad zstd data: Frame requires too much memory for decoding");
}

TEST_F(DecodeTest, AZstdBodyAfterOnesCutOffOrRefusedDecodesWhole) {
  // A thread's decoders pass their zstd contexts on: what a body left in one (a frame cut off,
  // an error, a refused window) never reaches the next, and the window cap stays.
  std::string body = zstd(text_);
  for (int round = 0; round < 3; ++round) {
    EXPECT_NE(decode_error("zstd", body.substr(0, body.size() / 2)), "");
    EXPECT_NE(decode_error("zstd", "\x28\xb5\x2f\xfd garbage"), "");
    EXPECT_EQ(decode_error("zstd", zstd_with_32_mib_window(text_)),
              "protocol: bad zstd data: Frame requires too much memory for decoding");
    {
      ContentDecoder cut("zstd", ContentDecoder::kUnbounded);
      std::string out;
      cut.feed(std::string_view(body).substr(0, body.size() / 3), out);
    }
    EXPECT_EQ(decode_content("zstd", body), text_) << "round " << round;
    expect_decodes_at_every_split("zstd", body, text_);
  }
}

TEST_F(DecodeTest, AZstdFrameWhoseEndFillsTheOutputBufferExactlyEnds) {
  // 64 KiB decode into four full 16 KiB buffers, the frame's end with the last of them.
  std::string body(64 * 1024, 'z');
  EXPECT_EQ(decode_content("zstd", zstd(body)), body);
  EXPECT_EQ(decode_content("zstd", zstd(body) + zstd(text_)), body + text_);
  expect_decodes_at_every_split("zstd", zstd(body), body);
}

TEST_F(DecodeTest, ADecoderIsSpentAfterFinish) {
  ContentDecoder decoder("gzip");
  std::string out;
  decoder.feed(gzip("abc"), out);
  decoder.finish();
  EXPECT_EQ(out, "abc");
  EXPECT_THROW(decoder.finish(), InvalidStateError);
}

}  // namespace
}  // namespace squall::http
