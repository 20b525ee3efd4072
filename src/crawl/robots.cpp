// robots.txt parsing, per-agent rule compilation, path matching and the fetch policy (RFC 9309).
#include "squall/crawl/robots.h"
#include "squall/url/ascii.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>

namespace squall {
namespace detail {
namespace {

constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

constexpr bool is_unreserved(unsigned char c) {
  return is_ascii_alpha(c) || is_ascii_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

// Octets that are neither reserved nor unreserved in RFC 3986, which a URL serializer would have
// percent-encoded; encoding them here makes "/a b" in a rule match "/a%20b" in a URL.
constexpr bool needs_escape(unsigned char c) {
  switch (c) {
    case '"':
    case '<':
    case '>':
    case '\\':
    case '^':
    case '`':
    case '{':
    case '|':
    case '}':
      return true;
    default:
      return c <= 0x20 || c >= 0x7F;
  }
}

char* put_escape(char* out, unsigned char c) {
  *out++ = '%';
  *out++ = kUpperHex[c >> 4];
  *out++ = kUpperHex[c & 15];
  return out;
}

// Writes the canonical form of `in` to `out`, which has room for 3 * in.size() octets; returns
// the end of what was written.
char* canonical_into(std::string_view in, bool is_pattern, char* out) {
  const size_t n = in.size();
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c == '%') {
      const int hi = i + 2 < n ? hex_value(in[i + 1]) : -1;
      const int lo = hi >= 0 ? hex_value(in[i + 2]) : -1;
      if (lo < 0) {
        out = put_escape(out, '%');  // a stray '%' stands for itself
        continue;
      }
      const auto decoded = static_cast<unsigned char>(hi * 16 + lo);
      if (is_unreserved(decoded)) {
        *out++ = static_cast<char>(decoded);
      } else {
        out = put_escape(out, decoded);
      }
      i += 2;
    } else if (needs_escape(c)) {
      out = put_escape(out, c);
    } else if ((c == '*' && !is_pattern) || (c == '$' && (!is_pattern || i + 1 != n))) {
      out = put_escape(out, c);
    } else {
      *out++ = static_cast<char>(c);
    }
  }
  return out;
}

// True when canonical_into would copy `in` unchanged.
bool is_canonical_path(std::string_view in) {
  for (char ch : in) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '%' || c == '*' || c == '$' || needs_escape(c)) return false;
  }
  return true;
}

// The lower-cased product token a user-agent value starts with: letters, '_' and '-'.
std::string product_token(std::string_view value) {
  std::string token;
  for (char c : value) {
    if (!is_ascii_alpha(c) && c != '_' && c != '-') break;
    token.push_back(ascii_lower(c));
  }
  return token;
}

enum class Key { Unknown, UserAgent, Allow, Disallow, CrawlDelay, Sitemap };

Key classify(std::string_view key) {
  if (key.size() > 12) return Key::Unknown;
  std::array<char, 12> buf{};
  for (size_t i = 0; i < key.size(); ++i) buf[i] = ascii_lower(key[i]);
  const std::string_view k(buf.data(), key.size());
  // The spellings Google's crawler also accepts, since real files contain them.
  for (std::string_view s : {"user-agent", "useragent", "user agent", "user_agent"})
    if (k == s) return Key::UserAgent;
  if (k == "allow") return Key::Allow;
  for (std::string_view s :
       {"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"})
    if (k == s) return Key::Disallow;
  for (std::string_view s : {"crawl-delay", "crawldelay", "crawl delay", "crawl_delay"})
    if (k == s) return Key::CrawlDelay;
  for (std::string_view s : {"sitemap", "site-map", "site map"})
    if (k == s) return Key::Sitemap;
  return Key::Unknown;
}

// Splits a comment-free, trimmed line into a known key and its value. The colon form wins; a
// line whose colon split gives no known key may still be "key value" separated by whitespace
// ("Disallow /a:b").
Key split_record(std::string_view line, std::string_view& value) {
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    const Key key = classify(trim(line.substr(0, colon)));
    if (key != Key::Unknown) {
      value = trim(line.substr(colon + 1));
      return key;
    }
  }
  size_t ws = 0;
  while (ws < line.size() && !is_space(line[ws])) ++ws;
  if (ws == line.size()) return Key::Unknown;
  const Key key = classify(line.substr(0, ws));
  if (key != Key::Unknown) value = trim(line.substr(ws));
  return key;
}

// Crawl-delay in seconds, possibly fractional; capped at a day so that it converts safely.
std::optional<std::chrono::milliseconds> parse_crawl_delay(std::string_view value) {
  double seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec != std::errc() || end == value.data() || !std::isfinite(seconds) || seconds < 0)
    return std::nullopt;
  seconds = std::min(seconds, 86400.0);
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000)));
}

// Whether `path` (canonical) matches `pattern` (canonical, final `$` removed).
bool pattern_matches(std::string_view pattern, bool anchored, bool has_star,
                     std::string_view path) {
  if (!has_star) return anchored ? path == pattern : path.starts_with(pattern);
  // Each '*'-separated segment is matched at its leftmost possible place, which leaves the most
  // room for the rest; that is exact for patterns made of literals and '*' only, and never
  // backtracks: each segment is searched for once, moving forward through the path.
  size_t star = pattern.find('*');
  if (!path.starts_with(pattern.substr(0, star))) return false;
  size_t pos = star;
  std::string_view rest = pattern.substr(star + 1);
  for (;;) {
    star = rest.find('*');
    if (star == std::string_view::npos) {
      if (anchored) return path.size() - pos >= rest.size() && path.ends_with(rest);
      return rest.empty() || path.find(rest, pos) != std::string_view::npos;
    }
    const std::string_view segment = rest.substr(0, star);
    rest.remove_prefix(star + 1);
    if (segment.empty()) continue;
    const size_t found = path.find(segment, pos);
    if (found == std::string_view::npos) return false;
    pos = found + segment.size();
  }
}

// The index key of the first `length` octets of `s`.
size_t prefix_key(std::string_view s, size_t length) {
  return std::hash<std::string_view>{}(s.substr(0, length));
}

// Receives the records of a file in order and builds its groups.
class Builder {
 public:
  Builder(std::vector<RobotsGroup>& groups, std::vector<std::string>& sitemaps)
      : groups_(groups), sitemaps_(sitemaps) {}

  void line(std::string_view raw, size_t number) {
    std::string_view text = trim(raw.substr(0, raw.find('#')));
    if (text.empty()) return;
    std::string_view value;
    const Key key = split_record(text, value);
    switch (key) {
      case Key::UserAgent:
        if (!in_agents_) groups_.emplace_back(), in_agents_ = true;
        if (value.starts_with('*') && (value.size() == 1 || is_space(value[1]))) {
          groups_.back().global = true;
        } else if (std::string token = product_token(value); !token.empty()) {
          groups_.back().agents.push_back(std::move(token));
        }
        return;
      case Key::Allow:
      case Key::Disallow:
        if (groups_.empty()) return;  // before any user-agent line: in no group
        in_agents_ = false;
        if (!value.empty()) {
          RobotsRule rule;
          rule.kind = key == Key::Allow ? RobotsRuleKind::Allow : RobotsRuleKind::Disallow;
          rule.pattern = robots_canonical(value, true);
          rule.text = std::string(text);
          rule.line = number;
          groups_.back().rules.push_back(std::move(rule));
        }
        return;
      case Key::CrawlDelay:
        // Not a record of RFC 9309, so it must not change how groups form (section 2.2.4): it
        // belongs to the group being read and does not end a run of user-agent lines.
        if (groups_.empty()) return;
        if (auto& delay = groups_.back().crawl_delay; !delay) delay = parse_crawl_delay(value);
        return;
      case Key::Sitemap:
        if (!value.empty()) sitemaps_.emplace_back(value);
        return;
      case Key::Unknown:
        return;
    }
  }

 private:
  std::vector<RobotsGroup>& groups_;
  std::vector<std::string>& sitemaps_;
  bool in_agents_ = false;  // the last record was a user-agent line
};

}  // namespace

std::string robots_canonical(std::string_view input, bool is_pattern) {
  std::string out(input.size() * 3, '\0');
  out.resize(static_cast<size_t>(canonical_into(input, is_pattern, out.data()) - out.data()));
  return out;
}

}  // namespace detail

RobotsRules RobotsRules::disallow_all() {
  RobotsRule rule;
  rule.kind = RobotsRuleKind::Disallow;
  rule.pattern = "/";
  rule.text = "Disallow: /";
  return RobotsRules({std::move(rule)}, std::nullopt);
}

RobotsRules::RobotsRules(std::vector<RobotsRule> rules,
                         std::optional<std::chrono::milliseconds> crawl_delay)
    : rules_(std::move(rules)), crawl_delay_(crawl_delay) {
  std::stable_sort(rules_.begin(), rules_.end(), [](const RobotsRule& a, const RobotsRule& b) {
    if (a.pattern.size() != b.pattern.size()) return a.pattern.size() > b.pattern.size();
    if (a.kind != b.kind) return a.kind == RobotsRuleKind::Allow;
    return a.line < b.line;
  });
  compiled_.reserve(rules_.size());
  for (size_t i = 0; i < rules_.size(); ++i) {
    std::string_view pattern = rules_[i].pattern;
    const bool anchored = pattern.ends_with('$');
    if (anchored) pattern.remove_suffix(1);
    const size_t star = pattern.find('*');
    compiled_.push_back({anchored, star != std::string_view::npos});
    const size_t prefix = std::min(star, pattern.size());
    const auto index = static_cast<uint32_t>(i);
    if (prefix == 0) {
      unprefixed_.push_back(index);
    } else {
      const size_t length = std::min(prefix, kIndexDepth);
      by_prefix_[detail::prefix_key(pattern, length)].push_back(index);
      key_lengths_ |= 1u << (length - 1);
    }
  }
}

RobotsMatch RobotsRules::match(std::string_view path_and_query) const {
  std::string_view path = path_and_query.substr(0, path_and_query.find('#'));
  if (path.empty()) path = "/";

  // Normalise into a stack buffer when the path needs it and fits; only long paths that need
  // escaping pay for an allocation.
  std::array<char, 1024> stack;
  std::string heap;
  if (!detail::is_canonical_path(path)) {
    char* out = stack.data();
    if (path.size() * 3 > stack.size()) {
      heap.resize(path.size() * 3);
      out = heap.data();
    }
    path = std::string_view(out, detail::canonical_into(path, false, out));
  }
  if (path == "/robots.txt") return {};

  // The candidates are the rules whose (cut) literal prefix the path starts with, plus those
  // without a prefix: ascending lists, walked merged so that rules are still tried in
  // precedence order and the first match decides.
  std::array<const std::vector<uint32_t>*, kIndexDepth + 1> lists{};
  std::array<size_t, kIndexDepth + 1> next{};
  size_t count = 0;
  if (!unprefixed_.empty()) lists[count++] = &unprefixed_;
  for (size_t length = 1; length <= kIndexDepth && length <= path.size(); ++length) {
    if ((key_lengths_ & (1u << (length - 1))) == 0) continue;
    const auto found = by_prefix_.find(detail::prefix_key(path, length));
    if (found == by_prefix_.end()) continue;
    // Keys of different lengths can collide; a list already taken must not be walked twice.
    if (std::find(lists.begin(), lists.begin() + count, &found->second) != lists.begin() + count)
      continue;
    lists[count++] = &found->second;
  }
  for (;;) {
    size_t best = count;
    for (size_t l = 0; l < count; ++l) {
      if (next[l] < lists[l]->size() &&
          (best == count || (*lists[l])[next[l]] < (*lists[best])[next[best]]))
        best = l;
    }
    if (best == count) return {};
    const uint32_t i = (*lists[best])[next[best]++];
    std::string_view pattern = rules_[i].pattern;
    if (compiled_[i].anchored) pattern.remove_suffix(1);
    if (detail::pattern_matches(pattern, compiled_[i].anchored, compiled_[i].has_star, path))
      return {rules_[i].kind == RobotsRuleKind::Allow, &rules_[i]};
  }
}

RobotsTxt RobotsTxt::parse(std::string_view body) {
  RobotsTxt robots;
  if (body.size() > kRobotsParseLimit) {
    robots.truncated_ = true;
    const bool cut_mid_line = body[kRobotsParseLimit] != '\n' && body[kRobotsParseLimit] != '\r';
    body = body.substr(0, kRobotsParseLimit);
    // A line cut by the limit could turn "Allow: /a/b" into a broader "Allow: /a/", so drop it.
    if (cut_mid_line) {
      const size_t last_eol = body.find_last_of("\r\n");
      body = last_eol == std::string_view::npos ? std::string_view() : body.substr(0, last_eol);
    }
  }
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);

  detail::Builder builder(robots.groups_, robots.sitemaps_);
  size_t number = 0;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = pos;
    while (end < body.size() && body[end] != '\n' && body[end] != '\r') ++end;
    builder.line(body.substr(pos, end - pos), ++number);
    pos = end;
    if (pos < body.size()) {
      const bool crlf = body[pos] == '\r' && pos + 1 < body.size() && body[pos + 1] == '\n';
      pos += crlf ? 2 : 1;
    }
  }
  return robots;
}

RobotsRules RobotsTxt::rules_for(std::string_view user_agent) const {
  const std::string token = detail::product_token(detail::trim(user_agent));
  std::vector<const RobotsGroup*> chosen;
  if (!token.empty()) {
    for (const RobotsGroup& group : groups_)
      if (std::find(group.agents.begin(), group.agents.end(), token) != group.agents.end())
        chosen.push_back(&group);
  }
  if (chosen.empty()) {
    for (const RobotsGroup& group : groups_)
      if (group.global) chosen.push_back(&group);
  }
  std::vector<RobotsRule> rules;
  std::optional<std::chrono::milliseconds> crawl_delay;
  for (const RobotsGroup* group : chosen) {
    rules.insert(rules.end(), group->rules.begin(), group->rules.end());
    if (!crawl_delay) crawl_delay = group->crawl_delay;
  }
  return RobotsRules(std::move(rules), crawl_delay);
}

bool RobotsPolicy::should_follow_redirect(int status, int redirects_followed) {
  const bool redirect =
      status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
  return redirect && redirects_followed < kMaxRedirects;
}

namespace {

std::chrono::seconds freshness(std::optional<std::chrono::seconds> max_age) {
  return max_age ? std::clamp(*max_age, std::chrono::seconds(0), RobotsPolicy::kMaxAge)
                 : RobotsPolicy::kMaxAge;
}

}  // namespace

RobotsPolicy RobotsPolicy::from_response(int status, std::string_view body,
                                         std::optional<std::chrono::seconds> max_age) {
  const std::chrono::seconds fresh = freshness(max_age);
  if (status >= 200 && status <= 299)
    return {Access::Rules, std::make_shared<const RobotsTxt>(RobotsTxt::parse(body)), fresh};
  // 429 says "slow down", not "there is no robots.txt": treat it as unreachable, as Google does.
  if (status >= 300 && status <= 499 && status != 429) return {Access::AllowAll, {}, fresh};
  return {Access::DisallowAll, {}, kUnreachableRetry};
}

RobotsPolicy RobotsPolicy::revalidated(std::optional<std::chrono::seconds> max_age) const {
  if (access_ == Access::DisallowAll) return *this;  // nothing was cached to revalidate
  return {access_, robots_, freshness(max_age)};
}

RobotsPolicy RobotsPolicy::unreachable(const RobotsPolicy* cached,
                                       std::chrono::seconds unreachable_for) {
  if (cached != nullptr && cached->access_ != Access::DisallowAll)
    return {cached->access_, cached->robots_, kUnreachableRetry};
  if (unreachable_for >= kUnreachableGiveUp) return {Access::AllowAll, {}, kUnreachableRetry};
  return {Access::DisallowAll, {}, kUnreachableRetry};
}

RobotsRules RobotsPolicy::rules_for(std::string_view user_agent) const {
  switch (access_) {
    case Access::Rules:
      return robots_->rules_for(user_agent);
    case Access::AllowAll:
      return RobotsRules::allow_all();
    case Access::DisallowAll:
      break;
  }
  return RobotsRules::disallow_all();
}

}  // namespace squall
