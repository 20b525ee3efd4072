// SqliteStore: one SQLite file, prepared statements, one open transaction.
#include "squall/engine/sqlite_store.h"

#include <limits>

#include "squall/crawl/sqlite_file.h"

namespace squall {

using nlohmann::json;

namespace {

// rank is -priority, so that one ascending index serves "priority first, then seq".
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS tasks (
  project TEXT NOT NULL,
  taskid TEXT NOT NULL,
  url TEXT NOT NULL,
  status INTEGER NOT NULL,            -- 1 active, 2 success, 3 failed, 4 bad
  rank INTEGER NOT NULL,              -- -priority
  exetime REAL NOT NULL,              -- 0: ready; else not before this Unix time
  seq INTEGER NOT NULL,               -- the order it became ready or delayed
  schedule TEXT NOT NULL,
  fetch TEXT NOT NULL,
  process TEXT NOT NULL,
  track TEXT NOT NULL,
  lastcrawltime REAL NOT NULL,
  updatetime REAL NOT NULL,
  PRIMARY KEY (project, taskid)
);
CREATE INDEX IF NOT EXISTS tasks_ready ON tasks(project, rank, seq)
  WHERE status = 1 AND exetime = 0;
CREATE INDEX IF NOT EXISTS tasks_delayed ON tasks(project, exetime, seq)
  WHERE status = 1 AND exetime > 0;
CREATE TABLE IF NOT EXISTS counters (project TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS projects (
  name TEXT PRIMARY KEY,
  grp TEXT NOT NULL,
  status TEXT NOT NULL,
  script TEXT NOT NULL,
  comments TEXT NOT NULL,
  rate REAL NOT NULL,
  burst REAL NOT NULL,
  updatetime REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
  project TEXT NOT NULL,
  taskid TEXT NOT NULL,
  url TEXT NOT NULL,
  result TEXT NOT NULL,
  updatetime REAL NOT NULL,
  seq INTEGER NOT NULL,               -- the order results were first stored
  PRIMARY KEY (project, taskid)
);
CREATE INDEX IF NOT EXISTS results_order ON results(project, seq);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
)sql";

constexpr const char* kTaskColumns =
    "taskid, url, status, schedule, fetch, process, track, lastcrawltime, updatetime, seq";

json parse_or(std::string_view text, json otherwise) {
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? otherwise : j;
}

// A stored infinity (no rate limit) reads back as SQLite's largest REAL.
double finite_or_max(double v) {
  return v == std::numeric_limits<double>::infinity() ? 1e308 : v;
}
double max_or_infinite(double v) {
  return v >= 1e308 ? std::numeric_limits<double>::infinity() : v;
}

}  // namespace

struct SqliteStore::Db {
  std::unique_ptr<SqliteFile> file;
  std::filesystem::path path;
  SqliteStatement get, put, update, ready, delayed, upsert, result, results, count;
  int64_t result_seq = 0;

  // A task row in kTaskColumns order.
  QueuedTask read_task(const SqliteStatement& s, const std::string& project) const {
    QueuedTask q;
    CrawlTask& t = q.task;
    t.project = project;
    t.taskid = s.text(0);
    t.url = s.text(1);
    int status = s.integer(2);
    t.status = status >= 1 && status <= 4 ? static_cast<TaskStatus>(status) : TaskStatus::Bad;
    t.schedule = TaskSchedule::from_json(parse_or(s.text_view(3), json::object()));
    t.fetch = parse_or(s.text_view(4), json::object());
    t.process = parse_or(s.text_view(5), json::object());
    t.track = parse_or(s.text_view(6), json::object());
    t.lastcrawltime = s.real(7);
    t.updatetime = s.real(8);
    q.seq = s.int64(9);
    return q;
  }
};

std::unique_ptr<SqliteStore> SqliteStore::open(const std::filesystem::path& path, bool start_over) {
  auto db = std::make_unique<Db>();
  db->path = path;
  db->file = SqliteFile::open(path, "engine store",
                              " (one engine per store): wait for it to end, or give another file",
                              start_over);
  SqliteFile& f = *db->file;
  f.exec(kSchema);
  db->get = f.prepare(
      (std::string("SELECT ") + kTaskColumns + " FROM tasks WHERE project = ? AND taskid = ?")
          .c_str());
  db->put = f.prepare(
      "INSERT OR REPLACE INTO tasks(project, taskid, url, status, rank, exetime, seq, schedule, "
      "fetch, process, track, lastcrawltime, updatetime) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  db->update = f.prepare(
      "UPDATE tasks SET status = ?3, rank = ?4, exetime = ?5, seq = ?6, schedule = ?7, "
      "track = ?8, lastcrawltime = ?9, updatetime = ?10 WHERE project = ?1 AND taskid = ?2");
  db->ready = f.prepare((std::string("SELECT ") + kTaskColumns +
                         " FROM tasks WHERE project = ?1 AND status = 1 AND exetime = 0 AND "
                         "(rank, seq) > (?2, ?3) ORDER BY rank, seq LIMIT ?4")
                            .c_str());
  db->delayed = f.prepare((std::string("SELECT ") + kTaskColumns +
                           " FROM tasks WHERE project = ?1 AND status = 1 AND exetime > 0 AND "
                           "(exetime, seq) > (?2, ?3) ORDER BY exetime, seq LIMIT ?4")
                              .c_str());
  db->upsert = f.prepare(
      "INSERT INTO results(project, taskid, url, result, updatetime, seq) "
      "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(project, taskid) DO UPDATE SET "
      "url = excluded.url, result = excluded.result, updatetime = excluded.updatetime");
  db->result = f.prepare(
      "SELECT taskid, url, result, updatetime FROM results WHERE project = ? AND taskid = ?");
  db->results = f.prepare(
      "SELECT taskid, url, result, updatetime FROM results WHERE project = ? "
      "ORDER BY seq LIMIT ? OFFSET ?");
  db->count = f.prepare("SELECT count(*) FROM results WHERE project = ?");
  SqliteStatement s = f.prepare("SELECT coalesce(max(seq), 0) FROM results");
  if (s.step("open")) {
    db->result_seq = s.int64(0);
    s.reset();
  }
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(db)));
}

SqliteStore::SqliteStore(std::unique_ptr<Db> db) : db_(std::move(db)) {}
SqliteStore::~SqliteStore() = default;

const std::filesystem::path& SqliteStore::path() const noexcept {
  return db_->path;
}

Task<std::optional<CrawlTask>> SqliteStore::get(std::string project, std::string taskid) {
  SqliteStatement& s = db_->get;
  s.bind(1, project).bind(2, taskid);
  std::optional<CrawlTask> out;
  if (s.step("read a task")) {
    out = db_->read_task(s, project).task;
    s.reset();
  }
  co_return out;
}

Task<void> SqliteStore::put(const CrawlTask& t, int64_t seq) {
  db_->file->begin();
  db_->put.bind(1, t.project)
      .bind(2, t.taskid)
      .bind(3, t.url)
      .bind(4, static_cast<int>(t.status))
      .bind(5, -static_cast<int64_t>(t.schedule.priority))
      .bind(6, t.schedule.exetime)
      .bind(7, seq)
      .bind(8, t.schedule.to_json().dump())
      .bind(9, t.fetch.dump())
      .bind(10, t.process.dump())
      .bind(11, t.track.dump(-1, ' ', false, json::error_handler_t::replace))
      .bind(12, t.lastcrawltime)
      .bind(13, t.updatetime)
      .run("store a task");
  co_return;
}

Task<void> SqliteStore::update(const CrawlTask& t, int64_t seq) {
  db_->file->begin();
  db_->update.bind(1, t.project)
      .bind(2, t.taskid)
      .bind(3, static_cast<int>(t.status))
      .bind(4, -static_cast<int64_t>(t.schedule.priority))
      .bind(5, t.schedule.exetime)
      .bind(6, seq)
      .bind(7, t.schedule.to_json().dump())
      .bind(8, t.track.dump(-1, ' ', false, json::error_handler_t::replace))
      .bind(9, t.lastcrawltime)
      .bind(10, t.updatetime)
      .run("update a task");
  co_return;
}

Task<std::vector<QueuedTask>> SqliteStore::ready(std::string project, std::optional<ReadyKey> after,
                                                 size_t limit) {
  SqliteStatement& s = db_->ready;
  constexpr int64_t kBeforeAll = std::numeric_limits<int64_t>::min();
  s.bind(1, project)
      .bind(2, after ? -static_cast<int64_t>(after->priority) : kBeforeAll)
      .bind(3, after ? after->seq : kBeforeAll)
      .bind(4, static_cast<int64_t>(limit));
  std::vector<QueuedTask> out;
  while (s.step("read ready tasks")) out.push_back(db_->read_task(s, project));
  co_return out;
}

Task<std::vector<QueuedTask>> SqliteStore::delayed(std::string project,
                                                   std::optional<DelayKey> after, size_t limit) {
  SqliteStatement& s = db_->delayed;
  s.bind(1, project)
      .bind(2, after ? after->exetime : 0.0)
      .bind(3, after ? after->seq : std::numeric_limits<int64_t>::min())
      .bind(4, static_cast<int64_t>(limit));
  std::vector<QueuedTask> out;
  while (s.step("read delayed tasks")) out.push_back(db_->read_task(s, project));
  co_return out;
}

Task<int64_t> SqliteStore::last_seq() {
  SqliteStatement s = db_->file->prepare("SELECT coalesce(max(seq), 0) FROM tasks");
  int64_t seq = 0;
  if (s.step("read the last seq")) {
    seq = s.int64(0);
    s.reset();
  }
  co_return seq;
}

Task<void> SqliteStore::each_taskid(std::string project,
                                    std::function<void(const std::string&)> fn) {
  SqliteStatement s = db_->file->prepare("SELECT taskid FROM tasks WHERE project = ?");
  s.bind(1, project);
  std::string id;
  while (s.step("read the taskids")) {
    id.assign(s.text_view(0));
    fn(id);
  }
  co_return;
}

Task<CounterValues> SqliteStore::recount(std::string project) {
  SqliteStatement s =
      db_->file->prepare("SELECT status, count(*) FROM tasks WHERE project = ? GROUP BY status");
  s.bind(1, project);
  CounterValues v{};
  while (s.step("count the tasks")) {
    switch (static_cast<TaskStatus>(s.integer(0))) {
      case TaskStatus::Active:
        v[static_cast<size_t>(CounterKind::Pending)] += s.int64(1);
        break;
      case TaskStatus::Success:
        v[static_cast<size_t>(CounterKind::Success)] += s.int64(1);
        break;
      case TaskStatus::Failed:
      case TaskStatus::Bad:
        v[static_cast<size_t>(CounterKind::Failed)] += s.int64(1);
        break;
    }
  }
  co_return v;
}

Task<std::optional<json>> SqliteStore::counters(std::string project) {
  SqliteStatement s = db_->file->prepare("SELECT data FROM counters WHERE project = ?");
  s.bind(1, project);
  std::optional<json> out;
  if (s.step("read the counters")) {
    out = parse_or(s.text_view(0), json());
    s.reset();
  }
  co_return out;
}

Task<void> SqliteStore::save_counters(std::string project, const json& counters) {
  db_->file->begin();
  db_->file->prepare("INSERT OR REPLACE INTO counters(project, data) VALUES (?, ?)")
      .bind(1, project)
      .bind(2, counters.dump())
      .run("store the counters");
  co_return;
}

Task<void> SqliteStore::commit() {
  db_->file->commit();
  co_return;
}

Task<std::optional<ProjectInfo>> SqliteStore::project(std::string name) {
  std::vector<ProjectInfo> all = co_await projects();
  for (ProjectInfo& p : all)
    if (p.name == name) co_return std::move(p);
  co_return std::nullopt;
}

Task<std::vector<ProjectInfo>> SqliteStore::projects() {
  SqliteStatement s = db_->file->prepare(
      "SELECT name, grp, status, script, comments, rate, burst, updatetime FROM projects "
      "ORDER BY name");
  std::vector<ProjectInfo> out;
  while (s.step("read the projects")) {
    ProjectInfo p;
    p.name = s.text(0);
    p.group = s.text(1);
    p.status = parse_project_status(s.text_view(2)).value_or(ProjectStatus::Stop);
    p.script = s.text(3);
    p.comments = s.text(4);
    p.rate = max_or_infinite(s.real(5));
    p.burst = max_or_infinite(s.real(6));
    p.updatetime = s.real(7);
    out.push_back(std::move(p));
  }
  co_return out;
}

Task<void> SqliteStore::put_project(const ProjectInfo& p) {
  db_->file->begin();
  db_->file
      ->prepare(
          "INSERT OR REPLACE INTO projects(name, grp, status, script, comments, rate, burst, "
          "updatetime) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, p.name)
      .bind(2, p.group)
      .bind(3, project_status_name(p.status))
      .bind(4, p.script)
      .bind(5, p.comments)
      .bind(6, finite_or_max(p.rate))
      .bind(7, finite_or_max(p.burst))
      .bind(8, p.updatetime)
      .run("store a project");
  co_return;
}

Task<void> SqliteStore::upsert(std::string project, const TaskResult& r) {
  db_->file->begin();
  db_->upsert.bind(1, project)
      .bind(2, r.taskid)
      .bind(3, r.url)
      .bind(4, r.result.dump(-1, ' ', false, json::error_handler_t::replace))
      .bind(5, r.updatetime)
      .bind(6, db_->result_seq + 1)
      .run("store a result");
  if (db_->file->changes() > 0) ++db_->result_seq;
  co_return;
}

Task<std::optional<TaskResult>> SqliteStore::result(std::string project, std::string taskid) {
  SqliteStatement& s = db_->result;
  s.bind(1, project).bind(2, taskid);
  std::optional<TaskResult> out;
  if (s.step("read a result")) {
    out = TaskResult{s.text(0), s.text(1), parse_or(s.text_view(2), json()), s.real(3)};
    s.reset();
  }
  co_return out;
}

Task<std::vector<TaskResult>> SqliteStore::results(std::string project, size_t offset,
                                                   size_t limit) {
  SqliteStatement& s = db_->results;
  s.bind(1, project).bind(2, static_cast<int64_t>(limit)).bind(3, static_cast<int64_t>(offset));
  std::vector<TaskResult> out;
  while (s.step("read results"))
    out.push_back(TaskResult{s.text(0), s.text(1), parse_or(s.text_view(2), json()), s.real(3)});
  co_return out;
}

Task<int64_t> SqliteStore::count(std::string project) {
  SqliteStatement& s = db_->count;
  s.bind(1, project);
  int64_t n = 0;
  if (s.step("count results")) {
    n = s.int64(0);
    s.reset();
  }
  co_return n;
}

Task<std::optional<std::string>> SqliteStore::meta(std::string key) {
  SqliteStatement s = db_->file->prepare("SELECT value FROM meta WHERE key = ?");
  s.bind(1, key);
  std::optional<std::string> out;
  if (s.step("read a setting")) {
    out = s.text(0);
    s.reset();
  }
  co_return out;
}

Task<void> SqliteStore::set_meta(std::string key, std::string value) {
  db_->file->begin();
  db_->file->prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
      .bind(1, key)
      .bind(2, value)
      .run("store a setting");
  co_return;
}

}  // namespace squall
