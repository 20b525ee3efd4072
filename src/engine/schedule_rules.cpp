// pyspider's scheduling rules (scheduler.py's on_request, on_task_done, on_task_failed).
#include "squall/engine/schedule_rules.h"

#include <algorithm>
#include <charconv>
#include <string>

#include <nlohmann/json.hpp>

#include "squall/core/error.h"

namespace squall {

RetryDelays::RetryDelays()
    : by_retried_{{0, 30}, {1, 60 * 60}, {2, 6 * 60 * 60}, {3, 12 * 60 * 60}},
      otherwise_(24 * 60 * 60) {}

double RetryDelays::after(int retried) const {
  auto it = by_retried_.find(retried);
  return it != by_retried_.end() ? it->second : otherwise_;
}

RetryDelays RetryDelays::from_json(const nlohmann::json& json) {
  if (!json.is_object())
    throw Error(ErrorKind::InvalidArgument, "retry_delay must be a dict of {retried: seconds}");
  std::map<int, double> by_retried;
  double otherwise = 24 * 60 * 60;
  for (const auto& [key, value] : json.items()) {
    if (!value.is_number() || value.get<double>() < 0)
      throw Error(ErrorKind::InvalidArgument,
                  "retry_delay[" + key + "] must be a number of seconds, not " + value.dump());
    if (key.empty()) {
      otherwise = value.get<double>();
      continue;
    }
    int count = 0;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), count);
    if (ec != std::errc() || end != key.data() + key.size() || count < 0)
      throw Error(ErrorKind::InvalidArgument,
                  "retry_delay key '" + key + "' must be a count of retries or \"\"");
    by_retried[count] = value.get<double>();
  }
  return RetryDelays(std::move(by_retried), otherwise);
}

RequestVerdict judge_request(const TaskSchedule& request, const std::optional<KnownTask>& known,
                             double now) {
  if (!known) return request.cancel ? RequestVerdict::Drop : RequestVerdict::Insert;
  if (known->status == TaskStatus::Active && !request.force_update) return RequestVerdict::Drop;
  if (request.force_update && known->in_work) return RequestVerdict::Postpone;
  bool restart = false;
  if (!request.itag.empty() && request.itag != known->schedule.itag)
    restart = true;
  else if (request.has_age() && known->lastcrawltime + request.age < now)
    restart = true;
  else if (request.force_update)
    restart = true;
  if (!restart) return RequestVerdict::Drop;
  return request.cancel ? RequestVerdict::Cancel : RequestVerdict::Restart;
}

OutcomeVerdict judge_success(const TaskSchedule& schedule, double now) {
  OutcomeVerdict v{.status = TaskStatus::Success, .schedule = schedule};
  v.schedule.retried = 0;
  if (schedule.auto_recrawl && schedule.has_age()) {
    v.status = TaskStatus::Active;
    v.schedule.exetime = now + schedule.age;
  }
  return v;
}

OutcomeVerdict judge_failure(const TaskSchedule& schedule, const RetryDelays& delays, double now) {
  OutcomeVerdict v{.status = TaskStatus::Active, .schedule = schedule};
  double delay = delays.after(schedule.retried);
  if (schedule.auto_recrawl && schedule.has_age()) {
    delay = std::min(delay, schedule.age);
  } else if (schedule.retried >= schedule.retries) {
    v.status = TaskStatus::Failed;
    return v;
  } else if (schedule.has_age()) {
    delay = std::min(delay, schedule.age);
  }
  v.retry = true;
  v.schedule.retried = schedule.retried + 1;
  v.schedule.exetime = now + delay;
  return v;
}

}  // namespace squall
