// EngineMetrics: fetch observations kept as they come; the engine's state read when asked.
#include "squall/control/engine_metrics.h"

#include <algorithm>
#include <chrono>

#include "squall/core/seconds.h"
#include "squall/engine/engine.h"
#include "squall/url/url.h"

namespace squall {

using nlohmann::json;

namespace {

std::string status_class(const FetchResult& r) {
  if (r.status_code >= 599 || r.status_code < 100) return "failed";
  return std::to_string(r.status_code / 100) + "xx";
}

bool is_error(const FetchResult& r) {
  return !r.error.empty() || r.status_code >= 400;
}

}  // namespace

EngineMetrics::EngineMetrics(Engine& engine)
    : engine_(engine), self_(std::make_shared<EngineMetrics*>(this)) {
  engine_.observe_fetches([self = self_](const CrawlTask& task, const FetchResult& result) {
    if (*self) (*self)->fetched(task, result);
  });
}

EngineMetrics::~EngineMetrics() {
  stop();
  *self_ = nullptr;
}

void EngineMetrics::start() {
  if (running_) return;
  running_ = true;
  lag_due_ = Loop::time() + kLagPeriod;
  lag_timer_ = Loop::current().call_at(lag_due_, [this] { probe(); });
}

void EngineMetrics::stop() noexcept {
  running_ = false;
  lag_timer_.cancel();
}

void EngineMetrics::probe() {
  TimePoint now = Loop::time();
  double lag = std::max(0.0, to_seconds(now - lag_due_));
  lag_.observe(lag);
  lag_last_ = lag;
  lag_max_ = std::max(lag_max_, lag);
  if (!running_) return;
  lag_due_ = now + kLagPeriod;
  lag_timer_ = Loop::current().call_at(lag_due_, [this] { probe(); });
}

void EngineMetrics::fetched(const CrawlTask& task, const FetchResult& r) {
  // The engine's own tasks (on_start, on_finished, cron ticks) are data: URLs, not pages.
  if (task.url.starts_with("data:")) return;
  ++pages_;
  Project& p = projects_[task.project];
  ++p.pages[status_class(r)];
  p.bytes += r.content.size();
  p.latency.observe(r.time);
  std::string host = "other";
  if (UrlResult u = Url::parse(task.url); u && u->is_http()) host = u->host_port();
  if (!hosts_.contains(host) && hosts_.size() >= kMaxHosts) host = "other";
  Host& h = hosts_[host];
  ++h.fetches;
  h.total_ms += r.time * 1000;
  h.last_status = r.status_code;
  if (is_error(r)) {
    ++h.errors;
    h.last_error = r.error.empty() ? "HTTP " + std::to_string(r.status_code) : r.error;
    errors_.push_front(ErrorEntry{engine_.scheduler() ? engine_.scheduler()->now() : 0,
                                  task.project, task.taskid, task.url, h.last_error,
                                  r.status_code});
    if (errors_.size() > kRecentErrors) errors_.pop_back();
  }
}

json EngineMetrics::hosts() const {
  json out = json::array();
  const FetchStage* stage = engine_.fetch_stage();
  for (const auto& [name, h] : hosts_) {
    json row = {{"host", name},
                {"fetches", h.fetches},
                {"errors", h.errors},
                {"mean_ms", h.fetches ? h.total_ms / static_cast<double>(h.fetches) : 0.0},
                {"last_status", h.last_status},
                {"last_error", h.last_error},
                {"in_flight", 0},
                {"queued", 0},
                {"delay", 0.0},
                {"robots", "unknown"}};
    if (std::optional<FetchStage::HostState> now = stage ? stage->host(name) : std::nullopt) {
      row["in_flight"] = now->in_flight;
      row["queued"] = now->queued;
      row["delay"] = now->delay;
      row["robots"] = now->robots;
    }
    out.push_back(std::move(row));
  }
  return out;
}

json EngineMetrics::recent_errors() const {
  json out = json::array();
  for (const ErrorEntry& e : errors_)
    out.push_back({{"time", e.time},
                   {"project", e.project},
                   {"taskid", e.taskid},
                   {"url", e.url},
                   {"status_code", e.status},
                   {"error", e.error}});
  return out;
}

std::string EngineMetrics::prometheus() const {
  PrometheusText out;
  out.family("squall_pages_fetched_total", "counter",
             "Pages fetched, by project and status class (failed: no HTTP status came)");
  for (const auto& [project, p] : projects_)
    for (const auto& [cls, n] : p.pages)
      out.sample("squall_pages_fetched_total", {{"project", project}, {"class", cls}},
                 static_cast<double>(n));
  out.family("squall_fetched_bytes_total", "counter", "Body bytes fetched, by project");
  for (const auto& [project, p] : projects_)
    out.sample("squall_fetched_bytes_total", {{"project", project}}, static_cast<double>(p.bytes));
  out.family("squall_fetch_duration_seconds", "histogram", "Time per fetch, by project");
  for (const auto& [project, p] : projects_)
    out.histogram("squall_fetch_duration_seconds", {{"project", project}}, p.latency);

  Scheduler* scheduler = engine_.scheduler();
  std::vector<std::string> names = engine_.projects();
  out.family("squall_tasks", "gauge",
             "Tasks in the store by project and state, from the scheduler's counters");
  if (scheduler)
    for (const std::string& project : names)
      if (const TaskCounters* c = scheduler->project_counters(project)) {
        const CounterValues& all = c->totals();
        out.sample("squall_tasks", {{"project", project}, {"state", "pending"}},
                   static_cast<double>(all[static_cast<size_t>(CounterKind::Pending)]));
        out.sample("squall_tasks", {{"project", project}, {"state", "success"}},
                   static_cast<double>(all[static_cast<size_t>(CounterKind::Success)]));
        out.sample("squall_tasks", {{"project", project}, {"state", "failed"}},
                   static_cast<double>(all[static_cast<size_t>(CounterKind::Failed)]));
      }
  out.family("squall_queue_depth", "gauge",
             "Tasks in each queue between the components: the scheduler's (by project and "
             "order: ready, delayed, in_work), the fetcher's (queued, fetching) and the "
             "processor's (processing)");
  if (scheduler)
    for (const std::string& project : names) {
      Scheduler::Held held = scheduler->held(project);
      out.sample("squall_queue_depth", {{"queue", "ready"}, {"project", project}},
                 static_cast<double>(held.ready));
      out.sample("squall_queue_depth", {{"queue", "delayed"}, {"project", project}},
                 static_cast<double>(held.delayed));
      out.sample("squall_queue_depth", {{"queue", "in_work"}, {"project", project}},
                 static_cast<double>(held.in_work));
    }
  const FetchStage* stage = engine_.fetch_stage();
  out.sample("squall_queue_depth", {{"queue", "queued"}},
             stage ? static_cast<double>(stage->queued()) : 0.0);
  out.sample("squall_queue_depth", {{"queue", "fetching"}},
             stage ? static_cast<double>(stage->in_flight()) : 0.0);
  out.sample("squall_queue_depth", {{"queue", "processing"}},
             static_cast<double>(engine_.processing_queued()));
  out.family("squall_robots_txt_cache_hits_total", "counter",
             "Pages decided by a robots.txt already held");
  out.sample("squall_robots_txt_cache_hits_total", {},
             stage ? static_cast<double>(stage->robots_hits()) : 0.0);
  out.family("squall_robots_txt_fetches_total", "counter",
             "robots.txt fetches (the cache's misses and refreshes, each try)");
  out.sample("squall_robots_txt_fetches_total", {},
             stage ? static_cast<double>(stage->robots_fetches()) : 0.0);
  out.family("squall_event_loop_lag_seconds", "histogram",
             "How late a timer set every 250 ms fires on the engine's loop");
  out.histogram("squall_event_loop_lag_seconds", {}, lag_);
  return out.text();
}

}  // namespace squall
