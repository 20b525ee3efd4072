// `squall serve` as a test peer: the built command started on a port, and the port it names.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/process.h"

namespace squall::test {

// The squall binary of this build tree: tests live in <tree>/tests/, the command in <tree>/.
inline std::filesystem::path squall_binary() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "squall";
}

// Starts `squall serve` with these arguments and waits for its "Serving ... at
// http://HOST:PORT/" line; returns the port it names (0 if the line never came, e.g. because
// the command exited: see p.output()).
inline uint16_t start_serve(Process& p, const std::vector<std::string>& args) {
  std::vector<std::string> argv{squall_binary().string(), "serve"};
  argv.insert(argv.end(), args.begin(), args.end());
  p = Process::start(argv);
  for (int i = 0; i < 1500; ++i) {
    std::string out = p.output();
    size_t at = out.find(" at http://");
    size_t end = out.find("/\n", at == std::string::npos ? 0 : at);
    if (at != std::string::npos && end != std::string::npos) {
      size_t colon = out.rfind(':', end);
      return static_cast<uint16_t>(std::stoi(out.substr(colon + 1, end - colon - 1)));
    }
    if (!p.running()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

}  // namespace squall::test
