// DebugStep: pyspider's debugger step: one task fetched and run through one callback of a
// project, with nothing stored. `squall run --debug` prints it; POST /api/debug answers it.
//
//   CrawlTask task = debug_task(runtime, {.url = "http://127.0.0.1:8000/", .callback =
//   "index_page"}); DebugStep step = co_await run_debug_step(runtime, fetcher, std::move(task));
//   nlohmann::json shown = step.to_json();    // fetch, follows, result, logs, exception, html
//
// The step touches no scheduler, store, counter or metric: the task is fetched by `fetcher`
// (the engine's, or one of the caller's own) and handed to the runtime's process(), whose
// follows and result are only reported. For a PythonRuntime the callback runs on the
// interpreter's thread, so the caller's loop is free while it does; the step waits its turn
// behind the tasks the engine hands the same runtime.
// Threads: the loop the runtime and fetcher belong to.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "squall/core/task.h"
#include "squall/engine/crawl_task.h"
#include "squall/engine/fetcher.h"
#include "squall/engine/project_runtime.h"

namespace squall {

// What to step: a URL and the callback its response goes to, or the project's on_start.
struct DebugRequest {
  std::string url;       // "on_start" (or empty with callback "on_start"): the start task
  std::string callback;  // the callback of a URL's task
  // The task's fetch options (pyspider's task["fetch"]: method, headers, data, save, ...), as a
  // follow of an earlier step carries them; none by default.
  nlohmann::json fetch = nlohmann::json::object();
};

// The task a request asks for, in the runtime's project. Throws InvalidArgumentError when the
// request names no URL, or a callback for on_start other than on_start.
CrawlTask debug_task(const ProjectRuntime& runtime, const DebugRequest& request);

struct DebugStep {
  // The most of the page's body to_json() shows (the step keeps all of it).
  static constexpr size_t kHtmlLimit = size_t{256} << 10;

  CrawlTask task;
  FetchResult fetched;   // with its whole body
  ProcessOutput output;  // follows (send_message's messages among them), result, status pack

  bool ok() const { return output.status.ok; }
  // "fetch" (status_code, url, orig_url, time, error, error_kind, redirects, headers),
  // "callback", "ok", "follows" (url, taskid, project, callback, schedule, fetch, process),
  // "messages" ({"project", "message"}), "result" (null for none), "logs", "exception" (the
  // traceback, or null), "process_time", "html" (the body's first html_limit bytes, cut at a
  // character), "html_length" (the whole body's bytes) and "html_truncated".
  nlohmann::json to_json(size_t html_limit = kHtmlLimit) const;
};

// Fetches `task` with `fetcher` and runs its callback with `runtime`. A fetch that fails or a
// callback that raises is reported in the step, not thrown; CancelledError if the runtime
// stops meanwhile.
[[nodiscard]] Task<DebugStep> run_debug_step(ProjectRuntime& runtime, Fetcher& fetcher,
                                             CrawlTask task);

}  // namespace squall
