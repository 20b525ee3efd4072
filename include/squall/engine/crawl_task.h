// CrawlTask: the unit the engine schedules, fetches and processes, in pyspider's shape.
//
//   CrawlTask task = CrawlTask::for_url("demo", "http://127.0.0.1:8000/");
//   task.schedule.priority = 2;
//   task.process = {{"callback", "index_page"}};
//   nlohmann::json dict = task.to_json();      // pyspider's task dict
//
// A task is known by (project, taskid); the taskid is the MD5 of the URL in hex unless the
// project gives one (pyspider's get_taskid). Its status is active (waiting or in work), success,
// failed (its retries ran out) or bad (cancelled, or it can never be fetched: an unparsable
// URL). `schedule` holds what the scheduler decides by; `fetch`, `process` and `track` are
// pyspider's dicts as they are, so options the engine does not read itself (a script's `save`,
// the browser's js_* options) travel with the task unchanged: `fetch` and `process` as objects
// that may be held as their text until read (TaskDict), `track` as its JSON text, which the
// engine mostly passes on without reading. Times are Unix seconds, as in
// pyspider, because they are stored and compared across restarts and machines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "squall/engine/json_text.h"
#include "squall/engine/task_dict.h"

namespace squall {

// pyspider's taskdb codes, which are also what the stores keep.
enum class TaskStatus : int { Active = 1, Success = 2, Failed = 3, Bad = 4 };

// "active", "success", "failed", "bad".
std::string_view task_status_name(TaskStatus status) noexcept;
std::optional<TaskStatus> parse_task_status(std::string_view name) noexcept;

// What the scheduler decides by (pyspider's task["schedule"]).
struct TaskSchedule {
  int priority = 0;           // higher first; equal priorities in the order they came
  int retries = 3;            // tries after the first that a failing task gets
  int retried = 0;            // failed tries so far
  double exetime = 0;         // not before this Unix time; 0 = as soon as possible
  double age = -1;            // seconds after its last crawl that a task may run again; < 0 = never
  std::string itag;           // a changed itag restarts a finished task
  bool auto_recrawl = false;  // with an age: the task never ends, it comes back every age
  bool force_update = false;  // a request restarts the task whatever its state
  bool cancel = false;        // with force_update (or a restart): the task becomes bad

  bool has_age() const noexcept { return age >= 0; }

  nlohmann::json to_json() const;
  // Missing keys keep their defaults; a value of the wrong type throws squall::Error
  // (InvalidArgument) naming the key.
  static TaskSchedule from_json(const nlohmann::json& json);
  // Sets the field named `key` from `value` as from_json reads it (null keeps the field as it
  // is; a value of the wrong type throws squall::Error (InvalidArgument) naming the key).
  // Returns false, changing nothing, when no field has that name.
  bool set(std::string_view key, const nlohmann::json& value);
};

struct CrawlTask {
  std::string taskid;
  std::string project;
  std::string url;
  TaskStatus status = TaskStatus::Active;
  TaskSchedule schedule;
  TaskDict fetch;    // method, headers, data, timeout, save, ...
  TaskDict process;  // callback
  JsonText track;    // what the last fetch and process did
  double lastcrawltime = 0;
  double updatetime = 0;

  // A task for `url` with the default taskid.
  static CrawlTask for_url(std::string_view project, std::string_view url);

  // The callback its response goes to ("" when none was named).
  std::string callback() const;

  // pyspider's task dict.
  nlohmann::json to_json() const;
  // A task from a pyspider task dict: `url` and `project` are required (given `project` is
  // used when the dict has none); a missing taskid is the URL's default. Throws squall::Error
  // (InvalidArgument) saying which field is missing or of the wrong type.
  static CrawlTask from_json(const nlohmann::json& json, std::string_view project = {});
};

// pyspider's default taskid: the MD5 of the URL, 32 lower-case hex digits.
std::string default_taskid(std::string_view url);

}  // namespace squall
