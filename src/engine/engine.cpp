// Engine: the components as tasks on one loop, joined by bounded queues.
#include "squall/engine/engine.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "squall/core/error.h"
#include "squall/core/event.h"
#include "squall/core/lock.h"
#include "squall/core/log.h"
#include "squall/core/queue.h"
#include "squall/core/seconds.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/engine/engine_message.h"
#include "squall/engine/processor.h"
#include "squall/engine/result_worker.h"

namespace squall {

struct Engine::State {
  EngineOptions options;
  struct Project {
    ProjectRuntime* runtime;
    ProjectInfo info;
    std::unique_ptr<Processor> processor;  // the runtime of a project added as a Handler
  };
  std::map<std::string, Project> projects;

  std::unique_ptr<EngineStore> store;
  std::unique_ptr<EngineStore> result_store;  // when results have a store of their own
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<ResultWorker> results;
  std::unique_ptr<Fetcher> fetcher;
  std::unique_ptr<FetchStage> stage;
  std::unique_ptr<Queue<FetchedTask>> process_queue;
  Lock apply_lock;             // held by the processing worker that applies an output
  Event wake;                  // something changed that the dispatcher may act on
  Event finished;              // run() may return
  std::exception_ptr failure;  // what ended a component, if one failed
  size_t in_flight = 0;        // dispatched, outcome not applied yet
  bool stopping = false;
  bool finish_sent = false;
  bool running = false;          // run() between opening the store and returning
  std::set<std::string> paused;  // projects update_project() set not to be dispatched
  std::vector<FetchObserver> observers;
  EngineSummary summary;

  explicit State(EngineOptions o) : options(std::move(o)) {}

  double now() const { return scheduler->now(); }

  Task<void> request(std::vector<CrawlTask> tasks) {
    if (tasks.empty()) co_return;
    RequestCounts c = co_await scheduler->request(std::move(tasks));
    summary.follows += c.inserted + c.restarted;
    wake.set();
  }

  Task<void> dispatcher() {
    while (!stopping) {
      size_t room = stage->room();
      std::vector<Dispatch> batch;
      if (room > 0) batch = co_await scheduler->select(room);
      if (batch.empty()) {
        if (in_flight == 0 && scheduler->idle() && stage->idle() && !held_by_pause()) {
          if (!finish_sent) {
            finish_sent = true;
            std::vector<CrawlTask> finishing;
            for (auto& [name, p] : projects) finishing.push_back(Processor::finish_task(name));
            co_await request(std::move(finishing));
            continue;
          }
          if (options.exit_when_done) break;
        }
        wake.clear();
        std::optional<double> at = room > 0 ? scheduler->next_wake() : std::nullopt;
        try {
          if (at)
            co_await wake.wait(from_seconds(std::max(0.0, *at - now())));
          else
            co_await wake.wait();
        } catch (const TimeoutError&) {
        }
        continue;
      }
      bool refused = false;
      for (Dispatch& d : batch) {
        if (refused || (options.hooks.may_dispatch && !options.hooks.may_dispatch(d.task))) {
          refused = true;
          scheduler->put_back(d);
          continue;
        }
        ++in_flight;
        ++summary.dispatched;
        if (d.task.taskid != "on_finished") finish_sent = false;
        stage->push(std::move(d));
      }
      if (refused) {
        // The program's limit: asked again when the work in flight changes it, and the end of
        // the run once nothing is in flight.
        if (in_flight == 0) {
          summary.limited = true;
          break;
        }
        wake.clear();
        co_await wake.wait();
      }
    }
    finished.set();
  }

  // A task of a project paused since it was dispatched: back to its place, not fetched.
  bool withdraw(const Dispatch& d) {
    if (d.token == 0 || paused.empty() || !paused.contains(d.task.project)) return false;
    if (options.hooks.parked) options.hooks.parked(d.task);
    scheduler->put_back(d);
    --in_flight;
    wake.set();
    return true;
  }

  // A project paused by update_project() with tasks left: the run waits for it.
  bool held_by_pause() const {
    for (const std::string& name : paused)
      if (const TaskCounters* c = scheduler->project_counters(name))
        if (c->totals()[static_cast<size_t>(CounterKind::Pending)] > 0) return true;
    return false;
  }

  // A fetched task to the processor's queue, waiting while it is full.
  Task<void> deliver(Dispatch d, FetchResult r) {
    for (const FetchObserver& observe : observers) observe(d.task, r);
    FetchedTask f{std::move(d), std::move(r)};
    co_await process_queue->put(std::move(f));
  }

  // A task of a host that cannot be reached: back to the scheduler, untried.
  void park(Dispatch d) {
    if (options.hooks.parked) options.hooks.parked(d.task);
    if (d.token != 0) scheduler->release(d);
    ++summary.parked;
    --in_flight;
    wake.set();
  }

  // Where a runtime hands a callback's follows while it runs: into the scheduler, a batch at a
  // time, each with no other worker's writes in between. A store that answers without
  // suspending (SQLite) would otherwise take a million follows in one go, the loop serving
  // nothing else meanwhile: after each batch it yields, so fetches and commits go on.
  struct Follows final : FollowSink {
    State& s;
    explicit Follows(State& state) : s(state) {}
    Task<void> take(std::vector<CrawlTask> batch) override {
      {
        Lock::Guard applying = co_await s.apply_lock.guard();
        co_await s.request(std::move(batch));
      }
      co_await sleep(Duration::zero());
    }
  };

  // One of the processing workers (as many as a runtime's processing_slots()): they await
  // process() side by side, and apply what it gave one at a time.
  Task<void> process_worker() {
    Follows follows(*this);
    for (;;) {
      FetchedTask f = co_await process_queue->get();
      auto it = projects.find(f.dispatch.task.project);
      ProcessOutput out =
          co_await it->second.runtime->process(f.dispatch, std::move(f.result), &follows);
      // The last follows, the outcome and the result are applied with no commit between them,
      // and no other worker's writes either; the batches handed on before are all applied.
      Lock::Guard applying = co_await apply_lock.guard();
      co_await request(std::move(out.follows));
      bool ok = out.status.ok;
      bool applied = co_await scheduler->outcome(std::move(out.status));
      if (applied) {
        if (ok)
          ++summary.succeeded;
        else
          ++summary.failed;
        if (out.result) {
          out.result->updatetime = now();
          co_await results->write(f.dispatch.task.project, *out.result);
          ++summary.results;
        }
      }
      --in_flight;
      wake.set();
    }
  }

  // pyspider's cronjob ticks: when a project's every() job is due, its "_on_cronjob" task goes
  // to the fetcher as a dispatch of no task in work (token 0), so its outcome changes nothing.
  Task<void> cron() {
    int64_t last = static_cast<int64_t>(std::floor(now()));
    for (;;) {
      std::optional<int64_t> next;
      for (auto& [name, p] : projects)
        if (std::optional<int64_t> at = next_cron_tick(p.runtime->cron_jobs(), last))
          next = next ? std::min(*next, *at) : *at;
      if (!next) co_return;
      if (double wait = static_cast<double>(*next) - now(); wait > 0)
        co_await sleep(from_seconds(wait));
      int64_t tick = static_cast<int64_t>(std::floor(now()));
      if (tick < *next) continue;
      for (auto& [name, p] : projects) {
        const ProjectInfo* info = scheduler->project(name);
        if (!info || !info->active()) continue;
        bool due = false;
        for (const CronJob& job : p.runtime->cron_jobs())
          due = due || cron_due(job.every, last, tick);
        if (!due) continue;
        ++in_flight;
        ++summary.dispatched;
        Dispatch d{Processor::cron_task(name, tick, last), 0};
        stage->push(std::move(d));
      }
      last = tick;
    }
  }

  Task<void> committer() {
    for (;;) {
      co_await sleep(from_seconds(options.commit_interval));
      co_await commit();
    }
  }

  Task<void> commit() {
    if (options.hooks.committing) co_await options.hooks.committing(*store);
    co_await results->checkpoint();
    if (result_store) co_await result_store->commit();
    co_await scheduler->commit();
  }

  // Runs a component; if it fails, the engine stops with its error.
  Task<void> guarded(Task<void> component) {
    try {
      co_await std::move(component);
    } catch (const CancelledError&) {
      throw;
    } catch (...) {
      if (!failure) failure = std::current_exception();
      stopping = true;
      finished.set();
    }
  }
};

Engine::Engine(EngineOptions options) : state_(std::make_unique<State>(std::move(options))) {}
Engine::~Engine() = default;

ProjectInfo Engine::running() {
  ProjectInfo info;
  info.status = ProjectStatus::Running;
  info.rate = TokenBucket::kUnlimited;
  info.burst = TokenBucket::kUnlimited;
  return info;
}

void Engine::add_project(Handler& handler, ProjectInfo info) {
  auto processor = std::make_unique<Processor>(handler);
  add_project(*processor, std::move(info));
  state_->projects[handler.project()].processor = std::move(processor);
}

void Engine::add_project(ProjectRuntime& runtime, ProjectInfo info) {
  info.name = runtime.project();
  std::string name = info.name;
  state_->projects[name] = State::Project{&runtime, std::move(info), nullptr};
}

Scheduler* Engine::scheduler() noexcept {
  return state_->scheduler.get();
}
EngineStore* Engine::store() noexcept {
  return state_->store.get();
}
EngineStore* Engine::result_store() noexcept {
  return state_->result_store ? state_->result_store.get() : state_->store.get();
}

const FetchStage* Engine::fetch_stage() const noexcept {
  return state_->stage.get();
}
size_t Engine::in_flight() const noexcept {
  return state_->in_flight;
}
std::vector<std::string> Engine::projects() const {
  std::vector<std::string> names;
  for (const auto& [name, p] : state_->projects) names.push_back(name);
  return names;
}
Fetcher* Engine::fetcher() noexcept {
  return state_->fetcher.get();
}
size_t Engine::processing_queued() const noexcept {
  return state_->process_queue ? state_->process_queue->qsize() : 0;
}

void Engine::observe_fetches(FetchObserver observer) {
  state_->observers.push_back(std::move(observer));
}

Task<RequestCounts> Engine::request(std::vector<CrawlTask> tasks) {
  State& s = *state_;
  if (!s.scheduler) throw InvalidStateError("engine: tasks were added before run() started");
  RequestCounts c = co_await s.scheduler->request(std::move(tasks));
  s.summary.follows += c.inserted + c.restarted;
  s.wake.set();
  if (!s.running) co_await s.scheduler->commit();
  co_return c;
}

Task<bool> Engine::update_project(ProjectInfo info) {
  State& s = *state_;
  auto it = s.projects.find(info.name);
  if (it == s.projects.end() || !s.scheduler) co_return false;
  info.updatetime = s.now();
  it->second.info = info;
  co_await s.store->put_project(info);
  co_await s.scheduler->add_project(info, it->second.runtime->retry_delay());
  if (info.active())
    s.paused.erase(info.name);
  else
    s.paused.insert(info.name);
  s.wake.set();
  if (!s.running) co_await s.scheduler->commit();
  co_return true;
}

void Engine::stop() noexcept {
  state_->stopping = true;
  state_->wake.set();
}

Task<EngineSummary> Engine::run() {
  State& s = *state_;
  auto started = std::chrono::steady_clock::now();
  EngineStoreOptions opening;
  opening.start_over = s.options.fresh;
  opening.label = s.options.store_label;
  opening.cache_mib = s.options.store_cache_mib;
  s.store = co_await open_engine_store(s.options.store, opening);
  if (!s.options.result_store.empty() && s.options.result_store != s.options.store) {
    opening.label = "result store";
    s.result_store = co_await open_engine_store(s.options.result_store, opening);
  }
  s.scheduler = std::make_unique<Scheduler>(*s.store, s.options.scheduler);
  s.results = std::make_unique<ResultWorker>(*result_store(), s.options.jsonl, s.store.get());
  co_await s.results->open(s.options.fresh);
  FetcherOptions fetcher = s.options.fetcher;
  if (!fetcher.client) fetcher.max_clients = std::max<size_t>(1, s.options.concurrency);
  s.fetcher = std::make_unique<Fetcher>(std::move(fetcher));
  FetchStageOptions hosts = s.options.hosts;
  hosts.capacity = std::max<size_t>(1, s.options.queue_size) + s.options.concurrency;
  hosts.user_agent = s.fetcher->options().user_agent;
  s.stage = std::make_unique<FetchStage>(
      *s.fetcher, std::move(hosts),
      [&s](Dispatch d, FetchResult r) { return s.deliver(std::move(d), std::move(r)); },
      [&s](Dispatch d, const UnavailableHost&) { s.park(std::move(d)); });
  s.stage->on_room = [&s] { s.wake.set(); };
  s.stage->withdraw = [&s](const Dispatch& d) { return s.withdraw(d); };
  s.stage->on_robots = s.options.hooks.robots;
  if (s.options.hooks.opened) co_await s.options.hooks.opened(*s.store);
  s.process_queue = std::make_unique<Queue<FetchedTask>>(std::max<size_t>(1, s.options.queue_size));

  std::vector<CrawlTask> starts;
  for (auto& [name, p] : s.projects) {
    co_await s.store->claim_project(name);
    p.info.updatetime = s.now();
    co_await s.store->put_project(p.info);
    co_await s.scheduler->add_project(p.info, p.runtime->retry_delay());
    starts.push_back(p.runtime->start_task());
  }
  co_await s.request(std::move(starts));
  co_await s.commit();
  s.running = true;

  std::vector<TaskHandle<void>> workers;
  for (size_t i = 0; i < std::max<size_t>(1, s.options.concurrency); ++i)
    workers.push_back(spawn(s.guarded(s.stage->worker())));
  size_t processing = 1;
  for (auto& [name, p] : s.projects)
    processing = std::max(processing, p.runtime->processing_slots());
  for (size_t i = 0; i < processing; ++i) workers.push_back(spawn(s.guarded(s.process_worker())));
  workers.push_back(spawn(s.guarded(s.committer())));
  workers.push_back(spawn(s.guarded(s.cron())));
  workers.push_back(spawn(s.guarded(s.dispatcher())));
  std::exception_ptr killed;  // run() itself was killed or timed out
  try {
    co_await s.finished.wait();
  } catch (...) {
    killed = std::current_exception();
  }
  for (TaskHandle<void>& w : workers) w.kill();
  for (TaskHandle<void>& w : workers) co_await w.join();
  s.running = false;
  if (killed) std::rethrow_exception(killed);
  if (s.failure) std::rethrow_exception(s.failure);
  co_await s.commit();
  s.summary.stopped = s.stopping;
  s.summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  co_return s.summary;
}

}  // namespace squall
