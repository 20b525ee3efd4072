// Router: finds the route for a request path and the path parameters it names.
//
//   Router r;
//   size_t users = r.add("/users/{id}");       // one segment per parameter
//   size_t files = r.add("/files/{path*}");    // a trailing parameter may take the rest
//   size_t posts = r.add_regex(R"(/posts/(\d+)-([a-z-]+))");
//   auto m = r.match("/users/42");             // m->route == users, m->params.get("id") == "42"
//
// Three kinds of route, tried in this order, so that the common case stays cheap:
//   1. literal paths ("/api/noblock"): one hash lookup;
//   2. segment patterns: a '/'-separated path whose segments are literal or a whole "{name}"
//      (exactly one non-empty segment); the last may be "{name*}", which takes the rest of the
//      path, slashes included, possibly empty. Tried in the order they were added;
//   3. regular expressions (ECMAScript grammar), matched against the whole path, tried last and
//      in order, because std::regex is slow: each is compiled once, when added. Capture groups
//      become positional parameters.
// Paths are matched as they arrived (still percent-encoded), so an encoded '/' inside a segment
// cannot split it; each parameter's value is then percent-decoded ('+' stays '+').
//
// Adding the same pattern twice returns the same route index, so handlers for several methods
// can share one route. Threads: build the router first, then match from any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace squall::http {

// The parameters a match captured: named for segment patterns, positional (name empty) for
// regex groups; index order is their order in the pattern.
class PathParams {
 public:
  void add(std::string name, std::string value) {
    items_.emplace_back(std::move(name), std::move(value));
  }
  // The value of the parameter `name`, or nullopt.
  std::optional<std::string_view> get(std::string_view name) const noexcept;
  // The i-th parameter's value (regex group i + 1). Precondition: i < size().
  const std::string& operator[](size_t i) const noexcept { return items_[i].second; }
  size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  auto begin() const noexcept { return items_.begin(); }
  auto end() const noexcept { return items_.end(); }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

struct RouteMatch {
  size_t route = 0;  // the index add() or add_regex() returned
  PathParams params;
};

class Router {
 public:
  // Adds a literal or segment pattern (must start with '/'); returns its route index. Throws
  // InvalidArgumentError for a malformed pattern ("{}" , an unclosed brace, a "{name*}" that is
  // not last, a parameter mixed with text in one segment, or a repeated name).
  size_t add(std::string_view pattern);
  // Adds a regular expression matched against the whole path; returns its route index. Throws
  // InvalidArgumentError if it does not compile.
  size_t add_regex(std::string_view regex);

  // The first route that matches `path` (see the order above), or nullopt.
  std::optional<RouteMatch> match(std::string_view path) const;

  // How many routes were added.
  size_t size() const noexcept { return count_; }
  // The pattern a route was added with.
  const std::string& pattern(size_t route) const noexcept { return patterns_[route]; }

 private:
  struct Segment {
    std::string text;  // a literal, or the parameter's name
    bool param = false;
    bool rest = false;  // "{name*}"
  };
  struct SegmentRoute {
    size_t route;
    std::vector<Segment> segments;
  };
  struct RegexRoute {
    size_t route;
    std::regex regex;
  };

  std::unordered_map<std::string, size_t> literal_;
  std::vector<SegmentRoute> segmented_;
  std::vector<RegexRoute> regexes_;
  std::unordered_map<std::string, size_t> regex_index_;
  std::vector<std::string> patterns_;
  size_t count_ = 0;
};

}  // namespace squall::http
