// SqliteFile: an SQLite database file opened the way squall's stores use one.
//
//   SqliteFile file = SqliteFile::open("crawl.db", "crawl state", in_use_hint);
//   file.exec(kSchema);
//   SqliteStatement add = file.prepare("INSERT INTO t(a) VALUES (?)");
//   file.begin();  add.bind(1, "x"); add.run("add a row");
//   file.commit();
//
// - One process per file: open() takes an exclusive advisory lock (flock) on the file and keeps
//   it until the file is destroyed, so a second process refuses at once (InvalidState, with the
//   caller's hint of what to do) instead of interleaving its work. flock and SQLite's POSIX
//   record locks are independent on Linux, and the lock's descriptor is closed only after
//   SQLite has closed the file, so it never drops SQLite's locks.
// - WAL mode, synchronous=NORMAL: a committed batch survives the process being killed (the OS
//   holds it); readers such as the sqlite3 shell can look inside while it runs.
// - Changes collect in one open transaction (begin() is cheap when one is open) and become
//   durable at commit(); destruction commits what is pending.
// - A file that is not an SQLite database, or any SQLite failure, is squall::Error (kind System)
//   quoting SQLite's message, what was being done, and the file.
// One thread at a time (SQLITE_OPEN_NOMUTEX: a store belongs to one loop).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace squall {

class SqliteFile;

// A prepared statement of a SqliteFile; reset after each run.
class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(SqliteStatement&& o) noexcept : file_(o.file_), stmt_(o.stmt_) {
    o.stmt_ = nullptr;
  }
  SqliteStatement& operator=(SqliteStatement&& o) noexcept;
  ~SqliteStatement() { sqlite3_finalize(stmt_); }

  // Parameters are numbered from 1. Text is copied.
  SqliteStatement& bind(int i, std::string_view text);
  SqliteStatement& bind(int i, const char* text) { return bind(i, std::string_view(text)); }
  // Text that is not copied: it must stay as it is until the next run() or step() of this
  // statement has ended, and a statement run again must be given that parameter again.
  SqliteStatement& bind_static(int i, std::string_view text);
  SqliteStatement& bind(int i, int64_t v);
  SqliteStatement& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  SqliteStatement& bind(int i, double v);
  SqliteStatement& bind_null(int i);

  // Runs a statement that returns no rows, then resets it; `what` names it in errors.
  void run(std::string_view what);
  // Steps to the next row: true with a row, false at the end (then the statement is reset).
  bool step(std::string_view what);
  void reset() { sqlite3_reset(stmt_); }

  // Columns of the current row, numbered from 0.
  std::string text(int i) const;
  std::string_view text_view(int i) const;  // valid until the next step
  int64_t int64(int i) const { return sqlite3_column_int64(stmt_, i); }
  int integer(int i) const { return sqlite3_column_int(stmt_, i); }
  double real(int i) const { return sqlite3_column_double(stmt_, i); }
  bool is_null(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }

 private:
  friend class SqliteFile;
  SqliteStatement(SqliteFile* file, sqlite3_stmt* stmt) : file_(file), stmt_(stmt) {}
  SqliteFile* file_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteFile {
 public:
  // Opens or creates `path` and locks it. `label` starts every error message ("crawl state
  // crawl.db: ..."); `in_use_hint` ends the one for a file another process holds ("... is in
  // use by another process" + hint). With
  // `start_over`, whatever the file held is dropped first (under the lock), its write-ahead log
  // included. The file is a SqliteFile owned by a unique_ptr so that statements may point at it.
  static std::unique_ptr<SqliteFile> open(const std::filesystem::path& path, std::string label,
                                          std::string_view in_use_hint, bool start_over = false);
  SqliteFile(const SqliteFile&) = delete;
  SqliteFile& operator=(const SqliteFile&) = delete;
  ~SqliteFile();

  void exec(const char* sql);
  SqliteStatement prepare(const char* sql);
  void begin();
  void commit();
  bool in_transaction() const noexcept { return in_transaction_; }
  int64_t changes() const { return sqlite3_changes64(db_); }
  sqlite3* handle() const noexcept { return db_; }

  [[noreturn]] void fail(std::string_view what) const;
  const std::string& path() const noexcept { return path_; }

 private:
  SqliteFile() = default;
  int lock_fd_ = -1;  // the flock; closed after SQLite's own descriptors
  sqlite3* db_ = nullptr;
  std::string path_;
  std::string label_;
  bool in_transaction_ = false;
};

}  // namespace squall
