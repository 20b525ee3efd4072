// Percent-encoding and application/x-www-form-urlencoded: query arguments and form bodies.
//
//   Arguments args = parse_query("q=a+b&tag=x&tag=y&empty=");
//   args.get("q")          // "a b"
//   args.get_all("tag")    // {"x", "y"}
//
// The same format carries a URL's query and a urlencoded POST body (WHATWG URL Standard,
// "application/x-www-form-urlencoded parsing"): pairs separated by '&', name and value by the
// first '=', '+' meaning a space, %XX escapes decoded as bytes. A malformed escape is kept as it
// was written ("%zz" stays "%zz"), as browsers and Python's unquote do, so odd input never fails.
// Decoded bytes are not checked for UTF-8: they are what the client sent.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "squall/url/ascii.h"

namespace squall::http {

// %XX escapes decoded; with `plus_as_space`, '+' becomes ' ' (query and form syntax; a path
// keeps its '+'). Malformed escapes are kept literally.
using squall::percent_decode;

// Every byte outside the unreserved set (ALPHA DIGIT - . _ ~) as %XX; with `plus_for_space`,
// a space becomes '+' (form syntax) instead of %20.
std::string percent_encode(std::string_view s, bool plus_for_space = false);

// Named arguments in the order they were given; a name may repeat (?tag=a&tag=b).
class Arguments {
 public:
  using value_type = std::pair<std::string, std::string>;
  using const_iterator = std::vector<value_type>::const_iterator;

  void add(std::string name, std::string value);
  // The LAST value given for `name`, as Tornado's get_argument answers; nullopt when absent.
  // The view lives until the next add().
  std::optional<std::string_view> get(std::string_view name) const noexcept;
  // Every value for `name`, in order.
  std::vector<std::string_view> get_all(std::string_view name) const;
  bool contains(std::string_view name) const noexcept;

  size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  const_iterator begin() const noexcept { return items_.begin(); }
  const_iterator end() const noexcept { return items_.end(); }
  bool operator==(const Arguments&) const = default;

 private:
  std::vector<value_type> items_;
};

// The arguments of a query string or urlencoded body (without the leading '?': a leading '?'
// is taken as part of the first name, as the standard says for bodies). Empty pieces ("a&&b")
// are skipped; a piece without '=' is a name with an empty value. Throws TooLarge (squall::Error)
// when there are more than `max_fields` pairs, so a peer cannot make the server build an
// unbounded list out of a body it was allowed to send.
Arguments parse_query(std::string_view query, size_t max_fields = 10000);

// The inverse: name=value pairs joined with '&', each side percent-encoded with '+' for space.
std::string urlencode(const Arguments& args);

}  // namespace squall::http
