// Fuzzes response heads, response framing and the chunked decoder with response leniency.
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
  ResponseView view;
  ParseResult whole = parse_response(input, view, span, limits);
  check(whole.consumed <= input.size());
  check((whole.status == ParseStatus::Ok) == (whole.consumed > 0));

  check_prefix_verdict<ResponseView>(parse_response, input, input.size() / 3, span, limits, whole);
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
      check_chunked(MessageKind::Response, input.substr(whole.consumed));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  check_head(input, HeadLimits{}, 32);
  check_head(input, HeadLimits{.max_start_line = 40, .max_head = 160}, 4);
  check_chunked(MessageKind::Response, input);
  return 0;
}
