// The built squall command, for tests that run it the way users do, and what they read back.
//
//   CommandResult r = run_command({squall_binary(), "fetch", "-sS", url}, dir.path());
//   EXPECT_EQ(r.status, 0) << r.err;
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/process.h"

namespace squall::test {

// build/<preset>/squall.
const std::string& squall_binary();

struct CommandResult {
  int status = -1;  // the exit status, or 128 + the signal that ended it
  std::string out;  // what it wrote on standard output
  std::string err;  // and on standard error
};

// Runs argv[0] (a path: squall_binary(), or a peer such as /usr/bin/curl) with the given
// arguments in `workdir` to its end, as a shell would, with standard input from /dev/null (or
// the file `input`) and standard output and error kept apart. The proxy variables (http_proxy,
// https_proxy, all_proxy, no_proxy and their upper-case forms) are removed from its
// environment, then `env` is added. Throws std::runtime_error if it cannot be started.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::filesystem::path& workdir,
                          const std::vector<std::pair<std::string, std::string>>& env = {},
                          const std::filesystem::path& input = "/dev/null");

// The exit status of a wait status: the code, or 128 + the signal as a shell reports it, or -1
// when the process had not ended.
int exit_status(int wait_status);

// Runs `squall crawl ARGS...` in `workdir` and waits for it to end (two minutes at most).
Process run_crawl(const std::filesystem::path& workdir, std::vector<std::string> args);

// Whether `text` contains `part`.
bool contains(std::string_view text, std::string_view part);

// Waits (a minute at most) until `p` has printed `text` or ended; its output so far.
std::string await_output(Process& p, std::string_view text);

// The port of the "Dashboard: http://127.0.0.1:N/" line squall crawl and run print with --port,
// or 0.
int dashboard_port(const std::string& output);

// The "url" of each line of a JSON lines file, in order.
std::vector<std::string> jsonl_urls(const std::filesystem::path& path);

}  // namespace squall::test
