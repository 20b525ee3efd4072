// The pure HTTP/1.1 parser: request and response heads, body framing, and chunked decoding.
//
// No I/O and no allocation on the hot path. Four pieces, in the spirit of picohttpparser:
//   parse_request / parse_response  a head from the front of the caller's buffer, as views into it;
//   request_framing / response_framing  how the body after that head is delimited (RFC 9112 §6);
//   ChunkedDecoder                  a resumable decoder of a chunked body, yielding views.
// Everything reports a ParseStatus: Ok, Incomplete (feed more bytes), or one specific error with
// a name, a message and the status code a server answers it with (400, 414, 431, 501, 505).
//
// Strict where RFC 9112 says MUST, because that is what stops request smuggling: whitespace
// between a field name and its colon (requests), obs-fold (requests and responses), a CR not
// followed by LF, NUL anywhere in a head, other control bytes in request fields, bad tokens,
// Content-Length with Transfer-Encoding in a request, differing Content-Length values, a request
// whose final transfer coding is not chunked (or is "chunked" with parameters), and
// Transfer-Encoding in an HTTP/1.0 request.
// Lenient, on purpose, where real peers are sloppy and no smuggling follows:
//   - a bare LF ends a line in responses and in chunked response bodies (curl and browsers do the
//     same); requests must use CRLF, since a front end that disagrees about line ends is exactly
//     how smuggling starts;
//   - a status line may lack the space and reason after the code ("HTTP/1.1 200\r\n"), and the
//     reason may hold any byte except NUL, CR and LF;
//   - response field values may hold control bytes other than NUL, CR and LF;
//   - whitespace between a response field name and its colon is dropped ("Server : x");
//   - any token is a method, and any digit pair a minor version (HTTP/1.2 parses as {1, 2});
//   - identical repeated Content-Length values ("5, 5") are one length, as RFC 9110 §8.6 allows;
//   - request targets may hold bytes 0x80-0xFF (raw UTF-8 paths are common in the wild); the form
//     of the target (origin, absolute, authority, "*") is left to the server.
// Also accepted in requests, as RFC 9112 §2.2 asks: empty lines (CRLF) before the request line.
// Thread-safety: the functions are pure; a ChunkedDecoder belongs to one user at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "squall/http/message.h"

namespace squall::http {

// X(enumerator, name, HTTP status a server answers with, message)
#define SQUALL_HTTP_PARSE_STATUSES(X)                                                              \
  X(Ok, "ok", 200, "parsed")                                                                       \
  X(Incomplete, "incomplete", 400, "more bytes are needed")                                        \
  X(BadMethod, "bad method", 400, "the method is not a token")                                     \
  X(BadTarget, "bad target", 400, "the request target is empty or holds a space or control byte")  \
  X(BadVersion, "bad version", 400, "the HTTP version is not HTTP/<digit>.<digit> before CRLF")    \
  X(UnsupportedVersion, "unsupported version", 505, "the HTTP major version is not 1")             \
  X(BadStatusLine, "bad status line", 400,                                                         \
    "the status code is not three digits or the reason holds NUL")                                 \
  X(BadHeaderName, "bad header name", 400, "a field name is empty or holds a non-token byte")      \
  X(WhitespaceBeforeColon, "whitespace before colon", 400,                                         \
    "whitespace between a field name and its colon")                                               \
  X(MissingColon, "missing colon", 400, "a field line has no colon")                               \
  X(BadHeaderValue, "bad header value", 400, "a field value holds NUL or a control byte")          \
  X(ObsFold, "obs-fold", 400, "a field line starts with whitespace (obsolete line folding)")       \
  X(BareCr, "bare CR", 400, "a CR is not followed by LF")                                          \
  X(BareLf, "bare LF", 400, "a line ends with LF alone where CRLF is required")                    \
  X(StartLineTooLong, "start line too long", 414, "the request or status line exceeds the limit")  \
  X(HeadTooLarge, "head too large", 431, "the head exceeds the byte limit")                        \
  X(TooManyHeaders, "too many headers", 431, "the head has more fields than the limit")            \
  X(BadContentLength, "bad content length", 400, "Content-Length is not a decimal number")         \
  X(ConflictingContentLength, "conflicting content length", 400,                                   \
    "Content-Length holds differing values")                                                       \
  X(ContentLengthWithTransferEncoding, "content length with transfer encoding", 400,               \
    "a request has both Content-Length and Transfer-Encoding")                                     \
  X(BadTransferEncoding, "bad transfer encoding", 400,                                             \
    "the final transfer coding of a request is not chunked, or chunked is applied twice")          \
  X(UnsupportedTransferCoding, "unsupported transfer coding", 501,                                 \
    "a transfer coding other than chunked is applied")                                             \
  X(BadChunkSize, "bad chunk size", 400, "a chunk size is not hexadecimal")                        \
  X(ChunkSizeOverflow, "chunk size overflow", 400, "a chunk size does not fit in 64 bits")         \
  X(BadChunkExtension, "bad chunk extension", 400, "a chunk extension holds a control byte")       \
  X(ChunkExtensionTooLong, "chunk extension too long", 400, "a chunk extension exceeds the limit") \
  X(BadChunkEnd, "bad chunk end", 400, "chunk data is not followed by CRLF")                       \
  X(TrailersTooLarge, "trailers too large", 431, "the trailer section exceeds the limit")          \
  X(BodyTooLarge, "body too large", 413, "the body exceeds the size limit")

enum class ParseStatus : uint8_t {
#define SQUALL_X(id, name, code, message) id,
  SQUALL_HTTP_PARSE_STATUSES(SQUALL_X)
#undef SQUALL_X
};

// Neither Ok nor Incomplete.
constexpr bool is_error(ParseStatus s) noexcept {
  return s != ParseStatus::Ok && s != ParseStatus::Incomplete;
}
// Short name ("bad chunk size"), one-sentence message, and the status code a server answers the
// error with (400 for anything not more specific).
std::string_view parse_status_name(ParseStatus s) noexcept;
std::string_view parse_status_message(ParseStatus s) noexcept;
int parse_status_http_code(ParseStatus s) noexcept;

// Which side sent the bytes: requests are parsed strictly, responses leniently (see above).
enum class MessageKind : uint8_t { Request, Response };

// A field as views into the caller's buffer. The name is as received; the value has its leading
// and trailing whitespace removed.
struct HeaderView {
  std::string_view name;
  std::string_view value;
};

// A parsed request head; every view points into the buffer given to parse_request and lives as
// long as those bytes do. `headers` is the front of the storage given to parse_request.
struct RequestView {
  std::string_view method;
  std::string_view target;
  Version version;
  std::span<HeaderView> headers;
};

struct ResponseView {
  Version version;
  int status = 0;
  std::string_view reason;
  std::span<HeaderView> headers;
};

// Caller-chosen limits on a head. The field-count limit is the size of the storage span.
struct HeadLimits {
  // Bytes from the start of the buffer to the end of the request or status line, counting its
  // line end (and any empty lines before a request line). Exceeding it: StartLineTooLong.
  size_t max_start_line = 8 * 1024;
  // Bytes of the whole head, counting the empty line that ends it. Exceeding it: HeadTooLarge.
  size_t max_head = 64 * 1024;
};

// What parse_request / parse_response return. `consumed` is the length of the head, including its
// final empty line, when status is Ok; it is 0 otherwise.
struct ParseResult {
  ParseStatus status = ParseStatus::Incomplete;
  size_t consumed = 0;
};

// Parses a request head from the front of `buffer`. On Ok, `out` holds views into `buffer` and
// the body (if any) starts at buffer[consumed]. On Incomplete, call again with the same bytes
// plus more (the buffer may have moved); `out` is unspecified until Ok. `storage` receives the
// fields: a head with more fields than storage.size() fails with TooManyHeaders.
//
// Errors are found left to right: the result for a buffer that ends with a complete head, or
// that reaches a limit, is the same however the bytes arrived. `previous_size`, the buffer size
// at the last call that returned Incomplete (0 if none), lets the parser skip the full parse
// until the head can be complete, so a head dripped byte by byte costs linear, not quadratic,
// time; the price is that an error in an unfinished head is reported when the head completes or
// a limit is reached, not at once.
ParseResult parse_request(std::string_view buffer, RequestView& out, std::span<HeaderView> storage,
                          const HeadLimits& limits = {}, size_t previous_size = 0) noexcept;

// As parse_request, for a response head. 1xx heads are ordinary heads: the caller skips them.
ParseResult parse_response(std::string_view buffer, ResponseView& out,
                           std::span<HeaderView> storage, const HeadLimits& limits = {},
                           size_t previous_size = 0) noexcept;

// Copies a parsed head out of the buffer.
RequestHead to_head(const RequestView& view);
ResponseHead to_head(const ResponseView& view);

// How a message body is delimited (RFC 9112 section 6.3).
enum class BodyKind : uint8_t {
  None,        // no body: the next message starts right after the head
  Length,      // exactly Framing::length bytes
  Chunked,     // decode with ChunkedDecoder
  UntilClose,  // everything until the peer closes (responses only)
  Tunnel,      // a 2xx answer to CONNECT: the connection becomes a tunnel after the head
};

struct Framing {
  BodyKind kind = BodyKind::None;
  uint64_t length = 0;      // for BodyKind::Length
  bool must_close = false;  // the framing itself forbids reusing the connection afterwards
};

// The framing of a request body. Ok or an error: ContentLengthWithTransferEncoding,
// BadContentLength, ConflictingContentLength, BadTransferEncoding (the final coding is not
// chunked, chunked appears twice, or the request is HTTP/1.0 with Transfer-Encoding: RFC 9112
// §6.1 calls that framing faulty), UnsupportedTransferCoding (a coding before chunked). A
// request with neither field has no body. Content-Length may repeat (in several fields or as a
// comma list) only with identical values. Transfer codings are a comma list across all
// Transfer-Encoding fields, empty elements ignored; "chunked" matches case-insensitively and only
// without parameters ("chunked;x=y" counts as another coding).
ParseStatus request_framing(Version version, std::span<const HeaderView> headers,
                            Framing& out) noexcept;
ParseStatus request_framing(const RequestHead& head, Framing& out) noexcept;

// The framing of a response body, given the method of the request it answers. No body for HEAD,
// 1xx, 204 and 304; a tunnel for a 2xx to CONNECT. With Transfer-Encoding: chunked as the only
// coding, Chunked (and must_close when Content-Length is also present, as it hints at smuggling);
// a final coding other than chunked, or Transfer-Encoding in an HTTP/1.0 response, reads until
// close; a coding before a final chunked is UnsupportedTransferCoding. Otherwise a valid
// Content-Length gives Length, an invalid one an error, and no Content-Length reads until close.
ParseStatus response_framing(std::string_view request_method, int status, Version version,
                             std::span<const HeaderView> headers, Framing& out) noexcept;
ParseStatus response_framing(std::string_view request_method, const ResponseHead& head,
                             Framing& out) noexcept;

struct ChunkedLimits {
  size_t max_extension = 1024;     // bytes of chunk extensions on one chunk-size line
  size_t max_trailers = 8 * 1024;  // bytes of the trailer section, counting its final empty line
  size_t max_trailer_fields = 32;
};

// A resumable decoder of a chunked body (RFC 9112 section 7.1). Feed it the bytes that follow the
// head, in pieces of any size; it yields the chunk data as views into those pieces, so nothing is
// copied. Chunk extensions are checked for control bytes and skipped. Trailers are parsed with
// the same rules as head fields (only they allocate, and only when present).
//
//   while (!input.empty()) {
//     auto step = decoder.decode(input);
//     deliver(step.data);
//     input.remove_prefix(step.consumed);
//     if (step.status != ParseStatus::Incomplete) break;  // Ok: body done; else an error
//   }
//
// A bare LF is accepted as a line end only for MessageKind::Response. Spaces and tabs after the
// chunk size are accepted before ";" (the grammar's BWS) and, leniently, before the line end.
// Chunk sizes have any number of hex digits (leading zeros included) but must fit in 64 bits.
class ChunkedDecoder {
 public:
  struct Step {
    ParseStatus status = ParseStatus::Incomplete;
    size_t consumed = 0;
    std::string_view data;  // body bytes, a view into the input of this call; may be empty
  };

  explicit ChunkedDecoder(MessageKind kind = MessageKind::Request, ChunkedLimits limits = {});

  // Consumes a prefix of `input`, stopping after one run of chunk data, at the end of the body
  // (Ok: `consumed` stops right after the final empty line), or at an error (which the decoder
  // then keeps returning). Incomplete means the body goes on. Given non-empty input, an
  // Incomplete step consumes at least one byte. After Ok it returns Ok and consumes nothing.
  Step decode(std::string_view input);

  bool done() const noexcept { return state_ == State::Done; }
  // Body bytes yielded so far.
  uint64_t body_size() const noexcept { return body_size_; }
  // The trailer fields, valid once done().
  const Headers& trailers() const noexcept { return trailers_; }
  // Forgets everything, ready for the next body.
  void reset();

 private:
  enum class State : uint8_t {
    SizeStart,
    Size,
    SizeSpace,
    Extension,
    SizeLf,
    Data,
    DataCr,
    DataLf,
    TrailerStart,
    TrailerEndLf,
    Trailer,
    Done,
    Failed,
  };

  ParseStatus fail(ParseStatus s) noexcept;
  ParseStatus finish_trailers();

  MessageKind kind_;
  ChunkedLimits limits_;
  State state_ = State::SizeStart;
  ParseStatus error_ = ParseStatus::Ok;
  uint64_t remaining_ = 0;
  uint64_t body_size_ = 0;
  size_t extension_size_ = 0;
  std::string trailer_bytes_;
  Headers trailers_;
};

}  // namespace squall::http
