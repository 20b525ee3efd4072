// The built squall command and the outputs tests read back from it.
#include "support/squall_command.h"

#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace squall::test {

const std::string& squall_binary() {
  static const std::string path = SQUALL_BINARY_DIR "/squall";
  return path;
}

int exit_status(int wait_status) {
  if (wait_status == -1) return -1;
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

Process run_crawl(const std::filesystem::path& workdir, std::vector<std::string> args) {
  args.insert(args.begin(), {squall_binary(), "crawl"});
  Process p = Process::start(args, workdir);
  p.wait(std::chrono::minutes(2));
  return p;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::vector<std::string> jsonl_urls(const std::filesystem::path& path) {
  std::vector<std::string> urls;
  std::istringstream lines(read_file(path));
  for (std::string line; std::getline(lines, line);)
    urls.push_back(nlohmann::json::parse(line)["url"].get<std::string>());
  return urls;
}

}  // namespace squall::test
