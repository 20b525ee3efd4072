// The built squall command, for tests that run it the way users do, and what they read back.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "support/process.h"

namespace squall::test {

// build/<preset>/squall.
const std::string& squall_binary();

// The exit status of a wait status: the code, or 128 + the signal as a shell reports it, or -1
// when the process had not ended.
int exit_status(int wait_status);

// Runs `squall crawl ARGS...` in `workdir` and waits for it to end (two minutes at most).
Process run_crawl(const std::filesystem::path& workdir, std::vector<std::string> args);

// Whether `text` contains `part`.
bool contains(std::string_view text, std::string_view part);

// The "url" of each line of a JSON lines file, in order.
std::vector<std::string> jsonl_urls(const std::filesystem::path& path);

}  // namespace squall::test
