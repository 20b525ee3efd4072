// CrawlScopeRules: which URLs a crawl takes in, by where it started and by patterns.
//
//   CrawlScopeRules scope(starts, CrawlScope::Prefix, {"\\.html$"}, {"/private/"});
//   if (scope.allows(url)) ...
//
// - Prefix (wget -np): beneath a start URL's directory ("http://h/a/index.html" covers
//   "http://h/a/"); Host: a start URL's host and port; Domain: a start URL's registrable domain
//   by the Public Suffix List; Any: everything.
// - include: when any are given, a URL must match one of them; exclude: a URL that matches one
//   is left out. Both are ECMAScript regular expressions searched in the URL's normalized text.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "squall/url/url.h"

namespace squall {

enum class CrawlScope { Prefix, Host, Domain, Any };

// "prefix", "host", "domain", "any".
std::string_view crawl_scope_name(CrawlScope scope) noexcept;

class CrawlScopeRules {
 public:
  // `starts` are the start URLs, normalized. Throws InvalidArgumentError naming the flag
  // (--include, --exclude) of a pattern that is not a valid regular expression.
  CrawlScopeRules(const std::vector<Url>& starts, CrawlScope scope,
                  const std::vector<std::string>& include, const std::vector<std::string>& exclude);
  ~CrawlScopeRules();
  CrawlScopeRules(CrawlScopeRules&&) noexcept;
  CrawlScopeRules& operator=(CrawlScopeRules&&) noexcept;

  bool allows(const Url& url) const;

 private:
  struct Patterns;
  CrawlScope scope_;
  std::vector<std::string> prefixes_;  // the start URLs' directories
  std::vector<std::string> hosts_;     // host:port
  std::vector<std::string> domains_;
  std::unique_ptr<Patterns> patterns_;
};

// The registrable domain of a host by the Public Suffix List ("example.co.uk" for
// "www.example.co.uk"); the host itself for IP addresses and hosts that are suffixes.
std::string registrable_domain(std::string_view host);

}  // namespace squall
