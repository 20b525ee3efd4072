// HTTP/1 on a Stream, the wire work HttpClient and HttpServer share: a head read with resumable
// parsing, a body read by its framing within a size limit, and chunked framing written out.
//
// Both sides read through the same pure parser (parser.h) under the same strictness rules.
// What differs between them, what to answer or throw for a bad head or a cut body, stays with
// the caller: these pieces report a ParseStatus and leave the reaction to it.
//
//   ParseResult head = co_await read_head(stream, view, fields, limits);
//   ... framing from request_framing / response_framing ...
//   stream.consume(head.consumed);
//   BodyReader body(MessageKind::Response);
//   body.start(framing, max_body);
//   while (!body.done()) {
//     if (stream.buffered().empty()) {
//       if (co_await stream.read_more() == 0) { ... body.end_of_input() says ended or cut ... }
//       continue;
//     }
//     auto step = body.decode(stream.buffered());
//     deliver(step.data);
//     stream.consume(step.consumed);
//     if (is_error(step.status)) ... the framing broke, or BodyTooLarge ...
//   }
//
// Threads: a stream and a BodyReader belong to one task at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/http/parser.h"
#include "squall/net/stream.h"

namespace squall::http {

// Reads from `stream` until the head at the front of its buffer parses or fails to. Returns Ok
// (`consumed` is the head's size; `view` points into stream.buffered() and stays valid until the
// stream is consumed or read again), the parse error, or Incomplete when the peer closed the
// connection before the head was whole (stream.buffered() holds what came). Parsing resumes
// where the last attempt stopped, so a head dripped byte by byte costs linear time. Stream
// errors propagate (NetError; TimeoutError and CancelledError from an enclosing limit or kill).
// `first_byte`, when given and still unset (zero), gets the loop time at which the first byte
// of the head was buffered.
Task<ParseResult> read_head(Stream& stream, RequestView& view, std::span<HeaderView> fields,
                            const HeadLimits& limits, TimePoint* first_byte = nullptr);
Task<ParseResult> read_head(Stream& stream, ResponseView& view, std::span<HeaderView> fields,
                            const HeadLimits& limits, TimePoint* first_byte = nullptr);

// A message body read by its framing (Content-Length, chunked with trailers, or until close),
// from the bytes that follow the head, within a size limit. Pure: the caller reads the stream
// and feeds what it buffers; body bytes come back as views into that input, never copied.
class BodyReader {
 public:
  using Step = ChunkedDecoder::Step;

  explicit BodyReader(MessageKind kind, ChunkedLimits limits = {}) : chunked_(kind, limits) {}

  // Starts the body of the next message, framed by `framing` (from request_framing or
  // response_framing), of at most `max_body` bytes. BodyTooLarge, and nothing to read, when a
  // Content-Length already announces more; Ok otherwise.
  ParseStatus start(const Framing& framing, uint64_t max_body);

  // Decodes from the front of `input`, yielding at most `max_data` body bytes as a view into it:
  // Ok once the body is complete (`consumed` stops right after it), Incomplete while it goes on,
  // or an error, which it then keeps returning: a chunked framing error, or BodyTooLarge when the
  // body grows past max_body (the bytes of that step are not yielded).
  Step decode(std::string_view input, size_t max_data = std::numeric_limits<size_t>::max());

  // Length framing: `n` (at most remaining()) body bytes the caller read on its own, straight
  // into its memory.
  void took(uint64_t n) noexcept;

  // The connection ended: Ok when that ends the body (until-close framing, or a body already
  // complete), Incomplete when it cut the body short.
  ParseStatus end_of_input() const noexcept;

  bool done() const noexcept { return done_; }
  // Body bytes yielded (or taken) so far.
  uint64_t received() const noexcept { return received_; }
  // Length framing: the bytes still to come.
  uint64_t remaining() const noexcept { return remaining_; }
  const Framing& framing() const noexcept { return framing_; }
  uint64_t max_body() const noexcept { return max_body_; }
  // The trailer fields of a chunked body, valid once done().
  const Headers& trailers() const noexcept { return chunked_.trailers(); }

 private:
  Framing framing_;
  ChunkedDecoder chunked_;
  bool chunked_used_ = false;
  bool done_ = true;
  ParseStatus failed_ = ParseStatus::Ok;
  uint64_t max_body_ = 0;
  uint64_t received_ = 0;
  uint64_t remaining_ = 0;
};

// Appends the line that opens a chunk of `size` bytes ("1f4\r\n"); the chunk's data and its CRLF
// follow. kLastChunk ends a chunked body without trailers.
void append_chunk_size(std::string& out, uint64_t size);
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

}  // namespace squall::http
