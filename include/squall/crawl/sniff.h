// "Is this response HTML?": MIME types and content sniffing per the WHATWG MIME Sniffing Standard.
//
// Pure functions over a Content-Type header value and the first bytes of a body; no I/O, no
// state, callable from any thread. The crawler calls is_html to decide whether to extract links
// and declared_charset to tell the link extractor how the page is encoded.
//
// Choices this layer makes where the standard leaves room or a crawler differs from a browser:
// - sniff_mime_type is the standard's "determining the computed MIME type of a resource" for a
//   browsing context, exactly: application/octet-stream is NOT sniffed there (a browser offers
//   it as a download).
// - is_html goes one step further, as the crawl issue asks: when the supplied type is
//   application/octet-stream and nosniff is not set, it applies the rules for identifying an
//   unknown MIME type (HTML signatures included), because servers mislabel pages and a crawler
//   renders nothing it sniffs, so the security reason for not sniffing does not apply.
// - Every image/*, audio/* and video/* type counts as "supported by the user agent".
// - The MP3-without-ID3 signature (section 6.2.3) is not implemented; such bodies fall through to
//   the text-or-binary test. The WebM signature takes a vint's length from the leading zero bits
//   of its first byte.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace squall {

// The standard's resource header: sniffing looks at no more than the first 1445 bytes. Pass at
// least this many bytes of the body, or the whole body if it is shorter.
inline constexpr size_t kSniffHeaderSize = 1445;

struct MimeParameter {
  std::string name;  // lower-case
  std::string value;
  bool operator==(const MimeParameter&) const = default;
};

// A MIME type record (section 4.1). Bytes are treated as code points U+0000-U+00FF.
struct MimeType {
  std::string type;                       // lower-case, HTTP token code points only
  std::string subtype;                    // lower-case, HTTP token code points only
  std::vector<MimeParameter> parameters;  // in order, names unique

  // "type/subtype".
  std::string essence() const;
  // The value of the parameter named `name` (lower-case), if present.
  std::optional<std::string_view> parameter(std::string_view name) const;
  // The standard's serialization: values that are not all token code points are quoted.
  std::string serialize() const;
  // text/html or application/xhtml+xml.
  bool is_html() const;
  bool operator==(const MimeType&) const = default;
};

// "Parse a MIME type" (section 4.4); nullopt where the standard returns failure.
std::optional<MimeType> parse_mime_type(std::string_view input);

// Fetch's "extract a MIME type" from a Content-Type header value, which may be several values
// joined by commas: the last valid one wins, keeping an earlier charset of the same essence.
// nullopt when no value parses (or each is "*/*").
std::optional<MimeType> extract_mime_type(std::string_view content_type);

// Fetch's "determine nosniff": whether an X-Content-Type-Options header value says nosniff (its
// first comma-separated value is "nosniff", in any case).
bool is_nosniff(std::string_view x_content_type_options);

// The computed MIME type (section 7) of a response in a browsing context. `content_type` is the
// Content-Type header value (nullopt when absent), `resource_header` the first bytes of the body
// (see kSniffHeaderSize), `no_sniff` whether X-Content-Type-Options: nosniff was sent. The
// result is the supplied type (parameters kept) when it stands, else a parameterless sniffed one.
MimeType sniff_mime_type(std::optional<std::string_view> content_type,
                         std::string_view resource_header, bool no_sniff = false);

// The rules for identifying an unknown MIME type (section 7.1) on their own. With
// `sniff_scriptable` the HTML and XML signatures are tried first.
MimeType identify_unknown_mime_type(std::string_view resource_header, bool sniff_scriptable);

// Whether a response is an HTML document: its computed MIME type is text/html or
// application/xhtml+xml, with application/octet-stream also sniffed unless `no_sniff` (see the
// note at the top of this file).
bool is_html(std::optional<std::string_view> content_type, std::string_view resource_header,
             bool no_sniff = false);

// The encoding a byte order mark at the start of `bytes` declares: "UTF-8", "UTF-16BE",
// "UTF-16LE", or nullopt without one.
std::optional<std::string_view> bom_encoding(std::string_view bytes);

// The charset parameter of the extracted Content-Type, as written (an encoding label for the
// Encoding Standard's "get an encoding"); nullopt when absent or empty.
std::optional<std::string> content_type_charset(std::optional<std::string_view> content_type);

// The encoding a document declares outside its markup, in the HTML Standard's order of
// precedence: a BOM first, then the Content-Type charset. nullopt means the caller goes on to
// prescan for <meta charset> and then to its default.
std::optional<std::string> declared_charset(std::optional<std::string_view> content_type,
                                            std::string_view first_bytes);

}  // namespace squall
