// Fuzzes response heads, response framing and the chunked decoder with response leniency.
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
  Headers trailers;
  bool operator==(const Body&) const = default;
};

// Decodes `input` as a chunked body, fed in two pieces cut at `cut`.
Body decode(std::string_view input, size_t cut) {
  ChunkedDecoder decoder(
      MessageKind::Response,
      ChunkedLimits{.max_extension = 64, .max_trailers = 256, .max_trailer_fields = 4});
  Body body;
  for (std::string_view piece : {input.substr(0, cut), input.substr(cut)}) {
    while (!piece.empty()) {
      auto step = decoder.decode(piece);
      check(step.consumed <= piece.size());
      body.data.append(step.data);
      body.consumed += step.consumed;
      piece.remove_prefix(step.consumed);
      if (step.status != ParseStatus::Incomplete) {
        body.status = step.status;
        if (step.status == ParseStatus::Ok) {
          body.trailers = decoder.trailers();
          check(body.trailers.size() <= 4);
        }
        return body;
      }
      check(step.consumed > 0);
    }
  }
  return body;
}

void check_chunked(std::string_view input) {
  Body whole = decode(input, input.size());
  size_t cut = input.empty() ? 0 : (static_cast<unsigned char>(input[0]) * 7919u) % input.size();
  check(decode(input, cut) == whole);
  check(whole.consumed <= input.size());
}

void check_head(std::string_view input, const HeadLimits& limits, size_t fields) {
  std::array<HeaderView, 32> storage;
  std::span<HeaderView> span(storage.data(), fields);
  ResponseView view;
  ParseResult whole = parse_response(input, view, span, limits);
  check(whole.consumed <= input.size());
  check((whole.status == ParseStatus::Ok) == (whole.consumed > 0));

  size_t cut = input.size() / 3;
  ResponseView prefix_view;
  ParseResult prefix = parse_response(input.substr(0, cut), prefix_view, span, limits);
  if (prefix.status != ParseStatus::Incomplete) {
    check(prefix.status == whole.status && prefix.consumed == whole.consumed);
  } else if (cut > 0) {
    ResponseView resumed_view;
    ParseResult resumed = parse_response(input, resumed_view, span, limits, cut);
    if (resumed.status == ParseStatus::Incomplete)
      check(whole.status == ParseStatus::Incomplete || is_error(whole.status));
    else
      check(resumed.status == whole.status && resumed.consumed == whole.consumed);
  }
  if (whole.status != ParseStatus::Ok) return;
  check(view.status >= 100 && view.status <= 999);
  ResponseHead head = to_head(view);

  // Serialised again (with CRLF everywhere), it parses back to the same head.
  std::string again;
  write_head(again, head);
  std::array<HeaderView, 32> storage2;
  ResponseView view2;
  ParseResult r2 = parse_response(again, view2, storage2, HeadLimits{1 << 20, 1 << 20});
  check(r2.status == ParseStatus::Ok && r2.consumed == again.size());
  ResponseHead back = to_head(view2);
  if (head.reason.empty()) back.reason.clear();
  check(back == head);

  for (std::string_view method : {"GET", "HEAD", "CONNECT"}) {
    Framing framing;
    ParseStatus st = response_framing(method, view.status, view.version, view.headers, framing);
    Framing framing2;
    check(response_framing(method, head, framing2) == st);
    check(framing2.kind == framing.kind && framing2.length == framing.length &&
          framing2.must_close == framing.must_close);
    if (st == ParseStatus::Ok && framing.kind == BodyKind::Chunked)
      check_chunked(input.substr(whole.consumed));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  check_head(input, HeadLimits{}, 32);
  check_head(input, HeadLimits{.max_start_line = 40, .max_head = 160}, 4);
  check_chunked(input);
  return 0;
}
