// Processor: a callback per task, its output collected into a status pack.
#include "squall/engine/processor.h"

#include <chrono>
#include <stdexcept>

#include "squall/core/error.h"

namespace squall {

using nlohmann::json;

namespace {

constexpr size_t kMaxLogBytes = 10000;

std::string joined_logs(const std::vector<std::string>& logs) {
  std::string out;
  for (const std::string& line : logs) {
    if (out.size() + line.size() + 1 > kMaxLogBytes) break;
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

CrawlTask Processor::start_task(const std::string& project) {
  CrawlTask t = CrawlTask::for_url(project, "data:,on_start");
  t.taskid = "on_start";
  t.process["callback"] = "on_start";
  t.schedule.force_update = true;
  t.schedule.priority = 9;
  return t;
}

CrawlTask Processor::finish_task(const std::string& project) {
  CrawlTask t = CrawlTask::for_url(project, "data:,on_finished");
  t.taskid = "on_finished";
  t.process["callback"] = "on_finished";
  t.schedule.force_update = true;
  return t;
}

CrawlTask Processor::message_task(const std::string& from, const std::string& to,
                                  const json& message) {
  CrawlTask t = CrawlTask::for_url(to, "data:,on_message");
  t.taskid = default_taskid("on_message " + from + " " + message.dump());
  t.process["callback"] = "_on_message";
  t.fetch["save"] = {{"from", from}, {"message", message}};
  return t;
}

void Processor::run_cron_jobs(const json& save) {
  if (!save.is_object() || !save.contains("tick") || !save["tick"].is_number_integer()) return;
  int64_t tick = save["tick"].get<int64_t>();
  // pyspider's own ticks come one second apart and carry no last_tick.
  int64_t last = save.value("last_tick", tick - 1);
  std::string failures;
  for (const CronJob& job : handler_.cron_jobs()) {
    if (!cron_due(job.every, last, tick)) continue;
    try {
      job.run();
    } catch (const std::exception& e) {
      if (!failures.empty()) failures += "; ";
      failures += job.name + ": " + e.what();
    }
  }
  if (!failures.empty()) throw std::runtime_error(failures);
}

CrawlTask Processor::cron_task(const std::string& project, int64_t tick, int64_t last_tick) {
  CrawlTask t = CrawlTask::for_url(project, "data:,_on_cronjob");
  t.taskid = "_on_cronjob";
  t.process["callback"] = "_on_cronjob";
  t.fetch["save"] = {{"tick", tick}, {"last_tick", last_tick}};
  return t;
}

Task<ProcessOutput> Processor::process(const Dispatch& d, FetchResult fetched) {
  co_return run(d, std::move(fetched));
}

ProcessOutput Processor::run(const Dispatch& d, FetchResult fetched) {
  auto started = std::chrono::steady_clock::now();
  ProcessOutput out;
  json fetch_track = fetched.track();
  bool unchanged = fetched.unchanged;
  Response response(std::move(fetched), d.task);
  const std::string name = d.task.callback();
  CallbackOptions options;
  bool ok = true;
  std::string exception;
  std::optional<json> result;
  Handler::Output produced;
  try {
    handler_.collect(
        &d.task, &response.url,
        [&] {
          if (name == "on_start") {
            handler_.on_start();
          } else if (name == "_on_message") {
            handler_.on_message(response.save.value("from", ""),
                                response.save.value("message", json()));
          } else if (name == "_on_cronjob") {
            run_cron_jobs(response.save);
          } else if (name == "on_finished") {
            handler_.on_finished();
          } else {
            const Handler::Callback* cb = handler_.find_callback(name, &options);
            if (!cb)
              throw Error(ErrorKind::InvalidState, "project " + handler_.project() +
                                                       " has no callback named '" + name + "'");
            if (unchanged) return;
            if (!options.catch_status_code_error) response.raise_for_status();
            result = (*cb)(response);
          }
        },
        produced);
  } catch (const std::exception& e) {
    ok = false;
    exception = e.what();
  }
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (ok && elapsed > options.time_limit) {
    ok = false;
    exception = "callback '" + name + "' took " + std::to_string(elapsed) +
                " s, over its time limit of " + std::to_string(options.time_limit) + " s";
    result.reset();
  }

  for (CrawlTask& f : produced.follows) out.follows.push_back(std::move(f));
  for (auto& [to, message] : produced.messages)
    out.follows.push_back(message_task(handler_.project(), to, message));
  if (ok && result && !result->is_null())
    out.result = TaskResult{d.task.taskid, d.task.url, std::move(*result), 0};

  // Built key by key and moved into place: initializer lists of json copy each value.
  json track = json::object();
  json& process = track["process"];
  process["ok"] = ok;
  process["time"] = elapsed;
  process["follows"] = produced.follows.size();
  process["messages"] = produced.messages.size();
  process["logs"] = joined_logs(produced.logs);
  process["exception"] = exception.empty() ? json() : json(exception);
  // The start of the body is kept for a task that failed, to see why; a success keeps none.
  if (!ok) fetch_track["content"] = response.content.substr(0, 1000);
  track["fetch"] = std::move(fetch_track);
  out.status = StatusPack::of(d, ok, std::move(track));
  return out;
}

}  // namespace squall
