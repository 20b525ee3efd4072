// The built squall command and the outputs tests read back from it.
#include "support/squall_command.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

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

CommandResult run_command(const std::vector<std::string>& argv,
                          const std::filesystem::path& workdir,
                          const std::vector<std::pair<std::string, std::string>>& env,
                          const std::filesystem::path& input) {
  if (argv.empty()) throw std::runtime_error("run_command: no program");
  // The child's environment is built here: after a fork only async-signal-safe calls are safe
  // in a process with threads, and setenv is not one.
  std::vector<std::string> variables;
  for (char** e = environ; *e; ++e) {
    std::string_view name(*e);
    if (!is_proxy_variable(name.substr(0, name.find('=')))) variables.emplace_back(*e);
  }
  for (const auto& [name, value] : env) variables.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& v : variables) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  TempDir logs;
  std::filesystem::path out = logs.path() / "out", err = logs.path() / "err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addchdir_np(&actions, workdir.c_str());
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      throw std::runtime_error("run_command: waitpid: " + std::string(std::strerror(errno)));
  return {exit_status(status), read_file(out), read_file(err)};
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

std::string await_output(Process& p, std::string_view text) {
  for (int i = 0; i < 1200; ++i) {
    std::string out = p.output();
    if (contains(out, text) || !p.running()) return out;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return p.output();
}

int dashboard_port(const std::string& output) {
  const std::string prefix = "Dashboard: http://127.0.0.1:";
  size_t at = output.find(prefix);
  // A line read while it is being written may lack the port's last digits: only a whole one
  // counts.
  if (at == std::string::npos || output.find('\n', at) == std::string::npos) return 0;
  return std::atoi(output.c_str() + at + prefix.size());
}

}  // namespace squall::test
