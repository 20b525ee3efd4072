// The pieces of the URL parser shared by src/url/url*.cpp (private to src/url).
//
// url.cpp holds the Url type and its accessors, url_parser.cpp the basic URL parser's state
// machine, url_host.cpp the host parser (IPv4, IPv6, IDNA, opaque hosts), url_encode.cpp the
// percent-encode sets and the legacy query encoder (over squall/url/charset.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "squall/url/ascii.h"
#include "squall/url/url.h"

namespace squall::detail {

inline constexpr int kEof = -1;

// --- Percent-encoding (url_encode.cpp).

// A set of bytes to percent-encode. Every set of the standard includes the C0 controls and all
// bytes above 0x7E, so non-ASCII (UTF-8) input is always encoded byte by byte.
struct EncodeSet {
  std::array<bool, 256> bits{};
  bool has(unsigned char c) const { return bits[c]; }
};

constexpr EncodeSet make_encode_set(std::string_view extra) {
  EncodeSet set;
  for (int c = 0; c < 0x20; ++c) set.bits[c] = true;
  for (int c = 0x7F; c < 256; ++c) set.bits[c] = true;
  for (char c : extra) set.bits[static_cast<unsigned char>(c)] = true;
  return set;
}

inline constexpr EncodeSet kC0Set = make_encode_set("");
inline constexpr EncodeSet kFragmentSet = make_encode_set(" \"<>`");
inline constexpr EncodeSet kQuerySet = make_encode_set(" \"#<>");
inline constexpr EncodeSet kSpecialQuerySet = make_encode_set(" \"#<>'");
inline constexpr EncodeSet kPathSet = make_encode_set(" \"#<>?^`{}");
inline constexpr EncodeSet kUserinfoSet = make_encode_set(" \"#<>?^`{}/:;=@[\\]|");

// Appends `in` with the bytes of `set` percent-encoded ("%XX", upper-case hex).
void append_encoded(UrlBuffer& out, std::string_view in, const EncodeSet& set);
// Appends `value` in decimal.
void append_decimal(UrlBuffer& out, uint32_t value);

// The standard's "percent-encode after encoding" for a query in a legacy encoding (a label as
// squall/url/charset.h reads it): code points the encoding lacks become "%26%23<decimal>%3B",
// invalid UTF-8 bytes are percent-encoded as they are. False, with nothing appended, when the
// encoding encodes as UTF-8 (UTF-8 and UTF-16 labels, labels iconv does not know).
bool append_encoded_in(UrlBuffer& out, std::string_view query, std::string_view encoding,
                       const EncodeSet& set);

// --- Schemes (url.cpp).

struct SchemeInfo {
  std::string_view name;
  UrlScheme kind;
  bool special;
  int default_port;  // -1: none
};

// The scheme named `lowered` (already in lower case), or Other.
const SchemeInfo& scheme_info(std::string_view lowered);
const SchemeInfo& scheme_info(UrlScheme kind);

// --- Hosts (url_host.cpp).

// The host parser: appends the serialized host to `out` and sets `type`. `special` selects the
// domain treatment (IDNA, IPv4) over the opaque-host one. On error, `out` may hold part of it.
UrlError parse_host(std::string_view host, bool special, UrlBuffer& out, UrlHostType& type);

// --- The basic URL parser (url_parser.cpp).

// The basic URL parser's state machine. It writes the serialization of the URL record straight
// into url_.href_, in order, so a URL that fits the Url's inline buffer costs no allocation (off
// the common path: longer URLs, IDNA's buffers for non-ASCII or "xn--" hosts, percent-decoded
// hosts, and queries in a legacy encoding).
class UrlParser {
 public:
  // Parses into `url`, a freshly constructed Url.
  UrlParser(std::string_view input, const Url* base, std::string_view query_encoding, Url& url)
      : in_(input), base_(base), query_encoding_(query_encoding), url_(url) {}

  // The fast paths (url_fast_path.cpp): true, with `url` complete, when the input is an http(s)
  // URL already in serialized form, or a relative reference to a plain path (and query and
  // fragment) against an http(s) base; false, with nothing written, otherwise. Both take
  // printable ASCII only, so input they take needs no tab or newline removed.
  bool run_fast_paths() { return parse_serialized_http() || parse_plain_relative(); }
  // The state machine: UrlError::None once `url` holds the result; on error `url` holds garbage.
  UrlError run();

 private:
  enum class State {
    SchemeStart,
    Scheme,
    NoScheme,
    SpecialRelativeOrAuthority,
    PathOrAuthority,
    Relative,
    RelativeSlash,
    SpecialAuthoritySlashes,
    SpecialAuthorityIgnoreSlashes,
    Authority,
    File,
    FileSlash,
    FileHost,
    // From here on the path has begun (path_start_ is set).
    PathStart,
    Path,
    OpaquePath,
    Query,
    Fragment,
    Done,
  };

  int at(size_t i) const { return i < in_.size() ? static_cast<unsigned char>(in_[i]) : kEof; }
  bool is_slash(int c) const { return c == '/' || (url_.special_ && c == '\\'); }
  UrlBuffer& out() { return url_.href_; }
  uint32_t pos() const { return url_.href_.size(); }

  void set_scheme(const SchemeInfo& info) {
    url_.scheme_kind_ = info.kind;
    url_.special_ = info.special;
  }
  void no_host() {
    url_.username_end_ = url_.host_start_ = url_.host_end_ = pos();
    url_.host_type_ = UrlHostType::None;
  }
  void copy_base_authority();
  void copy_base_path() { out() += base_->path(); }
  void copy_base_query();
  void shorten_path();
  void begin_path();

  bool parse_serialized_http();
  bool parse_plain_relative();
  UrlError parse_authority(size_t end);
  UrlError parse_host(std::string_view host);
  UrlError parse_port(std::string_view port);
  void parse_path();
  void finish_segment(uint32_t segment, bool slash);
  void parse_opaque_path();
  void parse_query();
  void parse_fragment();
  void finish();

  std::string_view in_;
  const Url* base_;
  std::string_view query_encoding_;
  Url& url_;
  size_t p_ = 0;
  State state_ = State::SchemeStart;
  bool path_begun_ = false;
};

}  // namespace squall::detail
