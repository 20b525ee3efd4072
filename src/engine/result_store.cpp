// A result as pyspider's dump writes it, and the batch calls done one result at a time.
#include "squall/engine/result_store.h"

#include "squall/crawl/jsonl.h"

namespace squall {

nlohmann::json TaskResult::to_json() const {
  return {{"taskid", taskid}, {"url", url}, {"result", result}, {"updatetime", updatetime}};
}

void TaskResult::append_json_text(std::string& out) const {
  JsonObjectWriter line(out);  // nlohmann::json's order: the keys sorted
  append_json(line.member("result"), result);
  line.string("taskid", taskid).number("updatetime", updatetime).string("url", url).end();
}

Task<void> ResultStore::upsert_all(std::span<const ProjectResult> batch) {
  for (const ProjectResult& r : batch) co_await upsert(r.project, r.result);
}

Task<std::vector<std::optional<TaskResult>>> ResultStore::stored(
    std::span<const ProjectResult> batch) {
  std::vector<std::optional<TaskResult>> out;
  out.reserve(batch.size());
  for (const ProjectResult& r : batch) {
    std::optional<TaskResult> held = co_await result(r.project, r.result.taskid);
    out.push_back(std::move(held));
  }
  co_return out;
}

}  // namespace squall
