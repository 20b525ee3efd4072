// PgStore: buffered task writes sent as multi-row statements in one transaction per commit.
#include "squall/engine/pg_store.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

#include "squall/core/error.h"
#include "squall/core/lock.h"
#include "squall/core/sleep.h"
#include "squall/crawl/jsonl.h"
#include "task_row.h"

namespace squall {

using nlohmann::json;

namespace {

// The tables' version, in squall_meta's 'layout' row; a database with another is refused.
constexpr const char* kLayout = "1";

// Each statement is sent on its own: the extended protocol (and so pipeline mode) takes one
// statement per query. Column meanings are SqliteStore's (sqlite_store.cpp).
constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS squall_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    R"sql(CREATE TABLE IF NOT EXISTS squall_tasks (
      project TEXT NOT NULL,
      taskid TEXT NOT NULL,
      url TEXT NOT NULL,
      status SMALLINT NOT NULL,
      rank INTEGER NOT NULL,
      exetime DOUBLE PRECISION NOT NULL,
      seq BIGINT NOT NULL,
      retries INTEGER NOT NULL,
      retried INTEGER NOT NULL,
      age DOUBLE PRECISION NOT NULL,
      itag TEXT,
      flags INTEGER NOT NULL,
      "fetch" TEXT,
      process TEXT,
      track TEXT,
      lastcrawltime DOUBLE PRECISION NOT NULL,
      updatetime DOUBLE PRECISION NOT NULL,
      PRIMARY KEY (project, taskid)))sql",
    "CREATE INDEX IF NOT EXISTS squall_tasks_ready ON squall_tasks(project, rank, seq) "
    "WHERE status = 1 AND exetime = 0",
    "CREATE INDEX IF NOT EXISTS squall_tasks_delayed ON squall_tasks(project, exetime, seq) "
    "WHERE status = 1 AND exetime > 0",
    "CREATE TABLE IF NOT EXISTS squall_counters (project TEXT PRIMARY KEY, data TEXT NOT NULL)",
    R"sql(CREATE TABLE IF NOT EXISTS squall_projects (
      name TEXT PRIMARY KEY,
      grp TEXT NOT NULL,
      status TEXT NOT NULL,
      script TEXT NOT NULL,
      comments TEXT NOT NULL,
      rate DOUBLE PRECISION NOT NULL,
      burst DOUBLE PRECISION NOT NULL,
      updatetime DOUBLE PRECISION NOT NULL))sql",
    R"sql(CREATE TABLE IF NOT EXISTS squall_results (
      project TEXT NOT NULL,
      taskid TEXT NOT NULL,
      url TEXT NOT NULL,
      result JSONB NOT NULL,
      updatetime DOUBLE PRECISION NOT NULL,
      ord BIGSERIAL,
      PRIMARY KEY (project, taskid)))sql",
    "CREATE INDEX IF NOT EXISTS squall_results_order ON squall_results(project, ord)",
};

// Taskids each_taskid reads at a time.
constexpr size_t kTaskidPage = 10000;

// A dict as stored: NULL for an empty one.
PgParam dict_param(const TaskDict& dict) {
  if (dict.empty()) return nullptr;
  std::string text;
  dict.append_text(text);
  return PgParam(std::move(text));
}
PgParam dict_param(const JsonText& dict) {
  if (dict.empty()) return nullptr;
  return PgParam(dict.text());
}

// status, rank, exetime, seq, retries, retried, age, itag, flags: what put and update both
// write, in this order.
void add_state(std::vector<PgParam>& p, const CrawlTask& t, int64_t seq) {
  const TaskSchedule& s = t.schedule;
  p.emplace_back(static_cast<int>(t.status));
  p.emplace_back(-static_cast<int64_t>(s.priority));
  p.emplace_back(s.exetime);
  p.emplace_back(seq);
  p.emplace_back(s.retries);
  p.emplace_back(s.retried);
  p.emplace_back(s.age);
  p.emplace_back(s.itag.empty() ? PgParam(nullptr) : PgParam(s.itag));
  p.emplace_back(detail::task_flags(s));
}

// A row's columns as detail::read_task_row reads them.
struct PgTaskRow {
  const PgRow& row;
  bool is_null(int i) const { return row.is_null(i); }
  std::string_view text(int i) const { return row.text(i); }
  int64_t int64(int i) const { return row.get_int(i); }
  double real(int i) const { return row.get_double(i); }
};

// What an update writes of a task, onto `to` (its url, fetch and process stay).
void apply_update(CrawlTask& to, const CrawlTask& from) {
  to.status = from.status;
  to.schedule = from.schedule;
  to.track = from.track;
  to.lastcrawltime = from.lastcrawltime;
  to.updatetime = from.updatetime;
}

std::string key_of(const std::string& project, const std::string& taskid) {
  std::string key;
  key.reserve(project.size() + 1 + taskid.size());
  key.append(project).push_back('\n');
  key.append(taskid);
  return key;
}

// "($1::text, $2::int, ...), (...)": `rows` rows of the given casts, numbered from 1.
std::string values_list(size_t rows, const std::vector<const char*>& casts) {
  std::string out;
  size_t n = 0;
  for (size_t r = 0; r < rows; ++r) {
    out += r == 0 ? "(" : ", (";
    for (size_t c = 0; c < casts.size(); ++c) {
      if (c > 0) out += ", ";
      out.push_back('$');
      out.append(std::to_string(++n));
      if (casts[c][0] != '\0') out.append("::").append(casts[c]);
    }
    out += ")";
  }
  return out;
}

}  // namespace

struct PgStore::State {
  PgConnection db;
  // Held by every call for its whole length: the engine's components call the store from
  // several tasks, and a call that waits on the server must not see another's half-done writes
  // (a flush, a commit) nor let its own be interleaved.
  Lock lock;
  std::optional<PgTransaction> tx;
  struct Write {
    bool put = false;  // a whole task; else an update of a stored one
    CrawlTask task;
    int64_t seq = 0;
  };
  std::unordered_map<std::string, Write> pending;
  int64_t task_seq = 0;  // the highest seq written, and whether squall_meta lags behind it
  bool task_seq_dirty = false;

  // The server process of the session that claimed a project (claim_project), 0 before.
  int claimed_by = 0;

  State(std::string_view url, PgOptions options) : db(url, std::move(options)) {}

  // A claim is its session's: once that connection is gone, the next query would open another
  // one without it, and a second scheduler may hold the project by then.
  void check_claim() const {
    if (claimed_by != 0 && db.backend_pid() != claimed_by)
      throw PgError(ErrorKind::Closed, db.where(), "",
                    "the session that claimed this store's projects ended (the server restarted, "
                    "or the connection was lost), and the claims with it: open the store again");
  }

  // A statement in the open transaction, or on its own when none is open.
  Task<PgResult> q(std::string_view sql, const std::vector<PgParam>& params) {
    check_claim();
    if (tx && tx->active()) co_return co_await tx->query(sql, params);
    co_return co_await db.query(sql, params);
  }
  Task<PgResult> q(std::string_view sql) {
    std::vector<PgParam> none;
    co_return co_await q(sql, none);
  }

  // Writes go in the open transaction, begun by the first write after a commit.
  Task<void> begin() {
    check_claim();
    if (tx && tx->active()) co_return;
    tx.reset();
    PgTransaction t = co_await db.begin();
    tx.emplace(std::move(t));
  }

  void saw_seq(int64_t seq) {
    if (seq > task_seq) {
      task_seq = seq;
      task_seq_dirty = true;
    }
  }

  Task<void> flush() {
    if (pending.empty()) co_return;
    co_await begin();
    std::vector<const Write*> puts, updates;
    for (const auto& [key, w] : pending) (w.put ? puts : updates).push_back(&w);
    for (size_t at = 0; at < puts.size(); at += kRowsPerStatement) {
      size_t rows = std::min(kRowsPerStatement, puts.size() - at);
      std::vector<PgParam> p;
      p.reserve(rows * 17);
      for (size_t i = at; i < at + rows; ++i) {
        const CrawlTask& t = puts[i]->task;
        p.emplace_back(t.project);
        p.emplace_back(t.taskid);
        p.emplace_back(t.url);
        add_state(p, t, puts[i]->seq);
        p.push_back(dict_param(t.fetch));
        p.push_back(dict_param(t.process));
        p.push_back(dict_param(t.track));
        p.emplace_back(t.lastcrawltime);
        p.emplace_back(t.updatetime);
      }
      std::string sql =
          "INSERT INTO squall_tasks(project, taskid, url, status, rank, exetime, seq, retries, "
          "retried, age, itag, flags, \"fetch\", process, track, lastcrawltime, updatetime) "
          "VALUES " +
          values_list(rows, std::vector<const char*>(17, "")) +
          " ON CONFLICT (project, taskid) DO UPDATE SET url = excluded.url, status = "
          "excluded.status, rank = excluded.rank, exetime = excluded.exetime, seq = excluded.seq, "
          "retries = excluded.retries, retried = excluded.retried, age = excluded.age, itag = "
          "excluded.itag, flags = excluded.flags, \"fetch\" = excluded.\"fetch\", process = "
          "excluded.process, track = excluded.track, lastcrawltime = excluded.lastcrawltime, "
          "updatetime = excluded.updatetime";
      co_await tx->query(sql, p);
    }
    static const std::vector<const char*> kUpdateCasts = {
        "text",    "text",    "smallint",         "integer",          "double precision",
        "bigint",  "integer", "integer",          "double precision", "text",
        "integer", "text",    "double precision", "double precision"};
    for (size_t at = 0; at < updates.size(); at += kRowsPerStatement) {
      size_t rows = std::min(kRowsPerStatement, updates.size() - at);
      std::vector<PgParam> p;
      p.reserve(rows * kUpdateCasts.size());
      for (size_t i = at; i < at + rows; ++i) {
        const CrawlTask& t = updates[i]->task;
        p.emplace_back(t.project);
        p.emplace_back(t.taskid);
        add_state(p, t, updates[i]->seq);
        p.push_back(dict_param(t.track));
        p.emplace_back(t.lastcrawltime);
        p.emplace_back(t.updatetime);
      }
      std::string sql =
          "UPDATE squall_tasks AS t SET status = v.status, rank = v.rank, exetime = v.exetime, "
          "seq = v.seq, retries = v.retries, retried = v.retried, age = v.age, itag = v.itag, "
          "flags = v.flags, track = v.track, lastcrawltime = v.lastcrawltime, updatetime = "
          "v.updatetime FROM (VALUES " +
          values_list(rows, kUpdateCasts) +
          ") AS v(project, taskid, status, rank, exetime, seq, retries, retried, age, itag, "
          "flags, track, lastcrawltime, updatetime) WHERE t.project = v.project AND t.taskid = "
          "v.taskid";
      co_await tx->query(sql, p);
    }
    pending.clear();
  }

  Task<std::vector<QueuedTask>> window(std::string sql, std::vector<PgParam> params,
                                       const std::string& project) {
    Lock::Guard guard = co_await lock.guard();
    co_await flush();
    PgResult r = co_await q(sql, params);
    std::vector<QueuedTask> out;
    out.reserve(static_cast<size_t>(r.rows()));
    for (PgRow row : r) out.push_back(detail::read_task_row(PgTaskRow{row}, project));
    co_return out;
  }
};

PgStore::PgStore(std::unique_ptr<State> state) : state_(std::move(state)) {}
PgStore::~PgStore() = default;

namespace {

// Creates the tables when missing (`drop`: drops them first, whatever their layout) and reads
// the task seq; refuses a database whose tables are of another layout.
Task<int64_t> prepare_tables(PgConnection& db, bool drop) {
  // Two processes opening one database at once create its tables once.
  PgTransaction t = co_await db.begin();
  co_await t.query("SELECT pg_advisory_xact_lock(7135427401)");
  if (drop)
    co_await t.query(
        "DROP TABLE IF EXISTS squall_tasks, squall_results, squall_counters, squall_projects, "
        "squall_meta");
  PgResult exists = co_await t.query("SELECT to_regclass('squall_meta') IS NOT NULL");
  if (exists.row(0).get_bool(0)) {
    PgResult layout = co_await t.query("SELECT value FROM squall_meta WHERE key = 'layout'");
    std::string found = layout.empty() ? "none" : layout.row(0).get_string(0);
    if (found != kLayout) {
      std::string where = db.where();
      co_await t.rollback();
      throw InvalidArgumentError("task store " + where + ": its squall tables are of layout " +
                                 found + ", not the one this squall reads (" + kLayout +
                                 "): start over in it (fresh) or give another database");
    }
  }
  for (const char* statement : kSchema) co_await t.query(statement);
  co_await t.query(
      "INSERT INTO squall_meta(key, value) VALUES ('layout', $1) ON CONFLICT DO NOTHING", kLayout);
  int64_t task_seq = 0;
  PgResult seq = co_await t.query("SELECT value FROM squall_meta WHERE key = 'task seq'");
  if (!seq.empty()) task_seq = std::stoll(seq.row(0).get_string(0));
  co_await t.commit();
  co_return task_seq;
}

}  // namespace

Task<std::unique_ptr<PgStore>> PgStore::open(std::string url, bool start_over, PgOptions options) {
  auto state = std::make_unique<State>(url, std::move(options));
  State& s = *state;
  co_await s.db.connect();
  s.task_seq = co_await prepare_tables(s.db, start_over);
  co_return std::unique_ptr<PgStore>(new PgStore(std::move(state)));
}

Task<void> PgStore::start_over() {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  s.check_claim();
  if (s.tx && s.tx->active()) co_await s.tx->rollback();
  s.tx.reset();
  s.pending.clear();
  s.task_seq_dirty = false;
  s.task_seq = co_await prepare_tables(s.db, true);
}

size_t PgStore::buffered() const noexcept {
  return state_->pending.size();
}

void PgStore::close() {
  state_->tx.reset();
  state_->pending.clear();
  state_->db.close();
}

Task<std::optional<CrawlTask>> PgStore::get(std::string project, std::string taskid) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  std::optional<CrawlTask> out;
  auto it = s.pending.find(key_of(project, taskid));
  if (it != s.pending.end() && it->second.put) {
    out = it->second.task;
    co_return out;
  }
  std::vector<PgParam> p;
  p.emplace_back(project);
  p.emplace_back(taskid);
  std::string sql = std::string("SELECT ") + detail::kTaskColumns +
                    " FROM squall_tasks WHERE project = $1 AND taskid = $2";
  PgResult r = co_await s.q(sql, p);
  if (r.empty()) co_return out;
  out = detail::read_task_row(PgTaskRow{r.row(0)}, project).task;
  // An update not sent yet: the row as it will be. (The map is looked up again: the query may
  // have let another task's write in.)
  it = s.pending.find(key_of(project, taskid));
  if (it != s.pending.end()) apply_update(*out, it->second.task);
  co_return out;
}

Task<void> PgStore::put(const CrawlTask& task, int64_t seq) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  s.pending.insert_or_assign(key_of(task.project, task.taskid), State::Write{true, task, seq});
  s.saw_seq(seq);
  if (s.pending.size() >= kFlushRows) co_await s.flush();
}

Task<void> PgStore::update(const CrawlTask& task, int64_t seq) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  std::string key = key_of(task.project, task.taskid);
  auto it = s.pending.find(key);
  if (it != s.pending.end() && it->second.put) {
    apply_update(it->second.task, task);
    it->second.seq = seq;
  } else {
    s.pending.insert_or_assign(std::move(key), State::Write{false, task, seq});
  }
  s.saw_seq(seq);
  if (s.pending.size() >= kFlushRows) co_await s.flush();
}

Task<std::vector<QueuedTask>> PgStore::ready(std::string project, std::optional<ReadyKey> after,
                                             size_t limit) {
  // The row comparison leads with the project, so that the partial index serves it as a range.
  constexpr int64_t kBeforeAll = std::numeric_limits<int64_t>::min();
  std::vector<PgParam> p;
  p.emplace_back(project);
  p.emplace_back(after ? -static_cast<int64_t>(after->priority) : kBeforeAll);
  p.emplace_back(after ? after->seq : kBeforeAll);
  p.emplace_back(static_cast<int64_t>(limit));
  co_return co_await state_->window(
      std::string("SELECT ") + detail::kTaskColumns +
          " FROM squall_tasks WHERE project = $1 AND status = 1 AND exetime = 0 AND "
          "(project, rank, seq) > ($1, $2::bigint, $3::bigint) ORDER BY project, rank, seq "
          "LIMIT $4",
      std::move(p), project);
}

Task<std::vector<QueuedTask>> PgStore::delayed(std::string project, std::optional<DelayKey> after,
                                               size_t limit) {
  std::vector<PgParam> p;
  p.emplace_back(project);
  p.emplace_back(after ? after->exetime : 0.0);
  p.emplace_back(after ? after->seq : std::numeric_limits<int64_t>::min());
  p.emplace_back(static_cast<int64_t>(limit));
  co_return co_await state_->window(
      std::string("SELECT ") + detail::kTaskColumns +
          " FROM squall_tasks WHERE project = $1 AND status = 1 AND exetime > 0 AND "
          "(project, exetime, seq) > ($1, $2::double precision, $3::bigint) ORDER BY project, "
          "exetime, seq LIMIT $4",
      std::move(p), project);
}

Task<int64_t> PgStore::last_seq() {
  co_return state_->task_seq;
}

Task<void> PgStore::each_taskid(std::string project, std::function<void(const std::string&)> fn) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  co_await s.flush();
  // A page at a time after the last taskid read, so that memory stays bounded at any size.
  std::string after;
  for (;;) {
    std::vector<PgParam> p;
    p.emplace_back(project);
    p.emplace_back(after);
    p.emplace_back(static_cast<int64_t>(kTaskidPage));
    PgResult r = co_await s.q(
        "SELECT taskid FROM squall_tasks WHERE project = $1 AND taskid > $2 ORDER BY taskid "
        "LIMIT $3",
        p);
    for (PgRow row : r) {
      after = row.get_string(0);
      fn(after);
    }
    if (static_cast<size_t>(r.rows()) < kTaskidPage) break;
  }
}

Task<CounterValues> PgStore::recount(std::string project) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  co_await s.flush();
  std::vector<PgParam> p;
  p.emplace_back(project);
  PgResult r = co_await s.q(
      "SELECT status, count(*) FROM squall_tasks WHERE project = $1 GROUP BY status", p);
  CounterValues v{};
  for (PgRow row : r) detail::count_status(v, row.get_int(0), row.get_int(1));
  co_return v;
}

Task<std::optional<json>> PgStore::counters(std::string project) {
  Lock::Guard guard = co_await state_->lock.guard();
  std::vector<PgParam> p;
  p.emplace_back(project);
  PgResult r = co_await state_->q("SELECT data FROM squall_counters WHERE project = $1", p);
  std::optional<json> out;
  if (!r.empty()) {
    json j = parse_json(r.row(0).text(0));
    out = j.is_discarded() ? json() : std::move(j);
  }
  co_return out;
}

Task<void> PgStore::save_counters(std::string project, const json& counters) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  std::vector<PgParam> p;
  p.emplace_back(project);
  std::string text;
  append_json(text, counters);
  p.emplace_back(std::move(text));
  co_await s.begin();
  co_await s.q(
      "INSERT INTO squall_counters(project, data) VALUES ($1, $2) ON CONFLICT (project) DO "
      "UPDATE SET data = excluded.data",
      p);
}

Task<void> PgStore::commit() {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  co_await s.flush();
  if (s.task_seq_dirty) {
    co_await s.begin();
    std::vector<PgParam> p;
    p.emplace_back(std::to_string(s.task_seq));
    co_await s.q(
        "INSERT INTO squall_meta(key, value) VALUES ('task seq', $1) ON CONFLICT (key) DO "
        "UPDATE SET value = excluded.value",
        p);
    s.task_seq_dirty = false;
  }
  if (s.tx && s.tx->active()) co_await s.tx->commit();
  s.tx.reset();
}

// --- projects ------------------------------------------------------------------------------

namespace {

constexpr const char* kProjectColumns =
    "name, grp, status, script, comments, rate, burst, updatetime";

ProjectInfo project_of(const PgRow& row) {
  ProjectInfo info;
  info.name = row.get_string(0);
  info.group = row.get_string(1);
  info.status = parse_project_status(row.text(2)).value_or(ProjectStatus::Todo);
  info.script = row.get_string(3);
  info.comments = row.get_string(4);
  info.rate = row.get_double(5);
  info.burst = row.get_double(6);
  info.updatetime = row.get_double(7);
  return info;
}

}  // namespace

Task<std::optional<ProjectInfo>> PgStore::project(std::string name) {
  Lock::Guard guard = co_await state_->lock.guard();
  std::vector<PgParam> p;
  p.emplace_back(name);
  std::string sql =
      std::string("SELECT ") + kProjectColumns + " FROM squall_projects WHERE name = $1";
  PgResult r = co_await state_->q(sql, p);
  std::optional<ProjectInfo> out;
  if (!r.empty()) out = project_of(r.row(0));
  co_return out;
}

Task<std::vector<ProjectInfo>> PgStore::projects() {
  Lock::Guard guard = co_await state_->lock.guard();
  std::string sql =
      std::string("SELECT ") + kProjectColumns + " FROM squall_projects ORDER BY name";
  PgResult r = co_await state_->q(sql);
  std::vector<ProjectInfo> out;
  for (PgRow row : r) out.push_back(project_of(row));
  co_return out;
}

Task<void> PgStore::put_project(const ProjectInfo& info) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  std::vector<PgParam> p;
  p.emplace_back(info.name);
  p.emplace_back(info.group);
  p.emplace_back(project_status_name(info.status));
  p.emplace_back(info.script);
  p.emplace_back(info.comments);
  p.emplace_back(info.rate);
  p.emplace_back(info.burst);
  p.emplace_back(info.updatetime);
  co_await s.begin();
  co_await s.q(
      "INSERT INTO squall_projects(name, grp, status, script, comments, rate, burst, updatetime) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (name) DO UPDATE SET grp = "
      "excluded.grp, status = excluded.status, script = excluded.script, comments = "
      "excluded.comments, rate = excluded.rate, burst = excluded.burst, updatetime = "
      "excluded.updatetime",
      p);
}

// --- results -------------------------------------------------------------------------------

Task<void> PgStore::upsert(std::string project, const TaskResult& r) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  std::vector<PgParam> p;
  p.emplace_back(project);
  p.emplace_back(r.taskid);
  p.emplace_back(r.url);
  std::string text;
  append_json(text, r.result);
  p.emplace_back(std::move(text));
  p.emplace_back(r.updatetime);
  co_await s.begin();
  co_await s.q(
      "INSERT INTO squall_results(project, taskid, url, result, updatetime) VALUES ($1, $2, $3, "
      "$4::jsonb, $5) ON CONFLICT (project, taskid) DO UPDATE SET url = excluded.url, result = "
      "excluded.result, updatetime = excluded.updatetime",
      p);
}

namespace {
// A result row's parameters (project, taskid, url, result, updatetime), and a task's key's.
const std::vector<const char*> kResultCasts = {"", "", "", "jsonb", ""};
const std::vector<const char*> kKeyCasts = {"text", "text"};
}  // namespace

Task<void> PgStore::upsert_all(std::span<const ProjectResult> batch) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  // One row per task, where its first result came (so its order is the same) holding its last
  // one: a statement may not change one row twice.
  std::vector<const ProjectResult*> rows;
  std::unordered_map<std::string, size_t> row_of;
  rows.reserve(batch.size());
  for (const ProjectResult& r : batch) {
    auto [it, fresh] = row_of.try_emplace(key_of(r.project, r.result.taskid), rows.size());
    if (fresh)
      rows.push_back(&r);
    else
      rows[it->second] = &r;
  }
  if (rows.empty()) co_return;
  co_await s.begin();
  for (size_t at = 0; at < rows.size(); at += kRowsPerStatement) {
    size_t n = std::min(kRowsPerStatement, rows.size() - at);
    std::vector<PgParam> p;
    p.reserve(n * 5);
    for (size_t i = at; i < at + n; ++i) {
      const ProjectResult& r = *rows[i];
      p.emplace_back(r.project);
      p.emplace_back(r.result.taskid);
      p.emplace_back(r.result.url);
      std::string text;
      append_json(text, r.result.result);
      p.emplace_back(std::move(text));
      p.emplace_back(r.result.updatetime);
    }
    std::string sql =
        "INSERT INTO squall_results(project, taskid, url, result, updatetime) VALUES " +
        values_list(n, kResultCasts) +
        " ON CONFLICT (project, taskid) DO UPDATE SET url = excluded.url, result = "
        "excluded.result, updatetime = excluded.updatetime";
    co_await s.tx->query(sql, p);
  }
}

namespace {

TaskResult result_of(const PgRow& row) {
  TaskResult r;
  r.taskid = row.get_string(0);
  r.url = row.get_string(1);
  json j = parse_json(row.text(2));
  r.result = j.is_discarded() ? json() : std::move(j);
  r.updatetime = row.get_double(3);
  return r;
}

}  // namespace

Task<std::optional<TaskResult>> PgStore::result(std::string project, std::string taskid) {
  Lock::Guard guard = co_await state_->lock.guard();
  std::vector<PgParam> p;
  p.emplace_back(project);
  p.emplace_back(taskid);
  PgResult r = co_await state_->q(
      "SELECT taskid, url, result, updatetime FROM squall_results WHERE project = $1 AND taskid "
      "= $2",
      p);
  std::optional<TaskResult> out;
  if (!r.empty()) out = result_of(r.row(0));
  co_return out;
}

Task<std::vector<std::optional<TaskResult>>> PgStore::stored(std::span<const ProjectResult> batch) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  std::unordered_map<std::string, TaskResult> found;
  for (size_t at = 0; at < batch.size(); at += kRowsPerStatement) {
    size_t n = std::min(kRowsPerStatement, batch.size() - at);
    std::vector<PgParam> p;
    p.reserve(n * 2);
    for (size_t i = at; i < at + n; ++i) {
      p.emplace_back(batch[i].project);
      p.emplace_back(batch[i].result.taskid);
    }
    std::string sql =
        "SELECT r.taskid, r.url, r.result, r.updatetime, r.project FROM (VALUES " +
        values_list(n, kKeyCasts) +
        ") AS v(project, taskid) JOIN squall_results r ON r.project = v.project AND r.taskid = "
        "v.taskid";
    PgResult r = co_await s.q(sql, p);
    for (PgRow row : r) {
      TaskResult held = result_of(row);
      std::string key = key_of(row.get_string(4), held.taskid);
      found.insert_or_assign(std::move(key), std::move(held));
    }
  }
  std::vector<std::optional<TaskResult>> out;
  out.reserve(batch.size());
  for (const ProjectResult& r : batch) {
    auto it = found.find(key_of(r.project, r.result.taskid));
    if (it == found.end())
      out.emplace_back();
    else
      out.emplace_back(it->second);
  }
  co_return out;
}

Task<std::vector<TaskResult>> PgStore::results(std::string project, size_t offset, size_t limit) {
  Lock::Guard guard = co_await state_->lock.guard();
  std::vector<PgParam> p;
  p.emplace_back(project);
  p.emplace_back(static_cast<int64_t>(limit));
  p.emplace_back(static_cast<int64_t>(offset));
  PgResult r = co_await state_->q(
      "SELECT taskid, url, result, updatetime FROM squall_results WHERE project = $1 ORDER BY "
      "ord LIMIT $2 OFFSET $3",
      p);
  std::vector<TaskResult> out;
  for (PgRow row : r) out.push_back(result_of(row));
  co_return out;
}

Task<int64_t> PgStore::count(std::string project) {
  Lock::Guard guard = co_await state_->lock.guard();
  std::vector<PgParam> p;
  p.emplace_back(project);
  PgResult r = co_await state_->q("SELECT count(*) FROM squall_results WHERE project = $1", p);
  co_return r.row(0).get_int(0);
}

Task<std::optional<std::string>> PgStore::meta(std::string key) {
  Lock::Guard guard = co_await state_->lock.guard();
  std::vector<PgParam> p;
  p.emplace_back(key);
  PgResult r = co_await state_->q("SELECT value FROM squall_meta WHERE key = $1", p);
  std::optional<std::string> out;
  if (!r.empty()) out = r.row(0).get_string(0);
  co_return out;
}

Task<void> PgStore::set_meta(std::string key, std::string value) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  std::vector<PgParam> p;
  p.emplace_back(key);
  p.emplace_back(value);
  co_await s.begin();
  co_await s.q(
      "INSERT INTO squall_meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value "
      "= excluded.value",
      p);
}

// --- browsing ------------------------------------------------------------------------------

std::string PgStore::describe() const {
  return "postgresql://" + state_->db.where();
}

namespace {
constexpr int kClaimTries = 30;  // 3 s
}  // namespace

Task<void> PgStore::claim_project(std::string project) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  std::vector<PgParam> p;
  p.emplace_back("squall project " + project);
  // A process killed a moment ago may still hold it: the server ends its session once it reads
  // the closed connection, soon but not at once.
  for (int tries = 0;; ++tries) {
    PgResult r = co_await s.q("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", p);
    if (r.row(0).get_bool(0)) {
      s.claimed_by = s.db.backend_pid();
      co_return;
    }
    if (tries == kClaimTries) break;
    co_await sleep(std::chrono::milliseconds(100));
  }
  throw InvalidArgumentError("project '" + project + "' is being run by another process on " +
                             describe() + ": wait for it to end, or give another database");
}

Task<PgStore::TaskPage> PgStore::browse_tasks(std::string project, std::optional<TaskStatus> status,
                                              std::string url_contains, std::string after,
                                              size_t limit) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  TaskPage page;
  if (limit == 0) co_return page;
  co_await s.flush();
  std::vector<PgParam> p;
  p.emplace_back(project);
  p.emplace_back(after);
  p.emplace_back(static_cast<int64_t>(kBrowseScan));
  p.emplace_back(static_cast<int64_t>(status ? static_cast<int>(*status) : 0));
  p.emplace_back(url_contains);
  p.emplace_back(static_cast<int64_t>(limit));
  // The filters apply within a window of kBrowseScan rows after the cursor, read by the primary
  // key: a rare status costs a short page, never a scan of the table.
  PgResult r = co_await s.q(
      std::string("SELECT ") + detail::kTaskColumns +
          " FROM (SELECT * FROM squall_tasks WHERE project = $1 AND taskid > $2 ORDER BY taskid "
          "LIMIT $3) w WHERE ($4::int = 0 OR status = $4::int) AND ($5 = '' OR strpos(url, $5) > "
          "0) ORDER BY taskid LIMIT $6",
      p);
  for (PgRow row : r) page.tasks.push_back(detail::read_task_row(PgTaskRow{row}, project).task);
  if (page.tasks.size() == limit) {
    page.next = page.tasks.back().taskid;
  } else {
    // Short: either the window ran out (go on after it) or the table did (the end).
    std::vector<PgParam> w;
    w.emplace_back(project);
    w.emplace_back(after);
    w.emplace_back(static_cast<int64_t>(kBrowseScan));
    PgResult end = co_await s.q(
        "SELECT count(*), max(taskid) FROM (SELECT taskid FROM squall_tasks WHERE project = $1 "
        "AND taskid > $2 ORDER BY taskid LIMIT $3) w",
        w);
    if (static_cast<size_t>(end.row(0).get_int(0)) == kBrowseScan)
      page.next = end.row(0).get_string(1);
  }
  co_return page;
}

Task<PgStore::ResultPage> PgStore::browse_results(std::string project, std::string url_contains,
                                                  std::string after, size_t limit) {
  Lock::Guard guard = co_await state_->lock.guard();
  State& s = *state_;
  ResultPage page;
  if (limit == 0) co_return page;
  int64_t from = row_cursor(after);
  std::vector<PgParam> p;
  p.emplace_back(project);
  p.emplace_back(from);
  p.emplace_back(static_cast<int64_t>(kBrowseScan));
  p.emplace_back(url_contains);
  p.emplace_back(static_cast<int64_t>(limit));
  PgResult r = co_await s.q(
      "SELECT taskid, url, result, updatetime, ord FROM (SELECT * FROM squall_results WHERE "
      "project = $1 AND ord > $2 ORDER BY ord LIMIT $3) w WHERE $4 = '' OR strpos(url, $4) > 0 "
      "ORDER BY ord LIMIT $5",
      p);
  int64_t last = from;
  for (PgRow row : r) {
    page.results.push_back(result_of(row));
    last = row.get_int(4);
  }
  if (page.results.size() == limit) {
    page.next = std::to_string(last);
  } else {
    std::vector<PgParam> w;
    w.emplace_back(project);
    w.emplace_back(from);
    w.emplace_back(static_cast<int64_t>(kBrowseScan));
    PgResult end = co_await s.q(
        "SELECT count(*), max(ord) FROM (SELECT ord FROM squall_results WHERE project = $1 AND "
        "ord > $2 ORDER BY ord LIMIT $3) w",
        w);
    if (static_cast<size_t>(end.row(0).get_int(0)) == kBrowseScan)
      page.next = std::to_string(end.row(0).get_int(1));
  }
  co_return page;
}

}  // namespace squall
