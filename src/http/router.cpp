// Route matching: a hash for literal paths, a segment walk for patterns, regexes last.
// GCC 12 reports a false -Wmaybe-uninitialized inside std::regex's compiler (a std::function
// moved through _StateT) wherever a regex is built with optimisation on; the warning lands in
// the inlined library code, so it can only be silenced for this whole translation unit.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "squall/http/router.h"

#include "squall/core/error.h"
#include "squall/http/form.h"

namespace squall::http {

namespace {

[[noreturn]] void bad_pattern(std::string_view pattern, std::string_view why) {
  std::string detail = "route pattern '";
  detail.append(pattern).append("': ").append(why);
  throw InvalidArgumentError(detail);
}

// Splits "/a/b/" into "a", "b", "" (the path's segments after the leading '/').
std::vector<std::string_view> split_segments(std::string_view path) {
  std::vector<std::string_view> out;
  path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

}  // namespace

std::optional<std::string_view> PathParams::get(std::string_view name) const noexcept {
  for (const auto& [n, v] : items_) {
    if (n == name) return std::string_view(v);
  }
  return std::nullopt;
}

size_t Router::add(std::string_view pattern) {
  if (pattern.empty() || pattern.front() != '/') bad_pattern(pattern, "must start with '/'");
  std::string key(pattern);
  if (auto it = literal_.find(key); it != literal_.end()) return it->second;
  for (const auto& r : segmented_) {
    if (patterns_[r.route] == pattern) return r.route;
  }
  if (pattern.find('{') == std::string_view::npos && pattern.find('}') == std::string_view::npos) {
    literal_.emplace(key, count_);
    patterns_.push_back(std::move(key));
    return count_++;
  }
  SegmentRoute route{count_, {}};
  std::vector<std::string_view> parts = split_segments(pattern);
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    bool opens = part.find('{') != std::string_view::npos;
    bool closes = part.find('}') != std::string_view::npos;
    if (!opens && !closes) {
      route.segments.push_back({std::string(part)});
      continue;
    }
    if (part.size() < 3 || part.front() != '{' || part.back() != '}' ||
        part.find_first_of("{}", 1) != part.size() - 1) {
      bad_pattern(pattern, "a parameter must be a whole segment: {name} or {name*}");
    }
    std::string_view name = part.substr(1, part.size() - 2);
    bool rest = name.back() == '*';
    if (rest) name.remove_suffix(1);
    if (name.empty()) bad_pattern(pattern, "a parameter needs a name");
    if (rest && i + 1 != parts.size()) bad_pattern(pattern, "{name*} must be the last segment");
    for (const auto& s : route.segments) {
      if (s.param && s.text == name) bad_pattern(pattern, "a parameter name appears twice");
    }
    route.segments.push_back({std::string(name), true, rest});
  }
  segmented_.push_back(std::move(route));
  patterns_.push_back(std::move(key));
  return count_++;
}

size_t Router::add_regex(std::string_view regex) {
  std::string key(regex);
  if (auto it = regex_index_.find(key); it != regex_index_.end()) return it->second;
  try {
    regexes_.push_back({count_, std::regex(key, std::regex::ECMAScript | std::regex::optimize)});
  } catch (const std::regex_error& e) {
    bad_pattern(regex, e.what());
  }
  regex_index_.emplace(key, count_);
  patterns_.push_back(std::move(key));
  return count_++;
}

std::optional<RouteMatch> Router::match(std::string_view path) const {
  if (!literal_.empty()) {
    // A heterogeneous lookup would avoid this copy; std::unordered_map gains it only in C++20
    // with a transparent hash, which is not worth a custom hasher for one short string.
    if (auto it = literal_.find(std::string(path)); it != literal_.end()) {
      return RouteMatch{it->second, {}};
    }
  }
  if (!segmented_.empty() && !path.empty() && path.front() == '/') {
    std::vector<std::string_view> parts = split_segments(path);
    for (const auto& r : segmented_) {
      RouteMatch m{r.route, {}};
      bool ok = true;
      size_t i = 0;
      for (; i < r.segments.size() && ok; ++i) {
        const Segment& s = r.segments[i];
        if (s.rest) {
          // The rest of the path from this segment on: its offset in `path` is where the
          // segment's view starts, or the end when the path ran out one segment early
          // ("/files" for "/files/{path*}" is not a match; "/files/" is, with "").
          if (i >= parts.size()) {
            ok = false;
            break;
          }
          size_t from = static_cast<size_t>(parts[i].data() - path.data());
          m.params.add(s.text, percent_decode(path.substr(from)));
          i = parts.size();
          break;
        }
        if (i >= parts.size()) {
          ok = false;
        } else if (s.param) {
          if (parts[i].empty())
            ok = false;
          else
            m.params.add(s.text, percent_decode(parts[i]));
        } else if (parts[i] != s.text) {
          ok = false;
        }
      }
      if (ok && i == parts.size()) return m;
    }
  }
  for (const auto& r : regexes_) {
    std::match_results<std::string_view::const_iterator> groups;
    if (std::regex_match(path.begin(), path.end(), groups, r.regex)) {
      RouteMatch m{r.route, {}};
      for (size_t g = 1; g < groups.size(); ++g) {
        m.params.add({}, percent_decode(std::string_view(groups[g].first, groups[g].second)));
      }
      return m;
    }
  }
  return std::nullopt;
}

}  // namespace squall::http
