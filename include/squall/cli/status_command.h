// `squall status`: the components of a distributed crawl and the depth of its streams, from Redis.
//
// Prints every component that registered in the namespace (live and dead: role, host, pid,
// heartbeat age, handled, lag; component_registry.h) and each of the engine's four streams
// (length, pending, lag, dead letters, consumers; cluster_keys.h, stream_queue.h), as two
// tables, or as one JSON object with --json.
//
// With --port it prints nothing of the cluster but serves it, read-only, until Ctrl-C: the
// control API's cluster routes (GET /api/cluster, /metrics) and the dashboard with its cluster
// pane (control/control_server.h, without an engine), printing "Dashboard: URL" on `err` at the
// start; it then exits 0 (130 is not used: stopping it is its normal end), or 2 when the
// address cannot be bound or --bind/--auth are not valid. Redis need not be up when it starts:
// the pane says so until it is.
//
// Returns the process exit status: 0 when Redis answered; 2 for a --redis URL or namespace that
// is not valid; 1 when Redis cannot be reached or refuses (AUTH, SELECT), with one line on
// `err` saying what failed and what to check.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace squall::cli {

struct StatusCommand {
  std::string redis;  // redis://[[user]:password@]host[:port][/db]
  std::string ns = "squall";
  bool json = false;
  double timeout = 5;  // seconds for connecting and for each command
  // Serve the cluster's routes and the dashboard on this port (0: any free one).
  std::optional<uint16_t> port;
  std::string bind = "127.0.0.1";
  std::string auth;  // user:password
};

int run_status(const StatusCommand& command, std::ostream& out, std::ostream& err);

}  // namespace squall::cli
