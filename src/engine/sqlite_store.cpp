// SqliteStore: one SQLite file, prepared statements, one open transaction.
#include "squall/engine/sqlite_store.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <unordered_map>

#include "squall/core/error.h"

#include "held_rows.h"
#include "recent_keys.h"
#include "squall/crawl/jsonl.h"
#include "squall/crawl/seen.h"
#include "squall/crawl/sqlite_file.h"
#include "task_row.h"

namespace squall {

using nlohmann::json;

namespace {

// The layout's version, in PRAGMA user_version; a file with another is refused.
constexpr int kSchemaVersion = 5;

// The layout before the recent level was held in memory: it was a table, task_keys_recent.
// A store in it is brought to this one when opened (migrate_keys).
constexpr int kRecentTableVersion = 4;

// The layout before the key index had two levels: tasks_key was an index of tasks(project, key).
// A store in it is brought to this one when opened (migrate_keys).
constexpr int kOneLevelKeysVersion = 3;

// The recent level's size at which a commit merges it into task_keys: about 6 MiB of memory. Each
// merge rewrites the pages of task_keys that the new keys land on, which at 10 M tasks is most
// of them, so a smaller level merges the same pages more often.
constexpr int64_t kRecentKeys = 1 << 18;

// A task row is its schedule in columns and its dicts as JSON text, NULL when empty (most tasks
// have no fetch options and no track until their first outcome), keyed by a small integer per
// project (project_ids) so that the table and its two indexes repeat no project names. rank is
// -priority, so that one ascending index serves "priority first, then seq". Rows are kept in
// the order they were stored (rowid), not by taskid: tasks are dispatched roughly in that order,
// so a run of outcomes updates neighbouring pages instead of one random page each (a taskid is
// an MD5), and a new task is appended to the last page.
//
// A task is found by `key`, 64 bits of its taskid (task_key), in two levels. task_keys holds
// (project, key, row) entries for every row up to the one the meta key 'task keys merged'
// names; the rows after it are the recent level. Rows are only ever appended (a task is never
// deleted), so the recent level is the end of the table, and the store holds its keys in
// memory, read back from those rows when it opens. A key is an MD5 and lands on a random page,
// so an index that took each new key as it came made each new task dirty a page of its own at
// 10 M tasks (a commit of 10,000 new tasks wrote ~10,000 pages to the log). Once the recent
// level holds kRecentKeys entries, a commit merges them into task_keys in key order, which
// rewrites each page of task_keys once for the whole batch, and moves 'task keys merged' in
// the same transaction: a kill loses neither level. Two taskids may share a key; every lookup
// also compares the taskid, and put() replaces only the row of its own taskid, which keeps
// (project, taskid) unique.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS project_ids (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS tasks (
  project INTEGER NOT NULL,           -- project_ids.id
  key INTEGER NOT NULL,               -- task_key(taskid)
  taskid TEXT NOT NULL,
  url TEXT NOT NULL,
  status INTEGER NOT NULL,            -- 1 active, 2 success, 3 failed, 4 bad
  rank INTEGER NOT NULL,              -- -priority
  exetime REAL NOT NULL,              -- 0: ready; else not before this Unix time
  seq INTEGER NOT NULL,               -- the order it became ready or delayed
  retries INTEGER NOT NULL,
  retried INTEGER NOT NULL,
  age REAL NOT NULL,
  itag TEXT,                          -- NULL when none
  flags INTEGER NOT NULL,             -- 1 auto_recrawl, 2 force_update, 4 cancel
  fetch TEXT,                         -- NULL when {}
  process TEXT,
  track TEXT,
  lastcrawltime REAL NOT NULL,
  updatetime REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS task_keys (
  project INTEGER NOT NULL, key INTEGER NOT NULL, row INTEGER NOT NULL,
  PRIMARY KEY (project, key, row)) WITHOUT ROWID;
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
  PRIMARY KEY (project, taskid)
);
-- The rowid is the order results were first stored (an upsert keeps it); this index holds it.
CREATE INDEX IF NOT EXISTS results_order ON results(project);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
)sql";

// A taskid's key in the key index. pyspider's taskid is the MD5 of the URL in hex: its first 64
// bits are as good a hash as any and cost no hashing. Any other taskid is hashed.
int64_t task_key(std::string_view taskid) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (taskid.size() == 32) {
    uint64_t key = 0;
    size_t i = 0;
    for (int n; i < 32 && (n = nibble(taskid[i])) >= 0; ++i)
      if (i < 16) key = key << 4 | static_cast<uint64_t>(n);
    if (i == 32) return static_cast<int64_t>(key);
  }
  return static_cast<int64_t>(SeenSet::hash(taskid));
}

// Brings a store of an earlier layout to this one, with every key in task_keys: a store of
// layout 3 had them in one index, tasks_key, and one of layout 4 had its recent level in a
// table, task_keys_recent. Their entries are read in key order, and the index or table goes.
// One transaction: a kill during it leaves the store as it was.
void migrate_keys(SqliteFile& f, int version) {
  f.begin();
  f.exec(kSchema);
  if (version == kOneLevelKeysVersion) {
    f.exec(
        "INSERT INTO task_keys SELECT project, key, rowid FROM tasks INDEXED BY tasks_key "
        "ORDER BY project, key, rowid");
    f.exec("DROP INDEX tasks_key");
  } else {
    f.exec(
        "INSERT INTO task_keys SELECT project, key, row FROM task_keys_recent "
        "ORDER BY project, key, row");
    f.exec("DROP TABLE task_keys_recent");
  }
  f.exec(
      "INSERT OR REPLACE INTO meta(key, value) SELECT 'task keys merged', "
      "coalesce(max(rowid), 0) FROM tasks");
  f.exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
  f.commit();
}

// Gives `put` status, rank, exetime, seq, retries, retried, age, itag and flags, in that order:
// the nine columns that every write of a task stores.
template <class Put>
void state_values(const CrawlTask& t, int64_t seq, Put&& put) {
  const TaskSchedule& sc = t.schedule;
  put(static_cast<int64_t>(t.status));
  put(-static_cast<int64_t>(sc.priority));
  put(sc.exetime);
  put(seq);
  put(static_cast<int64_t>(sc.retries));
  put(static_cast<int64_t>(sc.retried));
  put(sc.age);
  if (sc.itag.empty())
    put(nullptr);
  else
    put(std::string_view(sc.itag));
  put(static_cast<int64_t>(detail::task_flags(sc)));
}

// Gives `put` a task row's columns from project to updatetime, in the table's order.
template <class Put>
void row_values(const CrawlTask& t, int64_t project, int64_t key, int64_t seq, Put&& put) {
  put(project);
  put(key);
  put(std::string_view(t.taskid));
  put(std::string_view(t.url));
  state_values(t, seq, put);
  put(t.fetch);
  put(t.process);
  put(t.track);
  put(t.lastcrawltime);
  put(t.updatetime);
}
constexpr int kRowColumns = 18;

// New rows are held and written up to kInsertRows to an INSERT: SQLite's work for a statement
// (its program's start, its cursors, its end) is then shared by the rows.
constexpr size_t kInsertRows = 32;

// A statement's columns as detail::read_task_row reads them.
struct SqliteRow {
  const SqliteStatement& s;
  bool is_null(int i) const { return s.is_null(i); }
  std::string_view text(int i) const { return s.text_view(i); }
  int64_t int64(int i) const { return s.int64(i); }
  double real(int i) const { return s.real(i); }
};

json parse_or(std::string_view text, json otherwise) {
  json j = parse_json(text);
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
  SqliteStatement get, find, row_has, replace_row, add_key, save_merged, update_row, ready, delayed,
      upsert, result, results, count, save_counters, save_seq;
  std::string text;  // a dict's JSON text while it is bound

  // New rows not yet written: their rowid, then their columns. Their keys are in `recent`
  // already; whatever reads or rewrites task rows writes them first (write_held).
  detail::HeldRows held{1 + kRowColumns};
  int64_t next_row = 1;  // the rowid of the next new task: the table's last plus one
  // INSERTs of 1, 2, 4, ..., kInsertRows rows, each prepared when first used.
  std::array<SqliteStatement, std::bit_width(kInsertRows)> insert_rows;
  std::array<bool, std::bit_width(kInsertRows)> insert_prepared{};
  // The highest task seq stored, and whether the meta row that keeps it lags behind.
  int64_t task_seq = 0;
  bool task_seq_dirty = false;

  void saw_seq(int64_t seq) {
    if (seq > task_seq) {
      task_seq = seq;
      task_seq_dirty = true;
    }
  }

  // The recent level: the keys of the rows after `merged_row`. A commit merges them into
  // task_keys once there are `merge_at`.
  detail::RecentKeys recent;
  int64_t merged_row = 0;
  int64_t merge_at = kRecentKeys;

  // The rowid of the project's task with this taskid, or -1.
  int64_t row_of(int64_t project, std::string_view taskid) {
    write_held();
    int64_t key = task_key(taskid);
    int64_t row = -1;
    bool recent_row = recent.find(key, project, [&](int64_t candidate) {
      row_has.bind(1, candidate).bind(2, taskid);
      if (!row_has.step("find a task")) return false;
      row_has.reset();
      row = candidate;
      return true;
    });
    if (recent_row) return row;
    find.bind(1, project).bind(2, key).bind(3, taskid);
    if (find.step("find a task")) {
      row = find.int64(0);
      find.reset();
    }
    return row;
  }

  // Reads the recent level back from the rows after the last merge.
  void read_recent() {
    SqliteStatement merged = file->prepare("SELECT value FROM meta WHERE key = 'task keys merged'");
    if (merged.step("read the last merge")) {
      merged_row = std::strtoll(merged.text(0).c_str(), nullptr, 10);
      merged.reset();
    }
    SqliteStatement rows = file->prepare("SELECT project, key, rowid FROM tasks WHERE rowid > ?");
    rows.bind(1, merged_row);
    while (rows.step("read the recent keys"))
      add_recent(rows.int64(2), rows.int64(1), rows.int64(0));
  }

  // Adds a new row's key to the recent level. Rows come one after another (a new task takes the
  // next rowid, and none is deleted); one that would not is never expected, and the level is
  // merged first instead.
  void add_recent(int64_t row, int64_t key, int64_t project) {
    if (!recent.continues(row)) merge_keys();
    recent.add(row, key, project);
  }

  // Moves the recent level's keys into task_keys, in key order, within the open transaction.
  void merge_keys() {
    if (recent.empty()) return;
    std::vector<std::array<int64_t, 3>> entries;
    entries.reserve(recent.size());
    recent.each([&](int64_t project, int64_t key, int64_t row) {
      entries.push_back({project, key, row});
    });
    std::sort(entries.begin(), entries.end());
    file->begin();
    for (const auto& [project, key, row] : entries)
      add_key.bind(1, project).bind(2, key).bind(3, row).run("merge a task's key");
    merged_row = recent.first_row() + static_cast<int64_t>(recent.size()) - 1;
    save_merged.bind(1, std::to_string(merged_row)).run("store the last merge");
    recent.clear();
  }

  // Stores the task in row `row`, or in a new row with its key when `row` is -1. A new row is
  // held for a multi-row INSERT, with the next rowid; a stored one is an UPDATE of every column:
  // INSERT OR REPLACE would make SQLite open a statement journal for each task (a replace may
  // delete index entries, and a NOT NULL column may abort), which cost as much as the insert
  // itself.
  void write(const CrawlTask& t, int64_t seq, int64_t project, int64_t row) {
    int64_t key = task_key(t.taskid);
    if (row >= 0) {
      row_values(t, project, key, seq, detail::StatementBinder(replace_row, 1, text));
      replace_row.bind(kRowColumns + 1, row).run("store a task");
    } else {
      row = next_row++;
      held(row);
      row_values(t, project, key, seq, held);
      add_recent(row, key, project);
      if (held.rows() == kInsertRows) write_held();
    }
    saw_seq(seq);
  }

  // Inserts the held rows, as many to a statement as a power of two allows. They are dropped
  // even when SQLite refuses them, as a refused INSERT of one row would be.
  void write_held() {
    if (held.empty()) return;
    size_t from = 0, rows = held.rows();
    try {
      while (from < rows) {
        size_t n = std::bit_floor(std::min(rows - from, kInsertRows));
        SqliteStatement& s = insert_statement(n);
        held.bind(s, from, n);
        s.run("store new tasks");
        from += n;
      }
    } catch (...) {
      held.clear();
      throw;
    }
    held.clear();
  }

  SqliteStatement& insert_statement(size_t rows) {
    size_t i = static_cast<size_t>(std::countr_zero(rows));
    if (!insert_prepared[i]) {
      std::string sql =
          "INSERT INTO tasks(rowid, project, key, taskid, url, status, rank, exetime, seq, "
          "retries, retried, age, itag, flags, fetch, process, track, lastcrawltime, updatetime) "
          "VALUES ";
      for (size_t r = 0; r < rows; ++r) {
        sql += r ? ",(" : "(";
        for (int c = 0; c <= kRowColumns; ++c) sql += c ? ",?" : "?";
        sql += ")";
      }
      insert_rows[i] = file->prepare(sql.c_str());
      insert_prepared[i] = true;
    }
    return insert_rows[i];
  }

  // Writes the held rows, merges the recent level once it is due, stores the last seq, and
  // commits.
  void commit() {
    write_held();
    if (static_cast<int64_t>(recent.size()) >= merge_at) merge_keys();
    if (task_seq_dirty) {
      file->begin();
      save_seq.bind(1, std::to_string(task_seq)).run("store the last seq");
      task_seq_dirty = false;
    }
    file->commit();
  }

  std::unordered_map<std::string, int64_t> project_ids;
  // The one asked for last: an engine with one project asks for it on every read and write.
  std::pair<std::string, int64_t> last_project{std::string(), -1};

  // Where the tasks that ready() and delayed() handed out live: taskid -> (project id, rowid).
  // An outcome updates its task by rowid, one step into pages that dispatch order keeps warm,
  // instead of a seek in the key index, where an MD5 lands on a random page (a read from
  // the OS at 10 M tasks). A task that is not here (its read was before a restart, or the map
  // was full and emptied) is found by its taskid as before. At most kMaxPlaces entries.
  struct Place {
    int64_t project = 0, rowid = 0;
  };
  static constexpr size_t kMaxPlaces = 1 << 16;
  std::unordered_map<std::string, Place> places;

  void handed_out(const std::string& taskid, int64_t project, int64_t rowid) {
    if (places.size() >= kMaxPlaces) places.clear();
    places.insert_or_assign(taskid, Place{project, rowid});
  }

  // The project's key in the task table; `create` adds one for a new name, else -1 for it.
  int64_t project_id(const std::string& name, bool create) {
    if (last_project.second >= 0 && name == last_project.first) return last_project.second;
    if (auto it = project_ids.find(name); it != project_ids.end()) {
      last_project = *it;
      return it->second;
    }
    SqliteStatement s = file->prepare("SELECT id FROM project_ids WHERE name = ?");
    s.bind(1, name);
    int64_t id = -1;
    if (s.step("read a project's id")) {
      id = s.int64(0);
      s.reset();
    } else if (create) {
      file->begin();
      file->prepare("INSERT INTO project_ids(name) VALUES (?)").bind(1, name).run("add a project");
      id = sqlite3_last_insert_rowid(file->handle());
    }
    if (id >= 0) project_ids.emplace(name, id);
    return id;
  }
};

std::unique_ptr<SqliteStore> SqliteStore::open(const std::filesystem::path& path, bool start_over,
                                               std::string label, size_t cache_mib) {
  auto db = std::make_unique<Db>();
  db->path = path;
  db->file = SqliteFile::open(path, std::move(label),
                              " (one engine per store): wait for it to end, or give another file",
                              start_over);
  SqliteFile& f = *db->file;
  int version = 0;
  bool empty = true;
  {
    SqliteStatement v = f.prepare("PRAGMA user_version");
    if (v.step("read the layout version")) {
      version = v.integer(0);
      v.reset();
    }
    SqliteStatement any = f.prepare("SELECT 1 FROM sqlite_master LIMIT 1");
    if (any.step("read the tables")) {
      empty = false;
      any.reset();
    }
  }
  if (!empty && (version == kOneLevelKeysVersion || version == kRecentTableVersion)) {
    migrate_keys(f, version);
    version = kSchemaVersion;
  }
  if (!empty && version != kSchemaVersion) {
    std::string detail = "engine store " + path.string() + ": its layout (version " +
                         std::to_string(version) + ") is not the one this squall reads (version " +
                         std::to_string(kSchemaVersion) +
                         "): start over in it (fresh) or give another file";
    throw Error(ErrorKind::InvalidArgument, detail);
  }
  // The key index is read at random by every lookup of a taskid (an MD5), so its pages are worth
  // holding: 64 MiB of page cache (the default `cache_mib`), against SQLite's 2 MiB, keeps it in
  // memory to about 3 M tasks (it takes 19 MiB a million).
  f.exec(("PRAGMA cache_size = -" + std::to_string(std::max<size_t>(1, cache_mib) * 1024)).c_str());
  // A merge of the recent keys rewrites task_keys' pages, and outcomes dirty the pages of the
  // tasks they update. At SQLite's default (a checkpoint once the log holds 1,000 pages) every
  // commit was followed by a checkpoint copying them back into the file and an fsync; at 16,384
  // pages (64 MiB of log at 4 KiB pages) a page rewritten by several commits is copied back
  // once. The log is reused from its start after each checkpoint, so it stays near that size,
  // and a restart after a kill replays at most that much.
  f.exec("PRAGMA wal_autocheckpoint = 16384");
  f.exec(kSchema);
  if (empty) f.exec(("PRAGMA user_version = " + std::to_string(kSchemaVersion)).c_str());
  db->get = f.prepare(
      (std::string("SELECT ") + detail::kTaskColumns + " FROM tasks WHERE rowid = ?").c_str());
  // The row of ?3 among the rows of (project ?1, key ?2) in task_keys.
  db->find = f.prepare(
      "SELECT rowid FROM tasks WHERE rowid IN (SELECT row FROM task_keys WHERE project = ?1 AND "
      "key = ?2) AND taskid = ?3");
  db->row_has = f.prepare("SELECT 1 FROM tasks WHERE rowid = ? AND taskid = ?");
  // A new task gets the next rowid, at the end of the table (write_held); a task stored again
  // keeps its row (its rowid, so its place in browsing).
  db->replace_row = f.prepare(
      "UPDATE tasks SET project = ?1, key = ?2, taskid = ?3, url = ?4, status = ?5, rank = ?6, "
      "exetime = ?7, seq = ?8, retries = ?9, retried = ?10, age = ?11, itag = ?12, flags = ?13, "
      "fetch = ?14, process = ?15, track = ?16, lastcrawltime = ?17, updatetime = ?18 "
      "WHERE rowid = ?19");
  db->add_key = f.prepare("INSERT INTO task_keys(project, key, row) VALUES (?, ?, ?)");
  db->save_merged =
      f.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('task keys merged', ?)");
  db->update_row = f.prepare(
      "UPDATE tasks SET status = ?3, rank = ?4, exetime = ?5, seq = ?6, retries = ?7, "
      "retried = ?8, age = ?9, itag = ?10, flags = ?11, track = ?12, lastcrawltime = ?13, "
      "updatetime = ?14 WHERE rowid = ?15 AND project = ?1 AND taskid = ?2");
  db->ready = f.prepare((std::string("SELECT ") + detail::kTaskColumns +
                         ", rowid FROM tasks WHERE project = ?1 AND status = 1 AND exetime = 0 AND "
                         "(rank, seq) > (?2, ?3) ORDER BY rank, seq LIMIT ?4")
                            .c_str());
  db->delayed =
      f.prepare((std::string("SELECT ") + detail::kTaskColumns +
                 ", rowid FROM tasks WHERE project = ?1 AND status = 1 AND exetime > 0 AND "
                 "(exetime, seq) > (?2, ?3) ORDER BY exetime, seq LIMIT ?4")
                    .c_str());
  db->upsert = f.prepare(
      "INSERT INTO results(project, taskid, url, result, updatetime) "
      "VALUES (?, ?, ?, ?, ?) ON CONFLICT(project, taskid) DO UPDATE SET "
      "url = excluded.url, result = excluded.result, updatetime = excluded.updatetime");
  db->result = f.prepare(
      "SELECT taskid, url, result, updatetime FROM results WHERE project = ? AND taskid = ?");
  db->results = f.prepare(
      "SELECT taskid, url, result, updatetime FROM results WHERE project = ? "
      "ORDER BY rowid LIMIT ? OFFSET ?");
  db->count = f.prepare("SELECT count(*) FROM results WHERE project = ?");
  db->save_counters = f.prepare("INSERT OR REPLACE INTO counters(project, data) VALUES (?, ?)");
  db->save_seq = f.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('task seq', ?)");
  // The highest task seq is kept in meta, saved with the tasks (a max() over 10 M rows would
  // cost a restart seconds).
  SqliteStatement seq = f.prepare("SELECT value FROM meta WHERE key = 'task seq'");
  if (seq.step("open")) {
    db->task_seq = std::strtoll(seq.text(0).c_str(), nullptr, 10);
    seq.reset();
  }
  SqliteStatement last = f.prepare("SELECT max(rowid) FROM tasks");
  if (last.step("read the last task row")) {
    db->next_row = last.int64(0) + 1;
    last.reset();
  }
  db->recent.reserve(static_cast<size_t>(db->merge_at));
  db->read_recent();  // once its statements are prepared: a merge may write with them
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(db)));
}

SqliteStore::SqliteStore(std::unique_ptr<Db> db) : db_(std::move(db)) {}
SqliteStore::~SqliteStore() {
  // Closing commits, as the file would commit its open transaction: the held rows and the last
  // seq go with it.
  try {
    db_->commit();
  } catch (const std::exception&) {
  }
}

void SqliteStore::merge_keys_at(int64_t entries) noexcept {
  db_->merge_at = entries;
  db_->recent.reserve(static_cast<size_t>(std::max<int64_t>(entries, 0)));
}

const std::filesystem::path& SqliteStore::path() const noexcept {
  return db_->path;
}

std::string SqliteStore::describe() const {
  return db_->path.string();
}

Task<void> SqliteStore::claim_project(std::string) {
  co_return;
}

Task<std::optional<CrawlTask>> SqliteStore::get(std::string project, std::string taskid) {
  std::optional<CrawlTask> out;
  int64_t id = db_->project_id(project, false);
  if (id < 0) co_return out;
  int64_t row = db_->row_of(id, taskid);
  if (row < 0) co_return out;
  SqliteStatement& s = db_->get;
  s.bind(1, row);
  if (s.step("read a task")) {
    out = detail::read_task_row(SqliteRow{s}, project).task;
    s.reset();
  }
  co_return out;
}

Task<void> SqliteStore::put(const CrawlTask& t, int64_t seq) {
  db_->file->begin();
  int64_t project = db_->project_id(t.project, true);
  db_->write(t, seq, project, db_->row_of(project, t.taskid));
  co_return;
}

Task<void> SqliteStore::insert(const CrawlTask& t, int64_t seq) {
  db_->file->begin();
  db_->write(t, seq, db_->project_id(t.project, true), -1);
  co_return;
}

Task<void> SqliteStore::update(const CrawlTask& t, int64_t seq) {
  db_->file->begin();
  int64_t project = db_->project_id(t.project, true);
  int64_t row = -1;
  if (auto it = db_->places.find(t.taskid); it != db_->places.end()) {
    if (it->second.project == project) row = it->second.rowid;
    db_->places.erase(it);
  }
  SqliteStatement& s = db_->update_row;
  auto write = [&](int64_t rowid) {
    detail::StatementBinder put(s, 1, db_->text);
    put(project);
    put(std::string_view(t.taskid));
    state_values(t, seq, put);
    put(t.track);
    put(t.lastcrawltime);
    put(t.updatetime);
    put(rowid);
    s.run("update a task");
  };
  if (row >= 0) write(row);
  if (row < 0 || db_->file->changes() == 0) {
    row = db_->row_of(project, t.taskid);
    if (row >= 0) write(row);
  }
  db_->saw_seq(seq);
  co_return;
}

Task<std::vector<QueuedTask>> SqliteStore::ready(std::string project, std::optional<ReadyKey> after,
                                                 size_t limit) {
  std::vector<QueuedTask> out;
  db_->write_held();
  int64_t id = db_->project_id(project, false);
  if (id < 0) co_return out;
  SqliteStatement& s = db_->ready;
  constexpr int64_t kBeforeAll = std::numeric_limits<int64_t>::min();
  s.bind(1, id)
      .bind(2, after ? -static_cast<int64_t>(after->priority) : kBeforeAll)
      .bind(3, after ? after->seq : kBeforeAll)
      .bind(4, static_cast<int64_t>(limit));
  while (s.step("read ready tasks")) {
    out.push_back(detail::read_task_row(SqliteRow{s}, project));
    db_->handed_out(out.back().task.taskid, id, s.int64(16));
  }
  co_return out;
}

Task<std::vector<QueuedTask>> SqliteStore::delayed(std::string project,
                                                   std::optional<DelayKey> after, size_t limit) {
  std::vector<QueuedTask> out;
  db_->write_held();
  int64_t id = db_->project_id(project, false);
  if (id < 0) co_return out;
  SqliteStatement& s = db_->delayed;
  s.bind(1, id)
      .bind(2, after ? after->exetime : 0.0)
      .bind(3, after ? after->seq : std::numeric_limits<int64_t>::min())
      .bind(4, static_cast<int64_t>(limit));
  while (s.step("read delayed tasks")) {
    out.push_back(detail::read_task_row(SqliteRow{s}, project));
    db_->handed_out(out.back().task.taskid, id, s.int64(16));
  }
  co_return out;
}

Task<int64_t> SqliteStore::last_seq() {
  co_return db_->task_seq;
}

Task<void> SqliteStore::each_taskid(std::string project,
                                    std::function<void(const std::string&)> fn) {
  db_->write_held();
  int64_t id = db_->project_id(project, false);
  if (id < 0) co_return;
  // In rowid order: a scan of the table.
  SqliteStatement s = db_->file->prepare("SELECT taskid FROM tasks WHERE project = ?");
  s.bind(1, id);
  std::string taskid;
  while (s.step("read the taskids")) {
    taskid.assign(s.text_view(0));
    fn(taskid);
  }
  co_return;
}

Task<CounterValues> SqliteStore::recount(std::string project) {
  CounterValues v{};
  db_->write_held();
  int64_t id = db_->project_id(project, false);
  if (id < 0) co_return v;
  SqliteStatement s =
      db_->file->prepare("SELECT status, count(*) FROM tasks WHERE project = ? GROUP BY status");
  s.bind(1, id);
  while (s.step("count the tasks")) detail::count_status(v, s.int64(0), s.int64(1));
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
  db_->save_counters.bind(1, project).bind(2, counters.dump()).run("store the counters");
  co_return;
}

Task<void> SqliteStore::commit() {
  db_->commit();
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
  db_->text.clear();
  append_json(db_->text, r.result);
  db_->upsert.bind(1, project)
      .bind(2, r.taskid)
      .bind(3, r.url)
      .bind(4, db_->text)
      .bind(5, r.updatetime)
      .run("store a result");
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

// The filters run over a window of at most kBrowseScan rows after the cursor, so a rare status
// costs a bounded read per page instead of a scan of the whole project.
Task<SqliteStore::TaskPage> SqliteStore::browse_tasks(std::string project,
                                                      std::optional<TaskStatus> status,
                                                      std::string url_contains, std::string cursor,
                                                      size_t limit) {
  TaskPage page;
  db_->write_held();
  int64_t after = row_cursor(cursor);
  int64_t id = db_->project_id(project, false);
  if (id < 0 || limit == 0) co_return page;
  SqliteStatement s = db_->file->prepare(
      (std::string("SELECT ") + detail::kTaskColumns +
       ", r FROM (SELECT rowid AS r, * FROM tasks WHERE project = ?1 AND rowid > ?2 ORDER BY "
       "rowid "
       "LIMIT ?3) WHERE (?4 = 0 OR status = ?4) AND (?5 = '' OR instr(url, ?5) > 0) LIMIT ?6")
          .c_str());
  s.bind(1, id)
      .bind(2, after)
      .bind(3, static_cast<int64_t>(kBrowseScan))
      .bind(4, status ? static_cast<int>(*status) : 0)
      .bind(5, url_contains)
      .bind(6, static_cast<int64_t>(limit));
  int64_t last = after;
  while (s.step("browse tasks")) {
    last = s.int64(16);
    page.tasks.push_back(detail::read_task_row(SqliteRow{s}, project).task);
  }
  if (page.tasks.size() == limit) {
    page.next = std::to_string(last);
  } else {
    // Short: either the window ran out (go on after it) or the table did (the end).
    SqliteStatement w = db_->file->prepare(
        "SELECT count(*), max(r) FROM (SELECT rowid AS r FROM tasks WHERE project = ?1 AND "
        "rowid > ?2 ORDER BY rowid LIMIT ?3)");
    w.bind(1, id).bind(2, after).bind(3, static_cast<int64_t>(kBrowseScan));
    if (w.step("browse tasks")) {
      if (static_cast<size_t>(w.int64(0)) == kBrowseScan) page.next = std::to_string(w.int64(1));
      w.reset();
    }
  }
  co_return page;
}

Task<SqliteStore::ResultPage> SqliteStore::browse_results(std::string project,
                                                          std::string url_contains,
                                                          std::string cursor, size_t limit) {
  ResultPage page;
  int64_t after = row_cursor(cursor);
  if (limit == 0) co_return page;
  SqliteStatement s = db_->file->prepare(
      "SELECT r, taskid, url, result, updatetime FROM (SELECT rowid AS r, * FROM results WHERE "
      "project = ?1 AND rowid > ?2 ORDER BY rowid LIMIT ?3) WHERE ?4 = '' OR instr(url, ?4) > 0 "
      "LIMIT ?5");
  s.bind(1, project)
      .bind(2, after)
      .bind(3, static_cast<int64_t>(kBrowseScan))
      .bind(4, url_contains)
      .bind(5, static_cast<int64_t>(limit));
  int64_t last = after;
  while (s.step("browse results")) {
    last = s.int64(0);
    page.results.push_back(
        TaskResult{s.text(1), s.text(2), parse_or(s.text_view(3), json()), s.real(4)});
  }
  if (page.results.size() == limit) {
    page.next = std::to_string(last);
  } else {
    SqliteStatement w = db_->file->prepare(
        "SELECT count(*), max(r) FROM (SELECT rowid AS r FROM results WHERE project = ?1 AND "
        "rowid > ?2 ORDER BY rowid LIMIT ?3)");
    w.bind(1, project).bind(2, after).bind(3, static_cast<int64_t>(kBrowseScan));
    if (w.step("browse results")) {
      if (static_cast<size_t>(w.int64(0)) == kBrowseScan) page.next = std::to_string(w.int64(1));
      w.reset();
    }
  }
  co_return page;
}

}  // namespace squall
