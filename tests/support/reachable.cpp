// ReachableWalk: tests/support/reachable.py in a child process.
#include "support/reachable.h"

#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace squall::test {

ReachableWalk::ReachableWalk(const std::string& start, const std::string& user_agent)
    : process_(Process::start(
          {"/usr/bin/python3", "-B", SQUALL_SOURCE_DIR "/tests/support/reachable.py", start,
           "--out", (dir_.path() / "reachable.json").string(), "--user-agent", user_agent})) {}

ReachableSet ReachableWalk::result(std::chrono::milliseconds limit) {
  int status = process_.wait(limit);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("reachable.py failed or took too long:\n" + process_.output());
  auto j = nlohmann::json::parse(read_file(dir_.path() / "reachable.json"));
  ReachableSet out;
  for (const auto& u : j["urls"]) out.urls.insert(u.get<std::string>());
  for (const auto& u : j["redirect_targets"]) out.redirect_targets.insert(u.get<std::string>());
  return out;
}

std::string first_missing(const std::set<std::string>& a, const std::set<std::string>& b,
                          size_t limit) {
  std::string out;
  size_t shown = 0, missing = 0;
  for (const std::string& u : a) {
    if (b.count(u)) continue;
    if (shown < limit) {
      out.append("  ").append(u).append("\n");
      ++shown;
    }
    ++missing;
  }
  if (missing > shown)
    out.append("  ... and ").append(std::to_string(missing - shown)).append(" more\n");
  return out;
}

}  // namespace squall::test
