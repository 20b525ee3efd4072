// HTTP message heads shared by the client and the server: Headers, RequestHead, ResponseHead.
//
// These are plain value types with no I/O. The parser (squall/http/parser.h) fills them from the
// bytes of a peer; the connection layer serialises them with write_head(). Nothing here throws
// except std::bad_alloc; nothing here validates on insertion (a caller that takes names or values
// from untrusted input checks them with is_token() and is_field_value() before adding them, so
// that no CR or LF can be injected into a serialised head).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "squall/url/ascii.h"

namespace squall::http {

// ASCII case-insensitive equality, as header names and tokens compare.
using squall::iequals;

// True when `s` is a non-empty RFC 9110 token (method, header name, transfer coding).
bool is_token(std::string_view s) noexcept;

// True when `s` may be sent as a header value: no NUL, CR, LF or other control byte except HTAB,
// and no leading or trailing whitespace.
bool is_field_value(std::string_view s) noexcept;

// `s` without leading and trailing spaces and tabs (RFC 9110's optional whitespace, OWS), as
// list elements and parameter values are read.
std::string_view trim_ows(std::string_view s) noexcept;

// One header field as received or to be sent; the name keeps the case it was given.
struct Header {
  std::string name;
  std::string value;
  bool operator==(const Header&) const = default;
};

// An ordered list of header fields. Names compare case-insensitively; duplicates are kept in the
// order they were added, because some fields (Set-Cookie) cannot be joined. Lookups are linear:
// O(n) with a length check before each comparison, which beats hashing for the ~20 fields a real
// message carries.
class Headers {
 public:
  using const_iterator = std::vector<Header>::const_iterator;

  Headers() = default;
  Headers(std::initializer_list<std::pair<std::string_view, std::string_view>> fields);

  // Appends a field, keeping any existing fields of the same name.
  void add(std::string_view name, std::string_view value);
  // Replaces every field named `name` with one field holding `value`, at the position of the
  // first one (appended when there was none). The stored name takes the case given here.
  void set(std::string_view name, std::string_view value);
  // Removes every field named `name`; returns how many were removed.
  size_t remove(std::string_view name);
  void clear() noexcept { fields_.clear(); }
  void reserve(size_t n) { fields_.reserve(n); }

  bool contains(std::string_view name) const noexcept;
  // The value of the first field named `name`, or nullopt. The view lives until the next change.
  std::optional<std::string_view> get(std::string_view name) const noexcept;
  // The values of every field named `name`, in order.
  std::vector<std::string_view> get_all(std::string_view name) const;
  // Every value of `name` joined with ", " (RFC 9110 section 5.3); empty when absent. Do not use
  // it for Set-Cookie, whose values cannot be joined.
  std::string get_joined(std::string_view name) const;
  // True when some field named `name` holds `token` as one element of its comma-separated list,
  // compared case-insensitively: has_token("Connection", "close").
  bool has_token(std::string_view name, std::string_view token) const noexcept;

  size_t size() const noexcept { return fields_.size(); }
  bool empty() const noexcept { return fields_.empty(); }
  const Header& operator[](size_t i) const noexcept { return fields_[i]; }
  const_iterator begin() const noexcept { return fields_.begin(); }
  const_iterator end() const noexcept { return fields_.end(); }

  // Equal when the same fields appear in the same order with the same bytes.
  bool operator==(const Headers&) const = default;

 private:
  std::vector<Header> fields_;
};

// The HTTP version of a message: 1.0 or 1.1 in practice.
struct Version {
  uint8_t major = 1;
  uint8_t minor = 1;
  auto operator<=>(const Version&) const = default;
};

struct RequestHead {
  std::string method = "GET";
  std::string target = "/";  // as sent: origin-form, absolute-form, authority-form or "*"
  Version version;
  Headers headers;
  bool operator==(const RequestHead&) const = default;
};

struct ResponseHead {
  Version version;
  int status = 200;
  std::string reason;  // may be empty; never interpret it
  Headers headers;
  bool operator==(const ResponseHead&) const = default;
};

// Whether the sender of a message with this version and these headers wants the connection kept
// open afterwards: HTTP/1.1 unless "Connection: close", HTTP/1.0 only with
// "Connection: keep-alive". Body framing can still force a close (see Framing::must_close).
bool keep_alive(Version version, const Headers& headers) noexcept;

// Whether a method is idempotent (RFC 9110 §9.2.2: GET, HEAD, OPTIONS, TRACE, PUT, DELETE), so
// that a client may resend it when a reused connection turns out to have been closed.
bool is_idempotent(std::string_view method) noexcept;

// The standard reason phrase for a status code ("Not Found"), or "" for an unknown code.
std::string_view reason_phrase(int status) noexcept;

// Appends the serialised head, ending with the empty line, to `out`. A response with an empty
// reason gets the standard phrase; a status outside 100-999 is written as 500. Names and values are
// written as they are: validate untrusted ones first.
void write_head(std::string& out, const RequestHead& head);
void write_head(std::string& out, const ResponseHead& head);

}  // namespace squall::http
