// CrawlStore on SQLite: prepared statements, one open transaction committed in batches.
#include "squall/crawl/store.h"

#include <utility>

#include "squall/crawl/sqlite_file.h"

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
  std::unique_ptr<SqliteFile> file;
  SqliteStatement add, queued, set_state, result, attempt;
  int64_t seq = 0;
};

CrawlStore CrawlStore::open(const std::filesystem::path& path, bool start_over) {
  auto db = std::make_unique<Db>();
  db->file = SqliteFile::open(path, "crawl state",
                              " (one crawl per state file): wait for it to end, or pass --state "
                              "FILE to run another crawl",
                              start_over);
  SqliteFile& f = *db->file;
  f.exec(kSchema);
  db->add = f.prepare("INSERT OR IGNORE INTO urls(url, depth, parent) VALUES (?, ?, ?)");
  db->queued = f.prepare(
      "SELECT id, url, depth, parent, attempts FROM urls WHERE state = 0 AND id > ? "
      "ORDER BY id LIMIT ?");
  db->set_state = f.prepare("UPDATE urls SET state = ? WHERE id = ?");
  db->result = f.prepare(
      "INSERT OR REPLACE INTO results(url_id, final_url, status, content_type, length, "
      "fetched_at, elapsed_ms, links, error, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  db->attempt = f.prepare("UPDATE urls SET attempts = ? WHERE id = ?");

  bool fresh = true;
  SqliteStatement s = f.prepare(
      "SELECT (SELECT count(*) FROM urls), "
      "(SELECT coalesce(max(seq), 0) FROM results)");
  if (s.step("open")) {
    fresh = s.int64(0) == 0;
    db->seq = s.int64(1);
    s.reset();
  }
  return CrawlStore(std::move(db), path, fresh);
}

CrawlStore::CrawlStore(std::unique_ptr<Db> db, std::filesystem::path path, bool fresh)
    : db_(std::move(db)), path_(std::move(path)), fresh_(fresh) {}
CrawlStore::CrawlStore(CrawlStore&&) noexcept = default;
CrawlStore& CrawlStore::operator=(CrawlStore&&) noexcept = default;
CrawlStore::~CrawlStore() = default;

int64_t CrawlStore::add(std::string_view url, int depth, std::string_view parent) {
  SqliteFile& f = *db_->file;
  f.begin();
  db_->add.bind(1, url).bind(2, depth).bind(3, parent).run("add a URL");
  return f.changes() > 0 ? sqlite3_last_insert_rowid(f.handle()) : 0;
}

std::vector<CrawlUrl> CrawlStore::queued(int64_t after, size_t limit) {
  std::vector<CrawlUrl> out;
  SqliteStatement& s = db_->queued;
  s.bind(1, after).bind(2, static_cast<int64_t>(limit));
  while (s.step("read the frontier"))
    out.push_back({s.int64(0), s.text(1), s.integer(2), s.text(3), s.integer(4)});
  return out;
}

void CrawlStore::for_each_url(const std::function<void(std::string_view)>& fn) {
  SqliteStatement s = db_->file->prepare("SELECT url FROM urls");
  while (s.step("read the URLs")) fn(s.text_view(0));
}

void CrawlStore::finish(int64_t id, UrlState state, const PageResult& r) {
  db_->file->begin();
  db_->set_state.bind(1, static_cast<int>(state)).bind(2, id).run("record a URL's state");
  db_->result.bind(1, id)
      .bind(2, r.final_url)
      .bind(3, r.status)
      .bind(4, r.content_type)
      .bind(5, static_cast<int64_t>(r.length))
      .bind(6, r.fetched_at)
      .bind(7, r.elapsed_ms)
      .bind(8, r.links)
      .bind(9, r.error)
      .bind(10, ++db_->seq)
      .run("record a result");
}

void CrawlStore::count_attempt(int64_t id, int attempts) {
  db_->file->begin();
  db_->attempt.bind(1, attempts).bind(2, id).run("count an attempt");
}

std::optional<std::string> CrawlStore::meta(std::string_view key) {
  SqliteStatement s = db_->file->prepare("SELECT value FROM meta WHERE key = ?");
  s.bind(1, key);
  std::optional<std::string> out;
  if (s.step("read a setting")) {
    out = s.text(0);
    s.reset();
  }
  return out;
}

void CrawlStore::set_meta(std::string_view key, std::string_view value) {
  db_->file->begin();
  db_->file->prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
      .bind(1, key)
      .bind(2, value)
      .run("store a setting");
}

void CrawlStore::commit() {
  db_->file->commit();
}

StoreCounts CrawlStore::counts() {
  StoreCounts c;
  SqliteStatement s = db_->file->prepare("SELECT state, count(*) FROM urls GROUP BY state");
  while (s.step("count the URLs")) {
    int64_t n = s.int64(1);
    switch (static_cast<UrlState>(s.integer(0))) {
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
  return c;
}

std::vector<StoredResult> CrawlStore::results() {
  std::vector<StoredResult> out;
  SqliteStatement s = db_->file->prepare(
      "SELECT u.url, u.depth, u.parent, u.state, r.final_url, r.status, r.content_type, "
      "r.length, r.fetched_at, r.elapsed_ms, r.links, r.error FROM results r "
      "JOIN urls u ON u.id = r.url_id ORDER BY r.seq");
  while (s.step("read the results")) {
    StoredResult r;
    r.url = s.text(0);
    r.depth = s.integer(1);
    r.parent = s.text(2);
    r.state = static_cast<UrlState>(s.integer(3));
    r.page.final_url = s.text(4);
    r.page.status = s.integer(5);
    r.page.content_type = s.text(6);
    r.page.length = static_cast<uint64_t>(s.int64(7));
    r.page.fetched_at = s.int64(8);
    r.page.elapsed_ms = s.real(9);
    r.page.links = s.integer(10);
    r.page.error = s.text(11);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace squall
