// One engine component as a process: its flags, the project's runtime, signals, a last line.
#include "squall/cli/component_command.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "squall/cli/signal_watch.h"
#include "squall/control/control_server.h"
#include "squall/core.h"
#include "squall/core/event.h"
#include "squall/core/seconds.h"
#include "squall/engine/cluster.h"
#include "squall/engine/crawler.h"
#include "squall/script/python_runtime.h"

namespace squall::cli {

namespace {

enum Status : int { kDone = 0, kCouldNotRun = 1, kUsage = 2, kInterrupted = 130 };

}  // namespace

int run_component(const ComponentCommand& c, std::ostream& err) {
  const std::string name = "squall " + c.role;
  bool runs_project = c.role == "scheduler" || c.role == "processor";
  if (c.crawl && !c.script.empty()) {
    err << name << ": give the project script or --crawl, not both\n";
    return kUsage;
  }
  bool needs_script = runs_project && !c.crawl;
  if (needs_script && c.script.empty()) {
    err << name << ": give the project script (squall " << c.role
        << " PROJECT.py), or --crawl for the crawl of a `squall crawl --redis`\n";
    return kUsage;
  }
  if (c.concurrency == 0 || c.per_host == 0 || c.max_deliveries < 1 || !(c.delay >= 0) ||
      !(c.lease >= 0.01 && c.lease < 1e6) ||
      !(c.processing_timeout == 0 || (c.processing_timeout >= 1 && c.processing_timeout < 1e7))) {
    err << name
        << ": --concurrency, --per-host and --max-deliveries must be at least 1, --lease 0.01 s "
           "or more, --delay 0 or more, --processing-timeout 1 s or more\n";
    return kUsage;
  }
  ClusterOptions o;
  o.redis = c.redis;
  o.ns = c.ns;
  o.taskdb = c.taskdb;
  o.resultdb = c.resultdb;
  o.jsonl = c.results;
  o.fresh = c.fresh;
  o.concurrency = c.concurrency;
  o.fetcher.user_agent = c.user_agent;
  o.hosts.per_host = c.per_host;
  o.hosts.delay = c.delay;
  o.hosts.obey_robots = !c.ignore_robots;
  o.lease = from_seconds(c.lease);
  o.max_deliveries = c.max_deliveries;
  o.scheduler.processing_timeout =
      c.processing_timeout > 0 ? c.processing_timeout : processing_timeout_for(o.lease);
  o.exit_when_done = !c.keep_running;

  Loop loop;
  // The crawl's project: its options as `squall crawl --redis` saved them.
  std::optional<Crawler> crawler;
  if (c.crawl) {
    try {
      crawler.emplace(run_sync(Crawler::shared_options(c.redis, c.ns)));
    } catch (const InvalidArgumentError& e) {
      err << name << ": " << e.what() << "\n";
      return kUsage;
    } catch (const std::exception& e) {
      err << name << ": " << e.what() << "\n";
      return kCouldNotRun;
    }
    o.scheduler.pause.failures = 0;  // as the crawl's own scheduler: a failing site is not paused
    o.export_line = [links = crawler->options().jsonl_links](
                        std::string& line, const std::string&, const TaskResult& r,
                        const TaskResult* stored) { crawl_export_line(line, r, stored, links); };
  }
  std::unique_ptr<PythonRuntime> runtime;
  if (needs_script) {
    try {
      runtime = PythonRuntime::load({.script = c.script});
    } catch (const Error& e) {
      err << name << ": " << e.what() << (std::string_view(e.what()).ends_with("\n") ? "" : "\n");
      return kUsage;
    }
  }
  Event stop;
  int signal_seen = 0;
  SignalWatch signals(loop, [&](int sig) {
    if (signal_seen) std::_Exit(128 + sig);
    signal_seen = sig;
    stop.set();
  });
  std::optional<ControlServer> control;
  if (c.port) {
    try {
      control.emplace(ControlOptions{.port = *c.port,
                                     .bind = c.bind,
                                     .auth = c.auth,
                                     .cluster_redis = c.redis,
                                     .cluster_namespace = c.ns});
      control->start();
    } catch (const Error& e) {
      err << name << ": " << e.what() << "\n";
      return kUsage;
    }
    err << "Dashboard: " << control->url() << "\n" << std::flush;
  }
  std::vector<ProjectRuntime*> projects;
  if (runtime) projects.push_back(runtime.get());
  if (crawler && runs_project) projects.push_back(&crawler->runtime());
  ComponentSummary summary;
  try {
    summary = run_sync([&]() -> Task<ComponentSummary> {
      if (c.role == "scheduler") co_return co_await run_scheduler(o, projects, stop);
      if (c.role == "fetcher") co_return co_await run_fetcher(o, stop);
      if (c.role == "processor") co_return co_await run_processor(o, projects, stop);
      co_return co_await run_result_worker(o, stop);
    }());
  } catch (const std::exception& e) {
    err << name << ": " << e.what() << "\n";
    return dynamic_cast<const InvalidArgumentError*>(&e) ? kUsage : kCouldNotRun;
  }
  if (control) run_sync(control->stop());
  err << name << ": " << (summary.stopped ? "stopped" : "done") << " after " << summary.handled
      << (c.role == "scheduler"   ? " dispatches"
          : c.role == "fetcher"   ? " pages fetched"
          : c.role == "processor" ? " pages processed"
                                  : " results stored");
  if (summary.parked > 0)
    err << " (" << summary.parked
        << (c.role == "fetcher" ? " tasks of hosts given up on handed back untried"
                                : " tasks of hosts given up on parked")
        << ")";
  err << "\n";
  return summary.stopped ? kInterrupted : kDone;
}

}  // namespace squall::cli
