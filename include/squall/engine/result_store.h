// ResultStore: what projects' callbacks returned, one result per task (pyspider's resultdb).
//
// A result is upserted by (project, taskid): a task processed again replaces its earlier
// result, so a result delivered twice is stored once. Results keep the order they were first
// stored in, which listing and the JSON lines dump follow.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "squall/core/task.h"

namespace squall {

struct TaskResult {
  std::string taskid;
  std::string url;
  nlohmann::json result;
  double updatetime = 0;

  // pyspider's dump line: {"taskid", "url", "result", "updatetime"}.
  nlohmann::json to_json() const;
  // Appends that line's JSON text, as append_json(out, to_json()) would write it (its keys in
  // that order), without the object built on the way.
  void append_json_text(std::string& out) const;
};

// A result with its project, as the batch calls take them.
struct ProjectResult {
  std::string project;
  TaskResult result;
};

class ResultStore {
 public:
  virtual ~ResultStore() = default;
  virtual Task<void> upsert(std::string project, const TaskResult& result) = 0;
  virtual Task<std::optional<TaskResult>> result(std::string project, std::string taskid) = 0;
  // Up to `limit` results from `offset` in stored order.
  virtual Task<std::vector<TaskResult>> results(std::string project, size_t offset,
                                                size_t limit) = 0;
  virtual Task<int64_t> count(std::string project) = 0;

  // Batches, for a store across a network: one round trip each instead of one per result. The
  // defaults call upsert() and result() for each. `batch` must outlive the call.
  //
  // Upserts every result of `batch`, as upsert() would one after the other (a task given twice
  // keeps its last).
  virtual Task<void> upsert_all(std::span<const ProjectResult> batch);
  // The result stored for the task of each of `batch` (its project and taskid; the rest is not
  // read), in its order: nullopt where none.
  virtual Task<std::vector<std::optional<TaskResult>>> stored(std::span<const ProjectResult> batch);

  // Small named values kept with the results and committed with them (an export's offset).
  virtual Task<std::optional<std::string>> meta(std::string key) = 0;
  virtual Task<void> set_meta(std::string key, std::string value) = 0;
};

}  // namespace squall
