// URLs as browsers parse them: the WHATWG URL Standard's basic URL parser and serializer.
//
// Url::parse(input, base) follows https://url.spec.whatwg.org ("basic URL parser", no state
// override, UTF-8 query encoding) for every scheme: the special schemes http, https, ws, wss, ftp
// and file get the full authority, host and path treatment; any other scheme (mailto:,
// javascript:, data:, ...) is parsed the generic way the standard prescribes, so the crawler can
// read its scheme and skip it. data: URLs are decoded by squall/crawl/data_url.h (the Fetch
// Standard's data: URL processor).
//
// A Url keeps its serialization (href) in one buffer and the components as offsets into it, so
// every accessor is a string_view into href(). The buffer lives inside the Url up to
// Url::kInlineLength bytes, so parsing, resolving and normalising the URLs pages are made of
// allocates nothing; only longer URLs, hosts that need IDNA or percent-decoding, and queries in a
// legacy encoding touch the heap. Hosts are converted to ASCII through libidn2 (UTS #46,
// nontransitional), so href() is always ASCII.
//
// Values of these types are plain data: no loop, no thread affinity; a const Url may be read from
// any thread.
//
// Where this parser knowingly differs from the standard:
// - IDNA goes through libidn2 (IDN2_NONTRANSITIONAL), which adds IDNA2008's rules to UTS #46:
//   non-ASCII labels that start or end with '-', have "--" at positions 3-4 or also hold ASCII
//   other than letters, digits, '-' and '_' ("a+ü") or whose ASCII form exceeds 63 bytes, and
//   labels with symbols or emoji ("☃.net", "xn--ls8h", "≆") fail with InvalidDomain where browsers
//   accept them.
//   ASCII labels other than "xn--" bypass libidn2 (they only need lower-casing), so
//   "-foo-.example" and "a_b.example" parse as in browsers. Bidi and joiner rules are checked per
//   label, not across the whole domain.
// - Legacy query encodings other than windows-1252 go through glibc's iconv under the label given
//   (squall/url/charset.h); where iconv's table differs from the Encoding Standard's (a few
//   Shift_JIS, Big5 and GB18030 code points), the bytes differ too. A character whose bytes in
//   the legacy encoding include a non-ASCII one is percent-encoded whole: Shift_JIS "本" (96 7B)
//   is "%96%7B" where the standard keeps the ASCII trail byte ("%96{").
// - Input is bytes: invalid UTF-8 is percent-encoded as is, where a browser would have decoded it
//   to U+FFFD ("%EF%BF%BD") first.
// - No setters (the standard's "state override"); build a new Url instead.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace squall {

namespace detail {
class UrlParser;

// The storage of a Url's serialization: up to kInline bytes inside the object, on the heap
// beyond. A string reduced to what the parser needs, so that a short URL costs no allocation.
// Text appended or inserted must not point into the buffer itself (growing would move it).
class UrlBuffer {
 public:
  // Chosen so that a whole Url is 256 bytes.
  static constexpr uint32_t kInline = 200;

  UrlBuffer() noexcept = default;
  UrlBuffer(const UrlBuffer& other) { append(other.view()); }
  UrlBuffer(UrlBuffer&& other) noexcept { take(other); }
  UrlBuffer& operator=(const UrlBuffer& other) {
    if (this != &other) assign(other.view());
    return *this;
  }
  UrlBuffer& operator=(UrlBuffer&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~UrlBuffer() { release(); }

  const char* data() const noexcept { return data_; }
  uint32_t size() const noexcept { return size_; }
  std::string_view view() const noexcept { return {data_, size_}; }
  char operator[](uint32_t i) const noexcept { return data_[i]; }
  char& operator[](uint32_t i) noexcept { return data_[i]; }
  bool on_heap() const noexcept { return data_ != inline_; }

  void reserve(size_t capacity) {
    if (capacity > capacity_) grow(capacity);
  }
  void push_back(char c) {
    if (size_ == capacity_) grow(size_ + size_t{1});
    data_[size_++] = c;
  }
  void append(std::string_view text) {
    if (text.size() > capacity_ - size_) grow(size_ + text.size());
    if (!text.empty()) std::memcpy(data_ + size_, text.data(), text.size());
    size_ += static_cast<uint32_t>(text.size());
  }
  UrlBuffer& operator+=(std::string_view text) {
    append(text);
    return *this;
  }
  UrlBuffer& operator+=(char c) {
    push_back(c);
    return *this;
  }
  void assign(std::string_view text) {
    size_ = 0;
    append(text);
  }
  // Drops everything from `size` on; `size` is at most size().
  void truncate(uint32_t size) noexcept { size_ = size; }
  void insert(uint32_t at, std::string_view text);

 private:
  void grow(size_t capacity);
  void release() noexcept {
    if (on_heap()) delete[] data_;
  }
  void take(UrlBuffer& other) noexcept;

  char* data_ = inline_;
  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
  char inline_[kInline];
};

}  // namespace detail

// Why a URL failed to parse. Only the standard's failures are reported; its non-fatal
// "validation errors" are not.
enum class UrlError : uint8_t {
  None,            // no error: the parse succeeded
  MissingScheme,   // a relative reference without a base, or against a base with an opaque path
  HostMissing,     // a special URL with an empty host ("http://", "http://user@/", "http://:80")
  InvalidHost,     // the host has a forbidden code point ("http://a b/", "http://a<b/")
  InvalidDomain,   // IDNA (UTS #46 ToASCII) rejected the domain, or it maps to nothing
  InvalidIpv4,     // the host ends in a number but is no IPv4 address ("http://1.2.3.256/")
  InvalidIpv6,     // a bracketed host is no IPv6 address, or the bracket is unclosed
  InvalidPort,     // the port has a non-digit ("http://a:8x/")
  PortOutOfRange,  // the port is above 65535
  TooLong,         // the input is longer than Url::kMaxInputLength
};

// A short English phrase for the error, e.g. "invalid IPv6 address"; "ok" for UrlError::None.
std::string_view url_error_message(UrlError error) noexcept;

// The schemes the crawler treats differently. Everything not listed is Other.
enum class UrlScheme : uint8_t { Http, Https, Ws, Wss, Ftp, File, Data, Other };

// What kind of host a URL has.
enum class UrlHostType : uint8_t {
  None,    // no host at all (mailto:x, data:..., non-special URLs without "//")
  Empty,   // an empty host ("file:///etc", "foo:///x")
  Domain,  // an ASCII domain after IDNA ("example.com", "xn--bcher-kva.example")
  Ipv4,    // a dotted-quad IPv4 address
  Ipv6,    // a bracketed IPv6 address, serialized in the standard's compressed form
  Opaque,  // the host of a non-special URL, kept percent-encoded as written
};

class UrlResult;

// A parsed, serialized URL. Immutable: build a new one with Url::parse to change it.
class Url {
 public:
  // Inputs longer than this fail with UrlError::TooLong (offsets are 32-bit).
  static constexpr size_t kMaxInputLength = size_t{1} << 28;
  // Serializations up to this many bytes are kept inside the Url, with no heap allocation.
  static constexpr size_t kInlineLength = detail::UrlBuffer::kInline;

  // Parses `input` (UTF-8) as the standard's basic URL parser does, resolving it against `base`
  // when it is relative. Leading and trailing C0 controls and spaces are stripped and tabs and
  // newlines removed first. `base` must outlive the call only; the result shares nothing with it.
  // Invalid UTF-8 in paths, queries and fragments is percent-encoded byte by byte (browsers would
  // see U+FFFD); in a host it makes the parse fail. Never throws except std::bad_alloc.
  //
  // `query_encoding` is the encoding of the document the input came from, as a label that
  // squall/url/charset.h reads ("windows-1252", "latin1", "Shift_JIS", "EUC-KR", "GBK"...): as in
  // a browser, the query of an http(s), ftp or file URL is encoded in it before percent-encoding
  // ("?q=é" from a windows-1252 page is "?q=%E9"), and characters it cannot encode become
  // "%26%23<decimal>%3B". Empty, UTF-8 and UTF-16 labels and labels iconv does not know mean
  // UTF-8. Only non-ASCII queries pay for it.
  static UrlResult parse(std::string_view input, const Url* base = nullptr,
                         std::string_view query_encoding = {});

  // The serialization, e.g. "https://user@example.com:8080/a/b?q#f". Always ASCII. Points into
  // this Url: valid as long as it is, like every other accessor's view.
  std::string_view href() const noexcept { return href_.view(); }
  // The scheme in lower case, without ':' ("https").
  std::string_view scheme() const noexcept { return {href_.data(), scheme_end_}; }
  UrlScheme scheme_kind() const noexcept { return scheme_kind_; }
  // http, https, ws, wss, ftp or file: the schemes with hosts and hierarchical paths.
  bool is_special() const noexcept { return special_; }
  // http or https: what the crawler fetches over the network.
  bool is_http() const noexcept {
    return scheme_kind_ == UrlScheme::Http || scheme_kind_ == UrlScheme::Https;
  }

  // Userinfo, percent-encoded as serialized; empty when absent.
  std::string_view username() const noexcept;
  std::string_view password() const noexcept;
  bool has_credentials() const noexcept { return username_end_ != host_start_; }

  // The serialized host without port: "example.com", "10.0.0.1", "[::1]"; empty when absent.
  std::string_view host() const noexcept { return slice(host_start_, host_end_); }
  // The host and the explicit port as serialized, without userinfo: "example.com:8080",
  // "[::1]", "example.com" for "http://example.com:80/" (the Host field of an HTTP request).
  // Empty when there is no host.
  std::string_view host_and_port() const noexcept {
    return has_host() ? slice(host_start_, path_start_) : std::string_view();
  }
  // The host as a resolver wants it: like host() but IPv6 without brackets ("::1").
  std::string_view hostname_for_connect() const noexcept;
  bool has_host() const noexcept { return host_type_ != UrlHostType::None; }
  UrlHostType host_type() const noexcept { return host_type_; }

  // The explicit port; nullopt when absent or equal to the scheme's default (which the
  // standard drops: "http://a:80/" has no port).
  std::optional<uint16_t> port() const noexcept;
  // port(), or else the scheme's default port (80 for http and ws, 443 for https and wss, 21 for
  // ftp); nullopt for schemes without one.
  std::optional<uint16_t> effective_port() const noexcept;
  // "host:port" with the effective port, e.g. "example.com:443" or "[::1]:80", for connection
  // pools and politeness keys; empty when there is no host or no known port.
  std::string host_port() const;
  // The standard's origin serialization: "https://example.com:8443" for http(s), ws(s) and ftp
  // URLs, "null" for every other URL (opaque origins).
  std::string origin() const;

  // The path as serialized: "/a/b" for hierarchical URLs (special URLs always start with '/'),
  // the opaque text after ':' for URLs such as "mailto:x@y" (see has_opaque_path()).
  std::string_view path() const noexcept { return slice(path_start_, path_end()); }
  bool has_opaque_path() const noexcept { return opaque_path_; }
  // The query without '?', and the fragment without '#'. Empty both when absent and when
  // present but empty; has_query()/has_fragment() tell the two apart ("http://a/?" keeps its '?').
  std::string_view query() const noexcept;
  std::string_view fragment() const noexcept;
  bool has_query() const noexcept { return query_start_ != kNone; }
  bool has_fragment() const noexcept { return fragment_start_ != kNone; }
  // The path and '?'-query, the request-target of an HTTP request: "/a/b?q".
  std::string_view request_target() const noexcept { return slice(path_start_, fragment_end()); }

  // The key under which the crawler deduplicates URLs: href() without the fragment and its '#'.
  // Nothing else is changed, because everything else may be told apart by a server. Points into
  // href(): valid as long as this Url.
  std::string_view dedup_key() const noexcept { return slice(0, fragment_end()); }
  // This URL without its fragment, so that normalized().href() == dedup_key().
  Url normalized() const;

  // URLs are equal when their serializations are.
  friend bool operator==(const Url& a, const Url& b) noexcept { return a.href() == b.href(); }

 private:
  friend class detail::UrlParser;
  static constexpr uint32_t kNone = UINT32_MAX;

  Url() = default;
  std::string_view slice(uint32_t begin, uint32_t end) const noexcept {
    return {href_.data() + begin, end - begin};
  }
  uint32_t size32() const noexcept { return href_.size(); }
  uint32_t fragment_end() const noexcept {
    return fragment_start_ == kNone ? size32() : fragment_start_;
  }
  uint32_t path_end() const noexcept {
    return query_start_ == kNone ? fragment_end() : query_start_;
  }

  // href_ = scheme ':' [ '//' [username [':' password] '@'] host [':' port] ] ['/.'] path
  //         ['?' query] ['#' fragment]
  detail::UrlBuffer href_;
  uint32_t scheme_end_ = 0;          // index of the ':' after the scheme
  uint32_t username_end_ = 0;        // end of the username (== host_start_ without credentials)
  uint32_t host_start_ = 0;          // start of the host (after '@' if any)
  uint32_t host_end_ = 0;            // end of the host (':' of the port, or the path)
  uint32_t path_start_ = 0;          // start of the path (after the "/." marker if any)
  uint32_t query_start_ = kNone;     // index of '?', or kNone
  uint32_t fragment_start_ = kNone;  // index of '#', or kNone
  uint16_t port_ = 0;
  bool has_port_ = false;
  bool special_ = false;
  bool opaque_path_ = false;
  bool dot_slash_ = false;  // "/." inserted before a path starting with "//" (no host)
  UrlScheme scheme_kind_ = UrlScheme::Other;
  UrlHostType host_type_ = UrlHostType::None;
};

// Either a Url or the reason there is none. Test it before dereferencing.
class UrlResult {
 public:
  // Implicit, so that a parser returns either a Url or a UrlError; `error` is never None.
  UrlResult(Url url) : url_(std::move(url)) {}  // NOLINT(google-explicit-constructor)
  UrlResult(UrlError error) : error_(error) {}  // NOLINT(google-explicit-constructor)

  bool ok() const noexcept { return url_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  // UrlError::None when ok().
  UrlError error() const noexcept { return error_; }

  // The URL; undefined behaviour unless ok().
  const Url& value() const& noexcept { return *url_; }
  Url&& value() && noexcept { return std::move(*url_); }
  const Url& operator*() const& noexcept { return *url_; }
  Url&& operator*() && noexcept { return std::move(*url_); }
  const Url* operator->() const noexcept { return &*url_; }

 private:
  friend class Url;  // Url::parse builds its result in place

  std::optional<Url> url_;
  UrlError error_ = UrlError::None;
};

}  // namespace squall
