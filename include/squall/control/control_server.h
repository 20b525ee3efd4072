// ControlServer: the control plane of a running engine: the JSON API, Prometheus /metrics, the
// dashboard at / and its live feed, served by squall's web framework on the engine's loop.
//
//   Engine engine(options);
//   ControlServer control(engine, {.port = 8080});
//   control.start();                                  // listens now; prints nothing
//   std::cout << control.url() << "\n";               // http://127.0.0.1:8080/
//   co_await engine.run();
//   co_await control.stop();
//
// It may start before engine.run() (routes that need the store answer 503 until run() has
// opened it) and serves for as long as it lives, after run() returned too: the engine must
// outlive it. The routes (README, "The control API"):
//   POST  /api/fetch                 a pyspider task ({"url", "fetch"}) or {"curl": "curl ..."}
//                                    (or a text/plain body "curl ..."): the fetch result, through
//                                    the engine's fetcher (its pool, proxy, limits)
//   POST  /api/tasks                 a task dict, a list of them, or {"tasks": [...]}
//   GET   /api/tasks                 ?project=&status=&search=&after=&limit=, a page
//   GET   /api/tasks/{taskid}        ?project=: one task with its track
//   GET   /api/projects              ?after=&limit=, a page of the projects (by name) with
//                                    their status, rate, burst, counters and callbacks
//   PATCH /api/projects/{name}       {"status", "rate", "burst"}, acting at once
//   POST  /api/debug                 {"project", "url", "callback", "fetch"}: one debug step
//                                    (debug_step.h) of a project in `debug`, through the
//                                    engine's fetcher, storing nothing; 409 for a project
//                                    without a script runtime, 404 for an unknown callback,
//                                    503 while 4 steps are running
//   GET   /api/results               ?project=&search=&after=&limit=, a page
//   GET   /api/results/dump/{project}.{json,jsonl,csv}   every result, streamed a page at a time
//   GET   /api/counters              pyspider's 5m/1h/1d/all × pending/success/retry/failed
//   GET   /api/queues                the sizes of the queues between the components
//   GET   /api/hosts, /api/errors    the per-host table, the recent errors
//   GET   /metrics                   Prometheus text
//   GET   /                          the dashboard; GET /api/live is its WebSocket feed
// A page of a list is `limit` items (default 50, at most 1000) after the cursor `after`, with
// `next` to pass as `after` for the following page (null at the end); nothing is counted on
// request: counts come from the scheduler's counters. Errors are JSON ({"error": "..."}):
// 400 naming what is wrong in a malformed body or argument, 404 for an unknown project, task
// or route, 503 before the engine has opened its store, 501 for a route that needs an engine on
// a server without one. With `auth` every route asks for HTTP
// Basic credentials (401 with WWW-Authenticate otherwise).
//
// Threads: the engine's loop only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "squall/core/task.h"

namespace squall {

class Engine;
class ProjectRuntime;

// A project the debugger may step (POST /api/debug): its runtime, which must outlive the
// server, and the callbacks a step may name (on_start among them).
struct DebuggableProject {
  ProjectRuntime* runtime = nullptr;
  std::vector<std::string> callbacks;
};

struct ControlOptions {
  uint16_t port = 0;  // 0: an ephemeral port (see port())
  std::string bind = "127.0.0.1";
  // "user:password" for HTTP Basic auth; empty for none, which only a loopback address
  // (127.0.0.0/8, ::1, localhost) may go without.
  std::string auth;
  // The projects the debugger steps (a script's); the others answer 409 there.
  std::vector<DebuggableProject> debug;
  // A distributed crawl to watch: its Redis (redis://...) and namespace; empty for none.
  std::string cluster_redis;
  std::string cluster_namespace = "squall";
};

class ControlServer {
 public:
  // InvalidArgumentError for a bind address other than loopback without auth, or an auth
  // without ':'.
  ControlServer(Engine& engine, ControlOptions options = {});
  // A server without an engine: the cluster's routes and the dashboard. InvalidArgumentError
  // also for an empty or bad cluster_redis or cluster_namespace.
  explicit ControlServer(ControlOptions options);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Listens on the current loop. Throws NetError when the address cannot be bound.
  void start();
  // The address it listens on, once started.
  uint16_t port() const noexcept;
  std::string url() const;  // "http://127.0.0.1:8080/"

  // Closes the live feeds and stops listening; requests in flight get a moment to finish.
  [[nodiscard]] Task<void> stop();

  struct State;

 private:
  void routes();
  std::shared_ptr<State> state_;
};

}  // namespace squall
