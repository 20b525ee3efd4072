// MIME types by file extension: the built-in table the static file handler answers with.
//
// The table is compiled in because /etc/mime.types is not on every machine, and a server whose
// answers change with the host's packages is hard to test. It covers the types a web site serves
// (documents, styles, scripts, images, fonts, media, archives); anything else is
// application/octet-stream, which browsers download rather than render. Textual types carry
// "; charset=utf-8", the encoding the web expects when nothing else says.
#pragma once

#include <string_view>

namespace squall::http {

// The media type for the extension of `filename` (the bytes after its last '.', compared
// case-insensitively; a leading directory part is ignored): "index.HTML" → "text/html;
// charset=utf-8". Returns "application/octet-stream" when the extension is missing or unknown.
// The view points into a static table.
std::string_view mime_type(std::string_view filename) noexcept;

}  // namespace squall::http
