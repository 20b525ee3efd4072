// CrawlStore on SQLite: prepared statements, one open transaction committed in batches.
#include "squall/crawl/store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "squall/core/error.h"

namespace squall {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS urls (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,
  depth INTEGER NOT NULL,
  parent TEXT NOT NULL,
  state INTEGER NOT NULL DEFAULT 0,   -- 0 queued, 1 done, 2 failed, 3 skipped
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS urls_queued ON urls(state, id);
CREATE TABLE IF NOT EXISTS results (
  url_id INTEGER PRIMARY KEY REFERENCES urls(id),
  final_url TEXT NOT NULL,
  status INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  length INTEGER NOT NULL,
  fetched_at INTEGER NOT NULL,        -- Unix time, milliseconds
  elapsed_ms REAL NOT NULL,
  links INTEGER NOT NULL,
  error TEXT NOT NULL,
  seq INTEGER NOT NULL                -- the order results were stored
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
)sql";

}  // namespace

struct CrawlStore::Db {
  int lock_fd = -1;  // the flock; closed after SQLite's own descriptors
  sqlite3* db = nullptr;
  std::string path;
  sqlite3_stmt* add = nullptr;
  sqlite3_stmt* queued = nullptr;
  sqlite3_stmt* set_state = nullptr;
  sqlite3_stmt* result = nullptr;
  sqlite3_stmt* attempt = nullptr;
  int64_t seq = 0;
  bool in_transaction = false;

  ~Db() {
    for (sqlite3_stmt* s : {add, queued, set_state, result, attempt}) sqlite3_finalize(s);
    if (db) {
      if (in_transaction) sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_close(db);
    }
    if (lock_fd >= 0) ::close(lock_fd);
  }

  [[noreturn]] void fail(std::string_view what) const {
    std::string detail = "crawl state ";
    detail.append(path).append(": ").append(what).append(": ").append(db ? sqlite3_errmsg(db)
                                                                         : "out of memory");
    throw Error(ErrorKind::System, detail);
  }

  void exec(const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
  }

  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK)
      fail("prepare");
    return s;
  }

  void begin() {
    if (!in_transaction) {
      exec("BEGIN");
      in_transaction = true;
    }
  }

  // Runs a statement that returns no rows, then resets it.
  void step_done(sqlite3_stmt* s, std::string_view what) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) fail(what);
  }
};

namespace {

void bind_text(sqlite3_stmt* s, int i, std::string_view v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* p = sqlite3_column_text(s, i);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<size_t>(sqlite3_column_bytes(s, i)))
           : std::string();
}

}  // namespace

namespace {

// Opens the state file (created if missing) and takes its lock without waiting.
int lock_state(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error(ErrorKind::System,
                "crawl state " + path + ": cannot open: " + std::string(std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK)
      throw Error(ErrorKind::InvalidState,
                  "crawl state " + path +
                      " is in use by another process (one crawl per state file): wait for it to "
                      "end, or pass --state FILE to run another crawl");
    throw Error(ErrorKind::System,
                "crawl state " + path + ": cannot lock: " + std::string(std::strerror(e)));
  }
  return fd;
}

// Empties the state file and removes its write-ahead log and shared memory (a killed run may
// have left them), which would otherwise be replayed into the emptied file. The lock is held.
void drop_state(int fd, const std::string& path) {
  if (::ftruncate(fd, 0) != 0)
    throw Error(ErrorKind::System,
                "crawl state " + path + ": cannot start over: " + std::strerror(errno));
  for (const char* suffix : {"-wal", "-shm"}) {
    std::string side = path + suffix;
    if (::unlink(side.c_str()) != 0 && errno != ENOENT)
      throw Error(ErrorKind::System,
                  "crawl state " + side + ": cannot remove: " + std::strerror(errno));
  }
}

}  // namespace

CrawlStore CrawlStore::open(const std::filesystem::path& path, bool start_over) {
  auto db = std::make_unique<Db>();
  db->path = path.string();
  db->lock_fd = lock_state(db->path);
  if (start_over) drop_state(db->lock_fd, db->path);
  if (sqlite3_open_v2(db->path.c_str(), &db->db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK)
    db->fail("cannot open");
  // NOMUTEX: a store belongs to one loop's thread, so SQLite's own locking is pure cost.
  sqlite3_busy_timeout(db->db, 5000);
  db->exec("PRAGMA journal_mode=WAL");
  // NORMAL in WAL mode: a committed batch survives the process being killed (the OS holds it);
  // only a power cut can take the last batches back.
  db->exec("PRAGMA synchronous=NORMAL");
  db->exec(kSchema);
  db->add = db->prepare("INSERT OR IGNORE INTO urls(url, depth, parent) VALUES (?, ?, ?)");
  db->queued = db->prepare(
      "SELECT id, url, depth, parent, attempts FROM urls WHERE state = 0 AND id > ? "
      "ORDER BY id LIMIT ?");
  db->set_state = db->prepare("UPDATE urls SET state = ? WHERE id = ?");
  db->result = db->prepare(
      "INSERT OR REPLACE INTO results(url_id, final_url, status, content_type, length, "
      "fetched_at, elapsed_ms, links, error, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  db->attempt = db->prepare("UPDATE urls SET attempts = ? WHERE id = ?");

  bool fresh = true;
  sqlite3_stmt* s = db->prepare(
      "SELECT (SELECT count(*) FROM urls), "
      "(SELECT coalesce(max(seq), 0) FROM results)");
  if (sqlite3_step(s) == SQLITE_ROW) {
    fresh = sqlite3_column_int64(s, 0) == 0;
    db->seq = sqlite3_column_int64(s, 1);
  }
  sqlite3_finalize(s);
  return CrawlStore(std::move(db), path, fresh);
}

CrawlStore::CrawlStore(std::unique_ptr<Db> db, std::filesystem::path path, bool fresh)
    : db_(std::move(db)), path_(std::move(path)), fresh_(fresh) {}
CrawlStore::CrawlStore(CrawlStore&&) noexcept = default;
CrawlStore& CrawlStore::operator=(CrawlStore&&) noexcept = default;
CrawlStore::~CrawlStore() = default;

int64_t CrawlStore::add(std::string_view url, int depth, std::string_view parent) {
  db_->begin();
  sqlite3_stmt* s = db_->add;
  bind_text(s, 1, url);
  sqlite3_bind_int(s, 2, depth);
  bind_text(s, 3, parent);
  db_->step_done(s, "add a URL");
  return sqlite3_changes(db_->db) > 0 ? sqlite3_last_insert_rowid(db_->db) : 0;
}

std::vector<CrawlUrl> CrawlStore::queued(int64_t after, size_t limit) {
  std::vector<CrawlUrl> out;
  sqlite3_stmt* s = db_->queued;
  sqlite3_bind_int64(s, 1, after);
  sqlite3_bind_int64(s, 2, static_cast<int64_t>(limit));
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    out.push_back({sqlite3_column_int64(s, 0), column_text(s, 1), sqlite3_column_int(s, 2),
                   column_text(s, 3), sqlite3_column_int(s, 4)});
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) db_->fail("read the frontier");
  return out;
}

void CrawlStore::for_each_url(const std::function<void(std::string_view)>& fn) {
  sqlite3_stmt* s = db_->prepare("SELECT url FROM urls");
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    fn(std::string_view(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)),
                        static_cast<size_t>(sqlite3_column_bytes(s, 0))));
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) db_->fail("read the URLs");
}

void CrawlStore::finish(int64_t id, UrlState state, const PageResult& r) {
  db_->begin();
  sqlite3_stmt* s = db_->set_state;
  sqlite3_bind_int(s, 1, static_cast<int>(state));
  sqlite3_bind_int64(s, 2, id);
  db_->step_done(s, "record a URL's state");
  s = db_->result;
  sqlite3_bind_int64(s, 1, id);
  bind_text(s, 2, r.final_url);
  sqlite3_bind_int(s, 3, r.status);
  bind_text(s, 4, r.content_type);
  sqlite3_bind_int64(s, 5, static_cast<int64_t>(r.length));
  sqlite3_bind_int64(s, 6, r.fetched_at);
  sqlite3_bind_double(s, 7, r.elapsed_ms);
  sqlite3_bind_int(s, 8, r.links);
  bind_text(s, 9, r.error);
  sqlite3_bind_int64(s, 10, ++db_->seq);
  db_->step_done(s, "record a result");
}

void CrawlStore::count_attempt(int64_t id, int attempts) {
  db_->begin();
  sqlite3_stmt* s = db_->attempt;
  sqlite3_bind_int(s, 1, attempts);
  sqlite3_bind_int64(s, 2, id);
  db_->step_done(s, "count an attempt");
}

std::optional<std::string> CrawlStore::meta(std::string_view key) {
  sqlite3_stmt* s = db_->prepare("SELECT value FROM meta WHERE key = ?");
  bind_text(s, 1, key);
  std::optional<std::string> out;
  if (sqlite3_step(s) == SQLITE_ROW) out = column_text(s, 0);
  sqlite3_finalize(s);
  return out;
}

void CrawlStore::set_meta(std::string_view key, std::string_view value) {
  db_->begin();
  sqlite3_stmt* s = db_->prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
  bind_text(s, 1, key);
  bind_text(s, 2, value);
  int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) db_->fail("store a setting");
}

void CrawlStore::commit() {
  if (!db_->in_transaction) return;
  db_->in_transaction = false;
  db_->exec("COMMIT");
}

StoreCounts CrawlStore::counts() {
  StoreCounts c;
  sqlite3_stmt* s = db_->prepare("SELECT state, count(*) FROM urls GROUP BY state");
  while (sqlite3_step(s) == SQLITE_ROW) {
    int64_t n = sqlite3_column_int64(s, 1);
    switch (static_cast<UrlState>(sqlite3_column_int(s, 0))) {
      case UrlState::Queued:
        c.queued = n;
        break;
      case UrlState::Done:
        c.done = n;
        break;
      case UrlState::Failed:
        c.failed = n;
        break;
      case UrlState::Skipped:
        c.skipped = n;
        break;
    }
  }
  sqlite3_finalize(s);
  return c;
}

std::vector<StoredResult> CrawlStore::results() {
  std::vector<StoredResult> out;
  sqlite3_stmt* s = db_->prepare(
      "SELECT u.url, u.depth, u.parent, u.state, r.final_url, r.status, r.content_type, "
      "r.length, r.fetched_at, r.elapsed_ms, r.links, r.error FROM results r "
      "JOIN urls u ON u.id = r.url_id ORDER BY r.seq");
  while (sqlite3_step(s) == SQLITE_ROW) {
    StoredResult r;
    r.url = column_text(s, 0);
    r.depth = sqlite3_column_int(s, 1);
    r.parent = column_text(s, 2);
    r.state = static_cast<UrlState>(sqlite3_column_int(s, 3));
    r.page.final_url = column_text(s, 4);
    r.page.status = sqlite3_column_int(s, 5);
    r.page.content_type = column_text(s, 6);
    r.page.length = static_cast<uint64_t>(sqlite3_column_int64(s, 7));
    r.page.fetched_at = sqlite3_column_int64(s, 8);
    r.page.elapsed_ms = sqlite3_column_double(s, 9);
    r.page.links = sqlite3_column_int(s, 10);
    r.page.error = column_text(s, 11);
    out.push_back(std::move(r));
  }
  sqlite3_finalize(s);
  return out;
}

}  // namespace squall
