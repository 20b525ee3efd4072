// A generated web site (scripts/gensite.py) served by nginx on loopback, with the URLs a crawl
// from its root must reach, as the generator computed them from its own links.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "support/process.h"

namespace squall::test {

// Writes scripts/gensite.py's site of `pages` pages, linked under `origin`, into `out`; throws if
// the generator fails.
void generate_site(const std::filesystem::path& out, int pages, const std::string& origin);

struct GeneratedSite {
  TempDir dir;
  uint16_t port;
  std::string origin;  // "http://127.0.0.1:<port>"
  Process nginx;
  std::set<std::string> with_robots, without_robots;

  // Generates `pages` pages under dir/site and serves them; throws if either step fails. With
  // `requests_per_second` > 0, nginx answers no faster than that (it delays, never refuses), so
  // a crawl of the site takes at least its URL count divided by that rate on any machine.
  explicit GeneratedSite(int pages, int requests_per_second = 0);
  // Requests per path in nginx's access log (lines are written after each response).
  std::map<std::string, int> hits() const;
};

}  // namespace squall::test
