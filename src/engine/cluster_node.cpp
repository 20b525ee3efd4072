// ClusterNode: the four components spawned on one loop, stopped together when one fails.
#include "squall/engine/cluster_node.h"

#include <memory>

#include "squall/core/loop.h"
#include "squall/core/seconds.h"
#include "squall/core/spawn.h"
#include "squall/core/wait.h"
#include "squall/engine/engine_store.h"

namespace squall {
namespace {

// The scheduler, setting `ended` as it returns or throws: the components beside it wait for that
// before they look at the done mark (cluster.h), which a run before this one may have left.
Task<ComponentSummary> scheduler_then_set(ClusterOptions o, std::vector<ProjectRuntime*> projects,
                                          Event& halt, Event& ended) {
  try {
    ComponentSummary summary = co_await run_scheduler(std::move(o), std::move(projects), halt);
    ended.set();
    co_return summary;
  } catch (...) {
    ended.set();
    throw;
  }
}

}  // namespace

Task<ClusterNodeSummary> run_cluster_node(ClusterOptions o, std::vector<ProjectRuntime*> projects,
                                          Event& stop) {
  const TimePoint started = Loop::time();
  std::unique_ptr<EngineStore> shared;
  if (!o.taskdb.empty() && o.resultdb.empty() && !is_shared_store(o.taskdb)) {
    EngineStoreOptions opening;
    opening.start_over = o.fresh;
    opening.label = "task store";
    shared = co_await open_engine_store(o.taskdb, opening);
    o.store = shared.get();
    o.fresh = false;
  }

  // The components watch `halt`, not `stop`: one that fails halts the others without saying
  // the caller stopped them.
  Event halt;
  TaskHandle<void> relay = spawn([](Event& from, Event& to) -> Task<void> {
    co_await from.wait();
    to.set();
  }(stop, halt));
  Event scheduler_ended;
  std::vector<TaskHandle<ComponentSummary>> parts;
  parts.push_back(spawn(scheduler_then_set(o, projects, halt, scheduler_ended)));
  o.own_scheduler_ended = &scheduler_ended;
  parts.push_back(spawn(run_fetcher(o, halt)));
  parts.push_back(spawn(run_processor(o, projects, halt)));
  parts.push_back(spawn(run_result_worker(o, halt)));

  std::exception_ptr failure;
  {
    IWait<TaskHandle<ComponentSummary>> ended(parts);
    while (auto part = co_await ended.next()) {
      if (std::exception_ptr e = part->exception(); e && !failure) {
        failure = e;
        halt.set();
      }
    }
  }
  relay.kill();
  co_await relay.join();
  if (failure) std::rethrow_exception(failure);

  ClusterNodeSummary summary;
  summary.scheduler = parts[0].value();
  summary.fetcher = parts[1].value();
  summary.processor = parts[2].value();
  summary.result_worker = parts[3].value();
  summary.seconds = to_seconds(Loop::time() - started);
  summary.stopped = stop.is_set();
  co_return summary;
}

}  // namespace squall
