// TaskDict: a task's dict, held as its text until something reads it.
#include "squall/engine/task_dict.h"

#include "squall/crawl/jsonl.h"

namespace squall {

TaskDict TaskDict::of_text(std::string text) {
  TaskDict d;
  if (!text.empty() && text != "{}") d.text_ = std::move(text);
  return d;
}

const nlohmann::json& TaskDict::json() const {
  // (An object edit() gave may have been made something else: that reads as {} too.)
  if (value_ && value_->is_object()) return *value_;
  value_ = text_.empty() ? nlohmann::json::object() : parse_json_object(text_);
  return *value_;
}

nlohmann::json& TaskDict::edit() {
  json();
  text_.clear();
  return *value_;
}

bool TaskDict::empty() const {
  return text_.empty() && (!value_ || !value_->is_object() || value_->empty());
}

void TaskDict::append_text(std::string& out) const {
  if (!text_.empty())
    out += text_;
  else
    append_json(out, json());
}

}  // namespace squall
