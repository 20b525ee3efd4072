// Fuzzes request heads, request framing and the chunked decoder with request strictness.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "http_fuzz.h"
#include "squall/http/message.h"
#include "squall/http/parser.h"

using namespace squall::http;
using namespace squall::http::fuzz;

namespace {

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

  check_prefix_verdict<RequestView>(parse_request, input, input.size() / 2, span, limits, whole);
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
