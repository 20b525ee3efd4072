// Streaming content decoding: Content-Encoding gzip, deflate, br and zstd, stacked, with a bound.
//
// A ContentDecoder is built from a Content-Encoding field value, fed the body's bytes as they
// arrive and finished at the end of the body; decoded bytes come out through a sink (any callable
// taking a std::string_view, called zero or more times per feed) or are appended to a string.
//
//   ContentDecoder decoder(response.headers.get("Content-Encoding"), max_body_size);
//   decoder.feed(chunk, [&](std::string_view bytes) { body.append(bytes); });  // per chunk
//   decoder.finish();                                // at the end: throws if a stream was cut
//
// What it accepts, as browsers do:
//   - gzip and x-gzip (RFC 1952), including several concatenated members; bytes after the last
//     member that do not start another one are ignored, as Chrome and curl ignore them, since
//     some servers pad their gzip bodies;
//   - deflate, both as RFC 9110 defines it (a zlib stream, RFC 1950) and as servers often send it
//     (raw deflate, RFC 1951), told apart by the zlib header check on the first two bytes;
//   - br (RFC 7932), at most the 16 MiB window of standard brotli;
//   - zstd (RFC 8878), several frames allowed, with the window capped at 8 MiB as RFC 8878
//   §3.1.1.1.2
//     asks of HTTP decoders, so a peer cannot make us allocate more;
//   - identity, which changes nothing, and stacked codings ("gzip, br" was gzipped, then brotli'd,
//     so it is decoded br first). Empty list elements are skipped; names are case-insensitive.
//   - an empty body is empty whatever its coding (a 200 with Content-Length: 0 and
//     Content-Encoding: gzip is common).
//
// Memory stays bounded whatever the peer sends: each stage decodes through a fixed 16 KiB buffer,
// window sizes are capped, at most kMaxContentCodings codings are stacked, and the total decoded
// size is bounded by `max_output` (the client's max_body_size), so a decompression bomb ends in a
// TooLarge DecodeError before a byte past the bound reaches the sink.
//
// A streamed body has no such bound, so a RatioGuard stops what only a decompression bomb does:
// decoding to more than `after` bytes (16 MiB by default) at more than `max_ratio` decoded bytes
// per body byte read (200 by default). The defaults come from measured ratios. Real pages: HTML
// compresses 8:1 with gzip -9 and 15:1 with zstd -19 or brotli -q 11 (the Python documentation,
// 27 MiB of it). Machine-made text that repeats itself most (a log whose lines differ only in a
// timestamp, JSON records that differ only in an id) reaches 21:1 with gzip, 80:1 with zstd -3
// or brotli -q 11, and 177:1 with zstd -19 and the 8 MiB window HTTP allows. Bombs: zeros
// compress 229:1 at gzip's fastest levels (1-3), 1028:1 at the others (deflate's most is
// 1032:1), and 30,000:1 or more with zstd and brotli. 200 sits above all the text and below
// every bomb; 16 MiB is more than a crawl keeps of a page by default (10 MiB), so a small body
// the ratio alone would flag (a blank image served gzipped) still decodes. The ratio is over
// the whole body so far and applies to each stage of stacked codings, so a bomb in an inner
// coding stops too. It bounds the amplification, not the size (max_output does that): a peer
// may still send 1 byte for every 200 decoded.
//
// Errors are DecodeError, a squall::Error of kind Protocol ("protocol: bad gzip data: incorrect
// header check", "protocol: bad br data: truncated ...", "protocol: unsupported content coding
// \"compress\"") or TooLarge. After an error the decoder is spent: feed and finish throw
// InvalidStateError. A decoder is a plain object owned by one user at a time; it does no I/O and
// depends on no loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "squall/core/error.h"

namespace squall::http {

// A failure to decode a body: kind() is Protocol (bad or truncated data, an unknown coding) or
// TooLarge (the decoded body passed max_output, or the ratio guard stopped it: ratio_exceeded()).
class DecodeError : public Error {
 public:
  DecodeError(ErrorKind kind, std::string_view detail, bool ratio_exceeded = false)
      : Error(kind, detail), ratio_exceeded_(ratio_exceeded) {}
  // The RatioGuard stopped the body: it decoded as only a decompression bomb does.
  bool ratio_exceeded() const noexcept { return ratio_exceeded_; }

 private:
  bool ratio_exceeded_;
};

// The decompression-bomb guard (see the top of this file), on by default: once more than
// `after` bytes came out of a stage, that stage may have produced at most `max_ratio` bytes per
// body byte read. max_ratio 0 turns it off.
struct RatioGuard {
  static constexpr uint32_t kDefaultMaxRatio = 200;
  static constexpr size_t kDefaultAfter = size_t{16} << 20;

  uint32_t max_ratio = kDefaultMaxRatio;
  size_t after = kDefaultAfter;
};

enum class ContentCoding : uint8_t { Gzip, Deflate, Brotli, Zstd };

// "gzip", "deflate", "br", "zstd".
std::string_view content_coding_name(ContentCoding coding) noexcept;

// More stacked codings than this is an error: no real server stacks more than two, and each
// stage holds a decompressor's state.
inline constexpr size_t kMaxContentCodings = 4;

// The Accept-Encoding value for what ContentDecoder decodes.
inline constexpr std::string_view kAcceptEncoding = "gzip, deflate, br, zstd";

// The codings of a Content-Encoding field value in the order they were applied, identity
// dropped. Throws DecodeError (Protocol) naming an unknown coding, or when more than
// kMaxContentCodings are stacked.
std::vector<ContentCoding> parse_content_encoding(std::string_view value);

// A non-owning reference to a callable `void(std::string_view)`, so feed() takes a lambda without
// a std::function allocation. The callable must outlive the call it is passed to.
class ChunkSink {
 public:
  template <class F, class D = std::remove_cvref_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, ChunkSink> &&
                                     std::is_invocable_v<D&, std::string_view>>>
  ChunkSink(F&& f) noexcept  // NOLINT(google-explicit-constructor): lambdas convert implicitly
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, std::string_view bytes) { (*static_cast<D*>(object))(bytes); }) {}
  void operator()(std::string_view bytes) const { call_(object_, bytes); }

 private:
  void* object_;
  void (*call_)(void*, std::string_view);
};

namespace detail {
class DecodeStage;
}

class ContentDecoder {
 public:
  static constexpr size_t kUnbounded = std::numeric_limits<size_t>::max();

  // A decoder for a Content-Encoding field value (empty or "identity": bytes pass through,
  // counted against the bound). Throws DecodeError for an unknown coding.
  explicit ContentDecoder(std::string_view content_encoding, size_t max_output = kUnbounded,
                          RatioGuard guard = {});
  // A decoder for codings in the order they were applied.
  explicit ContentDecoder(std::span<const ContentCoding> codings, size_t max_output = kUnbounded,
                          RatioGuard guard = {});
  ~ContentDecoder();
  ContentDecoder(ContentDecoder&&) noexcept;
  ContentDecoder& operator=(ContentDecoder&&) noexcept;

  // True when there is nothing to decode: feed() hands the input to the sink as it is.
  bool identity() const noexcept { return stages_.empty(); }

  // Decodes the next bytes of the body; what they decode to goes to `sink` (possibly in several
  // calls, possibly none yet). Throws DecodeError on bad data, when the total would pass
  // max_output, or when the guard's ratio is passed; the bytes that did reach the sink are never
  // more than max_output, nor more than max(after, max_ratio * body bytes fed).
  void feed(std::string_view chunk, ChunkSink sink);
  void feed(std::string_view chunk, std::string& out);

  // The body is complete. Every decoded byte has already reached the sink (nothing is held
  // back between feeds); this throws DecodeError (Protocol, "truncated") when a compressed
  // stream stopped before its end. Call once; afterwards the decoder is spent.
  void finish();

  // Bytes handed to the sink so far; body bytes fed so far.
  size_t decoded_size() const noexcept { return decoded_; }
  size_t encoded_size() const noexcept { return encoded_; }
  size_t max_output() const noexcept { return max_output_; }

 private:
  void emit(size_t stage, std::string_view bytes, ChunkSink sink);
  void check_ratio(size_t stage, size_t produced) const;
  void check_usable() const;

  std::vector<std::unique_ptr<detail::DecodeStage>> stages_;  // in decoding order
  size_t max_output_;
  RatioGuard guard_;
  size_t decoded_ = 0;
  size_t encoded_ = 0;
  bool spent_ = false;
};

// Decodes a whole body at once. Throws DecodeError.
std::string decode_content(std::string_view content_encoding, std::string_view body,
                           size_t max_output = ContentDecoder::kUnbounded, RatioGuard guard = {});

}  // namespace squall::http
