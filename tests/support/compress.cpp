// Streaming compressors over zlib, libbrotlienc and libzstd, for test servers and test bodies.
#include "support/compress.h"

#include <brotli/encode.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <random>
#include <stdexcept>

namespace squall::test {

// One library's stream. Each call hands out everything the library produced for it.
class Compressor::Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string write(std::string_view data, bool last) = 0;
};

namespace {

using http::ContentCoding;

constexpr size_t kPiece = 64 * 1024;

class ZlibEngine final : public Compressor::Engine {
 public:
  ZlibEngine(bool gzip, int level) {
    if (deflateInit2(&z_, level < 0 ? Z_DEFAULT_COMPRESSION : level, Z_DEFLATED,
                     gzip ? 16 + MAX_WBITS : MAX_WBITS, 9, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("Compressor: deflateInit2 failed");
  }
  ~ZlibEngine() override { deflateEnd(&z_); }
  std::string write(std::string_view data, bool last) override {
    std::string out;
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z_.avail_in = static_cast<uInt>(data.size());
    int rc;
    do {
      size_t at = out.size();
      out.resize(at + kPiece);
      z_.next_out = reinterpret_cast<Bytef*>(out.data() + at);
      z_.avail_out = kPiece;
      rc = deflate(&z_, last ? Z_FINISH : Z_NO_FLUSH);
      out.resize(out.size() - z_.avail_out);
    } while (z_.avail_out == 0 || (last && rc != Z_STREAM_END));
    return out;
  }

 private:
  z_stream z_{};
};

class BrotliEngine final : public Compressor::Engine {
 public:
  explicit BrotliEngine(int level)
      : state_(BrotliEncoderCreateInstance(nullptr, nullptr, nullptr)) {
    if (!state_) throw std::runtime_error("Compressor: BrotliEncoderCreateInstance failed");
    BrotliEncoderSetParameter(state_, BROTLI_PARAM_QUALITY,
                              level < 0 ? BROTLI_DEFAULT_QUALITY : static_cast<uint32_t>(level));
  }
  ~BrotliEngine() override { BrotliEncoderDestroyInstance(state_); }
  std::string write(std::string_view data, bool last) override {
    std::string out;
    auto next_in = reinterpret_cast<const uint8_t*>(data.data());
    size_t avail_in = data.size();
    BrotliEncoderOperation op = last ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_PROCESS;
    while (avail_in > 0 || BrotliEncoderHasMoreOutput(state_) ||
           (last && !BrotliEncoderIsFinished(state_))) {
      size_t at = out.size();
      out.resize(at + kPiece);
      auto next_out = reinterpret_cast<uint8_t*>(out.data() + at);
      size_t avail_out = kPiece;
      if (!BrotliEncoderCompressStream(state_, op, &avail_in, &next_in, &avail_out, &next_out,
                                       nullptr))
        throw std::runtime_error("Compressor: BrotliEncoderCompressStream failed");
      out.resize(out.size() - avail_out);
    }
    return out;
  }

 private:
  BrotliEncoderState* state_;
};

class ZstdEngine final : public Compressor::Engine {
 public:
  explicit ZstdEngine(int level) : context_(ZSTD_createCCtx()) {
    if (!context_) throw std::runtime_error("Compressor: ZSTD_createCCtx failed");
    ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel,
                           level < 0 ? ZSTD_CLEVEL_DEFAULT : level);
  }
  ~ZstdEngine() override { ZSTD_freeCCtx(context_); }
  std::string write(std::string_view data, bool last) override {
    std::string out;
    ZSTD_inBuffer input{data.data(), data.size(), 0};
    for (;;) {
      size_t at = out.size();
      out.resize(at + kPiece);
      ZSTD_outBuffer output{out.data() + at, kPiece, 0};
      size_t left =
          ZSTD_compressStream2(context_, &output, &input, last ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(left)) throw std::runtime_error("Compressor: ZSTD_compressStream2 failed");
      out.resize(at + output.pos);
      bool done = last ? left == 0 : input.pos == input.size && output.pos < kPiece;
      if (done) return out;
    }
  }

 private:
  ZSTD_CCtx* context_;
};

}  // namespace

Compressor::Compressor(ContentCoding coding, int level) {
  switch (coding) {
    case ContentCoding::Gzip:
    case ContentCoding::Deflate:
      engine_ = std::make_unique<ZlibEngine>(coding == ContentCoding::Gzip, level);
      break;
    case ContentCoding::Brotli:
      engine_ = std::make_unique<BrotliEngine>(level);
      break;
    case ContentCoding::Zstd:
      engine_ = std::make_unique<ZstdEngine>(level);
      break;
  }
}

Compressor::~Compressor() = default;

std::string Compressor::write(std::string_view data) {
  if (!engine_) throw std::logic_error("Compressor: write after finish");
  return engine_->write(data, false);
}

std::string Compressor::finish() {
  if (!engine_) throw std::logic_error("Compressor: finish twice");
  std::string rest = engine_->write({}, true);
  engine_.reset();
  return rest;
}

std::string compressed_zeros(ContentCoding coding, size_t size) {
  const std::string zeros(size_t{1} << 20, '\0');
  auto compress = [&](int level, size_t count) {
    Compressor compressor(coding, level);
    std::string out;
    for (size_t i = 0; i < count; ++i) out += compressor.write(zeros);
    out += compressor.finish();
    return out;
  };
  size_t mebibytes = (size + zeros.size() - 1) / zeros.size();
  if (coding == ContentCoding::Deflate) return compress(9, mebibytes);
  if (coding == ContentCoding::Brotli) return compress(5, mebibytes);
  // One member or frame of 1 MiB, repeated: a body of concatenated members is one gzip body,
  // and concatenated frames one zstd body.
  std::string one = compress(coding == ContentCoding::Gzip ? 9 : 19, 1);
  std::string out;
  out.reserve(one.size() * mebibytes);
  for (size_t i = 0; i < mebibytes; ++i) out += one;
  return out;
}

std::string access_log(size_t size, uint32_t seed) {
  static const char* const pages[] = {
      "/",           "/library/asyncio.html", "/library/os.html",     "/library/json.html",
      "/index.css",  "/library/re.html",      "/library/typing.html", "/library/socket.html",
      "/robots.txt", "/library/ssl.html",     "/search?q=loop",       "/library/http.client.html"};
  static const char* const agents[] = {
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 "
      "Safari/537.36",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
      "curl/7.88.1", "squall-crawler/1.0", "Wget/1.21.3"};
  static const int statuses[] = {200, 200, 200, 200, 200, 200, 200, 200, 304, 404};
  std::mt19937 engine(seed);
  auto random = [&engine] { return static_cast<unsigned>(engine()); };
  std::string log;
  log.reserve(size + 512);
  char line[512];
  for (unsigned t = 0; log.size() < size; t += random() % 3) {
    int n = std::snprintf(
        line, sizeof line,
        "10.%u.%u.%u - - [01/Dec/2026:%02u:%02u:%02u +0000] \"GET %s HTTP/1.1\" %d %u \"-\" "
        "\"%s\"\n",
        random() % 4, random() % 256, random() % 256, t / 3600 % 24, t / 60 % 60, t % 60,
        pages[random() % std::size(pages)], statuses[random() % std::size(statuses)],
        100 + random() % 90000, agents[random() % std::size(agents)]);
    log.append(line, static_cast<size_t>(n));
  }
  log.resize(size);
  return log;
}

}  // namespace squall::test
