// CrawlScopeRules: the start URLs' directories, hosts and domains, and compiled patterns.
#include "squall/crawl/scope.h"

#include <libpsl.h>

#include <algorithm>
// GCC 12 warns about std::function inside <regex>'s matcher at -O1 with sanitizers
// (-Wmaybe-uninitialized, a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop

#include "squall/core/error.h"

namespace squall {

std::string registrable_domain(std::string_view host) {
  std::string h(host);
  // IP addresses have no registrable domain: the address is its own scope.
  bool ipv4 = !h.empty() && h.find_first_not_of("0123456789.") == std::string::npos;
  if (ipv4 || h.find(':') != std::string::npos || h.starts_with('[')) return h;
  const char* d = psl_registrable_domain(psl_builtin(), h.c_str());
  return d ? std::string(d) : h;
}

std::string_view crawl_scope_name(CrawlScope scope) noexcept {
  switch (scope) {
    case CrawlScope::Prefix:
      return "prefix";
    case CrawlScope::Host:
      return "host";
    case CrawlScope::Domain:
      return "domain";
    case CrawlScope::Any:
      return "any";
  }
  return "prefix";
}

struct CrawlScopeRules::Patterns {
  std::vector<std::regex> include, exclude;
};

CrawlScopeRules::CrawlScopeRules(const std::vector<Url>& starts, CrawlScope scope,
                                 const std::vector<std::string>& include,
                                 const std::vector<std::string>& exclude)
    : scope_(scope), patterns_(std::make_unique<Patterns>()) {
  for (const Url& n : starts) {
    // The start URL's directory, as wget -np takes it: the key up to the path's last '/'.
    std::string_view key = n.dedup_key();
    std::string_view path = n.path();
    size_t path_start = key.size() - n.request_target().size();
    prefixes_.emplace_back(key.substr(0, path_start + path.rfind('/') + 1));
    hosts_.push_back(n.host_port());
    domains_.push_back(registrable_domain(n.host()));
  }
  auto compile = [](const std::vector<std::string>& patterns, std::vector<std::regex>& out,
                    const char* flag) {
    for (const std::string& p : patterns) {
      try {
        out.emplace_back(p, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error& e) {
        throw InvalidArgumentError(std::string("crawl: ") + flag + " pattern '" + p +
                                   "' is not a valid regular expression: " + e.what());
      }
    }
  };
  compile(include, patterns_->include, "--include");
  compile(exclude, patterns_->exclude, "--exclude");
}

CrawlScopeRules::~CrawlScopeRules() = default;
CrawlScopeRules::CrawlScopeRules(CrawlScopeRules&&) noexcept = default;
CrawlScopeRules& CrawlScopeRules::operator=(CrawlScopeRules&&) noexcept = default;

bool CrawlScopeRules::allows(const Url& u) const {
  std::string_view key = u.dedup_key();
  switch (scope_) {
    case CrawlScope::Prefix:
      if (std::none_of(prefixes_.begin(), prefixes_.end(),
                       [&](const std::string& p) { return key.substr(0, p.size()) == p; }))
        return false;
      break;
    case CrawlScope::Host:
      if (std::find(hosts_.begin(), hosts_.end(), u.host_port()) == hosts_.end()) return false;
      break;
    case CrawlScope::Domain:
      if (std::find(domains_.begin(), domains_.end(), registrable_domain(u.host())) ==
          domains_.end())
        return false;
      break;
    case CrawlScope::Any:
      break;
  }
  auto matches = [key](const std::regex& r) {
    return std::regex_search(key.data(), key.data() + key.size(), r);
  };
  const Patterns& p = *patterns_;
  if (!p.include.empty() && std::none_of(p.include.begin(), p.include.end(), matches)) return false;
  return std::none_of(p.exclude.begin(), p.exclude.end(), matches);
}

}  // namespace squall
