// TaskDict: one of a task's pyspider dicts (`fetch`, `process`), a JSON object that may be held
// as the text a store or a project wrote until something reads it. Most of the tasks a crawl
// finds are written to the store and leave memory before they are dispatched, and come back
// from the store as text: they go from the page that linked them to the fetcher without a tree
// of maps built, written out, read back and freed on the way. Whatever reads a dict reads the
// object, parsed from the text on first use.
//
//   task.fetch = {{"method", "POST"}};                    // an object
//   task.fetch["headers"]["X-A"] = "1";                   // changed in place (the text goes)
//   std::string method = task.fetch.value("method", "");  // read
//   TaskDict d = TaskDict::of_text(R"({"callback":"page"})");
//
// The parse is kept in the dict (a task is used by one thread at a time); the scheduler reads a
// task's dicts when it dispatches it (Scheduler::select), so the fetcher and the processor, and
// the threads a script runs on, are given dicts already read.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace squall {

class TaskDict {
 public:
  TaskDict() = default;  // {}
  // `object`; anything but an object reads as {}.
  TaskDict(nlohmann::json object) {  // NOLINT: implicit
    if (object.is_object()) value_.emplace(std::move(object));
  }
  TaskDict(std::initializer_list<nlohmann::detail::json_ref<nlohmann::json>> init)
      : TaskDict(nlohmann::json(init)) {}
  // The dict whose JSON text is `text`, read when first used; "" and "{}" are {}.
  static TaskDict of_text(std::string text);

  // The object (parsed from the text the first time).
  const nlohmann::json& json() const;
  operator const nlohmann::json&() const { return json(); }  // NOLINT: implicit
  // The object to change in place; the text it was read from is dropped.
  nlohmann::json& edit();

  // Whether it is {} (or held as text, which is never {}).
  bool empty() const;
  // Appends its JSON text: the text it was made from, else the object written out.
  void append_text(std::string& out) const;

  // nlohmann::json's reads, of the object.
  template <class Key>
  auto find(Key&& key) const {
    return json().find(std::forward<Key>(key));
  }
  auto end() const { return json().end(); }  // (no begin(): nlohmann::json would take a range)
  auto items() const { return json().items(); }
  template <class Key>
  bool contains(Key&& key) const {
    return json().contains(std::forward<Key>(key));
  }
  template <class Key, class Default>
  auto value(Key&& key, Default&& otherwise) const {
    return json().value(std::forward<Key>(key), std::forward<Default>(otherwise));
  }
  template <class Key>
  const nlohmann::json& operator[](Key&& key) const {
    return json()[std::forward<Key>(key)];
  }
  template <class Key>
  const nlohmann::json& at(Key&& key) const {
    return json().at(std::forward<Key>(key));
  }
  size_t size() const { return json().size(); }
  bool is_object() const { return json().is_object(); }
  std::string dump() const { return json().dump(); }

  // nlohmann::json's changes, of the object.
  template <class Key>
  nlohmann::json& operator[](Key&& key) {
    return edit()[std::forward<Key>(key)];
  }
  template <class Key>
  auto erase(Key&& key) {
    return edit().erase(std::forward<Key>(key));
  }

  friend bool operator==(const TaskDict& a, const TaskDict& b) { return a.json() == b.json(); }
  friend bool operator==(const TaskDict& a, const nlohmann::json& b) { return a.json() == b; }
  // nlohmann::json's way to make an object of one: {{"fetch", task.fetch}}.
  friend void to_json(nlohmann::json& out, const TaskDict& d) { out = d.json(); }

 private:
  // The object, once read or given (none while only the text has been, or for {}: most tasks
  // are moved from stage to stage and freed without it, and an absent one costs nothing).
  mutable std::optional<nlohmann::json> value_;
  // The text it was made from, or "" once made from (or changed to) an object.
  std::string text_;
};

}  // namespace squall
