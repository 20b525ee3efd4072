// ResultWorker: results upserted, and an export cut back to its committed size on open.
#include "squall/engine/result_worker.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <system_error>
#include <unordered_map>

#include "squall/core/error.h"

namespace squall {

ResultWorker::ResultWorker(ResultStore& store, std::filesystem::path jsonl, ResultStore* ledger,
                           ExportLine line)
    : store_(store),
      ledger_(ledger ? *ledger : store),
      jsonl_(std::move(jsonl)),
      line_(std::move(line)) {}

ResultWorker::~ResultWorker() {
  if (file_) std::fclose(file_);
}

std::string ResultWorker::meta_key() const {
  return "export " + jsonl_.string();
}

Task<void> ResultWorker::open(bool start_over) {
  if (jsonl_.empty()) co_return;
  std::optional<std::string> committed = co_await ledger_.meta(meta_key());
  std::error_code ec;
  uint64_t on_disk =
      std::filesystem::exists(jsonl_, ec) ? std::filesystem::file_size(jsonl_, ec) : 0;
  uint64_t keep = 0;
  if (start_over) {
    keep = 0;
  } else if (committed) {
    std::from_chars(committed->data(), committed->data() + committed->size(), keep);
  } else if (on_disk > 0) {
    throw Error(ErrorKind::InvalidArgument,
                jsonl_.string() +
                    " already holds lines this store did not write: remove it, or give another "
                    "file for the results");
  }
  if (keep > on_disk) keep = on_disk;  // a file shortened by hand: keep what is there
  file_ = std::fopen(jsonl_.c_str(), on_disk ? "r+" : "w");
  if (!file_)
    throw Error(ErrorKind::System, "cannot open " + jsonl_.string() + ": " + std::strerror(errno));
  if (::ftruncate(fileno(file_), static_cast<off_t>(keep)) != 0)
    throw Error(ErrorKind::System,
                "cannot cut " + jsonl_.string() + " back: " + std::strerror(errno));
  std::fseek(file_, static_cast<long>(keep), SEEK_SET);
  size_ = keep;
  co_await ledger_.set_meta(meta_key(), std::to_string(size_));
}

Task<void> ResultWorker::write(std::string project, const TaskResult& result) {
  std::optional<TaskResult> stored;
  if (file_ && line_) stored = co_await store_.result(project, result.taskid);
  co_await store_.upsert(project, result);
  ++written_;
  if (!file_) co_return;
  std::string line;
  if (line_) {
    line_(line, project, result, stored ? &*stored : nullptr);
  } else {
    result.append_json_text(line);
    line += '\n';
  }
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size())
    throw Error(ErrorKind::System, "cannot write " + jsonl_.string() + ": " + std::strerror(errno));
  size_ += line.size();
}

Task<void> ResultWorker::write_batch(std::vector<ProjectResult> batch) {
  if (!file_) {
    co_await store_.upsert_all(batch);
    written_ += batch.size();
    co_return;
  }
  std::vector<std::optional<TaskResult>> before = co_await store_.stored(batch);
  // The result each task holds as the batch goes on: the store's, then the batch's own.
  std::unordered_map<std::string, const TaskResult*> held;
  std::string lines;
  for (size_t i = 0; i < batch.size(); ++i) {
    const ProjectResult& r = batch[i];
    std::string key = r.project;
    key.push_back('\n');
    key.append(r.result.taskid);
    auto [it, fresh] = held.try_emplace(std::move(key), before[i] ? &*before[i] : nullptr);
    const TaskResult* stored = it->second;
    it->second = &r.result;
    if (stored && stored->url == r.result.url && stored->result == r.result.result) continue;
    ++written_;
    if (line_) {
      line_(lines, r.project, r.result, stored);
    } else {
      r.result.append_json_text(lines);
      lines += '\n';
    }
  }
  // Stored first: a batch the store refuses leaves no line.
  co_await store_.upsert_all(batch);
  if (std::fwrite(lines.data(), 1, lines.size(), file_) != lines.size())
    throw Error(ErrorKind::System, "cannot write " + jsonl_.string() + ": " + std::strerror(errno));
  size_ += lines.size();
}

Task<void> ResultWorker::checkpoint() {
  if (!file_) co_return;
  if (std::fflush(file_) != 0)
    throw Error(ErrorKind::System, "cannot write " + jsonl_.string() + ": " + std::strerror(errno));
  co_await ledger_.set_meta(meta_key(), std::to_string(size_));
}

}  // namespace squall
