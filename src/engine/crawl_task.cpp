// CrawlTask to and from pyspider's task dict.
#include "squall/engine/crawl_task.h"

#include <array>

#include "md5.h"
#include "squall/core/error.h"

namespace squall {

using nlohmann::json;

std::string_view task_status_name(TaskStatus status) noexcept {
  switch (status) {
    case TaskStatus::Active:
      return "active";
    case TaskStatus::Success:
      return "success";
    case TaskStatus::Failed:
      return "failed";
    case TaskStatus::Bad:
      return "bad";
  }
  return "?";
}

std::optional<TaskStatus> parse_task_status(std::string_view name) noexcept {
  for (TaskStatus s :
       {TaskStatus::Active, TaskStatus::Success, TaskStatus::Failed, TaskStatus::Bad})
    if (task_status_name(s) == name) return s;
  return std::nullopt;
}

namespace {

[[noreturn]] void wrong_type(std::string_view key, std::string_view expected) {
  std::string detail = "task field '";
  detail.append(key).append("' must be ").append(expected);
  throw Error(ErrorKind::InvalidArgument, detail);
}

// Reads a value of task field `key` into `out`; null keeps `out` as it is.
void read_value(const json& v, std::string_view key, int& out) {
  if (v.is_null()) return;
  if (!v.is_number()) wrong_type(key, "a number");
  out = v.get<int>();
}

void read_value(const json& v, std::string_view key, double& out) {
  if (v.is_null()) return;
  if (!v.is_number()) wrong_type(key, "a number");
  out = v.get<double>();
}

void read_value(const json& v, std::string_view key, bool& out) {
  if (v.is_null()) return;
  if (v.is_boolean())
    out = v.get<bool>();
  else if (v.is_number())
    out = v.get<double>() != 0;  // Python scripts pass 0 and 1 too
  else
    wrong_type(key, "true or false");
}

void read_value(const json& v, std::string_view key, std::string& out) {
  if (v.is_null()) return;
  if (v.is_string())
    out = v.get<std::string>();
  else if (v.is_number() || v.is_boolean())
    out = v.dump();  // itag=1 is common
  else
    wrong_type(key, "a string");
}

// Reads json[key] into `out` when present and not null.
template <class T>
void read(const json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end()) read_value(*it, key, out);
}

void read_object(const json& j, const char* key, json& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  if (!it->is_object()) wrong_type(key, "an object");
  out = *it;
}

}  // namespace

json TaskSchedule::to_json() const {
  json j = {{"priority", priority},
            {"retries", retries},
            {"retried", retried},
            {"exetime", exetime},
            {"age", age}};
  if (!itag.empty()) j["itag"] = itag;
  if (auto_recrawl) j["auto_recrawl"] = true;
  if (force_update) j["force_update"] = true;
  if (cancel) j["cancel"] = true;
  return j;
}

TaskSchedule TaskSchedule::from_json(const json& j) {
  TaskSchedule s;
  if (j.is_null()) return s;
  if (!j.is_object()) wrong_type("schedule", "an object");
  for (const char* key : {"priority", "retries", "retried", "exetime", "age", "itag",
                          "auto_recrawl", "force_update", "cancel"})
    if (auto it = j.find(key); it != j.end()) s.set(key, *it);
  return s;
}

bool TaskSchedule::set(std::string_view key, const json& value) {
  if (key == "priority")
    read_value(value, key, priority);
  else if (key == "retries")
    read_value(value, key, retries);
  else if (key == "retried")
    read_value(value, key, retried);
  else if (key == "exetime")
    read_value(value, key, exetime);
  else if (key == "age")
    read_value(value, key, age);
  else if (key == "itag")
    read_value(value, key, itag);
  else if (key == "auto_recrawl")
    read_value(value, key, auto_recrawl);
  else if (key == "force_update")
    read_value(value, key, force_update);
  else if (key == "cancel")
    read_value(value, key, cancel);
  else
    return false;
  return true;
}

CrawlTask CrawlTask::for_url(std::string_view project, std::string_view url) {
  CrawlTask t;
  t.taskid = default_taskid(url);
  t.project = std::string(project);
  t.url = std::string(url);
  return t;
}

std::string CrawlTask::callback() const {
  auto it = process.find("callback");
  return it != process.end() && it->is_string() ? it->get<std::string>() : std::string();
}

json CrawlTask::to_json() const {
  return {{"taskid", taskid},
          {"project", project},
          {"url", url},
          {"status", static_cast<int>(status)},
          {"schedule", schedule.to_json()},
          {"fetch", fetch},
          {"process", process},
          {"track", track.read()},
          {"lastcrawltime", lastcrawltime},
          {"updatetime", updatetime}};
}

CrawlTask CrawlTask::from_json(const json& j, std::string_view project) {
  if (!j.is_object()) wrong_type("task", "an object");
  CrawlTask t;
  read(j, "url", t.url);
  if (t.url.empty()) throw Error(ErrorKind::InvalidArgument, "task has no url");
  t.project = std::string(project);
  read(j, "project", t.project);
  if (t.project.empty()) throw Error(ErrorKind::InvalidArgument, "task has no project");
  read(j, "taskid", t.taskid);
  if (t.taskid.empty()) t.taskid = default_taskid(t.url);
  if (auto it = j.find("status"); it != j.end() && !it->is_null()) {
    if (it->is_number_integer() && it->get<int>() >= 1 && it->get<int>() <= 4)
      t.status = static_cast<TaskStatus>(it->get<int>());
    else if (auto s = it->is_string() ? parse_task_status(it->get<std::string>()) : std::nullopt)
      t.status = *s;
    else
      wrong_type("status", "1 to 4 or active, success, failed or bad");
  }
  if (auto it = j.find("schedule"); it != j.end()) t.schedule = TaskSchedule::from_json(*it);
  read_object(j, "fetch", t.fetch.edit());
  read_object(j, "process", t.process.edit());
  json track;
  read_object(j, "track", track);
  t.track = JsonText(track);
  read(j, "lastcrawltime", t.lastcrawltime);
  read(j, "updatetime", t.updatetime);
  return t;
}

std::string default_taskid(std::string_view url) {
  std::array<uint8_t, 16> digest = detail::md5(url);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(digest.size() * 2, '0');
  for (size_t i = 0; i < digest.size(); ++i) {
    hex[2 * i] = kHex[digest[i] >> 4];
    hex[2 * i + 1] = kHex[digest[i] & 15];
  }
  return hex;
}

}  // namespace squall
