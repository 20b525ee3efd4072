// `squall status`: the components of a distributed crawl and the depth of its streams, from Redis.
//
// Prints every component that registered in the namespace (live and dead: role, host, pid,
// heartbeat age, handled, lag; component_registry.h) and each of the engine's four streams
// (length, pending, lag, dead letters, consumers; cluster_keys.h, stream_queue.h), as two
// tables, or as one JSON object with --json.
//
// Returns the process exit status: 0 when Redis answered; 2 for a --redis URL or namespace that
// is not valid; 1 when Redis cannot be reached or refuses (AUTH, SELECT), with one line on
// `err` saying what failed and what to check.
#pragma once

#include <iosfwd>
#include <string>

namespace squall::cli {

struct StatusCommand {
  std::string redis;  // redis://[[user]:password@]host[:port][/db]
  std::string ns = "squall";
  bool json = false;
  double timeout = 5;  // seconds for connecting and for each command
};

int run_status(const StatusCommand& command, std::ostream& out, std::ostream& err);

}  // namespace squall::cli
