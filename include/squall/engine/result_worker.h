// ResultWorker: stores each task's result (upserted by taskid) and exports it as JSON lines in
// pyspider's dump format: {"taskid", "url", "result", "updatetime"}.
//
//   ResultWorker results(store, "results.jsonl");
//   co_await results.open();                // cuts the export back to what the store committed
//   co_await results.write("proj", result);
//   co_await results.checkpoint();          // then commit the store
//
// A component that takes results in batches (the result worker of the distributed engine) gives
// them to write_batch(), which stores a batch in two round trips instead of two per result.
//
// The export is written as results come and flushed at each checkpoint, whose size is recorded
// in the store and committed with the results it holds. After a kill, open() cuts the file back
// to the committed size, so the lines of results the store lost are gone too and no line is
// written twice. A file this store has no record of writing is refused rather than overwritten.
//
// Results may go to a database of their own (`--resultdb`): then the export's size is kept in
// the task store (`ledger`), which the engine commits after the results. A kill between the two
// commits leaves results stored whose tasks run again: they are upserted once more, and the
// export, cut back to the size the task store committed, gets their lines once.
//
// A program whose results have a line format of their own gives it as `line` (squall crawl
// over Redis writes its pages' lines, engine/crawler.h); the export is cut back and committed
// the same way.
#pragma once

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "squall/core/task.h"
#include "squall/engine/result_store.h"

namespace squall {

// Appends the export's line for `result` of `project` to `line` (newline included); nothing
// appended: the result has no line. `stored` is the result the store held for its task before
// this one (null when none), committed with the export's lines up to it.
using ExportLine = std::function<void(std::string& line, const std::string& project,
                                      const TaskResult& result, const TaskResult* stored)>;

class ResultWorker {
 public:
  // `ledger` keeps the export's size, committed with it; `store` itself when null. `line` writes
  // a result's line (pyspider's dump format when empty).
  explicit ResultWorker(ResultStore& store, std::filesystem::path jsonl = {},
                        ResultStore* ledger = nullptr, ExportLine line = {});
  ~ResultWorker();
  ResultWorker(const ResultWorker&) = delete;
  ResultWorker& operator=(const ResultWorker&) = delete;

  // Opens the export. Throws squall::Error (InvalidArgument) for a non-empty file the store did
  // not write, (System) when it cannot be opened. With `start_over` the file is emptied instead,
  // whoever wrote it (the store is starting over too).
  Task<void> open(bool start_over = false);
  Task<void> write(std::string project, const TaskResult& result);
  // Stores the results of `batch` (upserted at once: ResultStore::upsert_all) and exports, in
  // its order, those that differ from the result their task held before (the store's, or an
  // earlier one of the batch): a result delivered again (at-least-once) gets one line. The
  // stored results are read only when there is an export.
  Task<void> write_batch(std::vector<ProjectResult> batch);
  Task<void> checkpoint();

  uint64_t written() const noexcept { return written_; }

 private:
  std::string meta_key() const;

  ResultStore& store_;
  ResultStore& ledger_;
  std::filesystem::path jsonl_;
  ExportLine line_;
  std::FILE* file_ = nullptr;
  uint64_t size_ = 0;
  uint64_t written_ = 0;
};

}  // namespace squall
