// `squall robots`: what a robots.txt file allows one crawler to fetch, and which rule decides.
//
// Returns the process exit status: 0 when every URL is allowed; 1 when one is disallowed or does
// not parse (its line of `out` says which); 2 when the file cannot be read, with one line on
// `err` saying what to give instead.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace squall::cli {

struct RobotsCommand {
  std::string file;  // a robots.txt file, or "-" for standard input
  std::string agent;
  std::vector<std::string> urls;  // absolute URLs, or paths such as "/a?b"
};
// `squall robots`: "allowed" or "disallowed" per URL, with the deciding rule and its line.
int run_robots(const RobotsCommand& command, std::istream& in, std::ostream& out,
               std::ostream& err);

}  // namespace squall::cli
