// The engine's components over Redis streams: each one a loop of take, hand on, acknowledge.
#include "squall/engine/cluster.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <unordered_map>
#include <utility>

#include "cluster_cron.h"
#include "squall/core/error.h"
#include "squall/core/future.h"
#include "squall/core/log.h"
#include "squall/core/seconds.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/engine/cluster_keys.h"
#include "squall/engine/component_registry.h"
#include "squall/engine/engine_message.h"
#include "squall/engine/engine_store.h"
#include "squall/engine/host_leases.h"
#include "squall/engine/pg_store.h"
#include "squall/engine/processor.h"
#include "squall/engine/result_worker.h"
#include "squall/engine/shared_robots.h"
#include "squall/engine/stream_queue.h"
#include "squall/engine/token_bucket.h"
#include "squall/net/postgres_result.h"
#include "squall/net/redis.h"

namespace squall {

namespace {

// How long a take() waits for entries: the latency of noticing `stop` and the done mark.
constexpr Duration kTakeBlock = std::chrono::milliseconds(200);
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
// once the crawl is marked done, and the scheduler beside it (if any) has returned: it may leave.
Task<bool> may_leave(RedisClient& redis, const ClusterOptions& o, StreamQueue& queue) {
  if (!o.exit_when_done) co_return false;
  if (o.own_scheduler_ended && !o.own_scheduler_ended->is_set()) co_return false;
  if (!co_await crawl_done(redis, o)) co_return false;
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

// How long a scheduler or a result worker that lost its store (PostgreSQL restarting, failing
// over, unreachable) keeps connecting again before it gives up and ends with the last error;
// and how often it says, meanwhile, that it is still trying.
constexpr Duration kStoreOutage = std::chrono::minutes(10);
constexpr Duration kStoreOutageLog = std::chrono::seconds(10);
constexpr Duration kStoreRetryFirst = std::chrono::milliseconds(100);
constexpr Duration kStoreRetryMax = std::chrono::seconds(2);

// Whether `e` is the store's server gone away (a restart's sessions ended, the connection lost,
// a connection refused), which a new connection may mend: anything else is a real failure.
bool store_lost(const PgError& e) {
  return e.kind() == ErrorKind::Closed || e.kind() == ErrorKind::Connect;
}

// Waits `d`, or less when `stop` is set meanwhile.
Task<void> pause(Event& stop, Duration d) {
  try {
    co_await stop.wait(d);
  } catch (const TimeoutError&) {
  }
}

// The store at `location` opened again after `who` lost it (`why`): tried with a backoff
// (kStoreRetryFirst doubling up to kStoreRetryMax) for kStoreOutage, after which the last error
// is thrown. Null when `stop` came first.
Task<std::unique_ptr<EngineStore>> reopen_store(const std::string& location,
                                                const EngineStoreOptions& opening,
                                                const std::string& who, const std::string& why,
                                                Event& stop) {
  log(LogLevel::Warning,
      who + ": lost its store: " + why + ": connecting again (for up to " +
          std::to_string(std::chrono::duration_cast<std::chrono::minutes>(kStoreOutage).count()) +
          " min)");
  const TimePoint began = Clock::now();
  TimePoint next_log = began + kStoreOutageLog;
  Duration delay = kStoreRetryFirst;
  for (int attempt = 1; !stop.is_set(); ++attempt) {
    std::exception_ptr last;
    std::string failed;
    try {
      std::unique_ptr<EngineStore> store = co_await open_engine_store(location, opening);
      log(LogLevel::Info, who + ": " + store->describe() + " is back after " +
                              std::to_string(attempt) +
                              " attempt(s): going on from its last commit");
      co_return store;
    } catch (const PgError& e) {
      if (!store_lost(e)) throw;
      last = std::current_exception();
      failed = e.what();
    } catch (const TimeoutError& e) {
      last = std::current_exception();
      failed = e.what();
    }
    if (Clock::now() - began >= kStoreOutage) std::rethrow_exception(last);
    if (Clock::now() >= next_log) {
      log(LogLevel::Warning, who + ": still cannot reach its store (" + std::to_string(attempt) +
                                 " attempts): " + failed);
      next_log = Clock::now() + kStoreOutageLog;
    }
    co_await pause(stop, delay);
    delay = std::min(delay * 2, kStoreRetryMax);
  }
  co_return nullptr;
}

// A push that a Redis restart cut off (kind Closed) is made again on a new connection. If the
// first one did reach Redis, its entries are there twice, which the next stage absorbs
// (at-least-once; cluster.h).
Task<void> push_again(StreamQueue& queue, std::span<const std::string> payloads) {
  for (;;) {
    std::string cut;
    try {
      co_await queue.push(payloads);
      co_return;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Closed) throw;
      cut = e.what();
    }
    log(LogLevel::Warning, "pushing to Redis: " + cut + ": pushing again");
    co_await sleep(std::chrono::milliseconds(100));
  }
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

// Pages a fetcher hands on: pushed to the process stream, then their fetch entries acknowledged,
// in batches: what the fetch workers hand on while one batch is on its way goes together in the
// next, two round trips for the lot. send() returns at once while at most `bound` pages wait,
// so that a fetch worker goes on to its next page, else once its own batch is acknowledged. A
// batch that Redis fails is logged and left: its entries stay pending, to be taken again after
// their lease.
class Relay {
 public:
  Relay(StreamQueue& from, StreamQueue& to, size_t bound) : from_(from), to_(to), bound_(bound) {}

  Task<void> send(std::vector<std::string> payloads, std::vector<std::string> ids) {
    if (!next_) next_ = std::make_unique<Batch>();
    waiting_ += payloads.size();
    std::move(payloads.begin(), payloads.end(), std::back_inserter(next_->payloads));
    std::move(ids.begin(), ids.end(), std::back_inserter(next_->ids));
    Future<void> sent = next_->done.future();
    if (!flusher_ || flusher_->done()) flusher_ = spawn(flush());
    if (waiting_ > bound_) co_await sent;
  }

  // Nothing waits to be pushed or acknowledged.
  bool idle() const noexcept { return waiting_ == 0; }
  // Waits for the batches on their way.
  Task<void> drain() {
    if (flusher_) co_await flusher_->join();
  }

 private:
  struct Batch {
    std::vector<std::string> payloads, ids;
    Promise<void> done;
  };
  Task<void> flush() {
    while (next_) {
      std::unique_ptr<Batch> b = std::move(next_);
      try {
        co_await push_again(to_, b->payloads);
        co_await from_.ack(b->ids);
      } catch (const Error& e) {
        log(LogLevel::Warning, "fetcher: " + std::to_string(b->payloads.size()) +
                                   " tasks not handed on (they are fetched again after the "
                                   "lease): " +
                                   e.what());
      }
      waiting_ -= b->payloads.size();
      b->done.set_value();
    }
  }

  StreamQueue& from_;
  StreamQueue& to_;
  size_t bound_;
  size_t waiting_ = 0;
  std::unique_ptr<Batch> next_;
  std::optional<TaskHandle<void>> flusher_;
};

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

// The message of a stream entry, or nothing when it is malformed: that one is logged as `what`
// and left pending, to go to the dead letters after max_deliveries, kept for a look.
template <typename Message>
std::optional<Message> decoded(const StreamDelivery& entry,
                               Message (*decode)(std::string_view bytes), std::string_view what) {
  try {
    return decode(entry.payload);
  } catch (const InvalidArgumentError& e) {
    warn(std::string(what) + " " + entry.id + ": " + e.what());
    return std::nullopt;
  }
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

namespace {

// What a scheduler process keeps across the stores it opens: one per connection to its task
// store, since a lost connection loses the open transaction and with it what the Scheduler
// held in memory (windows, tokens, counters).
struct SchedulerProcess {
  const ClusterOptions& o;
  const std::vector<ProjectRuntime*>& projects;
  Event& stop;
  RedisClient& redis;
  StreamQueue& fetch;
  StreamQueue& outcomes;
  ComponentSummary& summary;
  bool fresh = false;    // this is the process' first store, started over
  bool started = false;  // the projects' on_start is requested and committed
};

// One scheduler over `store`, as a fresh start of the process would be: it claims the projects
// (standing by while another scheduler holds them), builds its Scheduler from what the store
// committed and dispatches with tokens from a new base, so that outcomes of what it dispatched
// over an earlier store match none. Returns once the crawl is done or `stop` is set; throws
// what the store and Redis throw (a lost store's PgError among them).
Task<void> schedule(SchedulerProcess& p, EngineStore& store) {
  const ClusterOptions& o = p.o;
  ComponentSummary& summary = p.summary;
  // Nothing is held open while standing by: the running scheduler's transactions go on.
  co_await store.commit();
  for (ProjectRuntime* project : p.projects)
    if (!co_await stand_by(store, project->project(), p.stop)) co_return;
  Scheduler scheduler(store, o.scheduler);
  std::string done = done_key(o);
  // A crawl already marked done (its scheduler killed after marking it) is not finished twice:
  // its on_finished runs again only if this start finds something more to do, since the other
  // components may have left already.
  bool was_done = !p.fresh && co_await crawl_done(p.redis, o);
  co_await p.redis.command("DEL", done);
  const uint64_t base = token_base();

  std::vector<CrawlTask> starts;
  for (ProjectRuntime* project : p.projects) {
    ProjectInfo info;
    info.name = project->project();
    info.status = ProjectStatus::Running;
    info.rate = TokenBucket::kUnlimited;
    info.burst = TokenBucket::kUnlimited;
    info.updatetime = scheduler.now();
    co_await store.put_project(info);
    co_await scheduler.add_project(info, project->retry_delay());
    starts.push_back(project->start_task());
  }
  if (!p.started) co_await scheduler.request(std::move(starts));
  co_await scheduler.commit();
  p.started = true;
  detail::ClusterCron cron(scheduler, store, p.projects, o.scheduler.processing_timeout);
  co_await cron.load();
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
      std::vector<StreamDelivery> batch = co_await take(p.outcomes, o.batch, kTakeBlock);
      if (batch.empty()) continue;
      std::vector<std::string> settled;
      for (const StreamDelivery& d : batch) {
        if (engine_message_kind(d.payload) == EngineMessageKind::Parked) {
          // A task of a host a fetcher gave up on: back untried, as the embedded engine parks it.
          std::optional<ParkedTask> parked = decoded(d, decode_parked, "scheduler: parked task");
          if (!parked) continue;
          Dispatch back;
          back.task.project = std::move(parked->project);
          back.task.taskid = std::move(parked->taskid);
          back.token = parked->token - base;
          if (scheduler.release(back)) ++summary.parked;
          settled.push_back(d.id);
          continue;
        }
        std::optional<ProcessOutput> out = decoded(d, decode_output, "scheduler: outcome");
        if (!out) continue;
        co_await scheduler.request(std::move(out->follows));
        out->status.token -= base;
        if (!cron.settle(out->status)) co_await scheduler.outcome(std::move(out->status));
        settled.push_back(d.id);
      }
      co_await scheduler.commit();
      co_await p.outcomes.ack(settled);
      wake.set();
    }
  };
  TaskHandle<void> outcome_task = spawn(apply_outcomes());

  bool finish_sent = was_done;
  std::exception_ptr failure;
  try {
    while (!p.stop.is_set()) {
      if (outcome_task.done()) {
        std::exception_ptr e = outcome_task.exception();
        std::rethrow_exception(e ? e
                                 : std::make_exception_ptr(InvalidStateError("outcomes ended")));
      }
      // The @every jobs' ticks due, whatever the room: a few a second at most.
      if (std::vector<Dispatch> ticks = co_await cron.fire(); !ticks.empty()) {
        std::vector<std::string> payloads;
        for (Dispatch& d : ticks) {
          d.token += base;
          payloads.push_back(encode_dispatch(d));
        }
        co_await push_again(p.fetch, payloads);
      }
      uint64_t room = co_await p.fetch.room();
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
        co_await push_again(p.fetch, payloads);
        summary.handled += batch.size();
        continue;
      }
      if (room > 0 && scheduler.idle() && !cron.in_flight()) {
        if (!finish_sent) {
          finish_sent = true;
          std::vector<CrawlTask> finishing;
          for (ProjectRuntime* project : p.projects)
            finishing.push_back(Processor::finish_task(project->project()));
          co_await scheduler.request(std::move(finishing));
          co_await scheduler.commit();
          continue;
        }
        // A project of @every jobs is never done, as in `squall run`: it runs until stopped.
        if (o.exit_when_done && !cron.has_jobs()) break;
      }
      // Nothing to dispatch now: an outcome, a due task or tick, or room in the fetch stream
      // changes it. While the fetch stream is full only room (or a tick) does: what the
      // scheduler has ready is due now, and waiting for it would spin on room().
      wake.clear();
      Duration wait = kTakeBlock;
      std::optional<double> at = cron.next_tick();
      if (room == 0) {
        wait = kRoomPoll;
      } else if (std::optional<double> due = scheduler.next_wake()) {
        at = at ? std::min(*at, *due) : *due;
      }
      if (at) wait = std::min(wait, from_seconds(std::max(0.0, *at - scheduler.now())));
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
  if (!p.stop.is_set()) co_await p.redis.command("SET", done, "1");
}

// `fresh` over a store that schedulers share: the projects claimed first, and refused while
// another scheduler runs one (its crawl would be wiped under it); then the tables dropped, on
// the connection that holds the claims.
Task<void> start_over_claimed(EngineStore& store, const std::vector<ProjectRuntime*>& projects) {
  auto* shared = dynamic_cast<PgStore*>(&store);
  if (!shared) throw InvalidStateError("scheduler: a shared store that is not PostgreSQL");
  co_await store.commit();
  for (ProjectRuntime* project : projects) {
    std::string name = project->project();
    bool refused = false;
    try {
      co_await store.claim_project(name);
    } catch (const InvalidArgumentError&) {
      refused = true;
    }
    if (refused)
      throw InvalidArgumentError("project '" + name + "' is run by another scheduler on " +
                                 store.describe() +
                                 ": --fresh would wipe its crawl; stop that scheduler first, or "
                                 "start this one without --fresh to stand by for it");
  }
  co_await shared->start_over();
}

}  // namespace

double processing_timeout_for(Duration lease) {
  return std::max(4 * to_seconds(lease), 120.0);
}

Task<ComponentSummary> run_scheduler(ClusterOptions o, std::vector<ProjectRuntime*> projects,
                                     Event& stop) {
  if (o.taskdb.empty() && !o.store)
    throw InvalidArgumentError("the scheduler needs its task store: give --taskdb");
  RedisClient redis(redis_options(o, ComponentRole::Scheduler));
  const bool shared = !o.store && is_shared_store(o.taskdb);
  EngineStoreOptions opening;
  // A shared store is started over only once this scheduler holds its projects (below).
  opening.start_over = o.fresh && !shared;
  opening.label = "task store";
  std::unique_ptr<EngineStore> owned;
  if (!o.store) owned = co_await open_engine_store(o.taskdb, opening);
  EngineStore* store = o.store ? o.store : owned.get();
  opening.start_over = false;
  if (o.fresh && shared) co_await start_over_claimed(*store, projects);
  auto fetch = open_queue(redis, o, "fetch");
  auto outcomes = open_queue(redis, o, "outcome");
  ComponentSummary summary;
  ComponentRegistry registry(redis, registry_options(o));
  co_await registry.join(ComponentRole::Scheduler, report_of(summary));
  SchedulerProcess process{o, projects, stop, redis, *fetch, *outcomes, summary};
  process.fresh = o.fresh;
  while (store) {
    std::string lost;
    try {
      co_await schedule(process, *store);
      break;
    } catch (const PgError& e) {
      // A store given by the caller is the caller's to open again.
      if (!store_lost(e) || o.store) throw;
      lost = e.what();
    }
    process.fresh = false;
    owned.reset();
    owned = co_await reopen_store(o.taskdb, opening, "scheduler", lost, stop);
    store = owned.get();
  }
  summary.stopped = stop.is_set();
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
  Relay relay(*fetch, *process, concurrency);
  // Parked tasks go to the scheduler beside the outcomes, their entries acknowledged once there.
  auto outcomes = open_queue(redis, o, "outcome");
  Relay parking(*fetch, *outcomes, concurrency);
  // The page goes on once for each token its task was dispatched with (the entries that came
  // while it was fetched: the scheduler applies the one it holds live, the others are stale and
  // change nothing), and those entries are acknowledged once it is pushed.
  auto hand_on = [&](Dispatch d, FetchResult r) -> Task<void> {
    std::vector<std::string> payloads, ids;
    auto it = held.find(key_of(d));
    if (it == held.end()) {
      payloads.push_back(encode_fetched(FetchedTask{d, r}));
    } else {
      for (const auto& [token, entries] : it->second) {
        d.token = token;
        payloads.push_back(encode_fetched(FetchedTask{d, r}));
        ids.insert(ids.end(), entries.begin(), entries.end());
      }
      held.erase(it);
    }
    ++summary.handled;
    co_await relay.send(std::move(payloads), std::move(ids));
  };
  // A task of a host given up on goes back to the scheduler untried, once per token as a page
  // would go on, for the scheduler to release the one it holds live.
  auto park = [&](Dispatch d, UnavailableHost host) -> Task<void> {
    ParkedTask back;
    back.project = d.task.project;
    back.taskid = d.task.taskid;
    back.token = d.token;
    back.host = std::move(host.host);
    back.reason = host.kind + ": " + host.message;
    std::vector<std::string> payloads, ids;
    auto it = held.find(key_of(d));
    if (it == held.end()) {
      payloads.push_back(encode_parked(back));
    } else {
      for (const auto& [token, entries] : it->second) {
        back.token = token;
        payloads.push_back(encode_parked(back));
        ids.insert(ids.end(), entries.begin(), entries.end());
      }
      held.erase(it);
    }
    ++summary.parked;
    co_await parking.send(std::move(payloads), std::move(ids));
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
        parked.push_back(spawn(park(std::move(d), host)));
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
        if (stage.idle() && held.empty() && relay.idle() && parking.idle() &&
            co_await may_leave(redis, o, *fetch))
          break;
        continue;
      }
      for (StreamDelivery& entry : batch) {
        std::optional<Dispatch> dispatch = decoded(entry, decode_dispatch, "fetcher: dispatch");
        if (!dispatch) continue;
        Dispatch& d = *dispatch;
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
  co_await relay.drain();
  co_await parking.drain();
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

  // A batch's outcomes and results pushed (side by side, one round trip), then its pages
  // acknowledged; the next batch is taken and processed meanwhile, and handed on only after.
  auto hand_on = [&](std::vector<std::string> outs, std::vector<std::string> stored,
                     std::vector<std::string> settled) -> Task<void> {
    TaskHandle<void> pushing = spawn(push_again(*outcomes, outs));
    std::exception_ptr failed;
    try {
      co_await push_again(*results, stored);
    } catch (...) {
      failed = std::current_exception();
    }
    co_await pushing.join();
    if (std::exception_ptr e = pushing.exception()) std::rethrow_exception(e);
    if (failed) std::rethrow_exception(failed);
    co_await process->ack(settled);
  };
  std::optional<TaskHandle<void>> handing;
  auto handed = [&]() -> Task<void> {
    if (!handing) co_return;
    TaskHandle<void> h = std::move(*handing);
    handing.reset();
    co_await h;
  };

  std::exception_ptr failure;
  try {
    while (!stop.is_set()) {
      std::vector<StreamDelivery> batch = co_await take(*process, o.batch, kTakeBlock);
      if (batch.empty()) {
        co_await handed();
        if (co_await may_leave(redis, o, *process)) break;
        continue;
      }
      // Decoded first, then processed: as many at once as the runtime takes (a runtime on a thread
      // of its own finds the next page waiting), the outputs kept in the batch's order.
      std::vector<ProcessItem> items;
      items.reserve(batch.size());
      for (StreamDelivery& entry : batch) {
        std::optional<FetchedTask> page = decoded(entry, decode_fetched, "processor: fetched page");
        if (!page) continue;
        FetchedTask& f = *page;
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
      co_await handed();
      summary.handled += settled.size();
      handing = spawn(hand_on(std::move(outs), std::move(stored), std::move(settled)));
    }
  } catch (...) {
    failure = std::current_exception();
  }
  // What is on its way is waited for: it uses the queues.
  if (handing) co_await handing->join();
  if (failure) std::rethrow_exception(failure);
  co_await handed();
  summary.stopped = stop.is_set();
  co_await registry.leave();
  co_return summary;
}

// --- result worker -------------------------------------------------------------------------

namespace {

// Stores what the result stream brings into `store` until the crawl is done or `stop` is set;
// throws what the store and Redis throw (a lost store's PgError among them). A batch taken is
// stored at once (its stored results read in one round trip, upserted in one more), committed
// with the export's size, then acknowledged. The export is cut back to what `store` committed
// first, so after a lost store the results not committed then (still pending in the stream) are
// written once more, and once.
Task<void> store_results(const ClusterOptions& o, EngineStore& store, StreamQueue& results,
                         RedisClient& redis, ComponentSummary& summary, Event& stop) {
  ResultWorker writer(store, o.jsonl, nullptr, o.export_line);
  co_await writer.open();
  // Committed at once: an open transaction would hold its tables from the scheduler's start.
  co_await store.commit();
  while (!stop.is_set()) {
    std::vector<StreamDelivery> batch = co_await take(results, o.batch, kTakeBlock);
    if (batch.empty()) {
      if (co_await may_leave(redis, o, results)) break;
      continue;
    }
    std::vector<std::string> settled;
    std::vector<ProjectResult> stored;
    for (const StreamDelivery& entry : batch) {
      std::optional<ProcessOutput> out = decoded(entry, decode_output, "result worker: result");
      if (!out) continue;
      if (out->result) {
        ProjectResult& r = stored.emplace_back();
        r.project = std::move(out->status.project);
        r.result = std::move(*out->result);
      }
      settled.push_back(entry.id);
    }
    co_await writer.write_batch(std::move(stored));
    co_await writer.checkpoint();
    co_await store.commit();
    co_await results.ack(settled);
    summary.handled += settled.size();
  }
}

}  // namespace

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
  auto results = open_queue(redis, o, "result");
  ComponentSummary summary;
  ComponentRegistry registry(redis, registry_options(o));
  co_await registry.join(ComponentRole::ResultWorker, report_of(summary));
  while (store) {
    std::string lost;
    try {
      co_await store_results(o, *store, *results, redis, summary, stop);
      break;
    } catch (const PgError& e) {
      if (!store_lost(e) || o.store) throw;
      lost = e.what();
    }
    owned.reset();
    owned = co_await reopen_store(location, opening, "result worker", lost, stop);
    store = owned.get();
  }
  summary.stopped = stop.is_set();
  co_await registry.leave();
  co_return summary;
}

}  // namespace squall
