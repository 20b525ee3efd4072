// Fuzzes request heads, request framing and the chunked decoder with request strictness.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "squall/http/message.h"
#include "squall/http/parser.h"

using namespace squall::http;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

struct Body {
  ParseStatus status = ParseStatus::Incomplete;
  size_t consumed = 0;
  std::string data;
  bool operator==(const Body&) const = default;
};

// Decodes `input` as a chunked body, fed in two pieces cut at `cut`.
Body decode(MessageKind kind, std::string_view input, size_t cut) {
  ChunkedDecoder decoder(
      kind, ChunkedLimits{.max_extension = 64, .max_trailers = 256, .max_trailer_fields = 4});
  Body body;
  for (std::string_view piece : {input.substr(0, cut), input.substr(cut)}) {
    while (!piece.empty()) {
      auto step = decoder.decode(piece);
      check(step.consumed <= piece.size());
      check(step.data.empty() ||
            (step.data.data() >= piece.data() &&
             step.data.data() + step.data.size() <= piece.data() + step.consumed));
      body.data.append(step.data);
      body.consumed += step.consumed;
      piece.remove_prefix(step.consumed);
      if (step.status != ParseStatus::Incomplete) {
        body.status = step.status;
        check(decoder.body_size() == body.data.size());
        return body;
      }
      check(step.consumed > 0);
    }
  }
  return body;
}

void check_chunked(MessageKind kind, std::string_view input) {
  Body whole = decode(kind, input, input.size());
  size_t cut = input.empty() ? 0 : (static_cast<unsigned char>(input[0]) * 7919u) % input.size();
  check(decode(kind, input, cut) == whole);
  check(whole.consumed <= input.size());
}

void check_head(std::string_view input, const HeadLimits& limits, size_t fields) {
  std::array<HeaderView, 32> storage;
  std::span<HeaderView> span(storage.data(), fields);
  RequestView view;
  ParseResult whole = parse_request(input, view, span, limits);
  check(whole.consumed <= input.size());
  check((whole.status == ParseStatus::Ok) == (whole.consumed > 0));
  RequestHead head;
  if (whole.status == ParseStatus::Ok) {
    check(view.headers.size() <= fields);
    head = to_head(view);
  }

  // A prefix either needs more bytes or already reaches the same verdict as the whole input.
  size_t cut = input.size() / 2;
  RequestView prefix_view;
  ParseResult prefix = parse_request(input.substr(0, cut), prefix_view, span, limits);
  if (prefix.status != ParseStatus::Incomplete) {
    check(prefix.status == whole.status && prefix.consumed == whole.consumed);
  } else if (cut > 0) {
    // Resuming with previous_size may only defer an error, never change a verdict.
    RequestView resumed_view;
    ParseResult resumed = parse_request(input, resumed_view, span, limits, cut);
    if (resumed.status == ParseStatus::Incomplete)
      check(whole.status == ParseStatus::Incomplete || is_error(whole.status));
    else
      check(resumed.status == whole.status && resumed.consumed == whole.consumed);
  }
  if (whole.status != ParseStatus::Ok) return;

  // What we parsed, serialised again, parses back to the same head.
  std::string again;
  write_head(again, head);
  std::array<HeaderView, 32> storage2;
  RequestView view2;
  ParseResult r2 = parse_request(again, view2, storage2, HeadLimits{1 << 20, 1 << 20});
  check(r2.status == ParseStatus::Ok && r2.consumed == again.size());
  check(to_head(view2) == head);

  Framing framing;
  ParseStatus st = request_framing(view.version, view.headers, framing);
  Framing framing2;
  check(request_framing(head, framing2) == st);
  check(framing2.kind == framing.kind && framing2.length == framing.length);
  if (st == ParseStatus::Ok && framing.kind == BodyKind::Chunked)
    check_chunked(MessageKind::Request, input.substr(whole.consumed));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  check_head(input, HeadLimits{}, 32);
  check_head(input, HeadLimits{.max_start_line = 48, .max_head = 160}, 4);
  check_chunked(MessageKind::Request, input);
  return 0;
}
