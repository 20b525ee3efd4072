// JsonText: a JSON object held as its text. A task's track (what its last fetch and process did)
// is one: the processor writes it as text, and the scheduler and the stores pass it on as text
// without reading it; read() parses it for whatever does read it (a conditional fetch, a task
// dict, the dashboard).
//
//   task.track = JsonText(nlohmann::json{{"process", {{"ok", false}}}});
//   nlohmann::json track = task.track.read();
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace squall {

class JsonText {
 public:
  JsonText() = default;  // {}
  // The text of `object`; anything but a non-empty object is {}.
  explicit JsonText(const nlohmann::json& object);
  // Holds `text`, the text of a JSON object as a store or a JsonObjectWriter wrote it, without
  // reading it; "" and "{}" are {}.
  static JsonText of_text(std::string text);

  // Its text: "" for {}.
  const std::string& text() const noexcept { return text_; }
  bool empty() const noexcept { return text_.empty(); }
  // The object, parsed: {} for text that is not a JSON object.
  nlohmann::json read() const;

  // The same text (an object written with its members in another order is another text).
  bool operator==(const JsonText&) const = default;

 private:
  std::string text_;
};

}  // namespace squall
