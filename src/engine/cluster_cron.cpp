// The split engine's @every jobs: ticks kept in the task store, fired by the claim's holder.
#include "cluster_cron.h"

#include <cmath>
#include <string_view>
#include <utility>

#include "squall/engine/cron.h"
#include "squall/engine/processor.h"

namespace squall::detail {

namespace {

// Where a tick's dispatch tokens start: the Scheduler counts its own up from 1, and would need
// 2^63 dispatches to meet these.
constexpr uint64_t kTickTokens = uint64_t{1} << 63;

constexpr std::string_view kCronTaskid = "_on_cronjob";

int64_t whole_seconds(double t) {
  return static_cast<int64_t>(std::floor(t));
}

// The tick the project's task records, if it records one.
std::optional<int64_t> recorded_tick(const CrawlTask& task) {
  const nlohmann::json* save = nullptr;
  if (task.fetch.is_object())
    if (auto it = task.fetch.find("save"); it != task.fetch.end() && it->is_object()) save = &*it;
  if (!save) return std::nullopt;
  auto tick = save->find("tick");
  if (tick == save->end() || !tick->is_number_integer()) return std::nullopt;
  return tick->get<int64_t>();
}

}  // namespace

ClusterCron::ClusterCron(Scheduler& scheduler, TaskStore& store,
                         const std::vector<ProjectRuntime*>& projects, double outcome_timeout)
    : scheduler_(scheduler), store_(store), outcome_timeout_(outcome_timeout) {
  for (ProjectRuntime* runtime : projects)
    if (!runtime->cron_jobs().empty()) projects_.push_back(Project{runtime});
}

Task<void> ClusterCron::load() {
  const int64_t now = whole_seconds(scheduler_.now());
  for (Project& p : projects_) {
    std::optional<CrawlTask> task =
        co_await store_.get(p.runtime->project(), std::string(kCronTaskid));
    p.stored = task.has_value();
    std::optional<int64_t> tick = task ? recorded_tick(*task) : std::nullopt;
    p.last = tick ? *tick : now;
  }
}

std::optional<double> ClusterCron::next_tick() const {
  std::optional<int64_t> next;
  for (const Project& p : projects_)
    if (std::optional<int64_t> at = next_cron_tick(p.runtime->cron_jobs(), p.last))
      next = next ? std::min(*next, *at) : *at;
  if (!next) return std::nullopt;
  return static_cast<double>(*next);
}

Task<std::vector<Dispatch>> ClusterCron::fire() {
  std::vector<Dispatch> due;
  const double now = scheduler_.now();
  const int64_t tick = whole_seconds(now);
  std::vector<std::pair<Project*, int64_t>> fired;
  for (Project& p : projects_) {
    const std::string& name = p.runtime->project();
    const ProjectInfo* info = scheduler_.project(name);
    if (!info || !info->active()) continue;
    std::optional<int64_t> next = next_cron_tick(p.runtime->cron_jobs(), p.last);
    if (!next || *next > tick) continue;
    CrawlTask record = Processor::cron_task(name, tick, p.last);
    record.status = TaskStatus::Success;
    record.updatetime = now;
    record.lastcrawltime = now;
    if (p.stored) {
      co_await store_.put(record, 0);
    } else {
      std::vector<CrawlTask> first;
      first.push_back(std::move(record));
      co_await scheduler_.request(std::move(first));
    }
    Dispatch d{Processor::cron_task(name, tick, p.last), kTickTokens + ++fired_};
    d.task.taskid.push_back('@');
    d.task.taskid.append(std::to_string(tick));
    due.push_back(std::move(d));
    fired.emplace_back(&p, tick);
  }
  if (due.empty()) co_return due;
  co_await scheduler_.commit();
  // Only once committed: a commit that failed leaves the ticks to fire again from the store.
  for (auto& [p, at] : fired) {
    p->last = at;
    p->stored = true;
  }
  for (const Dispatch& d : due) in_flight_[d.token] = now;
  co_return due;
}

bool ClusterCron::settle(const StatusPack& status) {
  if (!status.taskid.starts_with(kCronTaskid)) return false;
  in_flight_.erase(status.token);
  return true;
}

bool ClusterCron::in_flight() {
  const double now = scheduler_.now();
  std::erase_if(in_flight_, [&](const auto& tick) { return now - tick.second > outcome_timeout_; });
  return !in_flight_.empty();
}

}  // namespace squall::detail
