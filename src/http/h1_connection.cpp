// The HTTP/1 head reader, body reader and chunk framing shared by the client and the server.
#include "squall/http/h1_connection.h"

#include <algorithm>
#include <charconv>

#include "squall/core/loop.h"

namespace squall::http {

namespace {

ParseResult parse(std::string_view buffer, RequestView& view, std::span<HeaderView> fields,
                  const HeadLimits& limits, size_t previous) noexcept {
  return parse_request(buffer, view, fields, limits, previous);
}
ParseResult parse(std::string_view buffer, ResponseView& view, std::span<HeaderView> fields,
                  const HeadLimits& limits, size_t previous) noexcept {
  return parse_response(buffer, view, fields, limits, previous);
}

template <class View>
Task<ParseResult> read_any_head(Stream& stream, View& view, std::span<HeaderView> fields,
                                const HeadLimits& limits, TimePoint* first_byte) {
  size_t previous = 0;
  for (;;) {
    std::string_view buffer = stream.buffered();
    if (!buffer.empty()) {
      if (first_byte && *first_byte == TimePoint{}) *first_byte = Loop::time();
      ParseResult r = parse(buffer, view, fields, limits, previous);
      if (r.status != ParseStatus::Incomplete) co_return r;
      previous = buffer.size();
    }
    if (co_await stream.read_more() == 0) co_return ParseResult{};
  }
}

}  // namespace

Task<ParseResult> read_head(Stream& stream, RequestView& view, std::span<HeaderView> fields,
                            const HeadLimits& limits, TimePoint* first_byte) {
  return read_any_head(stream, view, fields, limits, first_byte);
}

Task<ParseResult> read_head(Stream& stream, ResponseView& view, std::span<HeaderView> fields,
                            const HeadLimits& limits, TimePoint* first_byte) {
  return read_any_head(stream, view, fields, limits, first_byte);
}

ParseStatus BodyReader::start(const Framing& framing, uint64_t max_body) {
  framing_ = framing;
  max_body_ = max_body;
  received_ = 0;
  remaining_ = 0;
  failed_ = ParseStatus::Ok;
  switch (framing.kind) {
    case BodyKind::None:
    case BodyKind::Tunnel:
      done_ = true;
      return ParseStatus::Ok;
    case BodyKind::Length:
      if (framing.length > max_body) {
        done_ = true;
        failed_ = ParseStatus::BodyTooLarge;
        return failed_;
      }
      remaining_ = framing.length;
      done_ = remaining_ == 0;
      return ParseStatus::Ok;
    case BodyKind::Chunked:
      // A decoder is reset only after use: most connections never see a chunked body.
      if (chunked_used_) chunked_.reset();
      chunked_used_ = true;
      done_ = false;
      return ParseStatus::Ok;
    case BodyKind::UntilClose:
      done_ = false;
      return ParseStatus::Ok;
  }
  return ParseStatus::Ok;
}

BodyReader::Step BodyReader::decode(std::string_view input, size_t max_data) {
  Step step;
  if (failed_ != ParseStatus::Ok) {
    step.status = failed_;
    return step;
  }
  if (done_) {
    step.status = ParseStatus::Ok;
    return step;
  }
  switch (framing_.kind) {
    case BodyKind::Length: {
      size_t n = static_cast<size_t>(std::min<uint64_t>({input.size(), remaining_, max_data}));
      step.data = input.substr(0, n);
      step.consumed = n;
      remaining_ -= n;
      received_ += n;
      done_ = remaining_ == 0;
      step.status = done_ ? ParseStatus::Ok : ParseStatus::Incomplete;
      return step;
    }
    case BodyKind::Chunked: {
      // No more input than `max_data` can take, so the data of the step always fits.
      step = chunked_.decode(input.substr(0, std::min(input.size(), max_data)));
      if (is_error(step.status)) {
        failed_ = step.status;
        return step;
      }
      received_ += step.data.size();
      if (received_ > max_body_) {
        failed_ = ParseStatus::BodyTooLarge;
        return Step{failed_, step.consumed, {}};
      }
      done_ = step.status == ParseStatus::Ok;
      return step;
    }
    case BodyKind::UntilClose: {
      size_t n = std::min(input.size(), max_data);
      received_ += n;
      if (received_ > max_body_) {
        failed_ = ParseStatus::BodyTooLarge;
        return Step{failed_, n, {}};
      }
      step.data = input.substr(0, n);
      step.consumed = n;
      return step;
    }
    case BodyKind::None:
    case BodyKind::Tunnel:
      break;
  }
  step.status = ParseStatus::Ok;
  return step;
}

void BodyReader::took(uint64_t n) noexcept {
  n = std::min(n, remaining_);
  remaining_ -= n;
  received_ += n;
  done_ = remaining_ == 0;
}

ParseStatus BodyReader::end_of_input() const noexcept {
  if (done_ || framing_.kind == BodyKind::UntilClose) return ParseStatus::Ok;
  return ParseStatus::Incomplete;
}

void append_chunk_size(std::string& out, uint64_t size) {
  char digits[20];
  auto end = std::to_chars(digits, digits + sizeof digits, size, 16).ptr;
  out.append(digits, end);
  out += "\r\n";
}

}  // namespace squall::http
