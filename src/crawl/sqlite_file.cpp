// SqliteFile: the lock, the pragmas, and errors that name the file.
#include "squall/crawl/sqlite_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "squall/core/error.h"

namespace squall {

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(stmt_);
    file_ = o.file_;
    stmt_ = std::exchange(o.stmt_, nullptr);
  }
  return *this;
}

SqliteStatement& SqliteStatement::bind(int i, std::string_view text) {
  sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::bind_static(int i, std::string_view text) {
  sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}

SqliteStatement& SqliteStatement::bind(int i, double v) {
  sqlite3_bind_double(stmt_, i, v);
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

void SqliteStatement::run(std::string_view what) {
  int rc = sqlite3_step(stmt_);
  sqlite3_reset(stmt_);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) file_->fail(what);
}

bool SqliteStatement::step(std::string_view what) {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  sqlite3_reset(stmt_);
  if (rc != SQLITE_DONE) file_->fail(what);
  return false;
}

std::string SqliteStatement::text(int i) const {
  return std::string(text_view(i));
}

std::string_view SqliteStatement::text_view(int i) const {
  const unsigned char* p = sqlite3_column_text(stmt_, i);
  return p ? std::string_view(reinterpret_cast<const char*>(p),
                              static_cast<size_t>(sqlite3_column_bytes(stmt_, i)))
           : std::string_view();
}

namespace {

std::string errno_text(int e) {
  return std::strerror(e);
}

}  // namespace

std::unique_ptr<SqliteFile> SqliteFile::open(const std::filesystem::path& path, std::string label,
                                             std::string_view in_use_hint, bool start_over) {
  std::unique_ptr<SqliteFile> file(new SqliteFile());
  file->path_ = path.string();
  file->label_ = std::move(label);
  const std::string& p = file->path_;
  auto system_error = [&](std::string_view what, int e) {
    std::string detail = file->label_;
    detail.append(" ").append(p).append(": ").append(what).append(": ").append(errno_text(e));
    return Error(ErrorKind::System, detail);
  };
  file->lock_fd_ = ::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (file->lock_fd_ < 0) throw system_error("cannot open", errno);
  if (::flock(file->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    if (e == EWOULDBLOCK) {
      std::string detail = file->label_;
      detail.append(" ").append(p).append(" is in use by another process");
      detail.append(in_use_hint);
      throw Error(ErrorKind::InvalidState, detail);
    }
    throw system_error("cannot lock", e);
  }
  if (start_over) {
    // Empties the file and removes its write-ahead log and shared memory (a killed run may have
    // left them), which would otherwise be replayed into the emptied file.
    if (::ftruncate(file->lock_fd_, 0) != 0) throw system_error("cannot start over", errno);
    for (const char* suffix : {"-wal", "-shm"}) {
      std::string side = p + suffix;
      if (::unlink(side.c_str()) != 0 && errno != ENOENT)
        throw system_error("cannot remove " + side, errno);
    }
  }
  // SQLite counts each allocation it makes under a global mutex unless told otherwise before
  // its first use; squall reads none of those counts. (Once SQLite is in use the call is
  // refused, harmlessly.)
  [[maybe_unused]] static const int no_memory_counts = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  if (sqlite3_open_v2(p.c_str(), &file->db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK)
    file->fail("cannot open");
  sqlite3_busy_timeout(file->db_, 5000);
  // The first statement reads the header: a file that is not a database fails here, clearly.
  file->exec("PRAGMA journal_mode=WAL");
  // NORMAL in WAL mode: a committed batch survives the process being killed (the OS holds it);
  // only a power cut can take the last batches back.
  file->exec("PRAGMA synchronous=NORMAL");
  return file;
}

SqliteFile::~SqliteFile() {
  if (db_) {
    if (in_transaction_) sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close_v2(db_);
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

void SqliteFile::fail(std::string_view what) const {
  std::string detail = label_;
  detail.append(" ").append(path_).append(": ").append(what).append(": ").append(
      db_ ? sqlite3_errmsg(db_) : "out of memory");
  throw Error(ErrorKind::System, detail);
}

void SqliteFile::exec(const char* sql) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(sql);
}

SqliteStatement SqliteFile::prepare(const char* sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK)
    fail("prepare");
  return SqliteStatement(this, s);
}

void SqliteFile::begin() {
  if (in_transaction_) return;
  exec("BEGIN");
  in_transaction_ = true;
}

void SqliteFile::commit() {
  if (!in_transaction_) return;
  in_transaction_ = false;
  exec("COMMIT");
}

}  // namespace squall
