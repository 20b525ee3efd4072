// Scheduler: windows over the store's two orders, tokens for work in flight, counters.
#include "squall/engine/scheduler.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <utility>

#include "squall/core/log.h"
#include "squall/crawl/seen.h"
#include "squall/engine/known_taskids.h"

namespace squall {

using nlohmann::json;

double wall_clock_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

StatusPack StatusPack::of(const Dispatch& d, bool ok, JsonText track) {
  StatusPack pack;
  pack.project = d.task.project;
  pack.taskid = d.task.taskid;
  pack.token = d.token;
  pack.ok = ok;
  pack.track = std::move(track);
  return pack;
}

namespace {

// Whether a request for a known taskid could be anything but dropped: force_update, cancel, an
// itag or an age ask the rules to look at the stored task.
bool may_restart(const TaskSchedule& s) {
  return s.force_update || s.cancel || !s.itag.empty() || s.has_age();
}

struct ReadyBefore {
  bool operator()(const ReadyKey& a, const ReadyKey& b) const noexcept { return a.before(b); }
};
struct DelayBefore {
  bool operator()(const DelayKey& a, const DelayKey& b) const noexcept { return a.before(b); }
};

ReadyKey key_of(const QueuedTask& q, ReadyKey*) {
  return q.ready_key();
}
DelayKey key_of(const QueuedTask& q, DelayKey*) {
  return q.delay_key();
}

// The part of one of the store's orders held in memory.
//
// `through` is the key of the last task read from the store: every stored task of this order at
// or before it is held here or is in work. `complete` says no stored task after it is missing.
// A task entering the order is held when it sorts at or before `through` (it must be), or when
// the window is complete and has room; otherwise the store keeps it for a later refill.
template <class Key, class Before>
struct Window {
  std::map<Key, QueuedTask, Before> tasks;
  std::unordered_map<std::string, Key> ids;
  std::optional<Key> through;
  bool complete = false;

  bool empty() const noexcept { return tasks.empty(); }
  size_t size() const noexcept { return tasks.size(); }
  bool holds(const std::string& taskid) const { return ids.count(taskid) != 0; }
  const QueuedTask* find(const std::string& taskid) const {
    auto it = ids.find(taskid);
    return it == ids.end() ? nullptr : &tasks.at(it->second);
  }

  void add(QueuedTask q) {
    Key k = key_of(q, static_cast<Key*>(nullptr));
    ids[q.task.taskid] = k;
    tasks.emplace(k, std::move(q));
  }

  void admit(QueuedTask q, size_t limit) {
    Key k = key_of(q, static_cast<Key*>(nullptr));
    if (through && !Before{}(*through, k)) {
      add(std::move(q));
      while (tasks.size() > limit) {
        auto last = std::prev(tasks.end());
        ids.erase(last->second.task.taskid);
        tasks.erase(last);
        through = std::prev(tasks.end())->first;
        complete = false;
      }
    } else if (complete && tasks.size() < limit) {
      add(std::move(q));
      through = k;
    } else {
      complete = false;
    }
  }

  std::optional<QueuedTask> take(const std::string& taskid) {
    auto it = ids.find(taskid);
    if (it == ids.end()) return std::nullopt;
    auto node = tasks.extract(it->second);
    ids.erase(it);
    return std::move(node.mapped());
  }

  QueuedTask pop_first() {
    auto node = tasks.extract(tasks.begin());
    ids.erase(node.mapped().task.taskid);
    return std::move(node.mapped());
  }

  // After a read of `requested` rows following `through`; `busy` says which are in work.
  template <class Busy>
  void loaded(std::vector<QueuedTask>& rows, size_t requested, Busy busy) {
    for (QueuedTask& q : rows) {
      through = key_of(q, static_cast<Key*>(nullptr));
      if (!busy(q.task.taskid) && !holds(q.task.taskid)) add(std::move(q));
    }
    complete = rows.size() < requested;
  }
};

}  // namespace

struct Scheduler::ProjectState {
  ProjectInfo info;
  RetryDelays delays;
  TokenBucket bucket;
  FailurePause pause;
  TaskCounters counters;
  bool counters_dirty = false;
  bool warned_inactive = false;

  Window<ReadyKey, ReadyBefore> ready;
  Window<DelayKey, DelayBefore> delayed;

  // A dispatched task as it was, but for its fetch and process dicts: they went with the
  // dispatch, unused here unless the task comes back (a retry, a recrawl, a put-back or a
  // timeout), and read back from the store then.
  struct InWork {
    uint64_t token = 0;
    QueuedTask queued;
  };
  std::unordered_map<std::string, InWork> in_work;
  struct Deadline {
    double at;
    std::string taskid;
    uint64_t token;
  };
  // In dispatch order, so earliest first. An outcome leaves its deadline here (finding it would
  // cost a search); such stale ones are dropped once they outnumber the tasks in work, so this
  // holds at most about twice what is in work instead of every dispatch of the last
  // processing_timeout (600 s of dispatches at 100,000/s would be 60 M deadlines).
  std::deque<Deadline> deadlines;

  void add_deadline(Deadline d) {
    if (deadlines.size() >= 2 * in_work.size() + kDeadlineSlack) {
      std::erase_if(deadlines, [this](const Deadline& x) {
        auto it = in_work.find(x.taskid);
        return it == in_work.end() || it->second.token != x.token;
      });
    }
    deadlines.push_back(std::move(d));
  }
  static constexpr size_t kDeadlineSlack = 1024;

  std::vector<CrawlTask> postponed;  // force_update requests for tasks in work
  // Tasks in no window and not in work while the store is written or read for them: a retry, a
  // timed-out task, a delayed task come due. idle() counts them, as a store's await lets the
  // rest of the engine run meanwhile.
  size_t between_windows = 0;
  KnownTaskids known;
  // `known` holds every taskid of the project (it had none when added, and the cache was never
  // emptied), so a taskid missing from it is new without asking the store.
  bool known_complete = false;

  explicit ProjectState(FailurePauseOptions pause_options) : pause(pause_options) {}

  bool busy(const std::string& taskid) const { return in_work.count(taskid) != 0; }
  // A request the project drops unread: its taskid is known, and no rule could restart it.
  bool drops_known(const CrawlTask& task) const {
    return drops_known(task, SeenSet::hash(task.taskid));
  }
  // The same, given the taskid's hash (KnownTaskids::contains_hash).
  bool drops_known(const CrawlTask& task, uint64_t hash) const {
    return !may_restart(task.schedule) && known.contains_hash(hash);
  }

  void count(CounterKind event, double now) {
    counters.event(event, now);
    counters_dirty = true;
  }
  void move_total(std::optional<CounterKind> from, std::optional<CounterKind> to) {
    if (from) counters.total(*from, -1);
    if (to) counters.total(*to, +1);
    counters_dirty = true;
  }
};

namespace {

// Counts a task in ProjectState::between_windows for as long as it lives.
class BetweenWindows {
 public:
  explicit BetweenWindows(size_t& count) : count_(count) { ++count_; }
  ~BetweenWindows() { --count_; }
  BetweenWindows(const BetweenWindows&) = delete;
  BetweenWindows& operator=(const BetweenWindows&) = delete;

 private:
  size_t& count_;
};

// The "all" counter a task of this status is counted in.
CounterKind total_of(TaskStatus status) {
  switch (status) {
    case TaskStatus::Active:
      return CounterKind::Pending;
    case TaskStatus::Success:
      return CounterKind::Success;
    case TaskStatus::Failed:
    case TaskStatus::Bad:
      return CounterKind::Failed;
  }
  return CounterKind::Failed;
}

constexpr size_t kMaxPostponed = 10000;

}  // namespace

Scheduler::Scheduler(TaskStore& store, SchedulerOptions options)
    : store_(store), options_(std::move(options)) {
  clock_ = options_.clock ? options_.clock : EngineClock(wall_clock_seconds);
  if (options_.window == 0) options_.window = 1;
}

Scheduler::~Scheduler() = default;

Scheduler::ProjectState* Scheduler::find(const std::string& name) {
  auto it = projects_.find(name);
  return it == projects_.end() ? nullptr : it->second.get();
}

bool Scheduler::has_project(const std::string& name) const {
  return projects_.count(name) != 0;
}

const ProjectInfo* Scheduler::project(const std::string& name) const {
  auto it = projects_.find(name);
  return it == projects_.end() ? nullptr : &it->second->info;
}

Task<void> Scheduler::add_project(const ProjectInfo& info, const RetryDelays& delays) {
  if (seq_ < 0) seq_ = co_await store_.last_seq();
  std::string name = info.name;
  ProjectState* p = find(name);
  if (!p) {
    auto state = std::make_unique<ProjectState>(options_.pause);
    p = state.get();
    projects_.emplace(name, std::move(state));
    if (std::optional<json> saved = co_await store_.counters(name)) {
      p->counters.restore(*saved);
    } else {
      p->counters.set_totals(co_await store_.recount(name));
      p->counters_dirty = true;
    }
    const CounterValues& totals = p->counters.totals();
    p->known_complete = totals[static_cast<size_t>(CounterKind::Pending)] == 0 &&
                        totals[static_cast<size_t>(CounterKind::Success)] == 0 &&
                        totals[static_cast<size_t>(CounterKind::Failed)] == 0;
  }
  p->info = info;
  p->delays = delays;
  p->bucket.configure(info.active() ? info.rate : 0, info.active() ? info.burst : 0);
  p->warned_inactive = false;
}

std::optional<KnownTask> Scheduler::known_in_memory(ProjectState& p,
                                                    const std::string& taskid) const {
  const QueuedTask* q = p.ready.find(taskid);
  if (!q) q = p.delayed.find(taskid);
  bool in_work = false;
  if (!q) {
    auto it = p.in_work.find(taskid);
    if (it == p.in_work.end()) return std::nullopt;
    q = &it->second.queued;
    in_work = true;
  }
  return KnownTask{.status = TaskStatus::Active,
                   .schedule = q->task.schedule,
                   .lastcrawltime = q->task.lastcrawltime,
                   .in_work = in_work};
}

void Scheduler::forget(ProjectState& p, const std::string& taskid) {
  if (!p.ready.take(taskid)) p.delayed.take(taskid);
}

Task<void> Scheduler::place(ProjectState& p, QueuedTask queued) {
  if (queued.task.schedule.exetime > 0)
    p.delayed.admit(std::move(queued), options_.window);
  else
    p.ready.admit(std::move(queued), options_.window);
  co_return;
}

Task<RequestCounts> Scheduler::request(std::vector<CrawlTask> tasks) {
  RequestCounts counts;
  // Most batches are one project's: the last one found is kept (projects are never removed).
  ProjectState* last = nullptr;
  auto project_of = [&](const std::string& name) {
    if (!last || last->info.name != name) last = find(name);
    return last;
  };
  // The known set's slot of the task a few ahead is loaded while this one is judged; its hash
  // is kept (task j's at j % kAhead) for the lookup.
  constexpr size_t kAhead = 8;
  std::array<uint64_t, kAhead> hashes{};
  auto prefetch = [&](size_t j) {
    uint64_t& h = hashes[j % kAhead];
    h = SeenSet::hash(tasks[j].taskid);
    if (ProjectState* p = project_of(tasks[j].project)) p->known.prefetch_hash(h);
  };
  for (size_t i = 0; i < std::min(kAhead, tasks.size()); ++i) prefetch(i);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const uint64_t hash = hashes[i % kAhead];
    if (i + kAhead < tasks.size()) prefetch(i + kAhead);
    CrawlTask& task = tasks[i];
    // Most of a page's follows are taskids the project knows, with no rule that could restart
    // them: dropped here, without a handle() frame each.
    ProjectState* p = project_of(task.project);
    if (p && p->info.active() && p->drops_known(task, hash)) {
      ++counts.dropped;
      continue;
    }
    co_await handle(std::move(task), counts);
  }
  co_return counts;
}

Task<void> Scheduler::handle(CrawlTask task, RequestCounts& counts) {
  ProjectState* p = find(task.project);
  if (!p || !p->info.active()) {
    ++counts.rejected;
    if (!p || !p->warned_inactive) {
      if (p) p->warned_inactive = true;
      log(LogLevel::Warning,
          p ? "project " + task.project + " is " +
                  std::string(project_status_name(p->info.status)) +
                  ": its new tasks are dropped until it is RUNNING or DEBUG"
            : "task for unknown project " + task.project + " dropped: " + task.url);
    }
    co_return;
  }
  const TaskSchedule& s = task.schedule;
  if (p->drops_known(task)) {
    ++counts.dropped;
    co_return;
  }
  double now = clock_();
  std::optional<KnownTask> known = known_in_memory(*p, task.taskid);
  std::optional<CrawlTask> stored;
  if (!known && !(p->known_complete && !p->known.contains(task.taskid))) {
    stored = co_await store_.get(task.project, task.taskid);
    if (stored)
      known = KnownTask{.status = stored->status,
                        .schedule = stored->schedule,
                        .lastcrawltime = stored->lastcrawltime,
                        .in_work = false};
  }
  RequestVerdict verdict = judge_request(s, known, now);
  if (known || verdict == RequestVerdict::Insert) {
    if (p->known.size() >= options_.known_cache) {
      p->known.clear();
      p->known_complete = false;
    }
    p->known.insert(task.taskid);
  }

  switch (verdict) {
    case RequestVerdict::Drop:
      ++counts.dropped;
      co_return;
    case RequestVerdict::Postpone:
      if (p->postponed.size() >= kMaxPostponed) {
        ++counts.dropped;
      } else {
        p->postponed.push_back(std::move(task));
        ++counts.postponed;
      }
      co_return;
    case RequestVerdict::Insert:
    case RequestVerdict::Restart:
      break;
    case RequestVerdict::Cancel: {
      std::optional<QueuedTask> held;
      if (!stored) held = p->ready.take(task.taskid);
      if (!stored && !held) held = p->delayed.take(task.taskid);
      CrawlTask old = stored ? std::move(*stored) : std::move(held->task);
      TaskStatus was = old.status;
      old.status = TaskStatus::Bad;
      old.updatetime = now;
      co_await store_.put(old, 0);
      if (was != TaskStatus::Bad) p->move_total(total_of(was), CounterKind::Failed);
      ++counts.cancelled;
      co_return;
    }
  }

  // An inserted task is new: no task of its taskid was found, in memory or in the store.
  if (verdict == RequestVerdict::Insert && task.status != TaskStatus::Active) {
    task.updatetime = now;
    CounterKind kind = total_of(task.status);
    co_await store_.insert(task, 0);
    p->count(kind, now);
    p->move_total(std::nullopt, kind);
    ++counts.inserted;
    co_return;
  }

  // Insert or restart: the request's url, schedule, fetch and process; a restart keeps the
  // task's track and last crawl time.
  std::optional<TaskStatus> was;
  if (verdict == RequestVerdict::Restart) {
    if (stored) {
      was = stored->status;
      task.track = std::move(stored->track);
      task.lastcrawltime = stored->lastcrawltime;
    } else {
      was = TaskStatus::Active;
      std::optional<QueuedTask> held = p->ready.take(task.taskid);
      if (!held) held = p->delayed.take(task.taskid);
      if (held) {
        task.track = std::move(held->task.track);
        task.lastcrawltime = held->task.lastcrawltime;
      }
    }
  } else {
    task.track = JsonText();
    task.lastcrawltime = 0;
  }
  task.status = TaskStatus::Active;
  task.updatetime = now;
  task.schedule.force_update = false;
  if (task.schedule.exetime <= now) task.schedule.exetime = 0;
  QueuedTask queued{std::move(task), ++seq_};
  if (verdict == RequestVerdict::Insert)
    co_await store_.insert(queued.task, queued.seq);
  else
    co_await store_.put(queued.task, queued.seq);
  if (was != TaskStatus::Active) {
    p->count(CounterKind::Pending, now);
    p->move_total(was ? std::optional(total_of(*was)) : std::nullopt, CounterKind::Pending);
  }
  if (verdict == RequestVerdict::Insert)
    ++counts.inserted;
  else
    ++counts.restarted;
  co_await place(*p, std::move(queued));
}

Task<void> Scheduler::expire_in_work(ProjectState& p, double now) {
  while (!p.deadlines.empty() && p.deadlines.front().at <= now) {
    ProjectState::Deadline d = std::move(p.deadlines.front());
    p.deadlines.pop_front();
    auto it = p.in_work.find(d.taskid);
    if (it == p.in_work.end() || it->second.token != d.token) continue;
    log(LogLevel::Info, "task " + p.info.name + ":" + d.taskid +
                            " had no outcome within the processing timeout: dispatching it again");
    QueuedTask q = std::move(it->second.queued);
    p.in_work.erase(it);
    BetweenWindows moving(p.between_windows);
    co_await read_back_dicts(q);
    p.ready.admit(std::move(q), options_.window);
  }
}

Task<void> Scheduler::read_back_dicts(QueuedTask& q) {
  std::optional<CrawlTask> stored = co_await store_.get(q.task.project, q.task.taskid);
  q.task.fetch = stored ? std::move(stored->fetch) : TaskDict();
  q.task.process = stored ? std::move(stored->process) : TaskDict();
}

Task<void> Scheduler::promote_due(ProjectState& p, double now) {
  if (p.delayed.empty() && !p.delayed.complete) {
    size_t want = options_.window;
    std::vector<QueuedTask> rows = co_await store_.delayed(p.info.name, p.delayed.through, want);
    p.delayed.loaded(rows, want, [&](const std::string& id) { return p.busy(id); });
  }
  while (!p.delayed.empty() && p.delayed.tasks.begin()->first.exetime <= now) {
    {
      BetweenWindows moving(p.between_windows);
      QueuedTask q = p.delayed.pop_first();
      q.task.schedule.exetime = 0;
      q.seq = ++seq_;
      co_await store_.update(q.task, q.seq);
      p.ready.admit(std::move(q), options_.window);
    }
    if (p.delayed.empty() && !p.delayed.complete) {
      size_t want = options_.window;
      std::vector<QueuedTask> rows = co_await store_.delayed(p.info.name, p.delayed.through, want);
      p.delayed.loaded(rows, want, [&](const std::string& id) { return p.busy(id); });
    }
  }
}

Task<void> Scheduler::refill(ProjectState& p, double) {
  if (p.ready.complete || p.ready.size() >= options_.window / 2 + 1) co_return;
  size_t want = options_.window - p.ready.size();
  std::vector<QueuedTask> rows = co_await store_.ready(p.info.name, p.ready.through, want);
  p.ready.loaded(rows, want, [&](const std::string& id) { return p.busy(id); });
}

Task<std::vector<Dispatch>> Scheduler::select(size_t max) {
  std::vector<Dispatch> out;
  out.reserve(std::min<size_t>(max, 64));  // not moved again as it grows
  double now = clock_();
  std::vector<ProjectState*> order;
  // Round-robin from the project whose turn it is.
  for (auto it = projects_.lower_bound(turn_); it != projects_.end(); ++it)
    order.push_back(it->second.get());
  for (auto it = projects_.begin(); it != projects_.end() && it->first < turn_; ++it)
    order.push_back(it->second.get());
  for (ProjectState* p : order) {
    if (!p->info.active()) continue;
    co_await expire_in_work(*p, now);
    co_await promote_due(*p, now);
    co_await refill(*p, now);
  }
  std::string last_served;
  while (out.size() < max) {
    bool progress = false;
    for (ProjectState* p : order) {
      if (out.size() >= max) break;
      if (!p->info.active()) continue;
      if (p->ready.empty()) {
        if (p->ready.complete) continue;
        co_await refill(*p, now);
        if (p->ready.empty()) continue;
      }
      if (p->pause.allowance(now) == 0 || !p->bucket.take(now)) continue;
      QueuedTask q = p->ready.pop_first();
      p->pause.dispatched(now);
      uint64_t token = ++tokens_;
      std::string taskid = q.task.taskid;
      TaskDict fetch = std::move(q.task.fetch), process = std::move(q.task.process);
      // Read here, on the scheduler's thread, if they came as text: the fetcher, the processor
      // and a script's thread are given dicts already read.
      fetch.json();
      process.json();
      Dispatch d{q.task, token};
      d.task.fetch = std::move(fetch);
      d.task.process = std::move(process);
      if (auto [at, added] = p->in_work.try_emplace(taskid, token, std::move(q)); !added)
        at->second = {token, std::move(q)};  // (not moved from: try_emplace found one)
      p->add_deadline({now + options_.processing_timeout, std::move(taskid), token});
      out.push_back(std::move(d));
      last_served = p->info.name;
      progress = true;
    }
    if (!progress) break;
  }
  if (!last_served.empty()) {
    auto next = projects_.upper_bound(last_served);
    turn_ = next == projects_.end() ? std::string() : next->first;
  }
  co_return out;
}

Task<bool> Scheduler::outcome(StatusPack pack) {
  ProjectState* p = find(pack.project);
  if (!p) co_return false;
  auto it = p->in_work.find(pack.taskid);
  if (it == p->in_work.end() || it->second.token != pack.token) co_return false;
  QueuedTask q = std::move(it->second.queued);
  p->in_work.erase(it);
  double now = clock_();
  CrawlTask& t = q.task;
  t.track = std::move(pack.track);
  t.updatetime = now;
  t.lastcrawltime = now;
  OutcomeVerdict v =
      pack.ok ? judge_success(t.schedule, now) : judge_failure(t.schedule, p->delays, now);
  t.status = v.status;
  t.schedule = v.schedule;
  p->pause.outcome(pack.ok, now);
  if (pack.ok) {
    p->count(CounterKind::Success, now);
  } else if (v.retry) {
    p->count(CounterKind::Retry, now);
  } else {
    p->count(CounterKind::Failed, now);
  }
  if (t.status != TaskStatus::Active) p->move_total(CounterKind::Pending, total_of(t.status));

  if (t.status == TaskStatus::Active) {
    BetweenWindows moving(p->between_windows);
    if (t.schedule.exetime <= now) t.schedule.exetime = 0;
    q.seq = ++seq_;
    co_await store_.update(t, q.seq);
    co_await read_back_dicts(q);
    co_await place(*p, std::move(q));
  } else {
    co_await store_.update(t, q.seq);
  }

  // Requests that waited for this outcome.
  std::vector<CrawlTask> waiting;
  for (auto w = p->postponed.begin(); w != p->postponed.end();) {
    if (w->taskid == pack.taskid) {
      waiting.push_back(std::move(*w));
      w = p->postponed.erase(w);
    } else {
      ++w;
    }
  }
  RequestCounts ignored;
  for (CrawlTask& w : waiting) co_await handle(std::move(w), ignored);
  co_return true;
}

bool Scheduler::release(const Dispatch& d) {
  ProjectState* p = find(d.task.project);
  if (!p) return false;
  auto it = p->in_work.find(d.task.taskid);
  if (it == p->in_work.end() || it->second.token != d.token) return false;
  // Read from the store before the windows' cursors, it is not read again in this run.
  p->in_work.erase(it);
  return true;
}

bool Scheduler::put_back(const Dispatch& d) {
  ProjectState* p = find(d.task.project);
  if (!p) return false;
  auto it = p->in_work.find(d.task.taskid);
  if (it == p->in_work.end() || it->second.token != d.token) return false;
  QueuedTask q = std::move(it->second.queued);
  p->in_work.erase(it);
  q.task.fetch = d.task.fetch;
  q.task.process = d.task.process;
  p->ready.admit(std::move(q), options_.window);
  return true;
}

std::optional<double> Scheduler::next_wake() {
  double now = clock_();
  std::optional<double> wake;
  auto consider = [&](double at) {
    if (!wake || at < *wake) wake = at;
  };
  for (auto& [name, p] : projects_) {
    if (!p->info.active()) continue;
    if (!p->deadlines.empty()) consider(p->deadlines.front().at);
    if (!p->delayed.empty())
      consider(p->delayed.tasks.begin()->first.exetime);
    else if (!p->delayed.complete)
      consider(now);
    if (p->ready.empty() && p->ready.complete) continue;
    switch (p->pause.state(now)) {
      case FailurePause::State::Paused:
        consider(p->pause.resumes_at());
        break;
      case FailurePause::State::Checking:
        if (p->pause.allowance(now) == 0) break;  // waits for the checks' outcomes
        [[fallthrough]];
      case FailurePause::State::Running:
        consider(p->bucket.next_token(now));
        break;
    }
  }
  return wake;
}

bool Scheduler::idle() const {
  for (const auto& [name, p] : projects_) {
    if (!p->info.active()) continue;
    if (!p->ready.empty() || !p->ready.complete || !p->delayed.empty() || !p->delayed.complete ||
        !p->in_work.empty() || !p->postponed.empty() || p->between_windows > 0)
      return false;
  }
  return true;
}

Task<void> Scheduler::commit() {
  for (auto& [name, p] : projects_) {
    if (!p->counters_dirty) continue;
    co_await store_.save_counters(name, p->counters.save());
    p->counters_dirty = false;
  }
  co_await store_.commit();
}

json Scheduler::counters(const std::string& project) {
  ProjectState* p = find(project);
  return p ? p->counters.report(clock_()) : json::object();
}

const TaskCounters* Scheduler::project_counters(const std::string& project) const {
  auto it = projects_.find(project);
  return it == projects_.end() ? nullptr : &it->second->counters;
}

Scheduler::Held Scheduler::held(const std::string& project) const {
  auto it = projects_.find(project);
  if (it == projects_.end()) return {};
  const ProjectState& p = *it->second;
  return {p.ready.size(), p.delayed.size(), p.in_work.size(), p.deadlines.size()};
}

}  // namespace squall
