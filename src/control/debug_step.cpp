// DebugStep: the step's task, its run, and what it shows.
#include "squall/control/debug_step.h"

#include "squall/core/error.h"
#include "squall/url/url.h"

namespace squall {

using nlohmann::json;

namespace {

// The longest prefix of `text` of at most `limit` bytes that does not end inside a UTF-8
// character (a body that is not UTF-8 is cut at the limit).
size_t character_cut(std::string_view text, size_t limit) {
  if (text.size() <= limit) return text.size();
  size_t cut = limit;
  for (size_t back = 0; back < 4 && cut > 0; ++back, --cut)
    if ((static_cast<unsigned char>(text[cut]) & 0xC0) != 0x80) return cut;
  return limit;
}

json fetch_json(const FetchResult& f, const std::string& task_url) {
  json headers = json::object();
  for (const auto& [name, value] : f.headers) headers[std::string(name)] = value;
  return {{"status_code", f.status_code},
          {"url", f.url.empty() ? task_url : f.url},
          {"orig_url", f.orig_url},
          {"time", f.time},
          {"error", f.error.empty() ? json() : json(f.error)},
          {"error_kind", f.error_kind.empty() ? json() : json(f.error_kind)},
          {"redirects", f.redirects},
          {"headers", std::move(headers)}};
}

}  // namespace

CrawlTask debug_task(const ProjectRuntime& runtime, const DebugRequest& request) {
  bool start = request.url == "on_start" || (request.url.empty() && request.callback == "on_start");
  if (start) {
    if (!request.callback.empty() && request.callback != "on_start")
      throw InvalidArgumentError("on_start runs the on_start callback, not " + request.callback);
    return runtime.start_task();
  }
  if (request.url.empty())
    throw InvalidArgumentError("a debug step needs a URL to fetch (or on_start)");
  UrlResult url = Url::parse(request.url);
  if (!url || !(url->is_http() || url->scheme() == "data"))
    throw InvalidArgumentError("'" + request.url + "' is not an http, https or data URL");
  CrawlTask task = CrawlTask::for_url(runtime.project(), request.url);
  task.process["callback"] = request.callback;
  if (request.fetch.is_object()) task.fetch = request.fetch;
  return task;
}

Task<DebugStep> run_debug_step(ProjectRuntime& runtime, Fetcher& fetcher, CrawlTask task) {
  DebugStep step;
  step.task = std::move(task);
  step.fetched = co_await fetcher.fetch(step.task);
  // process() takes the fetch result; the step keeps its own copy to show the page.
  Dispatch dispatch{step.task, 0};
  step.output = co_await runtime.process(dispatch, step.fetched);
  co_return step;
}

json DebugStep::to_json(size_t html_limit) const {
  const json track = output.status.track.read();
  auto found = track.find("process");
  const json process = found != track.end() && found->is_object() ? *found : json::object();
  json follows = json::array();
  json messages = json::array();
  for (const CrawlTask& f : output.follows) {
    if (f.callback() == "_on_message") {
      const json& save = f.fetch.contains("save") ? f.fetch["save"] : json();
      messages.push_back({{"project", f.project},
                          {"message", save.is_object() ? save.value("message", json()) : json()}});
      continue;
    }
    // A follow as the scheduler would take it; its status, track and times are not yet.
    follows.push_back({{"url", f.url},
                       {"taskid", f.taskid},
                       {"project", f.project},
                       {"callback", f.callback()},
                       {"schedule", f.schedule.to_json()},
                       {"fetch", f.fetch},
                       {"process", f.process}});
  }
  size_t cut = character_cut(fetched.content, html_limit);
  return {{"fetch", fetch_json(fetched, task.url)},
          {"callback", task.callback()},
          {"ok", ok()},
          {"follows", std::move(follows)},
          {"messages", std::move(messages)},
          {"result", output.result ? output.result->result : json()},
          {"logs", process.value("logs", std::string())},
          {"exception", process.value("exception", json())},
          {"process_time", process.value("time", 0.0)},
          {"html", fetched.content.substr(0, cut)},
          {"html_length", fetched.content.size()},
          {"html_truncated", cut < fetched.content.size()}};
}

}  // namespace squall
