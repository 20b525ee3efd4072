// Processor: a callback per task, its output collected into a status pack.
#include "squall/engine/processor.h"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "squall/core/error.h"
#include "squall/crawl/jsonl.h"

namespace squall {

using nlohmann::json;

namespace {

constexpr size_t kMaxLogBytes = 10000;

std::string joined_logs(const std::vector<std::string>& logs) {
  std::string out;
  for (const std::string& line : logs) {
    if (out.size() + line.size() + 1 > kMaxLogBytes) break;
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

CrawlTask Processor::start_task(const std::string& project) {
  CrawlTask t = CrawlTask::for_url(project, "data:,on_start");
  t.taskid = "on_start";
  t.process["callback"] = "on_start";
  t.schedule.force_update = true;
  t.schedule.priority = 9;
  return t;
}

CrawlTask Processor::finish_task(const std::string& project) {
  CrawlTask t = CrawlTask::for_url(project, "data:,on_finished");
  t.taskid = "on_finished";
  t.process["callback"] = "on_finished";
  t.schedule.force_update = true;
  return t;
}

CrawlTask Processor::message_task(const std::string& from, const std::string& to,
                                  const json& message) {
  CrawlTask t = CrawlTask::for_url(to, "data:,on_message");
  t.taskid = default_taskid("on_message " + from + " " + message.dump());
  t.process["callback"] = "_on_message";
  t.fetch["save"] = {{"from", from}, {"message", message}};
  return t;
}

void Processor::run_cron_jobs(const json& save) {
  if (!save.is_object() || !save.contains("tick") || !save["tick"].is_number_integer()) return;
  int64_t tick = save["tick"].get<int64_t>();
  // pyspider's own ticks come one second apart and carry no last_tick.
  int64_t last = save.value("last_tick", tick - 1);
  std::string failures;
  for (const CronJob& job : handler_.cron_jobs()) {
    if (!cron_due(job.every, last, tick)) continue;
    try {
      job.run();
    } catch (const std::exception& e) {
      if (!failures.empty()) failures += "; ";
      failures += job.name + ": " + e.what();
    }
  }
  if (!failures.empty()) throw std::runtime_error(failures);
}

CrawlTask Processor::cron_task(const std::string& project, int64_t tick, int64_t last_tick) {
  CrawlTask t = CrawlTask::for_url(project, "data:,_on_cronjob");
  t.taskid = "_on_cronjob";
  t.process["callback"] = "_on_cronjob";
  t.fetch["save"] = {{"tick", tick}, {"last_tick", last_tick}};
  return t;
}

// The follows a callback hands on while it runs, kept in an unnamed temporary file until the
// callback returns: each task as its pyspider dict in CBOR, after its length. The file is made
// at the first write: most callbacks ask for fewer than a batch, and a file per task costs a
// crawl more than the rest of the processor does.
class Processor::Spill {
 public:
  Spill() = default;
  ~Spill() {
    if (file_) std::fclose(file_);
  }
  Spill(const Spill&) = delete;
  Spill& operator=(const Spill&) = delete;

  void write(const CrawlTask& task) {
    if (!file_) open();
    std::vector<uint8_t> bytes = json::to_cbor(task.to_json());
    auto size = static_cast<uint32_t>(bytes.size());
    if (std::fwrite(&size, sizeof size, 1, file_) != 1 ||
        std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
      throw Error(ErrorKind::System,
                  std::string("the processor could not keep a callback's follows "
                              "in its temporary file: ") +
                      std::strerror(errno) + " (is the disk full?)");
    ++written_;
  }
  size_t written() const noexcept { return written_; }

  // From the start: the next `max` tasks written, in order (none when all were read).
  void rewind() {
    if (!file_) return;
    std::fflush(file_);
    std::rewind(file_);
  }
  std::vector<CrawlTask> read(size_t max) {
    std::vector<CrawlTask> batch;
    if (!file_) return batch;
    std::vector<uint8_t> bytes;
    while (batch.size() < max && read_ < written_) {
      uint32_t size = 0;
      if (std::fread(&size, sizeof size, 1, file_) != 1) break;
      bytes.resize(size);
      if (std::fread(bytes.data(), 1, size, file_) != size) break;
      batch.push_back(CrawlTask::from_json(json::from_cbor(bytes)));
      ++read_;
    }
    if (batch.size() < max && read_ < written_)
      throw Error(ErrorKind::System,
                  "the processor could not read back a callback's follows from "
                  "its temporary file");
    return batch;
  }

 private:
  void open() {
    file_ = std::tmpfile();
    if (!file_)
      throw Error(ErrorKind::System, std::string("the processor could not create a temporary file "
                                                 "for a callback's follows: ") +
                                         std::strerror(errno) + " (is /tmp writable?)");
  }

  std::FILE* file_ = nullptr;
  size_t written_ = 0, read_ = 0;
};

Task<ProcessOutput> Processor::process(const Dispatch& d, FetchResult fetched,
                                       FollowSink* follows) {
  if (!follows) co_return run(d, std::move(fetched));
  Spill spill;
  ProcessOutput out = run(d, std::move(fetched), &spill);
  spill.rewind();
  for (;;) {
    std::vector<CrawlTask> batch = spill.read(kFollowBatch);
    if (batch.empty()) break;
    co_await follows->take(std::move(batch));
  }
  co_return out;
}

std::string Processor::begin_track(const FetchResult& fetched) {
  // Room for a whole track as a page's usually is (about 300 bytes), instead of five growths.
  std::string track;
  track.reserve(512);
  track = "{\"fetch\":";
  JsonObjectWriter fetch(track);
  fetched.write_track(fetch);
  return track;
}

JsonText Processor::end_track(std::string track, bool ok, std::string_view content,
                              std::string_view process) {
  // The start of the body is kept for a task that failed, to see why; a success keeps none.
  if (!ok) {
    track += ",\"content\":";
    append_json_string(track, content.substr(0, 1000));
  }
  track += "},\"process\":";
  track += process;
  track += '}';
  return JsonText::of_text(std::move(track));
}

ProcessOutput Processor::run(const Dispatch& d, FetchResult fetched) {
  return run(d, std::move(fetched), nullptr);
}

ProcessOutput Processor::run(const Dispatch& d, FetchResult fetched, Spill* spill) {
  auto started = std::chrono::steady_clock::now();
  ProcessOutput out;
  std::string track = begin_track(fetched);
  bool unchanged = fetched.unchanged;
  Response response(std::move(fetched), d.task);
  const std::string name = d.task.callback();
  CallbackOptions options;
  bool ok = true;
  std::string exception;
  std::optional<json> result;
  Handler::Output produced;
  if (spill) {
    produced.batch = kFollowBatch;
    produced.hand_on = [this, spill](Handler::Output& o) {
      for (const CrawlTask& f : o.follows) spill->write(f);
      for (auto& [to, message] : o.messages)
        spill->write(message_task(handler_.project(), to, message));
      o.handed_follows += o.follows.size();
      o.handed_messages += o.messages.size();
      o.follows.clear();
      o.messages.clear();
    };
  }
  try {
    handler_.collect(
        &d.task, &response.url,
        [&] {
          if (name == "on_start") {
            handler_.on_start();
          } else if (name == "_on_message") {
            handler_.on_message(response.save.value("from", ""),
                                response.save.value("message", json()));
          } else if (name == "_on_cronjob") {
            run_cron_jobs(response.save);
          } else if (name == "on_finished") {
            handler_.on_finished();
          } else {
            const Handler::Callback* cb = handler_.find_callback(name, &options);
            if (!cb)
              throw Error(ErrorKind::InvalidState, "project " + handler_.project() +
                                                       " has no callback named '" + name + "'");
            if (unchanged) return;
            if (!options.catch_status_code_error) response.raise_for_status();
            result = (*cb)(response);
          }
        },
        produced);
  } catch (const std::exception& e) {
    ok = false;
    exception = e.what();
  }
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (ok && elapsed > options.time_limit) {
    ok = false;
    exception = "callback '" + name + "' took " + std::to_string(elapsed) +
                " s, over its time limit of " + std::to_string(options.time_limit) + " s";
    result.reset();
  }

  const size_t follows = produced.follows.size();
  out.follows = std::move(produced.follows);
  for (auto& [to, message] : produced.messages)
    out.follows.push_back(message_task(handler_.project(), to, message));
  if (ok && result && !result->is_null())
    out.result = TaskResult{d.task.taskid, d.task.url, std::move(*result), 0};

  std::string process_part;
  JsonObjectWriter process(process_part);
  process.string_or_null("exception", exception)
      .integer("follows", static_cast<int64_t>(produced.handed_follows + follows))
      .string("logs", joined_logs(produced.logs))
      .integer("messages",
               static_cast<int64_t>(produced.handed_messages + produced.messages.size()))
      .boolean("ok", ok)
      .number("time", elapsed);
  process.end();
  out.status =
      StatusPack::of(d, ok, end_track(std::move(track), ok, response.content, process_part));
  return out;
}

}  // namespace squall
