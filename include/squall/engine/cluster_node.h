// ClusterNode: every component of the split engine (cluster.h) in one process, on one loop:
// what `squall run --redis` and `squall crawl --redis` run.
//
//   ClusterOptions o;
//   o.redis = "redis://10.0.0.5:6379/0";
//   o.taskdb = "tutorial.db";
//   Event stop;
//   ClusterNodeSummary s = co_await run_cluster_node(o, {&runtime}, stop);
//
// A scheduler, a fetcher, a processor and a result worker run together against the same Redis
// streams as their own processes do, so `squall fetcher` or `squall processor` started on other
// machines with the same --redis and --namespace share the work: nothing here is private to
// the process but the store below.
//
// The store: a file (SQLite) holds one connection, so the scheduler and the result worker share
// the one this node opens, as the embedded engine does; a postgresql:// store is opened by each
// of them, as their own processes would.
#pragma once

#include <vector>

#include "squall/core/event.h"
#include "squall/core/task.h"
#include "squall/engine/cluster.h"
#include "squall/engine/project_runtime.h"

namespace squall {

struct ClusterNodeSummary {
  ComponentSummary scheduler;      // its dispatches
  ComponentSummary fetcher;        // pages fetched by this process
  ComponentSummary processor;      // pages processed by this process
  ComponentSummary result_worker;  // results stored by this process
  double seconds = 0;
  bool stopped = false;  // `stop` ended it
};

// Runs the four components until the crawl is done (the scheduler finished it and the others
// found their streams empty, as cluster.h says) or `stop` is set (each ends within a second;
// what they held comes back to the others, or to the next run, after the lease). A component
// that fails stops the other three; once they ended its exception is rethrown. Throws what the
// components throw at start (InvalidArgumentError for a bad location or URL), and what opening
// a file store throws. `options.store` is this node's to set; `options.fresh` starts the store
// over as it opens.
[[nodiscard]] Task<ClusterNodeSummary> run_cluster_node(ClusterOptions options,
                                                        std::vector<ProjectRuntime*> projects,
                                                        Event& stop);

}  // namespace squall
