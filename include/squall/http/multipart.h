// multipart/form-data (RFC 7578): a streaming parser for uploads, a whole-body helper, and the
// body a client sends (format_multipart).
//
//   MultipartParser parser(*multipart_boundary(content_type), {
//       .on_part = [&](const PartHead& head) { ... open a file for head.filename ... },
//       .on_data = [&](std::string_view bytes) { ... append ... },
//       .on_part_end = [&] { ... close it ... }});
//   while (size_t n = co_await request.read_body(buf)) parser.feed({buf.data(), n});
//   parser.finish();
//
// The parser holds at most one part head plus one delimiter's worth of bytes, whatever the
// size of the parts, so an upload streams to its destination in bounded memory. Part bodies are
// handed out as they arrive, in pieces of any size (possibly empty).
//
// Errors. Malformed input (no boundary where one must be, a part head without CRLF CRLF, a
// head field without a colon, input ending before the closing delimiter) throws
// squall::Error(Protocol); going past a limit throws squall::Error(TooLarge). A server answers
// both with 400 or 413. After an error the parser accepts no more input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/core/error.h"
#include "squall/http/form.h"
#include "squall/http/message.h"

namespace squall::http {

// The boundary parameter of a multipart Content-Type ("multipart/form-data; boundary=xyz",
// quoted or not), or nullopt when the type is not multipart/* or the boundary is missing,
// empty, longer than 70 bytes or holds a byte RFC 2046 does not allow.
std::optional<std::string> multipart_boundary(std::string_view content_type);

// A part's head, as its fields say.
struct PartHead {
  Headers headers;
  std::string name;  // Content-Disposition's name
  // Its filename (or filename*), for a file upload: as the client sent it, so never use it as
  // a path without reducing it to a safe base name first.
  std::optional<std::string> filename;
  std::string content_type;  // Content-Type, or "text/plain" when absent
};

struct MultipartLimits {
  size_t max_parts = 1000;
  size_t max_head_size = 16 * 1024;  // bytes of one part's head
  size_t max_preamble = 64 * 1024;   // bytes before the first delimiter
};

struct MultipartCallbacks {
  std::function<void(const PartHead&)> on_part;
  std::function<void(std::string_view)> on_data;
  std::function<void()> on_part_end;
};

class MultipartParser {
 public:
  // `boundary` without the leading "--". Callbacks may be empty.
  MultipartParser(std::string boundary, MultipartCallbacks callbacks, MultipartLimits limits = {});

  // Parses the next bytes of the body. Throws as described above.
  void feed(std::string_view bytes);
  // Declares the end of the body: throws Protocol if the closing delimiter was not seen.
  void finish();
  // The closing delimiter was seen (the rest, the epilogue, is ignored).
  bool done() const noexcept { return state_ == State::Epilogue; }

 private:
  enum class State { Preamble, AfterDelimiter, Head, Body, Epilogue, Failed };
  void parse();
  [[noreturn]] void fail(ErrorKind kind, std::string_view why);
  void parse_head(std::string_view head);

  std::string delimiter_;  // "\r\n--" + boundary
  MultipartCallbacks callbacks_;
  MultipartLimits limits_;
  State state_ = State::Preamble;
  std::string buffer_;
  size_t offset_ = 0;  // bytes of buffer_ already parsed
  size_t preamble_seen_ = 0;
  size_t parts_ = 0;
};

// A file from a multipart form, held in memory.
struct UploadedFile {
  std::string name;  // the form field's name
  std::string filename;
  std::string content_type;
  std::string body;
};

// A whole multipart form: fields without a filename as arguments, the others as files.
struct MultipartForm {
  Arguments fields;
  std::vector<UploadedFile> files;
};

// Parses a complete multipart body held in memory (the server already bounds its size).
MultipartForm parse_multipart(std::string_view body, std::string_view boundary,
                              const MultipartLimits& limits = {});

// One part of a form to send: a field, or a file when `filename` is set.
struct MultipartPart {
  std::string name;
  std::optional<std::string> filename;
  std::string content_type;  // sent when not empty
  std::string body;
};

// A boundary no body is likely to hold: 24 dashes and 16 random hexadecimal digits, as curl
// makes them.
std::string make_multipart_boundary();

// The multipart/form-data body of `parts`, delimited by `boundary` (the Content-Type is
// "multipart/form-data; boundary=<boundary>"). In the Content-Disposition's name and filename,
// '"', CR and LF are percent-encoded, as browsers and curl do.
std::string format_multipart(const std::vector<MultipartPart>& parts, std::string_view boundary);

}  // namespace squall::http
