// The HTTP/1.1 head parser, body framing rules and chunked decoder.
#include "squall/http/parser.h"

#include <array>
#include <cstring>
#include <limits>

namespace squall::detail {

using http::MessageKind;
using http::ParseStatus;

// Byte classes, one table each so every inner loop is a single load and test.
struct ByteTables {
  std::array<bool, 256> token{};          // tchar
  std::array<bool, 256> target{};         // request-target bytes: VCHAR and 0x80-0xFF
  std::array<bool, 256> value_strict{};   // request field values: SP, HTAB, VCHAR, obs-text
  std::array<bool, 256> value_lenient{};  // response field values: anything but NUL, CR, LF
  std::array<bool, 256> extension{};      // chunk-ext bytes: HTAB, SP, VCHAR, obs-text
  std::array<int8_t, 256> hex{};          // hex digit value, or -1
};

constexpr ByteTables make_tables() {
  ByteTables t;
  for (int c = 0; c < 256; ++c) {
    bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    t.token[c] = alnum;
    t.target[c] = c > 0x20 && c != 0x7f;
    t.value_strict[c] = c == '\t' || (c >= 0x20 && c != 0x7f);
    t.value_lenient[c] = c != 0 && c != '\r' && c != '\n';
    t.extension[c] = t.value_strict[c];
    t.hex[c] = c >= '0' && c <= '9'   ? static_cast<int8_t>(c - '0')
               : c >= 'a' && c <= 'f' ? static_cast<int8_t>(c - 'a' + 10)
               : c >= 'A' && c <= 'F' ? static_cast<int8_t>(c - 'A' + 10)
                                      : static_cast<int8_t>(-1);
  }
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) t.token[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr ByteTables kTables = make_tables();

inline unsigned char byte(const char* p) {
  return static_cast<unsigned char>(*p);
}
inline bool is_ows(char c) {
  return c == ' ' || c == '\t';
}

// A left-to-right scan over [p, end). `end` is the smaller of the buffer's end and the current
// limit; running into it yields `at_end`, which is Incomplete when it is the buffer's end and the
// limit's error otherwise. Because every decision depends only on the bytes before it, the result
// for a given prefix never changes when more bytes arrive, which is what makes the parser
// resumable by re-parsing and independent of how the input was split.
struct Scan {
  const char* p;
  const char* end;
  ParseStatus at_end;
  MessageKind kind;

  void limit(const char* begin, size_t size, size_t cap, ParseStatus cap_error) {
    if (cap <= size) {
      end = begin + cap;
      at_end = cap_error;
    } else {
      end = begin + size;
      at_end = ParseStatus::Incomplete;
    }
  }
};

// Skips eight bytes at a time while none is below `low` (0x20 or 0x21) or DEL: the bulk of a
// field value or a target. The byte loops after it handle the rest, and the bytes this stops at
// (HTAB, or anything in a lenient value), at table speed. SWAR rather than SSE keeps it portable;
// the tests are exact (no false negatives) because `low` <= 0x80.
inline const char* skip_printable(const char* p, const char* end, uint64_t low) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  constexpr uint64_t kDel = 0x7f7f7f7f7f7f7f7full;
  while (end - p >= 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    uint64_t below = (x - kOnes * low) & ~x & kHigh;
    uint64_t del = x ^ kDel;
    uint64_t is_del = (del - kOnes) & ~del & kHigh;
    if ((below | is_del) != 0) break;
    p += 8;
  }
  return p;
}

// Consumes a line end at s.p: CRLF, or a bare LF in responses. Any other byte: `otherwise`.
inline ParseStatus eat_eol(Scan& s, ParseStatus otherwise) {
  if (s.p == s.end) return s.at_end;
  if (*s.p == '\r') {
    if (s.p + 1 == s.end) return s.at_end;
    if (s.p[1] != '\n') return ParseStatus::BareCr;
    s.p += 2;
    return ParseStatus::Ok;
  }
  if (*s.p == '\n') {
    if (s.kind == MessageKind::Request) return ParseStatus::BareLf;
    ++s.p;
    return ParseStatus::Ok;
  }
  return otherwise;
}

// "HTTP/" DIGIT "." DIGIT, case-sensitive.
inline ParseStatus eat_version(Scan& s, http::Version& v) {
  static constexpr std::string_view kName = "HTTP/";
  if (s.end - s.p >= 8 && std::memcmp(s.p, "HTTP/", 5) == 0 && s.p[6] == '.' &&
      static_cast<unsigned char>(s.p[5] - '0') < 10 &&
      static_cast<unsigned char>(s.p[7] - '0') < 10) {
    v = http::Version{static_cast<uint8_t>(s.p[5] - '0'), static_cast<uint8_t>(s.p[7] - '0')};
    s.p += 8;
    return ParseStatus::Ok;
  }
  // The slow path finds where a short or malformed version stops.
  for (char expected : kName) {
    if (s.p == s.end) return s.at_end;
    if (*s.p != expected) return ParseStatus::BadVersion;
    ++s.p;
  }
  uint8_t digits[2];
  for (int i = 0; i < 2; ++i) {
    if (i == 1) {
      if (s.p == s.end) return s.at_end;
      if (*s.p != '.') return ParseStatus::BadVersion;
      ++s.p;
    }
    if (s.p == s.end) return s.at_end;
    if (*s.p < '0' || *s.p > '9') return ParseStatus::BadVersion;
    digits[i] = static_cast<uint8_t>(*s.p - '0');
    ++s.p;
  }
  v = http::Version{digits[0], digits[1]};
  return ParseStatus::Ok;
}

// Parses field lines up to and including the empty line that ends them, calling
// sink(name, value) for each; a sink returning false means too many fields.
template <class Sink>
ParseStatus parse_fields(Scan& scan, Sink&& sink) {
  // A local copy of the scan lets the compiler keep the cursor in a register: stores of fields
  // through the sink could otherwise alias it.
  Scan s = scan;
  auto done = [&](ParseStatus st) {
    scan.p = s.p;
    return st;
  };
  const auto& value_ok =
      s.kind == MessageKind::Request ? kTables.value_strict : kTables.value_lenient;
  for (;;) {
    if (s.p == s.end) return done(s.at_end);
    char c = *s.p;
    if (c == '\r' || c == '\n') return done(eat_eol(s, ParseStatus::Ok));
    if (is_ows(c)) return done(ParseStatus::ObsFold);

    const char* name = s.p;
    while (s.end - s.p >= 4 && kTables.token[byte(s.p)] && kTables.token[byte(s.p + 1)] &&
           kTables.token[byte(s.p + 2)] && kTables.token[byte(s.p + 3)])
      s.p += 4;
    while (s.p != s.end && kTables.token[byte(s.p)]) ++s.p;
    if (s.p == s.end) return done(s.at_end);
    size_t name_size = static_cast<size_t>(s.p - name);
    if (*s.p != ':') {
      if (is_ows(*s.p) && name_size != 0) {
        if (s.kind == MessageKind::Request) return done(ParseStatus::WhitespaceBeforeColon);
        while (s.p != s.end && is_ows(*s.p)) ++s.p;
        if (s.p == s.end) return done(s.at_end);
      }
      if (*s.p == '\r' || *s.p == '\n') return done(ParseStatus::MissingColon);
      if (*s.p != ':') return done(ParseStatus::BadHeaderName);
    }
    if (name_size == 0) return done(ParseStatus::BadHeaderName);
    ++s.p;

    while (s.p != s.end && is_ows(*s.p)) ++s.p;
    const char* value = s.p;
    s.p = skip_printable(s.p, s.end, 0x20);
    while (s.p != s.end && value_ok[byte(s.p)]) ++s.p;
    if (s.p == s.end) return done(s.at_end);
    const char* value_end = s.p;
    while (value_end != value && is_ows(value_end[-1])) --value_end;
    if (*s.p != '\r' && *s.p != '\n') return done(ParseStatus::BadHeaderValue);
    if (ParseStatus st = eat_eol(s, ParseStatus::BadHeaderValue); st != ParseStatus::Ok)
      return done(st);
    if (!sink(std::string_view(name, name_size),
              std::string_view(value, static_cast<size_t>(value_end - value))))
      return done(ParseStatus::TooManyHeaders);
  }
}

// Stores fields into the caller's span.
struct SpanSink {
  std::span<http::HeaderView> storage;
  size_t count = 0;
  bool operator()(std::string_view name, std::string_view value) {
    if (count == storage.size()) return false;
    storage[count++] = http::HeaderView{name, value};
    return true;
  }
};

// Whether bytes [previous_size, size) can have completed a head that was incomplete at
// previous_size: the blank line ("\n\r\n" or "\n\n") ends in them, or a limit is reached (so that
// limit errors are found as soon as a full parse would find them).
bool worth_parsing(std::string_view buf, size_t previous_size, const http::HeadLimits& limits) {
  size_t size = buf.size();
  if (previous_size == 0 || previous_size >= size) return true;
  if (size >= limits.max_head) return true;
  if (size >= limits.max_start_line) {
    size_t skip = 0;
    while (skip < size && (buf[skip] == '\r' || buf[skip] == '\n')) ++skip;
    size_t window = limits.max_start_line > skip ? limits.max_start_line - skip : 0;
    if (std::memchr(buf.data() + skip, '\n', std::min(window, size - skip)) == nullptr) return true;
  }
  size_t i = previous_size < 2 ? 0 : previous_size - 2;
  while (i < size) {
    const void* lf = std::memchr(buf.data() + i, '\n', size - i);
    if (lf == nullptr) return false;
    i = static_cast<size_t>(static_cast<const char*>(lf) - buf.data());
    if (i + 1 < size && buf[i + 1] == '\n') return true;
    if (i + 2 < size && buf[i + 1] == '\r' && buf[i + 2] == '\n') return true;
    ++i;
  }
  return false;
}

ParseStatus start_line_limit(const http::HeadLimits& limits, size_t& cap) {
  if (limits.max_start_line <= limits.max_head) {
    cap = limits.max_start_line;
    return ParseStatus::StartLineTooLong;
  }
  cap = limits.max_head;
  return ParseStatus::HeadTooLarge;
}

ParseStatus parse_request_head(std::string_view buf, http::RequestView& out,
                               std::span<http::HeaderView> storage, const http::HeadLimits& limits,
                               size_t& consumed) {
  const char* begin = buf.data();
  Scan s{begin, begin, ParseStatus::Incomplete, MessageKind::Request};
  size_t cap = 0;
  ParseStatus cap_error = start_line_limit(limits, cap);
  s.limit(begin, buf.size(), cap, cap_error);

  // RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request line.
  while (s.p != s.end && (*s.p == '\r' || *s.p == '\n'))
    if (ParseStatus st = eat_eol(s, ParseStatus::Ok); st != ParseStatus::Ok) return st;

  const char* method = s.p;
  while (s.p != s.end && kTables.token[byte(s.p)]) ++s.p;
  if (s.p == s.end) return s.at_end;
  if (s.p == method || *s.p != ' ') return ParseStatus::BadMethod;
  out.method = std::string_view(method, static_cast<size_t>(s.p - method));
  ++s.p;

  const char* target = s.p;
  s.p = skip_printable(s.p, s.end, 0x21);
  while (s.p != s.end && kTables.target[byte(s.p)]) ++s.p;
  if (s.p == s.end) return s.at_end;
  if (s.p == target) return ParseStatus::BadTarget;
  if (*s.p == '\r' || *s.p == '\n') return ParseStatus::BadVersion;
  if (*s.p != ' ') return ParseStatus::BadTarget;
  out.target = std::string_view(target, static_cast<size_t>(s.p - target));
  ++s.p;

  if (ParseStatus st = eat_version(s, out.version); st != ParseStatus::Ok) return st;
  if (ParseStatus st = eat_eol(s, ParseStatus::BadVersion); st != ParseStatus::Ok) return st;
  if (out.version.major != 1) return ParseStatus::UnsupportedVersion;

  s.limit(begin, buf.size(), limits.max_head, ParseStatus::HeadTooLarge);
  SpanSink sink{storage};
  if (ParseStatus st = parse_fields(s, sink); st != ParseStatus::Ok) return st;
  out.headers = storage.first(sink.count);
  consumed = static_cast<size_t>(s.p - begin);
  return ParseStatus::Ok;
}

ParseStatus parse_response_head(std::string_view buf, http::ResponseView& out,
                                std::span<http::HeaderView> storage, const http::HeadLimits& limits,
                                size_t& consumed) {
  const char* begin = buf.data();
  Scan s{begin, begin, ParseStatus::Incomplete, MessageKind::Response};
  size_t cap = 0;
  ParseStatus cap_error = start_line_limit(limits, cap);
  s.limit(begin, buf.size(), cap, cap_error);

  if (ParseStatus st = eat_version(s, out.version); st != ParseStatus::Ok) return st;
  if (s.p == s.end) return s.at_end;
  if (*s.p != ' ') return ParseStatus::BadVersion;
  ++s.p;

  int status = 0;
  for (int i = 0; i < 3; ++i) {
    if (s.p == s.end) return s.at_end;
    if (*s.p < '0' || *s.p > '9' || (i == 0 && *s.p == '0')) return ParseStatus::BadStatusLine;
    status = status * 10 + (*s.p - '0');
    ++s.p;
  }
  out.status = status;
  if (s.p == s.end) return s.at_end;
  const char* reason = s.p;
  if (*s.p == ' ') {
    reason = ++s.p;
    while (s.p != s.end && kTables.value_lenient[byte(s.p)]) ++s.p;
  }
  out.reason = std::string_view(reason, static_cast<size_t>(s.p - reason));
  if (ParseStatus st = eat_eol(s, ParseStatus::BadStatusLine); st != ParseStatus::Ok) return st;
  if (out.version.major != 1) return ParseStatus::UnsupportedVersion;

  s.limit(begin, buf.size(), limits.max_head, ParseStatus::HeadTooLarge);
  SpanSink sink{storage};
  if (ParseStatus st = parse_fields(s, sink); st != ParseStatus::Ok) return st;
  out.headers = storage.first(sink.count);
  consumed = static_cast<size_t>(s.p - begin);
  return ParseStatus::Ok;
}

// Collects what framing needs from the fields, in one pass and without allocating.
struct FramingFields {
  bool has_length = false;
  uint64_t length = 0;
  ParseStatus length_error = ParseStatus::Ok;
  bool has_te = false;
  int chunked_count = 0;
  bool chunked_last = false;
  bool other_coding = false;

  // Calls f(element) for each comma-separated element of a list value, empty ones included.
  template <class F>
  static void each_element(std::string_view value, F&& f) {
    for (;;) {
      size_t comma = value.find(',');
      f(http::trim_ows(value.substr(0, comma)));
      if (comma == std::string_view::npos) return;
      value.remove_prefix(comma + 1);
    }
  }

  void content_length(std::string_view value) {
    each_element(value, [&](std::string_view element) {
      if (length_error != ParseStatus::Ok) return;
      if (element.empty()) {
        length_error = ParseStatus::BadContentLength;
        return;
      }
      uint64_t n = 0;
      for (char c : element) {
        constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
        auto digit = static_cast<uint64_t>(c - '0');
        if (c < '0' || c > '9' || n > kMax / 10 || (n == kMax / 10 && digit > kMax % 10)) {
          length_error = ParseStatus::BadContentLength;
          return;
        }
        n = n * 10 + digit;
      }
      if (has_length && n != length) length_error = ParseStatus::ConflictingContentLength;
      has_length = true;
      length = n;
    });
  }

  void transfer_encoding(std::string_view value) {
    has_te = true;
    each_element(value, [&](std::string_view element) {
      if (element.empty()) return;  // RFC 9110 §5.6.1: empty list elements are ignored
      // chunked takes no parameters; "chunked;x=y" is some other coding, so a request carrying it
      // is refused rather than guessed at.
      if (http::iequals(element, "chunked")) {
        ++chunked_count;
        chunked_last = true;
      } else {
        if (chunked_last) ++chunked_count;  // chunked before another coding: never allowed
        chunked_last = false;
        other_coding = true;
      }
    });
  }

  // Whether `name` equals `lower`, a lowercase literal of letters and '-' at least 8 bytes long.
  // ORing 0x20 into eight bytes at a time folds case; the only other byte it could confuse is CR
  // for '-', which iequals rules out on the rare match.
  static bool is_named(std::string_view name, std::string_view lower) {
    if (name.size() != lower.size()) return false;
    constexpr uint64_t kCase = 0x2020202020202020ull;
    for (size_t i = 0;; i += 8) {
      size_t at = i + 8 <= name.size() ? i : name.size() - 8;
      uint64_t a, b;
      std::memcpy(&a, name.data() + at, 8);
      std::memcpy(&b, lower.data() + at, 8);
      if ((a | kCase) != b) return false;
      if (at + 8 == name.size()) break;
    }
    return http::iequals(name, lower);
  }

  void field(std::string_view name, std::string_view value) {
    if (is_named(name, "content-length")) {
      content_length(value);
    } else if (is_named(name, "transfer-encoding")) {
      transfer_encoding(value);
    }
  }
};

ParseStatus decide_request(http::Version version, const FramingFields& f, http::Framing& out) {
  out = http::Framing{};
  if (f.has_te) {
    if (f.has_length || f.length_error != ParseStatus::Ok)
      return ParseStatus::ContentLengthWithTransferEncoding;
    if (version < http::Version{1, 1}) return ParseStatus::BadTransferEncoding;
    if (f.chunked_count != 1 || !f.chunked_last) return ParseStatus::BadTransferEncoding;
    if (f.other_coding) return ParseStatus::UnsupportedTransferCoding;
    out.kind = http::BodyKind::Chunked;
    return ParseStatus::Ok;
  }
  if (f.length_error != ParseStatus::Ok) return f.length_error;
  if (f.has_length) {
    out.kind = http::BodyKind::Length;
    out.length = f.length;
  }
  return ParseStatus::Ok;
}

ParseStatus decide_response(std::string_view method, int status, http::Version version,
                            const FramingFields& f, http::Framing& out) {
  out = http::Framing{};
  if (method == "HEAD" || (status >= 100 && status < 200) || status == 204 || status == 304)
    return ParseStatus::Ok;
  if (method == "CONNECT" && status >= 200 && status < 300) {
    out.kind = http::BodyKind::Tunnel;
    return ParseStatus::Ok;
  }
  if (f.has_te) {
    out.must_close = true;
    if (version < http::Version{1, 1}) {
      out.kind = http::BodyKind::UntilClose;
      return ParseStatus::Ok;
    }
    if (f.chunked_count > 1) return ParseStatus::BadTransferEncoding;
    if (!f.chunked_last) {
      out.kind = http::BodyKind::UntilClose;
      return ParseStatus::Ok;
    }
    if (f.other_coding) return ParseStatus::UnsupportedTransferCoding;
    out.kind = http::BodyKind::Chunked;
    out.must_close = f.has_length || f.length_error != ParseStatus::Ok;
    return ParseStatus::Ok;
  }
  if (f.length_error != ParseStatus::Ok) return f.length_error;
  if (f.has_length) {
    out.kind = http::BodyKind::Length;
    out.length = f.length;
    return ParseStatus::Ok;
  }
  out.kind = http::BodyKind::UntilClose;
  out.must_close = true;
  return ParseStatus::Ok;
}

}  // namespace squall::detail

namespace squall::http {

namespace {
struct StatusInfo {
  std::string_view name;
  int code;
  std::string_view message;
};
constexpr StatusInfo kStatusInfo[] = {
#define SQUALL_X(id, name, code, message) {name, code, message},
    SQUALL_HTTP_PARSE_STATUSES(SQUALL_X)
#undef SQUALL_X
};
const StatusInfo& info(ParseStatus s) {
  return kStatusInfo[static_cast<size_t>(s)];
}
}  // namespace

std::string_view parse_status_name(ParseStatus s) noexcept {
  return info(s).name;
}
std::string_view parse_status_message(ParseStatus s) noexcept {
  return info(s).message;
}
int parse_status_http_code(ParseStatus s) noexcept {
  return info(s).code;
}

ParseResult parse_request(std::string_view buffer, RequestView& out, std::span<HeaderView> storage,
                          const HeadLimits& limits, size_t previous_size) noexcept {
  if (!detail::worth_parsing(buffer, previous_size, limits)) return {};
  size_t consumed = 0;
  ParseStatus st = detail::parse_request_head(buffer, out, storage, limits, consumed);
  return {st, st == ParseStatus::Ok ? consumed : 0};
}

ParseResult parse_response(std::string_view buffer, ResponseView& out,
                           std::span<HeaderView> storage, const HeadLimits& limits,
                           size_t previous_size) noexcept {
  if (!detail::worth_parsing(buffer, previous_size, limits)) return {};
  size_t consumed = 0;
  ParseStatus st = detail::parse_response_head(buffer, out, storage, limits, consumed);
  return {st, st == ParseStatus::Ok ? consumed : 0};
}

namespace {
Headers to_headers(std::span<const HeaderView> views) {
  Headers headers;
  headers.reserve(views.size());
  for (const auto& h : views) headers.add(h.name, h.value);
  return headers;
}
}  // namespace

RequestHead to_head(const RequestView& view) {
  return RequestHead{std::string(view.method), std::string(view.target), view.version,
                     to_headers(view.headers)};
}

ResponseHead to_head(const ResponseView& view) {
  return ResponseHead{view.version, view.status, std::string(view.reason),
                      to_headers(view.headers)};
}

ParseStatus request_framing(Version version, std::span<const HeaderView> headers,
                            Framing& out) noexcept {
  detail::FramingFields f;
  for (const auto& h : headers) f.field(h.name, h.value);
  return detail::decide_request(version, f, out);
}

ParseStatus request_framing(const RequestHead& head, Framing& out) noexcept {
  detail::FramingFields f;
  for (const auto& h : head.headers) f.field(h.name, h.value);
  return detail::decide_request(head.version, f, out);
}

ParseStatus response_framing(std::string_view request_method, int status, Version version,
                             std::span<const HeaderView> headers, Framing& out) noexcept {
  detail::FramingFields f;
  for (const auto& h : headers) f.field(h.name, h.value);
  return detail::decide_response(request_method, status, version, f, out);
}

ParseStatus response_framing(std::string_view request_method, const ResponseHead& head,
                             Framing& out) noexcept {
  detail::FramingFields f;
  for (const auto& h : head.headers) f.field(h.name, h.value);
  return detail::decide_response(request_method, head.status, head.version, f, out);
}

ChunkedDecoder::ChunkedDecoder(MessageKind kind, ChunkedLimits limits)
    : kind_(kind), limits_(limits) {}

void ChunkedDecoder::reset() {
  state_ = State::SizeStart;
  error_ = ParseStatus::Ok;
  remaining_ = 0;
  body_size_ = 0;
  extension_size_ = 0;
  trailer_bytes_.clear();
  trailers_.clear();
}

ParseStatus ChunkedDecoder::fail(ParseStatus s) noexcept {
  state_ = State::Failed;
  error_ = s;
  return s;
}

ParseStatus ChunkedDecoder::finish_trailers() {
  detail::Scan s{trailer_bytes_.data(), trailer_bytes_.data() + trailer_bytes_.size(),
                 ParseStatus::Incomplete, kind_};
  size_t count = 0;
  ParseStatus st = detail::parse_fields(s, [&](std::string_view name, std::string_view value) {
    if (count == limits_.max_trailer_fields) return false;
    ++count;
    trailers_.add(name, value);
    return true;
  });
  // The bytes end with the first empty line, so a well-formed section parses to exactly its end.
  if (st == ParseStatus::Ok && s.p != s.end) st = ParseStatus::BadHeaderValue;
  if (st == ParseStatus::TooManyHeaders) st = ParseStatus::TrailersTooLarge;
  if (st == ParseStatus::Incomplete) st = ParseStatus::BadHeaderValue;
  trailer_bytes_.clear();
  trailer_bytes_.shrink_to_fit();
  if (st != ParseStatus::Ok) {
    trailers_.clear();
    return fail(st);
  }
  state_ = State::Done;
  return ParseStatus::Ok;
}

ChunkedDecoder::Step ChunkedDecoder::decode(std::string_view input) {
  if (state_ == State::Done) return {ParseStatus::Ok, 0, {}};
  if (state_ == State::Failed) return {error_, 0, {}};
  const char* const begin = input.data();
  const char* const end = begin + input.size();
  const char* p = begin;
  const bool lenient = kind_ == MessageKind::Response;
  auto stop = [&](ParseStatus st) { return Step{st, static_cast<size_t>(p - begin), {}}; };
  // After a chunk-size line: data, or the trailer section after the last chunk.
  auto size_line_done = [&] { state_ = remaining_ == 0 ? State::TrailerStart : State::Data; };

  while (p != end) {
    const char c = *p;
    switch (state_) {
      case State::SizeStart: {
        int8_t h = detail::kTables.hex[static_cast<unsigned char>(c)];
        if (h < 0) return stop(fail(ParseStatus::BadChunkSize));
        remaining_ = static_cast<uint64_t>(h);
        state_ = State::Size;
        ++p;
        break;
      }
      case State::Size: {
        int8_t h = detail::kTables.hex[static_cast<unsigned char>(c)];
        if (h >= 0) {
          if (remaining_ > (std::numeric_limits<uint64_t>::max() >> 4))
            return stop(fail(ParseStatus::ChunkSizeOverflow));
          remaining_ = (remaining_ << 4) | static_cast<uint64_t>(h);
          ++p;
          break;
        }
        [[fallthrough]];
      }
      case State::SizeSpace:
        // BWS is allowed before ";" by the grammar; it is accepted before the line end too.
        if (detail::is_ows(c)) {
          state_ = State::SizeSpace;
          ++p;
        } else if (c == ';') {
          if (limits_.max_extension == 0) return stop(fail(ParseStatus::ChunkExtensionTooLong));
          state_ = State::Extension;
          extension_size_ = 1;
          ++p;
        } else if (c == '\r') {
          state_ = State::SizeLf;
          ++p;
        } else if (c == '\n') {
          if (!lenient) return stop(fail(ParseStatus::BareLf));
          ++p;
          size_line_done();
        } else {
          return stop(fail(ParseStatus::BadChunkSize));
        }
        break;
      case State::Extension: {
        // The scan stops at the limit, so an error lands on the same byte however input is split.
        size_t allowed = limits_.max_extension - extension_size_;
        const char* stop_at = static_cast<size_t>(end - p) > allowed ? p + allowed : end;
        const char* q = p;
        while (q != stop_at && detail::kTables.extension[static_cast<unsigned char>(*q)]) ++q;
        extension_size_ += static_cast<size_t>(q - p);
        p = q;
        if (p == end) break;
        if (detail::kTables.extension[static_cast<unsigned char>(*p)])
          return stop(fail(ParseStatus::ChunkExtensionTooLong));
        if (*p == '\r') {
          state_ = State::SizeLf;
          ++p;
        } else if (*p == '\n') {
          if (!lenient) return stop(fail(ParseStatus::BareLf));
          ++p;
          size_line_done();
        } else {
          return stop(fail(ParseStatus::BadChunkExtension));
        }
        break;
      }
      case State::SizeLf:
        if (c != '\n') return stop(fail(ParseStatus::BareCr));
        ++p;
        size_line_done();
        break;
      case State::Data: {
        size_t n = static_cast<size_t>(end - p);
        if (remaining_ < n) n = static_cast<size_t>(remaining_);
        std::string_view data(p, n);
        p += n;
        remaining_ -= n;
        body_size_ += n;
        if (remaining_ == 0) state_ = State::DataCr;
        return Step{ParseStatus::Incomplete, static_cast<size_t>(p - begin), data};
      }
      case State::DataCr:
        if (c == '\r') {
          state_ = State::DataLf;
        } else if (c == '\n') {
          if (!lenient) return stop(fail(ParseStatus::BareLf));
          state_ = State::SizeStart;
        } else {
          return stop(fail(ParseStatus::BadChunkEnd));
        }
        ++p;
        break;
      case State::DataLf:
        if (c != '\n') return stop(fail(ParseStatus::BadChunkEnd));
        state_ = State::SizeStart;
        ++p;
        break;
      case State::TrailerStart:
        if (c == '\r') {
          state_ = State::TrailerEndLf;
          ++p;
        } else if (c == '\n') {
          if (!lenient) return stop(fail(ParseStatus::BareLf));
          ++p;
          state_ = State::Done;
          return stop(ParseStatus::Ok);
        } else {
          state_ = State::Trailer;
        }
        break;
      case State::TrailerEndLf:
        if (c != '\n') return stop(fail(ParseStatus::BareCr));
        ++p;
        state_ = State::Done;
        return stop(ParseStatus::Ok);
      case State::Trailer: {
        const void* lf = std::memchr(p, '\n', static_cast<size_t>(end - p));
        const char* line_end = lf ? static_cast<const char*>(lf) + 1 : end;
        size_t n = static_cast<size_t>(line_end - p);
        size_t allowed = limits_.max_trailers - trailer_bytes_.size();
        if (n > allowed) {
          p += allowed;  // fail on the first byte past the limit, however input is split
          return stop(fail(ParseStatus::TrailersTooLarge));
        }
        trailer_bytes_.append(p, n);
        p = line_end;
        if (lf == nullptr) break;
        // A line just ended; the section ends with the first empty one.
        std::string_view t = trailer_bytes_;
        if (t.ends_with("\n\n") || t.ends_with("\n\r\n")) return stop(finish_trailers());
        break;
      }
      case State::Done:
      case State::Failed:
        return stop(state_ == State::Done ? ParseStatus::Ok : error_);
    }
  }
  return stop(ParseStatus::Incomplete);
}

}  // namespace squall::http
