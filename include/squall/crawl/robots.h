// robots.txt as RFC 9309 defines it: parsing, per-agent rules, matching, and the fetch policy.
//
// Pure components, no I/O: the crawler fetches /robots.txt, hands the status and body to
// RobotsPolicy::from_response (or calls RobotsPolicy::unreachable), compiles the rules for its
// own product token once per host with rules_for, and asks RobotsRules::allowed for every URL.
// Every type here is a plain value, safe to read from any thread once built.
//
// What the parser accepts (RFC 9309 section 2, plus what Google's crawler tolerates):
// - Lines end at CR, LF or CRLF; a UTF-8 BOM at the start is skipped; `#` starts a comment;
//   leading and trailing whitespace is ignored; lines that are not records are skipped.
// - A record is `key: value`; a missing colon is tolerated when key and value are separated by
//   whitespace ("Disallow /x"). Keys are case-insensitive, and common misspellings are accepted
//   ("useragent", "user agent", "dissallow", "disalow", "crawldelay", ...).
// - A group is one or more consecutive user-agent lines followed by its allow and disallow
//   rules. Rules before the first user-agent line belong to no group and are ignored. Other
//   records (Crawl-delay, Sitemap, unknown keys) do not end a run of user-agent lines, since
//   section 2.2.4 says they must not interfere; a Crawl-delay belongs to the group being read.
// - Only the first 500 KiB (kRobotsParseLimit) are parsed; a line cut by the limit is dropped.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace squall {

// RFC 9309 section 2.5: crawlers must parse at least 500 kibibytes; content after it is ignored.
inline constexpr size_t kRobotsParseLimit = 500 * 1024;

enum class RobotsRuleKind : uint8_t { Allow, Disallow };

// One allow or disallow line of a robots.txt file.
struct RobotsRule {
  RobotsRuleKind kind = RobotsRuleKind::Disallow;
  // The path pattern in canonical form: percent-escapes of unreserved characters decoded, other
  // escapes upper-cased, non-ASCII and unsafe octets percent-encoded, a `$` that is not the last
  // octet written as %24. `*` matches any sequence; a final `$` anchors the end.
  std::string pattern;
  // The line as written, comment and surrounding whitespace removed ("Disallow: /private").
  std::string text;
  // 1-based line number in the file; 0 for a synthetic rule (RobotsRules::disallow_all).
  size_t line = 0;
};

// The user-agent lines and records of one group, in file order.
struct RobotsGroup {
  // Lower-cased product tokens of the group's user-agent lines ("googlebot" for
  // "User-agent: Googlebot/2.1"); lines without a token contribute nothing.
  std::vector<std::string> agents;
  // True when one of the user-agent lines is `*`.
  bool global = false;
  std::vector<RobotsRule> rules;
  // The first valid Crawl-delay of the group (seconds, fractions allowed, capped at a day).
  std::optional<std::chrono::milliseconds> crawl_delay;
};

// The outcome of matching one path: whether it may be fetched and which rule decided it.
struct RobotsMatch {
  bool allowed = true;
  // The deciding rule, owned by the RobotsRules that produced this match; nullptr when no rule
  // matched (allowed) or the path is /robots.txt (always allowed).
  const RobotsRule* rule = nullptr;
};

// The rules that apply to one crawler on one host, compiled for matching.
//
// Matching follows RFC 9309 section 2.2.2: the rule with the longest pattern (in octets, after
// normalisation) wins, allow wins a tie, no matching rule means allowed, and /robots.txt is always
// allowed. Matching does not allocate unless the path needs percent-encoding normalisation and is
// longer than about 300 octets. Rules are indexed by their literal prefix (up to 16 octets), so a
// match only tries the rules whose prefix the path starts with.
class RobotsRules {
 public:
  // No rules: everything is allowed.
  RobotsRules() = default;
  static RobotsRules allow_all() { return {}; }
  // One synthetic `Disallow: /` rule (line 0): everything but /robots.txt is disallowed.
  static RobotsRules disallow_all();
  // Compiles the given rules (any order) and crawl delay.
  RobotsRules(std::vector<RobotsRule> rules, std::optional<std::chrono::milliseconds> crawl_delay);

  // Matches a URL's path plus query ("/a/b?c=d"), as the URL parser serializes them. A fragment,
  // if present, is ignored; an empty path means "/". The path is compared after the same
  // percent-encoding normalisation as the patterns, and a literal `*` or `$` in it matches only a
  // %2A or %24 in a pattern (RFC 9309 section 2.2.3).
  RobotsMatch match(std::string_view path_and_query) const;
  bool allowed(std::string_view path_and_query) const { return match(path_and_query).allowed; }

  // The rules in precedence order: longest pattern first, allow before disallow, then file order.
  const std::vector<RobotsRule>& rules() const { return rules_; }
  std::optional<std::chrono::milliseconds> crawl_delay() const { return crawl_delay_; }

 private:
  // What matching needs of rules_[i], worked out once.
  struct Compiled {
    bool anchored;  // the pattern ends with the `$` anchor
    bool has_star;
  };

  std::vector<RobotsRule> rules_;
  std::vector<Compiled> compiled_;
  // Indices into rules_ (ascending, so in precedence order) keyed by a hash of the literal prefix
  // (the pattern up to its first `*`) cut to kIndexDepth octets, and the rules whose prefix is
  // empty. A hash collision only adds candidates, since every candidate is matched in full.
  static constexpr size_t kIndexDepth = 16;
  std::unordered_map<size_t, std::vector<uint32_t>> by_prefix_;
  std::vector<uint32_t> unprefixed_;
  uint32_t key_lengths_ = 0;  // bit n-1 is set when some key is n octets long
  std::optional<std::chrono::milliseconds> crawl_delay_;
};

// A parsed robots.txt file.
class RobotsTxt {
 public:
  // Parses the body of a robots.txt response. Never fails: whatever cannot be understood is
  // skipped (RFC 9309 section 2.3.1.5). Bytes past kRobotsParseLimit are ignored.
  static RobotsTxt parse(std::string_view body);

  // The rules for a crawler whose user agent is `user_agent`: its product token is the leading
  // run of letters, `_` and `-` ("squall" for "squall/0.1 (+https://...)"), compared
  // case-insensitively with each group's tokens. All groups naming the token are merged; if none
  // does, all `*` groups are merged; if there is no `*` group either, nothing is disallowed.
  // The crawl delay is the first one given in the merged groups, in file order.
  RobotsRules rules_for(std::string_view user_agent) const;

  const std::vector<RobotsGroup>& groups() const { return groups_; }
  // Sitemap URLs as written (unresolved), from anywhere in the file, in file order.
  const std::vector<std::string>& sitemaps() const { return sitemaps_; }
  // True when the body was longer than kRobotsParseLimit and its tail was ignored.
  bool truncated() const { return truncated_; }

 private:
  std::vector<RobotsGroup> groups_;
  std::vector<std::string> sitemaps_;
  bool truncated_ = false;
};

// What a crawler does with the answer to a request for /robots.txt (RFC 9309 section 2.3.1).
//
// The crawler follows a 3xx while should_follow_redirect says so (at most kMaxRedirects hops,
// across hosts too; the rules then apply to the original host), then builds the policy from the
// final response, or with unreachable() when no HTTP response arrived. A policy is a cheap value
// to copy; copies share the parsed file.
class RobotsPolicy {
 public:
  enum class Access : uint8_t {
    Rules,        // 2xx: the file's rules apply.
    AllowAll,     // 4xx ("unavailable"), or too many redirects: no restrictions.
    DisallowAll,  // 5xx, 429 or no response ("unreachable"): nothing may be fetched.
  };

  // RFC 9309 section 2.3.1.2: follow at least five consecutive redirects.
  static constexpr int kMaxRedirects = 5;
  // Section 2.4: a cached robots.txt should not be used for more than 24 hours.
  static constexpr std::chrono::seconds kMaxAge{24 * 60 * 60};
  // How soon to retry after an unreachable answer; the host is disallowed (or keeps its cached
  // rules) until then.
  static constexpr std::chrono::seconds kUnreachableRetry{15 * 60};
  // Section 2.3.1.4: after this long unreachable, a host without cached rules is treated as
  // having no robots.txt (allow all) instead of disallowed.
  static constexpr std::chrono::seconds kUnreachableGiveUp{30 * 24 * 60 * 60};

  // True when `status` is a redirect and `redirects_followed` (hops taken so far) is below
  // kMaxRedirects. 304 is not a redirect to follow.
  static bool should_follow_redirect(int status, int redirects_followed);

  // The policy for a final response: 2xx parses `body`; 3xx (a redirect not followed: too many,
  // or no usable Location) and 4xx other than 429 allow all; 429, 5xx and any other status
  // disallow all. The body is only read for 2xx; a 304 belongs to revalidated(). `max_age` is the
  // response's freshness lifetime by HTTP caching (RFC 9111), if it has one: a shorter lifetime
  // than kMaxAge shortens refresh_after (section 2.4); a longer one does not lengthen it.
  static RobotsPolicy from_response(int status, std::string_view body,
                                    std::optional<std::chrono::seconds> max_age = std::nullopt);

  // The same policy with its cache time restarted: for a 304 Not Modified answer to a conditional
  // request that revalidated this policy's file. `max_age` as for from_response.
  RobotsPolicy revalidated(std::optional<std::chrono::seconds> max_age = std::nullopt) const;

  // The policy when the fetch failed without an HTTP status (DNS, connect, TLS, timeout) or the
  // answer was 5xx/429 and the crawler wants the cache-aware decision. `cached` is the policy in
  // force before this attempt, if any, and `unreachable_for` how long robots.txt has been
  // unreachable so far. A cached Rules or AllowAll policy stays in force (section 2.3.1.4 allows
  // using a cached copy); without one, everything is disallowed, until `unreachable_for` reaches
  // kUnreachableGiveUp, when everything is allowed.
  static RobotsPolicy unreachable(const RobotsPolicy* cached = nullptr,
                                  std::chrono::seconds unreachable_for = {});

  Access access() const { return access_; }
  // The parsed file when access() is Rules, else nullptr.
  const RobotsTxt* robots() const { return robots_.get(); }
  // The compiled rules for this crawler: the file's (Rules), none (AllowAll) or `Disallow: /`.
  RobotsRules rules_for(std::string_view user_agent) const;
  // How long the crawler may use this policy before fetching robots.txt again: kMaxAge (or a
  // shorter HTTP freshness lifetime) for Rules and AllowAll, kUnreachableRetry for DisallowAll
  // and for a cached policy kept because the file was unreachable.
  std::chrono::seconds refresh_after() const { return refresh_after_; }

 private:
  RobotsPolicy(Access access, std::shared_ptr<const RobotsTxt> robots,
               std::chrono::seconds refresh_after)
      : access_(access), robots_(std::move(robots)), refresh_after_(refresh_after) {}

  Access access_;
  std::shared_ptr<const RobotsTxt> robots_;
  std::chrono::seconds refresh_after_;
};

namespace detail {

// The canonical form robots.txt patterns and paths are compared in (see RobotsRule::pattern).
// For a path (`is_pattern` false) `*` and `$` become %2A and %24, so that they match only escapes.
std::string robots_canonical(std::string_view input, bool is_pattern);

}  // namespace detail

}  // namespace squall
