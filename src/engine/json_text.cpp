// JsonText: a JSON object held as its text.
#include "squall/engine/json_text.h"

#include "squall/crawl/jsonl.h"

namespace squall {

JsonText::JsonText(const nlohmann::json& object) {
  if (object.is_object() && !object.empty()) append_json(text_, object);
}

JsonText JsonText::of_text(std::string text) {
  JsonText t;
  if (text != "{}") t.text_ = std::move(text);
  return t;
}

nlohmann::json JsonText::read() const {
  return parse_json_object(text_);
}

}  // namespace squall
