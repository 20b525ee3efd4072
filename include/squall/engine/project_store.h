// ProjectStore: the engine's projects (pyspider's projectdb): a name, a group, a status, the
// script, and the dispatch rate.
//
// Status, as in pyspider: TODO (new, not started), STOP, CHECKING (being edited), DEBUG and
// RUNNING. Only DEBUG and RUNNING projects are dispatched; the others keep their tasks and take
// no new ones.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/core/task.h"

namespace squall {

enum class ProjectStatus { Todo, Stop, Checking, Debug, Running };

std::string_view project_status_name(ProjectStatus status) noexcept;  // "TODO", "RUNNING", ...
std::optional<ProjectStatus> parse_project_status(std::string_view name) noexcept;

struct ProjectInfo {
  std::string name;
  std::string group;
  ProjectStatus status = ProjectStatus::Todo;
  std::string script;
  std::string comments;
  double rate = 1;    // tasks a second (pyspider's default); infinity: no limit
  double burst = 10;  // tasks at once
  double updatetime = 0;

  bool active() const noexcept {
    return status == ProjectStatus::Running || status == ProjectStatus::Debug;
  }
};

class ProjectStore {
 public:
  virtual ~ProjectStore() = default;
  virtual Task<std::optional<ProjectInfo>> project(std::string name) = 0;
  virtual Task<std::vector<ProjectInfo>> projects() = 0;
  // Inserts or replaces the project by name.
  virtual Task<void> put_project(const ProjectInfo& project) = 0;
};

}  // namespace squall
