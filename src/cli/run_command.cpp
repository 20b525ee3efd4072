// `squall run`: a project script's runtime, the engine, a progress line, signals, the summary.
#include "squall/cli/run_command.h"

#include <signal.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "squall/browser/browser_pool.h"
#include "squall/browser/chromium.h"
#include "squall/cli/signal_watch.h"
#include "squall/control/control_server.h"
#include "squall/control/debug_step.h"
#include "squall/core.h"
#include "squall/core/event.h"
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

Duration seconds_of(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
}

struct Outcome {
  EngineSummary summary;
  CounterValues totals{};  // the project's tasks by state at the end
  bool timed_out = false;
};

Task<Outcome> run_engine(Engine& engine, const std::string& project,
                         std::optional<double> timeout) {
  Outcome outcome;
  std::optional<TaskHandle<void>> timer;
  if (timeout)
    timer.emplace(spawn([](Engine& e, double limit, bool& flag) -> Task<void> {
      co_await sleep(seconds_of(limit));
      flag = true;
      e.stop();
    }(engine, *timeout, outcome.timed_out)));
  std::exception_ptr failure;
  try {
    outcome.summary = co_await engine.run();
  } catch (...) {
    failure = std::current_exception();
  }
  if (timer) {
    timer->kill();
    co_await timer->join();
  }
  if (failure) std::rethrow_exception(failure);
  if (Scheduler* s = engine.scheduler())
    if (const TaskCounters* c = s->project_counters(project)) outcome.totals = c->totals();
  co_return outcome;
}

void print_summary(const Outcome& o, int signal, std::ostream& err) {
  const EngineSummary& s = o.summary;
  long long secs = std::llround(s.seconds);
  if (signal)
    err << "Stopped after " << secs << " seconds (" << signal_name(signal) << ")";
  else if (o.timed_out)
    err << "Timed out after " << secs << " seconds (--timeout)";
  else
    err << "Done in " << secs << " seconds";
  err << ", processed " << s.dispatched << " tasks.\n";
  err << "  ok: " << s.succeeded << ", failed: " << s.failed << ", results: " << s.results
      << ", new tasks: " << s.follows;
  if (s.seconds > 0)
    err << ", " << std::llround(static_cast<double>(s.dispatched) / s.seconds) << " tasks/s";
  err << "\n";
  auto count = [&](CounterKind k) { return o.totals[static_cast<size_t>(k)]; };
  err << "  in the store: " << count(CounterKind::Success) << " success, "
      << count(CounterKind::Failed) << " failed or bad, " << count(CounterKind::Pending)
      << " active\n";
  if (s.parked > 0)
    err << "  " << s.parked << " tasks of unavailable hosts stay active for the next run\n";
  if (count(CounterKind::Pending) > 0 && (signal || o.timed_out))
    err << "  run the same command again to resume\n";
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

// The node until it ends, or --timeout sets `stop` (and `timed_out`).
Task<ClusterNodeSummary> run_node(ClusterOptions o, PythonRuntime& runtime,
                                  std::optional<double> timeout, bool& timed_out, Event& stop) {
  std::optional<TaskHandle<void>> timer;
  if (timeout)
    timer.emplace(spawn([](double limit, bool& flag, Event& ev) -> Task<void> {
      co_await sleep(seconds_of(limit));
      flag = true;
      ev.set();
    }(*timeout, timed_out, stop)));
  std::exception_ptr failure;
  ClusterNodeSummary summary;
  std::vector<ProjectRuntime*> projects(1, &runtime);
  try {
    summary = co_await run_cluster_node(std::move(o), std::move(projects), stop);
  } catch (...) {
    failure = std::current_exception();
  }
  if (timer) {
    timer->kill();
    co_await timer->join();
  }
  if (failure) std::rethrow_exception(failure);
  co_return summary;
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
  o.lease = seconds_of(c.lease);
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
  auto counts_of = [&project](const Scheduler* s) {
    const TaskCounters* counters = s ? s->project_counters(project) : nullptr;
    return counters ? counters->totals() : CounterValues{};
  };
  o.on_scheduler = [&](const Scheduler* s) {
    if (!s) totals = counts_of(live);
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

  bool tty = err_is_tty && !c.quiet;
  bool drawn = false;
  auto started = std::chrono::steady_clock::now();
  PeriodicCallback progress(
      [&] {
        // Once the scheduler ended, its last counts while the others leave.
        CounterValues all = live ? counts_of(live) : totals;
        size_t in_flight = live ? live->held(project).in_work : 0;
        double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        char line[200];
        std::snprintf(line, sizeof line,
                      "\r\033[K%s  active %lld  success %lld  failed %lld  in flight %zu  %.0fs",
                      project.c_str(), static_cast<long long>(all[0]),
                      static_cast<long long>(all[1]), static_cast<long long>(all[3]), in_flight,
                      secs);
        err << line << std::flush;
        drawn = true;
      },
      std::chrono::milliseconds(100));
  if (tty) progress.start();

  ClusterNodeSummary s;
  try {
    s = run_sync(run_node(o, runtime, c.timeout, timed_out, stop));
  } catch (const std::exception& e) {
    progress.stop();
    if (drawn) err << "\r\033[K";
    err << "squall run: " << e.what() << "\n";
    return dynamic_cast<const InvalidArgumentError*>(&e) ? kUsage : kCouldNotRun;
  }
  progress.stop();
  if (drawn) err << "\r\033[K";
  if (!c.quiet) {
    long long secs = std::llround(s.seconds);
    if (signal_seen)
      err << "Stopped after " << secs << " seconds (" << signal_name(signal_seen) << ")";
    else if (timed_out)
      err << "Timed out after " << secs << " seconds (--timeout)";
    else
      err << "Done in " << secs << " seconds";
    err << ", processed " << s.scheduler.handled << " tasks.\n";
    err << "  in this process: fetched " << s.fetcher.handled << ", processed "
        << s.processor.handled << ", results stored " << s.result_worker.handled;
    if (s.seconds > 0)
      err << ", " << std::llround(static_cast<double>(s.scheduler.handled) / s.seconds)
          << " tasks/s";
    err << "\n";
    auto count = [&](CounterKind k) { return totals[static_cast<size_t>(k)]; };
    err << "  in the store: " << count(CounterKind::Success) << " success, "
        << count(CounterKind::Failed) << " failed or bad, " << count(CounterKind::Pending)
        << " active\n";
    if (count(CounterKind::Pending) > 0 && (signal_seen || timed_out))
      err << "  run the same command again to resume\n";
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

  bool tty = err_is_tty && !c.quiet;
  bool drawn = false;
  auto started = std::chrono::steady_clock::now();
  PeriodicCallback progress(
      [&] {
        Scheduler* s = engine.scheduler();
        const TaskCounters* counters = s ? s->project_counters(project) : nullptr;
        CounterValues all = counters ? counters->totals() : CounterValues{};
        double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        char line[200];
        std::snprintf(line, sizeof line,
                      "\r\033[K%s  active %lld  success %lld  failed %lld  in flight %zu  %.0fs",
                      project.c_str(), static_cast<long long>(all[0]),
                      static_cast<long long>(all[1]), static_cast<long long>(all[3]),
                      engine.in_flight(), secs);
        err << line << std::flush;
        drawn = true;
      },
      std::chrono::milliseconds(100));
  if (tty) progress.start();

  Outcome outcome;
  try {
    outcome = run_sync(run_engine(engine, project, c.timeout));
  } catch (const std::exception& e) {
    progress.stop();
    if (drawn) err << "\r\033[K";
    err << "squall run: " << e.what() << "\n";
    return dynamic_cast<const InvalidArgumentError*>(&e) ? kUsage : kCouldNotRun;
  }
  progress.stop();
  if (drawn) err << "\r\033[K";
  if (!c.quiet) print_summary(outcome, signal_seen, err);
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
  return outcome.timed_out ? kTimedOut : kDone;
}

}  // namespace squall::cli
