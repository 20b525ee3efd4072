// A generated web site (scripts/gensite.py) served by nginx on loopback, with the URLs a crawl
// from its root must reach, as the generator computed them from its own links.
#pragma once

#include <map>
#include <set>
#include <string>

#include "support/process.h"

namespace squall::test {

struct GeneratedSite {
  TempDir dir;
  uint16_t port;
  std::string origin;  // "http://127.0.0.1:<port>"
  Process nginx;
  std::set<std::string> with_robots, without_robots;

  // Generates `pages` pages under dir/site and serves them; throws if either step fails.
  explicit GeneratedSite(int pages);
  // Requests per path in nginx's access log (lines are written after each response).
  std::map<std::string, int> hits() const;
};

}  // namespace squall::test
