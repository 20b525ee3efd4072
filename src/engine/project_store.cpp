// Project status names, as pyspider writes them.
#include "squall/engine/project_store.h"

namespace squall {

std::string_view project_status_name(ProjectStatus status) noexcept {
  switch (status) {
    case ProjectStatus::Todo:
      return "TODO";
    case ProjectStatus::Stop:
      return "STOP";
    case ProjectStatus::Checking:
      return "CHECKING";
    case ProjectStatus::Debug:
      return "DEBUG";
    case ProjectStatus::Running:
      return "RUNNING";
  }
  return "?";
}

std::optional<ProjectStatus> parse_project_status(std::string_view name) noexcept {
  for (ProjectStatus s : {ProjectStatus::Todo, ProjectStatus::Stop, ProjectStatus::Checking,
                          ProjectStatus::Debug, ProjectStatus::Running})
    if (project_status_name(s) == name) return s;
  return std::nullopt;
}

}  // namespace squall
