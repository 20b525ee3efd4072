// What the cluster's tests share: the chain project, the components started as processes with
// the crawl's common flags, and what a crawl left in its store, its export and the site's log.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "squall/core/task.h"
#include "squall/engine/task_counters.h"
#include "support/process.h"

namespace squall::test {

// pyspider's tutorial project: {ORIGIN}/page/index links six detail pages (run_peer.py), each a
// result {url, title}.
extern const char* const index_project;

// A pyspider project whose pages chain from {ORIGIN}/chain/0 to /chain/399 (run_peer.py), each
// a result; the pages from 300 on are served only once the test opens the site's gate (a file
// "open" beside its log).
extern const char* const chain_project;

// `squall ROLE ARGS... COMMON...` in `workdir`, each component a process of its own.
struct ClusterProcesses {
  std::filesystem::path workdir;
  std::vector<std::string> common;  // --redis, --namespace, --lease...

  std::vector<std::string> argv(std::vector<std::string> args) const;
  Process start(std::vector<std::string> args) const;
};

// What a crawl left in its store: results and tasks by status, for one project.
struct StoredCrawl {
  int64_t results = 0;
  CounterValues tasks{};
  int64_t tasks_of(CounterKind kind) const { return tasks[static_cast<size_t>(kind)]; }
};
Task<StoredCrawl> stored_crawl(std::string store, std::string project);

// How many lines of a JSON lines export each taskid has.
std::map<std::string, int> export_lines(const std::filesystem::path& path);

// How often the site was asked for each path that starts with `prefix`.
std::map<std::string, int> fetches_of(const std::vector<nlohmann::json>& requests,
                                      std::string_view prefix);

// Polls `ready` every 50 ms until it holds (true) or `limit` passes (false).
bool wait_until(const std::function<bool()>& ready, std::chrono::milliseconds limit);

}  // namespace squall::test
