// Streaming content decoders over zlib, libbrotlidec and libzstd, chained for stacked codings.
#include "squall/http/decode.h"

#include <brotli/decode.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_d_windowLogMax is stable but sits in the static section
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <new>

#include "squall/core/thread_cache.h"
#include "squall/http/message.h"

namespace squall::http {

namespace detail {

// One coding's decompressor. write() consumes all of `in`, handing what it decodes to `out` in
// pieces of at most kBufferSize; end() says whether the compressed stream reached its end.
class DecodeStage {
 public:
  static constexpr size_t kBufferSize = 16 * 1024;

  explicit DecodeStage(ContentCoding coding) : coding_(coding) {}
  virtual ~DecodeStage() = default;
  DecodeStage(const DecodeStage&) = delete;
  DecodeStage& operator=(const DecodeStage&) = delete;

  void write(std::string_view in, ChunkSink out) {
    if (!in.empty()) saw_input_ = true;
    decode(in, out);
  }
  // An empty body is empty whatever its coding; otherwise the stream must have ended.
  void finish() {
    if (saw_input_ && !ended()) fail("truncated (the body ended inside the compressed stream)");
  }
  ContentCoding coding() const noexcept { return coding_; }

 protected:
  virtual void decode(std::string_view in, ChunkSink out) = 0;
  virtual bool ended() const = 0;

  [[noreturn]] void fail(std::string_view why) const {
    std::string detail("bad ");
    detail.append(content_coding_name(coding_)).append(" data: ").append(why);
    throw DecodeError(ErrorKind::Protocol, detail);
  }
  void emit(ChunkSink out, size_t size) {
    if (size) out(std::string_view(reinterpret_cast<const char*>(buffer_.data()), size));
  }

  std::array<unsigned char, kBufferSize> buffer_;

 public:
  // Bytes handed on so far, for the bound on intermediate stages.
  size_t& handed_on() noexcept { return handed_on_; }

 private:
  size_t handed_on_ = 0;
  ContentCoding coding_;
  bool saw_input_ = false;
};

}  // namespace detail

namespace {

using detail::DecodeStage;

// gzip (one or more members) and deflate (zlib-wrapped or raw) over zlib's inflate.
class ZlibStage final : public DecodeStage {
 public:
  explicit ZlibStage(ContentCoding coding)
      : DecodeStage(coding), gzip_(coding == ContentCoding::Gzip) {
    // gzip needs no sniffing: windowBits 16+15 expects the gzip header and checks it.
    if (gzip_) start(16 + MAX_WBITS);
  }
  ~ZlibStage() override {
    if (initialized_) inflateEnd(&z_);
  }

 private:
  enum class State { Sniff, Body, MemberEnd, Ignore };

  void decode(std::string_view in, ChunkSink out) override {
    while (!in.empty()) {
      switch (state_) {
        case State::Body:
          in = inflate_some(in, out);
          break;
        case State::Sniff:
        case State::MemberEnd: {
          if (state_ == State::MemberEnd && !gzip_) {
            fail("bytes after the end of the stream");
          }
          // Two bytes decide: deflate's zlib-or-raw, gzip's next member or trailing padding.
          size_t take = std::min(in.size(), 2 - sniffed_.size());
          sniffed_.append(in.substr(0, take));
          in.remove_prefix(take);
          if (sniffed_.size() < 2) return;
          std::string head = std::move(sniffed_);
          sniffed_.clear();
          if (!decide(head)) return;
          // The two bytes cannot end a stream (no deflate stream is shorter than two bytes and
          // a header is longer), so inflate takes both.
          inflate_some(head, out);
          break;
        }
        case State::Ignore:
          return;
      }
    }
  }

  // True to go on inflating `head`; false when the rest of the body is to be ignored.
  bool decide(std::string_view head) {
    auto b0 = static_cast<unsigned char>(head[0]);
    auto b1 = static_cast<unsigned char>(head[1]);
    if (state_ == State::MemberEnd) {
      if (b0 != 0x1f || b1 != 0x8b) {
        state_ = State::Ignore;
        return false;
      }
      inflateReset(&z_);
      state_ = State::Body;
      return true;
    }
    // RFC 1950 §2.2: CM is 8 (deflate), CINFO at most 7, and CMF*256+FLG a multiple of 31. A raw
    // stream passes this check only by chance (about 1 in 250 for a stored first block).
    bool zlib = (b0 & 0x0f) == 8 && (b0 >> 4) <= 7 && ((b0 << 8) | b1) % 31 == 0;
    start(zlib ? MAX_WBITS : -MAX_WBITS);
    return true;
  }

  void start(int window_bits) {
    std::memset(&z_, 0, sizeof z_);
    if (inflateInit2(&z_, window_bits) != Z_OK) throw std::bad_alloc();
    initialized_ = true;
    state_ = State::Body;
  }

  // Inflates from `in` until it is used up or the stream ends; returns what is left after the
  // end of the stream (empty otherwise).
  std::string_view inflate_some(std::string_view in, ChunkSink out) {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_.avail_in = static_cast<uInt>(in.size());
    for (;;) {
      z_.next_out = buffer_.data();
      z_.avail_out = static_cast<uInt>(buffer_.size());
      int rc = inflate(&z_, Z_NO_FLUSH);
      size_t produced = buffer_.size() - z_.avail_out;
      size_t left = z_.avail_in;
      if (rc == Z_STREAM_END) {
        state_ = State::MemberEnd;
        emit(out, produced);
        return in.substr(in.size() - left);
      }
      // What came out before an error is handed on first, so the output does not depend on
      // how the input was split.
      emit(out, produced);
      if (rc == Z_NEED_DICT) fail("the stream needs a preset dictionary");
      if (rc != Z_OK && rc != Z_BUF_ERROR) fail(z_.msg ? z_.msg : zError(rc));
      // Z_BUF_ERROR or a partly filled buffer: all input is taken and nothing more comes out.
      if (left == 0 && (rc == Z_BUF_ERROR || produced < buffer_.size())) return {};
    }
  }

  bool ended() const override { return state_ == State::MemberEnd || state_ == State::Ignore; }

  bool gzip_;
  bool initialized_ = false;
  State state_ = State::Sniff;
  std::string sniffed_;
  z_stream z_;
};

class BrotliStage final : public DecodeStage {
 public:
  BrotliStage()
      : DecodeStage(ContentCoding::Brotli),
        state_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {
    if (!state_) throw std::bad_alloc();
  }
  ~BrotliStage() override { BrotliDecoderDestroyInstance(state_); }

 private:
  void decode(std::string_view in, ChunkSink out) override {
    if (ended_) fail("bytes after the end of the stream");
    auto next_in = reinterpret_cast<const uint8_t*>(in.data());
    size_t avail_in = in.size();
    for (;;) {
      uint8_t* next_out = buffer_.data();
      size_t avail_out = buffer_.size();
      BrotliDecoderResult r = BrotliDecoderDecompressStream(state_, &avail_in, &next_in, &avail_out,
                                                            &next_out, nullptr);
      emit(out, buffer_.size() - avail_out);
      if (r == BROTLI_DECODER_RESULT_ERROR) {
        fail(BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_)));
      }
      if (r == BROTLI_DECODER_RESULT_SUCCESS) {
        ended_ = true;
        if (avail_in) fail("bytes after the end of the stream");
        return;
      }
      if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) return;
    }
  }
  bool ended() const override { return ended_; }

  BrotliDecoderState* state_;
  bool ended_ = false;
};

// Zstd decompression contexts kept per thread for the next zstd body. A context costs an
// allocation and tables of its own, and its first frame a window buffer: a loop fetching many
// small zstd responses would pay all three per response. Bounded: 4 contexts, and one whose
// buffers grew past kKeepZstdBytes (a large window) goes back to the allocator.
struct ZstdContextFree {
  void operator()(ZSTD_DCtx* context) const noexcept { ZSTD_freeDCtx(context); }
};
using ZstdContext = std::unique_ptr<ZSTD_DCtx, ZstdContextFree>;
using ZstdContexts = ThreadCache<ZstdContext, 4>;
constexpr size_t kKeepZstdBytes = size_t{2} << 20;
// RFC 8878 §3.1.1.1.2: HTTP decoders support windows up to 8 MiB and may refuse larger ones.
constexpr int kZstdWindowLogMax = 23;

ZstdContext take_zstd_context() {
  ZstdContext context = ZstdContexts::take();
  if (context) return context;
  context.reset(ZSTD_createDCtx());
  if (!context) throw std::bad_alloc();
  ZSTD_DCtx_setParameter(context.get(), ZSTD_d_windowLogMax, kZstdWindowLogMax);
  return context;
}

// Takes `context` back, its session reset (its parameters kept).
void give_zstd_context(ZstdContext context) noexcept {
  if (ZSTD_sizeof_DCtx(context.get()) > kKeepZstdBytes) return;
  ZSTD_DCtx_reset(context.get(), ZSTD_reset_session_only);
  ZstdContexts::give(std::move(context));
}

class ZstdStage final : public DecodeStage {
 public:
  ZstdStage() : DecodeStage(ContentCoding::Zstd), context_(take_zstd_context()) {}
  ~ZstdStage() override { give_zstd_context(std::move(context_)); }

 private:
  void decode(std::string_view in, ChunkSink out) override {
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    for (;;) {
      ZSTD_outBuffer output{buffer_.data(), buffer_.size(), 0};
      size_t taken = input.pos;
      size_t r = ZSTD_decompressStream(context_.get(), &output, &input);
      emit(out, output.pos);
      if (ZSTD_isError(r)) fail(ZSTD_getErrorName(r));
      // 0: a frame is complete and flushed; a further frame may follow in later bytes. A call
      // that moved nothing (after a frame's last bytes filled the buffer exactly) answers with
      // the next frame's header size, which says nothing about the frame that ended.
      if (r == 0) {
        frame_done_ = true;
      } else if (input.pos > taken || output.pos > 0) {
        frame_done_ = false;
      }
      if (input.pos == input.size && output.pos < output.size) return;
    }
  }
  bool ended() const override { return frame_done_; }

  ZstdContext context_;
  bool frame_done_ = false;
};

std::unique_ptr<DecodeStage> make_stage(ContentCoding coding) {
  switch (coding) {
    case ContentCoding::Gzip:
    case ContentCoding::Deflate:
      return std::make_unique<ZlibStage>(coding);
    case ContentCoding::Brotli:
      return std::make_unique<BrotliStage>();
    case ContentCoding::Zstd:
      return std::make_unique<ZstdStage>();
  }
  throw DecodeError(ErrorKind::Protocol, "unsupported content coding");
}

// What an intermediate stage of stacked codings may produce: its output is the compressed form
// of the final body, which only incompressible data makes (slightly) larger than the body.
size_t intermediate_bound(size_t max_output) noexcept {
  size_t slack = max_output / 16 + 64 * 1024;
  return max_output > ContentDecoder::kUnbounded - slack ? ContentDecoder::kUnbounded
                                                         : max_output + slack;
}

std::string too_large(size_t bound) {
  std::string detail("decoded body exceeds the limit of ");
  detail.append(std::to_string(bound)).append(" bytes (max_body_size)");
  return detail;
}

// Whether `produced` bytes from `encoded` body bytes break the guard. The product saturates:
// past SIZE_MAX / max_ratio body bytes no output can break it.
bool over_ratio(const RatioGuard& guard, size_t produced, size_t encoded) noexcept {
  if (guard.max_ratio == 0 || produced <= guard.after) return false;
  return encoded <= ContentDecoder::kUnbounded / guard.max_ratio &&
         produced > encoded * guard.max_ratio;
}

}  // namespace

std::string_view content_coding_name(ContentCoding coding) noexcept {
  switch (coding) {
    case ContentCoding::Gzip:
      return "gzip";
    case ContentCoding::Deflate:
      return "deflate";
    case ContentCoding::Brotli:
      return "br";
    case ContentCoding::Zstd:
      return "zstd";
  }
  return "unknown";
}

std::vector<ContentCoding> parse_content_encoding(std::string_view value) {
  std::vector<ContentCoding> codings;
  while (!value.empty()) {
    size_t comma = value.find(',');
    std::string_view name = trim_ows(value.substr(0, comma));
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    if (name.empty() || iequals(name, "identity")) continue;
    ContentCoding coding;
    if (iequals(name, "gzip") || iequals(name, "x-gzip")) {
      coding = ContentCoding::Gzip;
    } else if (iequals(name, "deflate")) {
      coding = ContentCoding::Deflate;
    } else if (iequals(name, "br")) {
      coding = ContentCoding::Brotli;
    } else if (iequals(name, "zstd")) {
      coding = ContentCoding::Zstd;
    } else {
      std::string detail("unsupported content coding \"");
      detail.append(name.substr(0, 64)).append("\" (squall decodes ").append(kAcceptEncoding);
      detail.append(")");
      throw DecodeError(ErrorKind::Protocol, detail);
    }
    if (codings.size() == kMaxContentCodings) {
      std::string detail("more than ");
      detail.append(std::to_string(kMaxContentCodings)).append(" stacked content codings");
      throw DecodeError(ErrorKind::Protocol, detail);
    }
    codings.push_back(coding);
  }
  return codings;
}

ContentDecoder::ContentDecoder(std::string_view content_encoding, size_t max_output,
                               RatioGuard guard)
    : ContentDecoder(std::span<const ContentCoding>(parse_content_encoding(content_encoding)),
                     max_output, guard) {}

ContentDecoder::ContentDecoder(std::span<const ContentCoding> codings, size_t max_output,
                               RatioGuard guard)
    : max_output_(max_output), guard_(guard) {
  if (codings.size() > kMaxContentCodings) {
    throw DecodeError(ErrorKind::Protocol, "too many stacked content codings");
  }
  // The last coding applied is the first one undone.
  for (auto it = codings.rbegin(); it != codings.rend(); ++it) stages_.push_back(make_stage(*it));
}

ContentDecoder::~ContentDecoder() = default;
ContentDecoder::ContentDecoder(ContentDecoder&&) noexcept = default;
ContentDecoder& ContentDecoder::operator=(ContentDecoder&&) noexcept = default;

void ContentDecoder::check_usable() const {
  if (spent_) throw InvalidStateError("content decoder used after an error or after finish()");
}

// Throws when `produced` bytes out of stage `stage` break the ratio guard.
void ContentDecoder::check_ratio(size_t stage, size_t produced) const {
  if (!over_ratio(guard_, produced, encoded_)) return;
  std::string detail("decompression bomb: the ");
  detail.append(content_coding_name(stages_[stage]->coding())).append(" body decoded to ");
  detail.append(std::to_string(produced)).append(" bytes from ").append(std::to_string(encoded_));
  detail.append(" (").append(std::to_string(produced / std::max<size_t>(encoded_, 1)));
  detail.append(":1, where no real page passes ").append(std::to_string(guard_.max_ratio));
  detail.append(":1 beyond ").append(std::to_string(guard_.after)).append(" bytes)");
  throw DecodeError(ErrorKind::TooLarge, detail, true);
}

// Stage `stage` decodes `bytes`; what it produces goes on to the next stage, and what the last
// produces to the sink. Each intermediate stage is bounded too, so a bomb in an inner coding
// stops early even when an outer stage would drop its output (gzip's trailing padding).
void ContentDecoder::emit(size_t stage, std::string_view bytes, ChunkSink sink) {
  if (stage == stages_.size()) {
    if (bytes.size() > max_output_ - decoded_) {
      throw DecodeError(ErrorKind::TooLarge, too_large(max_output_));
    }
    if (stage > 0) check_ratio(stage - 1, decoded_ + bytes.size());
    decoded_ += bytes.size();
    sink(bytes);
    return;
  }
  if (stage + 1 == stages_.size()) {
    stages_[stage]->write(bytes,
                          ChunkSink([&](std::string_view out) { emit(stage + 1, out, sink); }));
    return;
  }
  DecodeStage& current = *stages_[stage];
  size_t bound = intermediate_bound(max_output_);
  auto next = [&](std::string_view out) {
    if (out.size() > bound - current.handed_on()) {
      throw DecodeError(ErrorKind::TooLarge, too_large(max_output_));
    }
    check_ratio(stage, current.handed_on() + out.size());
    current.handed_on() += out.size();
    emit(stage + 1, out, sink);
  };
  current.write(bytes, ChunkSink(next));
}

void ContentDecoder::feed(std::string_view chunk, ChunkSink sink) {
  check_usable();
  if (chunk.empty()) return;
  // The guard's ratio counts the body bytes fed so far, all of a chunk as soon as any of it is
  // decoded; fed a few KiB at a time, a socket read of 64 KiB does not hide a bomb's ratio.
  constexpr size_t kSlice = 4096;
  size_t slice = stages_.empty() || guard_.max_ratio == 0 ? chunk.size() : kSlice;
  try {
    for (size_t at = 0; at < chunk.size(); at += slice) {
      std::string_view piece = chunk.substr(at, slice);
      encoded_ += piece.size();
      emit(0, piece, sink);
    }
  } catch (...) {
    spent_ = true;
    throw;
  }
}

void ContentDecoder::feed(std::string_view chunk, std::string& out) {
  feed(chunk, [&out](std::string_view bytes) { out.append(bytes); });
}

void ContentDecoder::finish() {
  check_usable();
  spent_ = true;
  // Every stage hands on all it can decode during write() (zlib, brotli and zstd hold nothing
  // back once their output buffer has room), so finishing only checks that each stream ended.
  for (auto& stage : stages_) stage->finish();
}

std::string decode_content(std::string_view content_encoding, std::string_view body,
                           size_t max_output, RatioGuard guard) {
  ContentDecoder decoder(content_encoding, max_output, guard);
  std::string out;
  decoder.feed(body, out);
  decoder.finish();
  return out;
}

}  // namespace squall::http
