// `squall scheduler`, `squall fetcher`, `squall processor`, `squall result-worker`: one of the
// engine's components as a process (engine/cluster.h), joined to the others through Redis.
//
// With --port it prints "Dashboard: URL" and serves the cluster (squall status --port's routes)
// until it ends.
//
// --crawl instead of a project script: the built-in crawl project of a `squall crawl --redis`
// (engine/crawler.h), whose options (start URLs, scope, filters, depth, what requests carry)
// that command saved in Redis under the namespace; the scheduler and the processor run its
// callbacks, the result worker writes its pages' JSON lines (--results) in `squall crawl
// --jsonl`'s format. With none saved there (no crawl was started in that namespace) it exits
// at once with status 2, saying to start the crawl first. The fetcher needs no project.
//
// Exit status: 0 the crawl is done (or, for the scheduler, it finished it), 130 Ctrl-C or
// SIGTERM, 2 a usage error (a bad flag, URL or store location; a script that does not load), 1
// it could not run (Redis or the store unreachable, a component that failed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace squall::cli {

struct ComponentCommand {
  std::string role;    // "scheduler", "fetcher", "processor" or "result-worker"
  std::string script;  // the project (scheduler, processor)
  bool crawl = false;  // the crawl of `squall crawl --redis` instead of a script
  std::string redis = "redis://127.0.0.1:6379/0";
  std::string ns = "squall";
  std::string taskdb;
  std::string resultdb;
  std::string results;  // the result worker's JSON lines export
  bool fresh = false;
  size_t concurrency = 10;
  size_t per_host = 2;
  double delay = 0;  // seconds between two fetches of a host, across every fetcher
  std::string user_agent = "squall-crawler/1.0";
  bool ignore_robots = false;
  double lease = 30;  // seconds
  int max_deliveries = 5;
  // The scheduler's wait before it dispatches again a task whose outcome never came (seconds);
  // 0: four leases, and at least two minutes.
  double processing_timeout = 0;
  bool keep_running = false;  // not leaving when the crawl is done
  // Serve the cluster's control routes and dashboard while it runs (control_server.h, without
  // an engine): the port (0: any free one), its address and user:password.
  std::optional<uint16_t> port;
  std::string bind = "127.0.0.1";
  std::string auth;
};

int run_component(const ComponentCommand& command, std::ostream& err);

}  // namespace squall::cli
