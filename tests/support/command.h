// Runs a command to its end the way a shell would, with its standard output and standard error
// kept apart, for tests of the built squall binary.
//
//   CommandResult r = run_command({kSquall, "fetch", "-sS", url}, dir.path());
//   EXPECT_EQ(r.status, 0) << r.err;
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace squall::test {

struct CommandResult {
  int status = -1;  // the exit status, or 128 + the signal that ended it
  std::string out;  // what it wrote on standard output
  std::string err;  // and on standard error
};

// Runs argv[0] (a path) with the given arguments in `workdir`, with standard input from
// /dev/null (or the file `input`), and waits for it. The proxy variables (http_proxy,
// https_proxy, all_proxy, no_proxy and their upper-case forms) are removed from its
// environment, then `env` is added. Throws std::runtime_error if it cannot be started.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::filesystem::path& workdir,
                          const std::vector<std::pair<std::string, std::string>>& env = {},
                          const std::filesystem::path& input = "/dev/null");

}  // namespace squall::test
