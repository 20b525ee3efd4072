// MIME type parsing and content sniffing, following the WHATWG MIME Sniffing Standard step by step.
#include "squall/crawl/sniff.h"
#include "squall/url/ascii.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace squall {
namespace detail {
namespace {

constexpr bool is_http_whitespace(char c) {
  return c == '\n' || c == '\r' || c == '\t' || c == ' ';
}

constexpr bool is_http_tab_or_space(char c) {
  return c == '\t' || c == ' ';
}

constexpr bool is_token_code_point(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(ch) != std::string_view::npos;
}

constexpr bool is_quoted_string_token_code_point(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return c == '\t' || (c >= 0x20 && c != 0x7F);
}

bool all_token(std::string_view s) {
  return std::all_of(s.begin(), s.end(), is_token_code_point);
}

std::string_view trim_trailing_http_whitespace(std::string_view s) {
  while (!s.empty() && is_http_whitespace(s.back())) s.remove_suffix(1);
  return s;
}

// "Collect a sequence of code points" that are not in `stops`.
std::string_view collect_until(std::string_view input, size_t& pos, std::string_view stops) {
  // At most three stops: compared inline, where string_view::find would call memchr a byte.
  auto is_stop = [stops](char c) {
    return std::find(stops.begin(), stops.end(), c) != stops.end();
  };
  const size_t start = pos;
  while (pos < input.size() && !is_stop(input[pos])) ++pos;
  return input.substr(start, pos - start);
}

// Fetch's "collect an HTTP quoted string"; input[pos] is '"'. With `extract_value` the result
// is the unquoted, unescaped value, else the quoted text as written.
std::string collect_http_quoted_string(std::string_view input, size_t& pos, bool extract_value) {
  const size_t start = pos;
  std::string value;
  ++pos;
  for (;;) {
    value += collect_until(input, pos, "\"\\");
    if (pos >= input.size()) break;
    const char quote_or_backslash = input[pos++];
    if (quote_or_backslash == '\\') {
      if (pos >= input.size()) {
        value += '\\';
        break;
      }
      value += input[pos++];
    } else {
      break;
    }
  }
  if (!extract_value) return std::string(input.substr(start, pos - start));
  return value;
}

// Fetch's "get, decode, and split" for one header value: commas outside quoted strings.
std::vector<std::string> split_header_values(std::string_view input) {
  std::vector<std::string> values;
  size_t pos = 0;
  std::string temporary;
  for (;;) {
    temporary += collect_until(input, pos, "\",");
    if (pos < input.size() && input[pos] == '"') {
      temporary += collect_http_quoted_string(input, pos, false);
      if (pos < input.size()) continue;
    }
    std::string_view trimmed = temporary;
    while (!trimmed.empty() && is_http_tab_or_space(trimmed.front())) trimmed.remove_prefix(1);
    while (!trimmed.empty() && is_http_tab_or_space(trimmed.back())) trimmed.remove_suffix(1);
    values.emplace_back(trimmed);
    temporary.clear();
    if (pos >= input.size()) return values;
    ++pos;  // the ','
  }
}

MimeType make(std::string_view type, std::string_view subtype) {
  return MimeType{std::string(type), std::string(subtype), {}};
}

// Whitespace bytes of the sniffing standard (section 3): no vertical tab, but form feed.
constexpr bool is_whitespace_byte(unsigned char c) {
  return c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x20;
}

constexpr bool is_binary_data_byte(unsigned char c) {
  return c <= 0x08 || c == 0x0B || (c >= 0x0E && c <= 0x1A) || (c >= 0x1C && c <= 0x1F);
}

bool has_binary_data(std::string_view bytes) {
  return std::any_of(bytes.begin(), bytes.end(),
                     [](char c) { return is_binary_data_byte(static_cast<unsigned char>(c)); });
}

// The pattern matching algorithm (section 5.1). A mask byte of 0 means "any byte"; `pattern` and
// `mask` have the same length.
bool pattern_match(std::string_view input, std::string_view pattern, std::string_view mask,
                   bool skip_whitespace = false) {
  size_t s = 0;
  if (skip_whitespace)
    while (s < input.size() && is_whitespace_byte(static_cast<unsigned char>(input[s]))) ++s;
  if (input.size() - s < pattern.size()) return false;
  for (size_t p = 0; p < pattern.size(); ++p, ++s) {
    const auto masked = static_cast<unsigned char>(input[s]) & static_cast<unsigned char>(mask[p]);
    if (masked != static_cast<unsigned char>(pattern[p])) return false;
  }
  return true;
}

// An exact prefix: pattern_match with an all-0xFF mask.
bool starts_with_bytes(std::string_view input, std::string_view pattern) {
  return input.starts_with(pattern);
}

// The HTML rows of the unknown-type table: after whitespace bytes, `<` + name compared
// ASCII-case-insensitively (the 0xDF mask on letters), then a tag-terminating byte (space or >).
bool matches_html_signature(std::string_view input) {
  static constexpr std::string_view kNames[] = {
      "!DOCTYPE HTML", "HTML",  "HEAD", "SCRIPT", "IFRAME", "H1", "DIV", "FONT", "TABLE", "A",
      "STYLE",         "TITLE", "B",    "BODY",   "BR",     "P",  "!--"};
  size_t s = 0;
  while (s < input.size() && is_whitespace_byte(static_cast<unsigned char>(input[s]))) ++s;
  if (s >= input.size() || input[s] != '<') return false;
  ++s;
  for (std::string_view name : kNames) {
    if (input.size() - s < name.size() + 1) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) {
      const auto c = static_cast<unsigned char>(input[s + i]);
      const bool letter = name[i] >= 'A' && name[i] <= 'Z';
      same = (letter ? (c & 0xDF) : c) == static_cast<unsigned char>(name[i]);
    }
    const char terminator = input[s + name.size()];
    if (same && (terminator == ' ' || terminator == '>')) return true;
  }
  return false;
}

// Image type pattern matching (section 6.1).
std::optional<MimeType> match_image(std::string_view h) {
  using namespace std::string_view_literals;
  if (starts_with_bytes(h, "\x00\x00\x01\x00"sv) || starts_with_bytes(h, "\x00\x00\x02\x00"sv))
    return make("image", "x-icon");
  if (starts_with_bytes(h, "BM")) return make("image", "bmp");
  if (starts_with_bytes(h, "GIF87a") || starts_with_bytes(h, "GIF89a")) return make("image", "gif");
  if (pattern_match(h, "RIFF\0\0\0\0WEBPVP"sv,
                    "\xFF\xFF\xFF\xFF\0\0\0\0\xFF\xFF\xFF\xFF\xFF\xFF"sv))
    return make("image", "webp");
  if (starts_with_bytes(h, "\x89PNG\r\n\x1A\n")) return make("image", "png");
  if (starts_with_bytes(h, "\xFF\xD8\xFF")) return make("image", "jpeg");
  return std::nullopt;
}

uint32_t read_be32(std::string_view h, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(h[at])) << 24 |
         static_cast<uint32_t>(static_cast<unsigned char>(h[at + 1])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(h[at + 2])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(h[at + 3]));
}

// "Matches the signature for MP4" (section 6.2.1).
bool is_mp4(std::string_view h) {
  if (h.size() < 12) return false;
  const uint32_t box_size = read_be32(h, 0);
  if (h.size() < box_size || box_size % 4 != 0) return false;
  if (h.substr(4, 4) != "ftyp") return false;
  if (h.substr(8, 3) == "mp4") return true;
  for (size_t read = 16; read + 3 <= box_size; read += 4)
    if (h.substr(read, 3) == "mp4") return true;
  return false;
}

// "Matches the signature for WebM" (section 6.2.2): an EBML header whose DocType element (0x4282)
// says "webm", possibly after zero padding. A vint's size is its first byte's leading zeros + 1.
bool is_webm(std::string_view h) {
  if (!starts_with_bytes(h, "\x1A\x45\xDF\xA3")) return false;
  for (size_t iter = 4; iter + 1 < h.size() && iter < 38; ++iter) {
    if (h[iter] != '\x42' || h[iter + 1] != '\x82') continue;
    size_t at = iter + 2;
    if (at >= h.size()) break;
    const auto first = static_cast<unsigned char>(h[at]);
    size_t vint_size = 1;
    for (unsigned mask = 0x80; vint_size < 8 && (first & mask) == 0; mask >>= 1) ++vint_size;
    at += vint_size;
    if (at + 4 > h.size()) break;
    while (at < h.size() && h[at] == '\0') ++at;
    if (h.substr(at).starts_with("webm")) return true;
  }
  return false;
}

// Audio or video type pattern matching (section 6.2), without MP3-without-ID3.
std::optional<MimeType> match_audio_video(std::string_view h) {
  using namespace std::string_view_literals;
  constexpr auto riff_mask = "\xFF\xFF\xFF\xFF\0\0\0\0\xFF\xFF\xFF\xFF"sv;
  if (starts_with_bytes(h, ".snd")) return make("audio", "basic");
  if (pattern_match(h, "FORM\0\0\0\0AIFF"sv, riff_mask)) return make("audio", "aiff");
  if (starts_with_bytes(h, "ID3")) return make("audio", "mpeg");
  if (starts_with_bytes(h, "OggS\0"sv)) return make("application", "ogg");
  if (starts_with_bytes(h, "MThd\0\0\0\x06"sv)) return make("audio", "midi");
  if (pattern_match(h, "RIFF\0\0\0\0AVI "sv, riff_mask)) return make("video", "avi");
  if (pattern_match(h, "RIFF\0\0\0\0WAVE"sv, riff_mask)) return make("audio", "wave");
  if (is_mp4(h)) return make("video", "mp4");
  if (is_webm(h)) return make("video", "webm");
  return std::nullopt;
}

// Archive type pattern matching (section 6.3).
std::optional<MimeType> match_archive(std::string_view h) {
  using namespace std::string_view_literals;
  if (starts_with_bytes(h, "\x1F\x8B\x08")) return make("application", "x-gzip");
  if (starts_with_bytes(h, "PK\x03\x04")) return make("application", "zip");
  if (starts_with_bytes(h, "Rar \x1A\x07\0"sv)) return make("application", "x-rar-compressed");
  return std::nullopt;
}

// The rules for distinguishing if a resource is text or binary (section 7.2).
MimeType text_or_binary(std::string_view h) {
  if (h.starts_with("\xFE\xFF") || h.starts_with("\xFF\xFE") || h.starts_with("\xEF\xBB\xBF"))
    return make("text", "plain");
  if (!has_binary_data(h)) return make("text", "plain");
  return identify_unknown_mime_type(h, false);
}

// The rules for distinguishing if a resource is a feed or HTML (section 7.3); true for a feed,
// with its type in `feed`.
bool sniff_feed(std::string_view h, MimeType& feed) {
  size_t s = h.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  const auto at = [&](std::string_view what) { return h.substr(s).starts_with(what); };
  for (;;) {
    for (;;) {  // find the next '<' past whitespace
      if (s >= h.size()) return false;
      if (h[s] == '<') {
        ++s;
        break;
      }
      if (!is_whitespace_byte(static_cast<unsigned char>(h[s]))) return false;
      ++s;
    }
    if (at("!--")) {
      s += 3;
      for (;; ++s) {
        if (s >= h.size()) return false;
        if (at("-->")) {
          s += 3;
          break;
        }
      }
      continue;
    }
    if (at("!")) {
      for (++s;; ++s) {
        if (s >= h.size()) return false;
        if (h[s] == '>') {
          ++s;
          break;
        }
      }
      continue;
    }
    if (at("?")) {
      for (++s;; ++s) {
        if (s >= h.size()) return false;
        if (at("?>")) {
          s += 2;
          break;
        }
      }
      continue;
    }
    if (at("rss")) {
      feed = make("application", "rss+xml");
      return true;
    }
    if (at("feed")) {
      feed = make("application", "atom+xml");
      return true;
    }
    if (at("rdf:RDF")) {
      constexpr std::string_view kRss = "http://purl.org/rss/1.0/";
      constexpr std::string_view kRdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
      const std::string_view rest = h.substr(s + 7);
      const size_t rss = rest.find(kRss);
      const size_t rdf = rest.find(kRdf);
      if (rss != std::string_view::npos && rdf != std::string_view::npos) {
        feed = make("application", "rss+xml");
        return true;
      }
    }
    return false;
  }
}

}  // namespace
}  // namespace detail

std::string MimeType::essence() const {
  return type + "/" + subtype;
}

std::optional<std::string_view> MimeType::parameter(std::string_view name) const {
  for (const MimeParameter& p : parameters)
    if (p.name == name) return std::string_view(p.value);
  return std::nullopt;
}

std::string MimeType::serialize() const {
  std::string out = essence();
  for (const MimeParameter& p : parameters) {
    out += ';';
    out += p.name;
    out += '=';
    if (!p.value.empty() && detail::all_token(p.value)) {
      out += p.value;
      continue;
    }
    out += '"';
    for (char c : p.value) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out;
}

bool MimeType::is_html() const {
  return (type == "text" && subtype == "html") || (type == "application" && subtype == "xhtml+xml");
}

std::optional<MimeType> parse_mime_type(std::string_view input) {
  using namespace detail;
  while (!input.empty() && is_http_whitespace(input.front())) input.remove_prefix(1);
  input = trim_trailing_http_whitespace(input);
  size_t pos = 0;
  const std::string_view type = collect_until(input, pos, "/");
  if (type.empty() || !all_token(type) || pos >= input.size()) return std::nullopt;
  ++pos;
  const std::string_view subtype = trim_trailing_http_whitespace(collect_until(input, pos, ";"));
  if (subtype.empty() || !all_token(subtype)) return std::nullopt;

  MimeType mime{ascii_lower(type), ascii_lower(subtype), {}};
  while (pos < input.size()) {
    ++pos;  // the ';'
    while (pos < input.size() && is_http_whitespace(input[pos])) ++pos;
    std::string name = ascii_lower(collect_until(input, pos, ";="));
    if (pos < input.size()) {
      if (input[pos] == ';') continue;
      ++pos;  // the '='
    }
    if (pos >= input.size()) break;
    std::string value;
    if (input[pos] == '"') {
      value = collect_http_quoted_string(input, pos, true);
      collect_until(input, pos, ";");
    } else {
      value = trim_trailing_http_whitespace(collect_until(input, pos, ";"));
      if (value.empty()) continue;
    }
    if (!name.empty() && all_token(name) &&
        std::all_of(value.begin(), value.end(), is_quoted_string_token_code_point) &&
        !mime.parameter(name)) {
      mime.parameters.push_back({std::move(name), std::move(value)});
    }
  }
  return mime;
}

std::optional<MimeType> extract_mime_type(std::string_view content_type) {
  // One value, as servers almost always send: nothing to split (which costs a string each) and
  // no charset to carry over from an earlier value. Splitting trims tabs and spaces, which
  // parse_mime_type trims too.
  if (content_type.find_first_of(",\"") == std::string_view::npos) {
    std::optional<MimeType> mime = parse_mime_type(content_type);
    if (mime && mime->type == "*" && mime->subtype == "*") return std::nullopt;
    return mime;
  }
  std::optional<std::string> charset;
  std::string essence;
  std::optional<MimeType> mime;
  for (const std::string& value : detail::split_header_values(content_type)) {
    std::optional<MimeType> temporary = parse_mime_type(value);
    if (!temporary || (temporary->type == "*" && temporary->subtype == "*")) continue;
    mime = std::move(temporary);
    if (mime->essence() != essence) {
      charset.reset();
      if (auto c = mime->parameter("charset")) charset = std::string(*c);
      essence = mime->essence();
    } else if (!mime->parameter("charset") && charset) {
      mime->parameters.push_back({"charset", *charset});
    }
  }
  return mime;
}

bool is_nosniff(std::string_view x_content_type_options) {
  const std::vector<std::string> values = detail::split_header_values(x_content_type_options);
  return !values.empty() && ascii_lower(values.front()) == "nosniff";
}

MimeType identify_unknown_mime_type(std::string_view h, bool sniff_scriptable) {
  using namespace detail;
  h = h.substr(0, kSniffHeaderSize);
  if (sniff_scriptable) {
    if (matches_html_signature(h)) return make("text", "html");
    if (pattern_match(h, "<?xml", "\xFF\xFF\xFF\xFF\xFF", true)) return make("text", "xml");
  }
  if (starts_with_bytes(h, "%PDF-")) return make("application", "pdf");
  if (starts_with_bytes(h, "%!PS-Adobe-")) return make("application", "postscript");
  if (h.starts_with("\xFE\xFF") || h.starts_with("\xFF\xFE") || h.starts_with("\xEF\xBB\xBF"))
    return make("text", "plain");
  if (auto image = match_image(h)) return *image;
  if (auto media = match_audio_video(h)) return *media;
  if (auto archive = match_archive(h)) return *archive;
  if (!has_binary_data(h)) return make("text", "plain");
  return make("application", "octet-stream");
}

MimeType sniff_mime_type(std::optional<std::string_view> content_type,
                         std::string_view resource_header, bool no_sniff) {
  const std::string_view h = resource_header.substr(0, kSniffHeaderSize);
  std::optional<MimeType> supplied;
  // The field almost every page comes with, a bare text/html, needs no parsing.
  if (content_type && iequals(*content_type, "text/html"))
    supplied = MimeType{.type = "text", .subtype = "html", .parameters = {}};
  else if (content_type)
    supplied = extract_mime_type(*content_type);
  const std::string essence = supplied ? supplied->essence() : std::string();

  if (!supplied || essence == "unknown/unknown" || essence == "application/unknown" ||
      essence == "*/*")
    return identify_unknown_mime_type(h, !no_sniff);
  if (no_sniff) return *supplied;
  // The check-for-apache-bug flag: the header value is byte for byte one of these.
  for (std::string_view apache : {"text/plain", "text/plain; charset=ISO-8859-1",
                                  "text/plain; charset=iso-8859-1", "text/plain; charset=UTF-8"})
    if (*content_type == apache) return detail::text_or_binary(h);
  const bool xml =
      supplied->subtype.ends_with("+xml") || essence == "text/xml" || essence == "application/xml";
  if (xml) return *supplied;
  if (essence == "text/html") {
    MimeType feed;
    if (detail::sniff_feed(h, feed)) return feed;
    return *supplied;
  }
  if (supplied->type == "image") {
    if (auto image = detail::match_image(h)) return *image;
  }
  if (supplied->type == "audio" || supplied->type == "video" || essence == "application/ogg") {
    if (auto media = detail::match_audio_video(h)) return *media;
  }
  return *supplied;
}

bool is_html(std::optional<std::string_view> content_type, std::string_view resource_header,
             bool no_sniff) {
  MimeType computed = sniff_mime_type(content_type, resource_header, no_sniff);
  if (!no_sniff && computed.type == "application" && computed.subtype == "octet-stream" &&
      content_type) {
    const std::optional<MimeType> supplied = extract_mime_type(*content_type);
    if (supplied && supplied->essence() == "application/octet-stream")
      computed = identify_unknown_mime_type(resource_header, true);
  }
  return computed.is_html();
}

std::optional<std::string_view> bom_encoding(std::string_view bytes) {
  if (bytes.starts_with("\xEF\xBB\xBF")) return "UTF-8";
  if (bytes.starts_with("\xFE\xFF")) return "UTF-16BE";
  if (bytes.starts_with("\xFF\xFE")) return "UTF-16LE";
  return std::nullopt;
}

std::optional<std::string> content_type_charset(std::optional<std::string_view> content_type) {
  // Parameters follow a ';': a field without one (a bare "text/html", as most servers send)
  // names no charset, and is not parsed.
  if (!content_type || content_type->find(';') == std::string_view::npos) return std::nullopt;
  const std::optional<MimeType> mime = extract_mime_type(*content_type);
  if (!mime) return std::nullopt;
  const std::optional<std::string_view> charset = mime->parameter("charset");
  if (!charset || charset->empty()) return std::nullopt;
  return std::string(*charset);
}

std::optional<std::string> declared_charset(std::optional<std::string_view> content_type,
                                            std::string_view first_bytes) {
  if (const auto bom = bom_encoding(first_bytes)) return std::string(*bom);
  return content_type_charset(content_type);
}

}  // namespace squall
