// Content negotiation for responses: which content coding a client's Accept-Encoding allows,
// and which media types are worth compressing.
//
//   auto codings = acceptable_codings(req.header("Accept-Encoding").value_or(""),
//                                     {ContentCoding::Zstd, ContentCoding::Gzip});
//   if (!codings.empty()) ... send codings.front() ...
#pragma once

#include <initializer_list>
#include <string_view>
#include <vector>

#include "squall/http/decode.h"

namespace squall::http {

// The codings of `offered` that an Accept-Encoding value allows (RFC 9110 §12.5.3), best first:
// by the client's q-value, and by their order in `offered` when the client weighs them alike.
// A coding is allowed when the field names it (or "x-gzip" for gzip) with q > 0, or when "*"
// has q > 0 and the field does not name it. Empty when the field is empty or allows none of
// them; then the server sends identity. Malformed elements are skipped.
std::vector<ContentCoding> acceptable_codings(std::string_view accept_encoding,
                                              std::initializer_list<ContentCoding> offered);

// Whether a body of this media type shrinks when compressed: text/*, JSON, JavaScript, XML and
// their +json / +xml kinds, SVG, WebAssembly; not images, audio, video, fonts in compressed
// formats or archives. Parameters (";charset=...") are ignored; case-insensitive.
bool compressible_type(std::string_view media_type) noexcept;

}  // namespace squall::http
