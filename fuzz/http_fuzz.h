// What the HTTP request and response fuzz drivers both check: the chunked decoder fed whole and
// in two pieces, and a head parsed whole, from a prefix and resumed.
#pragma once

#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "squall/http/message.h"
#include "squall/http/parser.h"

namespace squall::http::fuzz {

inline void check(bool condition) {
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
inline Body decode(MessageKind kind, std::string_view input, size_t cut) {
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

// The same body whatever the cut, and never more consumed than given.
inline void check_chunked(MessageKind kind, std::string_view input) {
  Body whole = decode(kind, input, input.size());
  size_t cut = input.empty() ? 0 : (static_cast<unsigned char>(input[0]) * 7919u) % input.size();
  check(decode(kind, input, cut) == whole);
  check(whole.consumed <= input.size());
}

// A prefix cut at `cut` either needs more bytes or reaches the whole input's verdict; resuming
// from it with previous_size may only defer an error, never change a verdict. `parse` is
// parse_request or parse_response, `View` its view type.
template <class View, class Parse>
void check_prefix_verdict(Parse parse, std::string_view input, size_t cut,
                          std::span<HeaderView> storage, const HeadLimits& limits,
                          const ParseResult& whole) {
  View prefix_view;
  ParseResult prefix = parse(input.substr(0, cut), prefix_view, storage, limits, 0);
  if (prefix.status != ParseStatus::Incomplete) {
    check(prefix.status == whole.status && prefix.consumed == whole.consumed);
  } else if (cut > 0) {
    View resumed_view;
    ParseResult resumed = parse(input, resumed_view, storage, limits, cut);
    if (resumed.status == ParseStatus::Incomplete)
      check(whole.status == ParseStatus::Incomplete || is_error(whole.status));
    else
      check(resumed.status == whole.status && resumed.consumed == whole.consumed);
  }
}

}  // namespace squall::http::fuzz
