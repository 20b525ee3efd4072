// `squall run`: a project script's runtime, the engine, a progress line, signals, the summary.
#include "squall/cli/run_command.h"

#include <signal.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <ostream>
#include <utility>

#include "squall/browser/browser_pool.h"
#include "squall/browser/chromium.h"
#include "squall/cli/signal_watch.h"
#include "squall/control/control_server.h"
#include "squall/control/debug_step.h"
#include "squall/core.h"
#include "squall/core/event.h"
#include "squall/core/seconds.h"
#include "squall/engine/cluster_node.h"
#include "squall/engine/engine.h"
#include "squall/script/python_runtime.h"

namespace squall::cli {

using nlohmann::json;

namespace {

enum Status : int { kDone = 0, kCouldNotRun = 1, kUsage = 2, kTimedOut = 3 };

std::string_view signal_name(int signal) {
  return signal == SIGINT ? "Ctrl-C" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

// `work` until it ends; after `timeout` seconds `stop` is called (and `timed_out` set), and
// `work` still runs to its end.
template <class T>
Task<T> within(Task<T> work, std::optional<double> timeout, bool& timed_out,
               std::function<void()> stop) {
  std::optional<TaskHandle<void>> timer;
  if (timeout)
    timer.emplace(spawn([](double limit, bool& flag, std::function<void()> stop) -> Task<void> {
      co_await sleep(from_seconds(limit));
      flag = true;
      stop();
    }(*timeout, timed_out, std::move(stop))));
  std::exception_ptr failure;
  std::optional<T> value;
  try {
    value.emplace(co_await std::move(work));
  } catch (...) {
    failure = std::current_exception();
  }
  if (timer) {
    timer->kill();
    co_await timer->join();
  }
  if (failure) std::rethrow_exception(failure);
  co_return std::move(*value);
}

// The project's tasks by state, as a scheduler counts them (zeros without one).
CounterValues counts_of(const Scheduler* s, const std::string& project) {
  const TaskCounters* counters = s ? s->project_counters(project) : nullptr;
  return counters ? counters->totals() : CounterValues{};
}

// On a terminal, the project's counts and what is in flight, redrawn ten times a second until
// stop(), which clears the line.
class ProgressLine {
 public:
  using Read = std::function<std::pair<CounterValues, size_t>()>;  // counts, in flight

  ProgressLine(std::ostream& err, bool shown, std::string project, Read read)
      : err_(err),
        project_(std::move(project)),
        read_(std::move(read)),
        started_(std::chrono::steady_clock::now()),
        timer_([this] { draw(); }, std::chrono::milliseconds(100)) {
    if (shown) timer_.start();
  }

  void stop() {
    timer_.stop();
    if (drawn_) err_ << "\r\033[K";
    drawn_ = false;
  }

 private:
  void draw() {
    auto [all, in_flight] = read_();
    double secs = to_seconds(std::chrono::steady_clock::now() - started_);
    char line[200];
    std::snprintf(line, sizeof line,
                  "\r\033[K%s  active %lld  success %lld  failed %lld  in flight %zu  %.0fs",
                  project_.c_str(), static_cast<long long>(all[0]), static_cast<long long>(all[1]),
                  static_cast<long long>(all[3]), in_flight, secs);
    err_ << line << std::flush;
    drawn_ = true;
  }

  std::ostream& err_;
  std::string project_;
  Read read_;
  std::chrono::steady_clock::time_point started_;
  bool drawn_ = false;
  PeriodicCallback timer_;
};

// The summary's first line: how the run ended, after how long, having processed how many tasks.
void print_ending(double seconds, uint64_t processed, int signal, bool timed_out,
                  std::ostream& err) {
  long long secs = std::llround(seconds);
  if (signal)
    err << "Stopped after " << secs << " seconds (" << signal_name(signal) << ")";
  else if (timed_out)
    err << "Timed out after " << secs << " seconds (--timeout)";
  else
    err << "Done in " << secs << " seconds";
  err << ", processed " << processed << " tasks.\n";
}

// The summary's last lines: the project's tasks in the store, and how to resume a cut run.
void print_store(const CounterValues& totals, uint64_t parked, bool cut, std::ostream& err) {
  auto count = [&](CounterKind k) { return totals[static_cast<size_t>(k)]; };
  err << "  in the store: " << count(CounterKind::Success) << " success, "
      << count(CounterKind::Failed) << " failed or bad, " << count(CounterKind::Pending)
      << " active\n";
  if (parked > 0)
    err << "  " << parked << " tasks of unavailable hosts stay active for the next run\n";
  if (count(CounterKind::Pending) > 0 && cut) err << "  run the same command again to resume\n";
}

void print_summary(const EngineSummary& s, const CounterValues& totals, int signal, bool timed_out,
                   std::ostream& err) {
  print_ending(s.seconds, s.dispatched, signal, timed_out, err);
  err << "  ok: " << s.succeeded << ", failed: " << s.failed << ", results: " << s.results
      << ", new tasks: " << s.follows;
  if (s.seconds > 0)
    err << ", " << std::llround(static_cast<double>(s.dispatched) / s.seconds) << " tasks/s";
  err << "\n";
  print_store(totals, s.parked, signal || timed_out, err);
}

// --debug: one fetch and one callback (control/debug_step.h), printed; no store.
Task<int> debug_step(PythonRuntime& runtime, const RunCommand& c, std::ostream& out) {
  bool start = c.debug_url == "on_start";
  CrawlTask task = debug_task(
      runtime,
      {.url = c.debug_url, .callback = c.callback.empty() && !start ? "index_page" : c.callback});
  FetcherOptions fo;
  fo.user_agent = c.user_agent;
  fo.max_clients = 1;
  Fetcher fetcher(std::move(fo));
  DebugStep step = co_await run_debug_step(runtime, fetcher, std::move(task));
  json shown = step.to_json(0);
  auto text = [](const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); };
  const json& fetch = shown["fetch"];
  out << "fetch: " << fetch["status_code"].get<int>() << " " << fetch["url"].get<std::string>();
  if (fetch["error"].is_string()) out << " (" << fetch["error"].get<std::string>() << ")";
  out << "\ncallback: " << step.task.callback() << " " << (step.ok() ? "ok" : "failed") << "\n";
  out << "follows:\n";
  for (const json& f : shown["follows"])
    out << "  " << f["url"].get<std::string>() << "  -> " << f["callback"].get<std::string>()
        << "\n";
  if (!shown["messages"].empty()) {
    out << "messages:\n";
    for (const json& m : shown["messages"])
      out << "  to " << m["project"].get<std::string>() << ": " << text(m["message"]) << "\n";
  }
  out << "result: " << (shown["result"].is_null() ? std::string("none") : text(shown["result"]))
      << "\n";
  std::string logs = shown["logs"].get<std::string>();
  if (!logs.empty()) out << "logs:\n" << logs << (logs.back() == '\n' ? "" : "\n");
  if (shown["exception"].is_string())
    out << "exception:\n" << shown["exception"].get<std::string>() << "\n";
  co_return step.ok() ? kDone : kCouldNotRun;
}

// --redis: the four components on this loop (cluster_node.h), with the run's progress line,
// signals, time limit and summary.
int run_on_redis(const RunCommand& c, PythonRuntime& runtime, Loop& loop, std::ostream& err,
                 bool err_is_tty) {
  const std::string& project = runtime.project();
  ClusterOptions o;
  o.redis = c.redis;
  o.ns = c.ns;
  o.taskdb = c.db.empty() ? project + ".db" : c.db;
  o.resultdb = c.resultdb;
  o.jsonl = c.results;
  o.concurrency = c.concurrency;
  o.fetcher.user_agent = c.user_agent;
  o.hosts.per_host = c.per_host;
  o.hosts.delay = c.delay;
  o.hosts.obey_robots = !c.ignore_robots;
  o.lease = from_seconds(c.lease);
  o.scheduler.processing_timeout = processing_timeout_for(o.lease);
  std::unique_ptr<browser::BrowserPool> browsers;
  if (!browser::find_chromium().empty()) {
    browser::BrowserPoolOptions b;
    b.browsers = std::max<size_t>(1, std::min(c.browsers, c.concurrency));
    browsers = std::make_unique<browser::BrowserPool>(std::move(b));
    o.fetcher.browser = browsers.get();
  }
  // The scheduler while it runs, and its counts as it ended.
  const Scheduler* live = nullptr;
  CounterValues totals{};
  o.on_scheduler = [&](const Scheduler* s) {
    if (!s) totals = counts_of(live, project);
    live = s;
  };

  Event stop;
  int signal_seen = 0;
  bool timed_out = false;
  SignalWatch signals(loop, [&](int sig) {
    if (signal_seen) {
      err << "\nsquall run: stopped\n";
      std::_Exit(128 + sig);
    }
    signal_seen = sig;
    stop.set();
  });

  // Once the scheduler ended, its last counts while the others leave.
  ProgressLine progress(err, err_is_tty && !c.quiet, project, [&] {
    return std::pair(live ? counts_of(live, project) : totals,
                     live ? live->held(project).in_work : 0);
  });
  ClusterNodeSummary s;
  try {
    std::vector<ProjectRuntime*> projects(1, &runtime);
    s = run_sync(within(run_cluster_node(std::move(o), std::move(projects), stop), c.timeout,
                        timed_out, [&stop] { stop.set(); }));
  } catch (const std::exception& e) {
    progress.stop();
    err << "squall run: " << e.what() << "\n";
    return dynamic_cast<const InvalidArgumentError*>(&e) ? kUsage : kCouldNotRun;
  }
  progress.stop();
  if (!c.quiet) {
    print_ending(s.seconds, s.scheduler.handled, signal_seen, timed_out, err);
    err << "  in this process: fetched " << s.fetcher.handled << ", processed "
        << s.processor.handled << ", results stored " << s.result_worker.handled;
    if (s.seconds > 0)
      err << ", " << std::llround(static_cast<double>(s.scheduler.handled) / s.seconds)
          << " tasks/s";
    err << "\n";
    print_store(totals, 0, signal_seen || timed_out, err);
  }
  if (signal_seen) return 128 + signal_seen;
  return timed_out ? kTimedOut : kDone;
}

}  // namespace

int run_project(const RunCommand& c, std::ostream& out, std::ostream& err, bool err_is_tty) {
  if (c.concurrency == 0 || c.per_host == 0) {
    err << "squall run: --concurrency and --per-host must be at least 1\n";
    return kUsage;
  }
  if (c.timeout && !(*c.timeout > 0 && *c.timeout < 1e9)) {
    err << "squall run: --timeout must be a positive number of seconds\n";
    return kUsage;
  }
  if (c.debug && c.port) {
    err << "squall run: --debug prints one step and exits; to step a project in the dashboard, "
           "serve it with --port and no --debug (its debugger pane, POST /api/debug)\n";
    return kUsage;
  }
  if (!c.redis.empty() && c.port) {
    err << "squall run: --port serves the embedded engine; with --redis, `squall status --redis "
        << c.redis << "` shows the components\n";
    return kUsage;
  }
  if (!(c.delay >= 0 && c.delay < 1e9) || !(c.lease >= 0.01 && c.lease < 1e6)) {
    err << "squall run: --delay must be 0 or more seconds, --lease 0.01 s or more\n";
    return kUsage;
  }
  if (c.debug && c.debug_url.empty()) {
    err << "squall run: --debug needs a URL to fetch (or on_start)\n";
    return kUsage;
  }
  // The loop first: the runtime hands its answers to it, so it must be gone before the loop.
  Loop loop;
  std::unique_ptr<PythonRuntime> runtime;
  try {
    runtime = PythonRuntime::load({.script = c.script, .debugger = c.debug});
  } catch (const Error& e) {
    err << "squall run: " << e.what() << (std::string_view(e.what()).ends_with("\n") ? "" : "\n");
    return kUsage;
  }
  if (c.debug) {
    try {
      return run_sync(debug_step(*runtime, c, out));
    } catch (const InvalidArgumentError& e) {
      err << "squall run: " << e.what() << "\n";
      return kUsage;
    } catch (const std::exception& e) {
      err << "squall run: " << e.what() << "\n";
      return kCouldNotRun;
    }
  }

  if (!c.redis.empty()) return run_on_redis(c, *runtime, loop, err, err_is_tty);

  const std::string& project = runtime->project();
  EngineOptions o;
  o.store = c.db.empty() ? project + ".db" : c.db;
  o.result_store = c.resultdb;
  o.store_label = "project store";
  o.jsonl = c.results;
  o.concurrency = c.concurrency;
  o.fetcher.user_agent = c.user_agent;
  o.hosts.per_host = c.per_host;
  o.hosts.delay = c.delay;
  o.hosts.obey_robots = !c.ignore_robots;
  // A project with @every jobs runs until stopped, as pyspider's does.
  o.exit_when_done = runtime->cron_jobs().empty();
  // The project's js tasks render in headless Chromium, when there is one (else they fail,
  // saying what to install); browsers start when the first such task comes.
  std::unique_ptr<browser::BrowserPool> browsers;
  if (!browser::find_chromium().empty()) {
    browser::BrowserPoolOptions b;
    b.browsers = std::max<size_t>(1, std::min(c.browsers, c.concurrency));
    browsers = std::make_unique<browser::BrowserPool>(std::move(b));
    o.fetcher.browser = browsers.get();
  }
  Engine engine(std::move(o));
  engine.add_project(*runtime);
  std::optional<ControlServer> control;
  if (c.port) {
    try {
      control.emplace(engine, ControlOptions{.port = *c.port,
                                             .bind = c.bind,
                                             .auth = c.auth,
                                             .debug = {{runtime.get(), runtime->callbacks()}}});
    } catch (const Error& e) {
      err << "squall run: " << e.what() << "\n";
      return kUsage;
    }
    control->start();
    err << "Dashboard: " << control->url() << "\n" << std::flush;
  }
  Event leave;  // Ctrl-C while serving after the run
  bool run_ended = false;

  int signal_seen = 0;
  SignalWatch signals(loop, [&](int sig) {
    if (run_ended) {
      leave.set();  // the run is over: only the serving ends
      return;
    }
    if (signal_seen) {
      err << "\nsquall run: stopped\n";
      std::_Exit(128 + sig);
    }
    signal_seen = sig;
    engine.stop();
  });

  ProgressLine progress(err, err_is_tty && !c.quiet, project, [&] {
    return std::pair(counts_of(engine.scheduler(), project), engine.in_flight());
  });
  EngineSummary summary;
  bool timed_out = false;
  try {
    summary = run_sync(within(engine.run(), c.timeout, timed_out, [&engine] { engine.stop(); }));
  } catch (const std::exception& e) {
    progress.stop();
    err << "squall run: " << e.what() << "\n";
    return dynamic_cast<const InvalidArgumentError*>(&e) ? kUsage : kCouldNotRun;
  }
  progress.stop();
  if (!c.quiet)
    print_summary(summary, counts_of(engine.scheduler(), project), signal_seen, timed_out, err);
  if (control) {
    // The results stay browsable until Ctrl-C; the exit status is the run's.
    run_ended = true;
    run_sync([](ControlServer& server, Event& leave, bool wait, std::ostream& err) -> Task<void> {
      if (wait) {
        err << "Serving " << server.url() << " until Ctrl-C\n" << std::flush;
        co_await leave.wait();
      }
      co_await server.stop();
    }(*control, leave, !c.exit_when_done && !signal_seen, err));
  }
  if (signal_seen) return 128 + signal_seen;
  return timed_out ? kTimedOut : kDone;
}

}  // namespace squall::cli
