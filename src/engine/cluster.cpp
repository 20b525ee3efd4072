// The engine's components over Redis streams: each one a loop of take, hand on, acknowledge.
#include "squall/engine/cluster.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <unordered_map>
#include <utility>

#include "squall/core/error.h"
#include "squall/core/log.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/engine/cluster_keys.h"
#include "squall/engine/component_registry.h"
#include "squall/engine/engine_message.h"
#include "squall/engine/engine_store.h"
#include "squall/engine/host_leases.h"
#include "squall/engine/processor.h"
#include "squall/engine/result_worker.h"
#include "squall/engine/shared_robots.h"
#include "squall/engine/stream_queue.h"
#include "squall/engine/token_bucket.h"
#include "squall/net/redis.h"

namespace squall {

namespace {

// How long a take() waits for entries: the latency of noticing `stop` and the done mark.
constexpr Duration kTakeBlock = std::chrono::seconds(1);
// How often a scheduler with no room in the fetch stream looks again.
constexpr Duration kRoomPoll = std::chrono::milliseconds(50);

// The stream `name` (cluster_keys.h) as a queue of its group.
std::unique_ptr<StreamQueue> open_queue(RedisClient& redis, const ClusterOptions& o,
                                        std::string_view name) {
  for (const EngineStream& s : engine_streams) {
    if (s.name != name) continue;
    StreamQueueOptions q;
    q.group = std::string(s.group);
    q.consumer = o.consumer;
    q.lease = o.lease;
    q.max_deliveries = o.max_deliveries;
    q.bound = o.queue_bound;
    return std::make_unique<StreamQueue>(redis, cluster_key(o.ns, name), std::move(q));
  }
  throw InvalidArgumentError("no engine stream is named " + std::string(name));
}

RedisOptions redis_options(const ClusterOptions& o, ComponentRole role) {
  RedisOptions r = parse_redis_url(o.redis);
  r.client_name = "squall-" + std::string(component_role_name(role));
  // A Redis restarting (or failing over) is waited for, not given up on after three tries.
  r.connect_attempts = 20;
  return r;
}

std::string done_key(const ClusterOptions& o) {
  return cluster_key(o.ns, "done");
}

Task<bool> crawl_done(RedisClient& redis, const ClusterOptions& o) {
  std::string key = done_key(o);
  RedisReply r = co_await redis.command("GET", key);
  co_return !r.is_nil();
}

// A component whose input stream `queue` is empty for its group (nothing waiting, nothing held)
// once the crawl is marked done: it may leave.
Task<bool> may_leave(RedisClient& redis, const ClusterOptions& o, StreamQueue& queue) {
  if (!o.exit_when_done || !co_await crawl_done(redis, o)) co_return false;
  StreamDepth depth = co_await queue.depth();
  co_return depth.lag == 0 && depth.pending == 0;
}

// A take that the connection's end cut off (Redis restarting) gives nothing: what the server
// may have delivered stays pending under this consumer and is reclaimed after the lease.
Task<std::vector<StreamDelivery>> take(StreamQueue& queue, size_t max, Duration block) {
  std::string cut;
  try {
    co_return co_await queue.take(max, block);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Closed) throw;
    cut = e.what();
  }
  log(LogLevel::Warning, "taking from Redis: " + cut + ": taking again");
  co_await sleep(kTakeBlock);
  co_return std::vector<StreamDelivery>{};
}

// Where this scheduler process' tokens start: random, so that an outcome of a task dispatched by
// a scheduler since killed never carries a token this one handed out (both count up from their
// base; 2^64 apart at random, a collision needs ~2^32 restarts of one crawl).
uint64_t token_base() {
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device() ^
         static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
}

// A fetched page a processor took, and what its project's runtime made of it.
struct ProcessItem {
  std::string id;  // its stream entry
  FetchedTask fetched;
  ProjectRuntime* runtime = nullptr;
  ProcessOutput output;
};

Task<void> process_into(ProcessItem& item) {
  item.output =
      co_await item.runtime->process(item.fetched.dispatch, std::move(item.fetched.result));
}

// The registry a component joins: the crawl's namespace, heartbeats on its lease.
ComponentRegistryOptions registry_options(const ClusterOptions& o) {
  ComponentRegistryOptions reg;
  reg.ns = o.ns;
  reg.lease = o.lease;
  return reg;
}

// What a component says of itself at each heartbeat: the work it has done.
std::function<ComponentReport()> report_of(const ComponentSummary& summary) {
  return [&summary] { return ComponentReport{summary.handled, 0}; };
}

void warn(const std::string& what) {
  log(LogLevel::Warning, what);
}

// Whether the store holds this very result for its task already: the same page processed again
// because a fetcher, a processor or a scheduler was killed with it in hand (the at-least-once
// delivery's repeats): its line is in the export already.
Task<bool> already_stored(ResultStore& store, const std::string& project, const TaskResult& r) {
  std::optional<TaskResult> held = co_await store.result(project, r.taskid);
  co_return held && held->url == r.url && held->result == r.result;
}

// Claims `project` for this scheduler, waiting as long as another scheduler holds it (its
// claim goes with its connection to the store, at its end or its death); false when `stop` came
// first.
Task<bool> stand_by(EngineStore& store, const std::string& project, Event& stop) {
  bool said = false;
  while (!stop.is_set()) {
    try {
      co_await store.claim_project(project);
      if (said)
        log(LogLevel::Info, "scheduler: project '" + project + "' is ours now: taking over");
      co_return true;
    } catch (const InvalidArgumentError&) {
      if (!said)
        log(LogLevel::Info, "scheduler: project '" + project + "' is run by another scheduler on " +
                                store.describe() + ": standing by to take over when it ends");
      said = true;
    }
  }
  co_return false;
}

}  // namespace

// --- scheduler -----------------------------------------------------------------------------

Task<ComponentSummary> run_scheduler(ClusterOptions o, std::vector<ProjectRuntime*> projects,
                                     Event& stop) {
  if (o.taskdb.empty() && !o.store)
    throw InvalidArgumentError("the scheduler needs its task store: give --taskdb");
  RedisClient redis(redis_options(o, ComponentRole::Scheduler));
  EngineStoreOptions opening;
  opening.start_over = o.fresh;
  opening.label = "task store";
  std::unique_ptr<EngineStore> owned;
  if (!o.store) owned = co_await open_engine_store(o.taskdb, opening);
  EngineStore* store = o.store ? o.store : owned.get();
  Scheduler scheduler(*store, o.scheduler);
  auto fetch = open_queue(redis, o, "fetch");
  auto outcomes = open_queue(redis, o, "outcome");
  ComponentSummary summary;
  ComponentRegistry registry(redis, registry_options(o));
  co_await registry.join(ComponentRole::Scheduler, report_of(summary));
  // Nothing is held open while standing by: the running scheduler's transactions go on.
  co_await store->commit();
  for (ProjectRuntime* p : projects)
    if (!co_await stand_by(*store, p->project(), stop)) {
      summary.stopped = true;
      co_await registry.leave();
      co_return summary;
    }
  std::string done = done_key(o);
  // A crawl already marked done (its scheduler killed after marking it) is not finished twice:
  // its on_finished runs again only if this start finds something more to do, since the other
  // components may have left already.
  bool was_done = !o.fresh && co_await crawl_done(redis, o);
  co_await redis.command("DEL", done);
  const uint64_t base = token_base();

  std::vector<CrawlTask> starts;
  for (ProjectRuntime* p : projects) {
    ProjectInfo info;
    info.name = p->project();
    info.status = ProjectStatus::Running;
    info.rate = TokenBucket::kUnlimited;
    info.burst = TokenBucket::kUnlimited;
    info.updatetime = scheduler.now();
    co_await store->put_project(info);
    co_await scheduler.add_project(info, p->retry_delay());
    starts.push_back(p->start_task());
  }
  co_await scheduler.request(std::move(starts));
  co_await scheduler.commit();
  struct Told {
    const std::function<void(const Scheduler*)>& watch;
    ~Told() {
      if (watch) watch(nullptr);
    }
  } told{o.on_scheduler};
  if (o.on_scheduler) o.on_scheduler(&scheduler);

  Event wake;
  // Outcomes: applied with their follows, committed, then acknowledged.
  auto apply_outcomes = [&]() -> Task<void> {
    for (;;) {
      std::vector<StreamDelivery> batch = co_await take(*outcomes, o.batch, kTakeBlock);
      if (batch.empty()) continue;
      std::vector<std::string> settled;
      for (const StreamDelivery& d : batch) {
        ProcessOutput out;
        try {
          out = decode_output(d.payload);
        } catch (const InvalidArgumentError& e) {
          // Left pending: after max_deliveries it goes to the dead letters, kept for a look.
          warn("scheduler: outcome " + d.id + ": " + e.what());
          continue;
        }
        co_await scheduler.request(std::move(out.follows));
        out.status.token -= base;
        co_await scheduler.outcome(std::move(out.status));
        settled.push_back(d.id);
      }
      co_await scheduler.commit();
      co_await outcomes->ack(settled);
      wake.set();
    }
  };
  TaskHandle<void> outcome_task = spawn(apply_outcomes());

  bool finish_sent = was_done;
  std::exception_ptr failure;
  try {
    while (!stop.is_set()) {
      if (outcome_task.done()) {
        std::exception_ptr e = outcome_task.exception();
        std::rethrow_exception(e ? e
                                 : std::make_exception_ptr(InvalidStateError("outcomes ended")));
      }
      uint64_t room = co_await fetch->room();
      std::vector<Dispatch> batch;
      if (room > 0) batch = co_await scheduler.select(std::min<uint64_t>(room, o.batch));
      if (!batch.empty()) {
        std::vector<std::string> payloads;
        payloads.reserve(batch.size());
        for (Dispatch& d : batch) {
          if (d.task.taskid != "on_finished") finish_sent = false;
          d.token += base;
          payloads.push_back(encode_dispatch(d));
        }
        co_await fetch->push(payloads);
        summary.handled += batch.size();
        continue;
      }
      if (room > 0 && scheduler.idle()) {
        if (!finish_sent) {
          finish_sent = true;
          std::vector<CrawlTask> finishing;
          for (ProjectRuntime* p : projects)
            finishing.push_back(Processor::finish_task(p->project()));
          co_await scheduler.request(std::move(finishing));
          co_await scheduler.commit();
          continue;
        }
        if (o.exit_when_done) break;
      }
      // Nothing to dispatch now: an outcome, a due task, or room in the fetch stream changes it.
      wake.clear();
      Duration wait = kTakeBlock;
      if (room == 0) wait = kRoomPoll;
      if (std::optional<double> at = scheduler.next_wake())
        wait = std::min(wait, std::chrono::duration_cast<Duration>(std::chrono::duration<double>(
                                  std::max(0.0, *at - scheduler.now()))));
      try {
        co_await wake.wait(wait);
      } catch (const TimeoutError&) {
      }
    }
  } catch (...) {
    failure = std::current_exception();
  }
  outcome_task.kill();
  co_await outcome_task.join();
  if (failure) std::rethrow_exception(failure);
  co_await scheduler.commit();
  summary.stopped = stop.is_set();
  if (!summary.stopped) co_await redis.command("SET", done, "1");
  co_await registry.leave();
  co_return summary;
}

// --- fetcher -------------------------------------------------------------------------------

Task<ComponentSummary> run_fetcher(ClusterOptions o, Event& stop) {
  RedisClient redis(redis_options(o, ComponentRole::Fetcher));
  auto fetch = open_queue(redis, o, "fetch");
  auto process = open_queue(redis, o, "process");
  ComponentSummary summary;
  ComponentRegistry registry(redis, registry_options(o));
  co_await registry.join(ComponentRole::Fetcher, report_of(summary));

  size_t concurrency = std::max<size_t>(1, o.concurrency);
  FetcherOptions fo = o.fetcher;
  if (!fo.client) fo.max_clients = concurrency;
  Fetcher fetcher(std::move(fo));
  // The stream entries of each task being fetched, by task and then by token. A task comes
  // twice when a scheduler restarted since dispatched it again, or when its entry's lease passed
  // while the first fetch went on: it is fetched once, and the page goes on once per token, for
  // the scheduler to apply the one it holds live (the other is stale and changes nothing).
  std::unordered_map<std::string, std::map<uint64_t, std::vector<std::string>>> held;
  auto key_of = [](const Dispatch& d) {
    std::string key = d.task.project;
    key.push_back('\n');
    key.append(d.task.taskid);
    return key;
  };
  auto hand_on = [&](Dispatch d, FetchResult r) -> Task<void> {
    const std::string key = key_of(d);
    for (bool sent = false;; sent = true) {
      auto it = held.find(key);
      std::map<uint64_t, std::vector<std::string>> tokens;
      if (it != held.end()) tokens = it->second;
      if (tokens.empty() && sent) break;
      if (tokens.empty()) tokens[d.token];
      std::vector<std::string> payloads, ids;
      for (const auto& [token, entries] : tokens) {
        d.token = token;
        payloads.push_back(encode_fetched(FetchedTask{d, r}));
        ids.insert(ids.end(), entries.begin(), entries.end());
      }
      co_await process->push(payloads);
      // Entries only ever join the task's lists: those sent are their first ones. What came
      // while the page went out is sent on the next turn.
      it = held.find(key);
      if (it != held.end()) {
        for (const auto& [token, entries] : tokens) {
          auto now = it->second.find(token);
          if (now == it->second.end()) continue;
          now->second.erase(now->second.begin(),
                            now->second.begin() + std::min(now->second.size(), entries.size()));
          if (now->second.empty()) it->second.erase(now);
        }
        if (it->second.empty()) held.erase(it);
      }
      co_await fetch->ack(ids);
      if (!sent) ++summary.handled;
    }
  };
  // Politeness and robots.txt shared by every fetcher of the crawl, through Redis.
  HostLeasesOptions lo;
  lo.ns = o.ns;
  lo.per_host = std::max<size_t>(1, o.hosts.per_host);
  lo.delay = o.hosts.delay;
  // A killed fetcher's host slots and robots.txt lock pass to the others after a lease, as its
  // stream entries do (a running fetch renews its slot every third of it).
  lo.lease_ttl = o.lease;
  HostLeases leases(redis, lo);
  SharedRobotsOptions ro;
  ro.ns = o.ns;
  ro.lock_ttl = o.lease;
  SharedRobots robots(redis, ro);
  FetchStageOptions hosts = o.hosts;
  hosts.capacity = concurrency * 2;
  hosts.user_agent = fetcher.options().user_agent;
  hosts.host_leases = &leases;
  hosts.shared_robots = &robots;
  Event room;
  std::vector<TaskHandle<void>> parked;
  FetchStage stage(
      fetcher, std::move(hosts),
      [&](Dispatch d, FetchResult r) { return hand_on(std::move(d), std::move(r)); },
      [&](Dispatch d, const UnavailableHost& host) {
        // Its try fails here (the scheduler retries it on schedule).
        FetchResult r;
        r.orig_url = r.url = d.task.url;
        r.error = "host unavailable: " + host.message;
        r.error_kind = host.kind;
        parked.push_back(spawn(hand_on(std::move(d), std::move(r))));
      });
  stage.on_room = [&room] { room.set(); };

  std::vector<TaskHandle<void>> workers;
  for (size_t i = 0; i < concurrency; ++i) workers.push_back(spawn(stage.worker()));
  // The leases of what is being fetched, renewed before they pass.
  auto renew = [&]() -> Task<void> {
    for (;;) {
      co_await sleep(o.lease / 3);
      std::vector<std::string> ids;
      for (const auto& [key, tokens] : held)
        for (const auto& [token, entries] : tokens)
          ids.insert(ids.end(), entries.begin(), entries.end());
      if (!ids.empty()) co_await fetch->renew(ids);
    }
  };
  workers.push_back(spawn(renew()));

  std::exception_ptr failure;
  try {
    while (!stop.is_set()) {
      size_t free = stage.room();
      if (free == 0) {
        room.clear();
        try {
          co_await room.wait(kTakeBlock);
        } catch (const TimeoutError&) {
        }
        continue;
      }
      std::vector<StreamDelivery> batch =
          co_await take(*fetch, std::min(free, o.batch), kTakeBlock);
      if (batch.empty()) {
        if (stage.idle() && held.empty() && co_await may_leave(redis, o, *fetch)) break;
        continue;
      }
      for (StreamDelivery& entry : batch) {
        Dispatch d;
        try {
          d = decode_dispatch(entry.payload);
        } catch (const InvalidArgumentError& e) {
          warn("fetcher: dispatch " + entry.id + ": " + e.what());
          continue;
        }
        auto& tokens = held[key_of(d)];
        bool fetching = !tokens.empty();
        tokens[d.token].push_back(entry.id);
        if (!fetching) stage.push(std::move(d));
      }
    }
  } catch (...) {
    failure = std::current_exception();
  }
  for (TaskHandle<void>& w : workers) w.kill();
  for (TaskHandle<void>& w : workers) co_await w.join();
  for (TaskHandle<void>& p : parked) co_await p.join();
  if (failure) std::rethrow_exception(failure);
  summary.stopped = stop.is_set();
  co_await registry.leave();
  co_return summary;
}

// --- processor -----------------------------------------------------------------------------

Task<ComponentSummary> run_processor(ClusterOptions o, std::vector<ProjectRuntime*> projects,
                                     Event& stop) {
  RedisClient redis(redis_options(o, ComponentRole::Processor));
  auto process = open_queue(redis, o, "process");
  auto outcomes = open_queue(redis, o, "outcome");
  auto results = open_queue(redis, o, "result");
  ComponentSummary summary;
  ComponentRegistry registry(redis, registry_options(o));
  co_await registry.join(ComponentRole::Processor, report_of(summary));
  std::map<std::string, ProjectRuntime*> by_name;
  for (ProjectRuntime* p : projects) by_name[p->project()] = p;

  while (!stop.is_set()) {
    std::vector<StreamDelivery> batch = co_await take(*process, o.batch, kTakeBlock);
    if (batch.empty()) {
      if (co_await may_leave(redis, o, *process)) break;
      continue;
    }
    // Decoded first, then processed: as many at once as the runtime takes (a runtime on a thread
    // of its own finds the next page waiting), the outputs kept in the batch's order.
    std::vector<ProcessItem> items;
    items.reserve(batch.size());
    for (StreamDelivery& entry : batch) {
      FetchedTask f;
      try {
        f = decode_fetched(entry.payload);
      } catch (const InvalidArgumentError& e) {
        warn("processor: fetched page " + entry.id + ": " + e.what());
        continue;
      }
      auto it = by_name.find(f.dispatch.task.project);
      if (it == by_name.end()) {
        // Another processor may run it: left for the lease, then the dead letters.
        warn("processor: a page of project '" + f.dispatch.task.project +
             "', which this processor does not run");
        continue;
      }
      ProcessItem item;
      item.id = std::move(entry.id);
      item.fetched = std::move(f);
      item.runtime = it->second;
      items.push_back(std::move(item));
    }
    for (size_t at = 0; at < items.size();) {
      size_t wave = std::max<size_t>(1, items[at].runtime->processing_slots());
      std::vector<TaskHandle<void>> running;
      for (size_t i = at; i < items.size() && i < at + wave; ++i)
        running.push_back(spawn(process_into(items[i])));
      for (TaskHandle<void>& h : running) co_await h.join();
      for (TaskHandle<void>& h : running)
        if (std::exception_ptr e = h.exception()) std::rethrow_exception(e);
      at += running.size();
    }
    std::vector<std::string> outs, stored, settled;
    for (ProcessItem& item : items) {
      ProcessOutput& out = item.output;
      if (out.result) {
        out.result->updatetime = wall_clock_seconds();
        ProcessOutput result_only;
        result_only.status.project = out.status.project;
        result_only.status.taskid = out.status.taskid;
        result_only.result = std::move(out.result);
        stored.push_back(encode_output(result_only));
        out.result.reset();
      }
      outs.push_back(encode_output(out));
      settled.push_back(item.id);
    }
    co_await outcomes->push(outs);
    co_await results->push(stored);
    co_await process->ack(settled);
    summary.handled += settled.size();
  }
  summary.stopped = stop.is_set();
  co_await registry.leave();
  co_return summary;
}

// --- result worker -------------------------------------------------------------------------

Task<ComponentSummary> run_result_worker(ClusterOptions o, Event& stop) {
  std::string location = o.resultdb.empty() ? o.taskdb : o.resultdb;
  if (location.empty() && !o.store)
    throw InvalidArgumentError("the result worker needs a store: give --resultdb or --taskdb");
  RedisClient redis(redis_options(o, ComponentRole::ResultWorker));
  EngineStoreOptions opening;
  opening.label = "result store";
  std::unique_ptr<EngineStore> owned;
  if (!o.store) owned = co_await open_engine_store(location, opening);
  EngineStore* store = o.store ? o.store : owned.get();
  ResultWorker writer(*store, o.jsonl);
  co_await writer.open();
  // Committed at once: an open transaction would hold its tables from the scheduler's start.
  co_await store->commit();
  auto results = open_queue(redis, o, "result");
  ComponentSummary summary;
  ComponentRegistry registry(redis, registry_options(o));
  co_await registry.join(ComponentRole::ResultWorker, report_of(summary));

  while (!stop.is_set()) {
    std::vector<StreamDelivery> batch = co_await take(*results, o.batch, kTakeBlock);
    if (batch.empty()) {
      if (co_await may_leave(redis, o, *results)) break;
      continue;
    }
    std::vector<std::string> settled;
    for (const StreamDelivery& entry : batch) {
      ProcessOutput out;
      try {
        out = decode_output(entry.payload);
      } catch (const InvalidArgumentError& e) {
        warn("result worker: result " + entry.id + ": " + e.what());
        continue;
      }
      if (out.result) {
        if (co_await already_stored(*store, out.status.project, *out.result))
          co_await store->upsert(out.status.project, *out.result);
        else
          co_await writer.write(out.status.project, *out.result);
      }
      settled.push_back(entry.id);
    }
    co_await writer.checkpoint();
    co_await store->commit();
    co_await results->ack(settled);
    summary.handled += settled.size();
  }
  summary.stopped = stop.is_set();
  co_await registry.leave();
  co_return summary;
}

}  // namespace squall
