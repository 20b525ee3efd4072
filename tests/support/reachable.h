// The URLs a crawl must fetch from a start URL, computed by tests/support/reachable.py over
// HTTP with Python's own HTML parser and URL functions (see its docstring for the rules), so
// that crawler tests check squall against something that shares none of its code.
//
//   ReachableWalk walk(start_url);  // runs in a child process while the test crawls
//   ... crawl ...
//   ReachableSet expected = walk.result();
#pragma once

#include <chrono>
#include <set>
#include <string>

#include "support/process.h"

namespace squall::test {

struct ReachableSet {
  std::set<std::string> urls;              // every URL reachable by links, the start included
  std::set<std::string> redirect_targets;  // where some of them redirected to
};

class ReachableWalk {
 public:
  // Starts the walk from `start` (also its prefix scope); requests carry `user_agent`, so a
  // server's log can tell them from the crawler's.
  explicit ReachableWalk(const std::string& start, const std::string& user_agent = "reachable.py");
  // Waits for the walk to end (up to `limit`) and returns what it found; throws
  // std::runtime_error with the script's output if it fails or takes longer.
  ReachableSet result(std::chrono::milliseconds limit = std::chrono::minutes(5));

 private:
  TempDir dir_;
  Process process_;
};

// "The first differences": up to `limit` entries of `a` missing from `b`, one per line, for a
// test's failure message.
std::string first_missing(const std::set<std::string>& a, const std::set<std::string>& b,
                          size_t limit = 20);

}  // namespace squall::test
