// TaskRow: a task as both stores' tables hold it (SqliteStore, PgStore): the columns it is read
// from, its flags, its dicts as JSON text, and the counts a recount makes of its status.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "squall/crawl/jsonl.h"
#include "squall/engine/task_counters.h"
#include "squall/engine/task_store.h"

namespace squall::detail {

// The columns a task is read from, in read_task_row's order. ("fetch" is a keyword to
// PostgreSQL, so it is quoted; SQLite reads the quoted name the same.)
inline constexpr const char* kTaskColumns =
    "taskid, url, status, seq, rank, exetime, retries, retried, age, itag, flags, \"fetch\", "
    "process, track, lastcrawltime, updatetime";

enum TaskFlag : int { kAutoRecrawl = 1, kForceUpdate = 2, kCancel = 4 };

inline int task_flags(const TaskSchedule& s) {
  return (s.auto_recrawl ? kAutoRecrawl : 0) | (s.force_update ? kForceUpdate : 0) |
         (s.cancel ? kCancel : 0);
}

// A task from a row in kTaskColumns order. `Row` reads a column by index: is_null(i), text(i)
// (a string_view), int64(i) and real(i).
template <class Row>
QueuedTask read_task_row(const Row& row, const std::string& project) {
  QueuedTask q;
  CrawlTask& t = q.task;
  t.project = project;
  t.taskid = std::string(row.text(0));
  t.url = std::string(row.text(1));
  int64_t status = row.int64(2);
  t.status = status >= 1 && status <= 4 ? static_cast<TaskStatus>(status) : TaskStatus::Bad;
  q.seq = row.int64(3);
  TaskSchedule& s = t.schedule;
  s.priority = static_cast<int>(-row.int64(4));
  s.exetime = row.real(5);
  s.retries = static_cast<int>(row.int64(6));
  s.retried = static_cast<int>(row.int64(7));
  s.age = row.real(8);
  if (!row.is_null(9)) s.itag = std::string(row.text(9));
  int64_t flags = row.int64(10);
  s.auto_recrawl = flags & kAutoRecrawl;
  s.force_update = flags & kForceUpdate;
  s.cancel = flags & kCancel;
  // A stored dict is its JSON text, or NULL for an empty one; it is read when it is used.
  auto dict = [&row](int i) {
    return row.is_null(i) ? TaskDict() : TaskDict::of_text(std::string(row.text(i)));
  };
  t.fetch = dict(11);
  t.process = dict(12);
  if (!row.is_null(13)) t.track = JsonText::of_text(std::string(row.text(13)));
  t.lastcrawltime = row.real(14);
  t.updatetime = row.real(15);
  return q;
}

// Adds `n` tasks stored with `status` to a recount: active ones are pending, failed and bad
// ones failed.
inline void count_status(CounterValues& v, int64_t status, int64_t n) {
  switch (static_cast<TaskStatus>(status)) {
    case TaskStatus::Active:
      v[static_cast<size_t>(CounterKind::Pending)] += n;
      break;
    case TaskStatus::Success:
      v[static_cast<size_t>(CounterKind::Success)] += n;
      break;
    case TaskStatus::Failed:
    case TaskStatus::Bad:
      v[static_cast<size_t>(CounterKind::Failed)] += n;
      break;
  }
}

}  // namespace squall::detail
