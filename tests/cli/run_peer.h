// What `squall run`'s tests share: the logging site of run_peer.py, a project script written to
// a folder and run there, and what the run left in its store.
#pragma once

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/squall_command.h"

namespace squall::test {

// Under ASan, the `squall run` processes this test starts from now on suppress the leaks of
// the embedded interpreter and its extension modules (run_lsan.supp), and only those.
inline void suppress_interpreter_leaks() {
  ::setenv("LSAN_OPTIONS", "suppressions=" SQUALL_SOURCE_DIR "/tests/cli/run_lsan.supp", 1);
}

// run_peer.py on a free port of `host` (an address of this machine's, or of the network
// namespace the calling thread is in); requests() reads back what it was asked.
struct RunPeer {
  TempDir dir;
  std::string host;
  uint16_t port = free_port();
  std::string origin;
  Process process;

  explicit RunPeer(std::string on = "127.0.0.1")
      : host(std::move(on)), origin("http://" + host + ":" + std::to_string(port)) {
    suppress_interpreter_leaks();
    process =
        Process::start({"/usr/bin/python3", SQUALL_SOURCE_DIR "/tests/cli/run_peer.py",
                        std::to_string(port), (dir.path() / "requests.jsonl").string(), host});
    wait_for_port(port, "run_peer.py", &process, std::chrono::seconds(15), host);
  }

  // Each request so far: {time, in_flight, client (its address), method, path, headers
  // (lower-case names), body, body_hex}.
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(dir.path() / "requests.jsonl");
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
  }
  // The requests for `path` (its query included).
  std::vector<nlohmann::json> requests_for(const std::string& path) const {
    std::vector<nlohmann::json> out;
    for (nlohmann::json& r : requests())
      if (r["path"] == path) out.push_back(std::move(r));
    return out;
  }
};

// The script's text with every {ORIGIN} replaced by `origin`.
inline std::string with_origin(std::string script, const std::string& origin) {
  for (size_t at; (at = script.find("{ORIGIN}")) != std::string::npos;)
    script.replace(at, 8, origin);
  return script;
}

// Runs `squall run NAME.py ARGS...` in `work` (where the script is) to its end.
inline CommandResult squall_run(const TempDir& work, const std::string& script_name,
                                std::vector<std::string> args = {}) {
  suppress_interpreter_leaks();
  std::vector<std::string> argv = {squall_binary(), "run", script_name};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, work.path());
}

// The lines of a JSON lines file, the later line for a taskid replacing the earlier (pyspider's
// dump), by taskid.
inline std::map<std::string, nlohmann::json> results_by_taskid(const std::filesystem::path& file) {
  std::map<std::string, nlohmann::json> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) {
      nlohmann::json j = nlohmann::json::parse(line);
      out[j["taskid"].get<std::string>()] = j;
    }
  return out;
}

// A task as the store keeps it.
struct StoredTask {
  std::string taskid, url;
  int status = 0;  // 1 active, 2 success, 3 failed, 4 bad
  int retried = 0;
  nlohmann::json track;
};

// The project's tasks in the store at `db`, read with SQLite's own API.
inline std::vector<StoredTask> stored_tasks(const std::filesystem::path& db) {
  std::vector<StoredTask> out;
  sqlite3* handle = nullptr;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(handle);
    return out;
  }
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(handle, "SELECT taskid, url, status, retried, track FROM tasks", -1, &q,
                     nullptr);
  while (q && sqlite3_step(q) == SQLITE_ROW) {
    StoredTask t;
    auto text = [&](int i) {
      const unsigned char* s = sqlite3_column_text(q, i);
      return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
    };
    t.taskid = text(0);
    t.url = text(1);
    t.status = sqlite3_column_int(q, 2);
    t.retried = sqlite3_column_int(q, 3);
    std::string track = text(4);
    t.track = track.empty() ? nlohmann::json::object() : nlohmann::json::parse(track);
    out.push_back(std::move(t));
  }
  sqlite3_finalize(q);
  sqlite3_close(handle);
  return out;
}

// The stored task for `url` (an empty one when there is none).
inline StoredTask stored_task(const std::filesystem::path& db, const std::string& url) {
  for (StoredTask& t : stored_tasks(db))
    if (t.url == url) return t;
  return {};
}

}  // namespace squall::test
