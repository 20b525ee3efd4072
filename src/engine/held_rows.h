// HeldRows: rows of statement parameters held in memory until one multi-row statement binds
// them, and StatementBinder, which binds the same values at once. Both take the values a row
// producer passes them one by one, in parameter order: NULL, integers, reals, text, and the
// engine's dicts (a dict is stored as its JSON text, NULL when empty: a TaskDict held as text and a
// JsonText as they are).
// SqliteStore holds its new task rows in one to insert them several to a statement
// (sqlite_store.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "squall/crawl/sqlite_file.h"
#include "squall/engine/json_text.h"
#include "squall/engine/task_dict.h"

namespace squall::detail {

// Binds each value it is given to the next parameter, from `first`. `text` is a buffer for a
// dict's JSON text, reused from dict to dict (SQLite copies a dict's text; a view it is given
// must stay as it is until the statement has run).
class StatementBinder {
 public:
  StatementBinder(SqliteStatement& s, int first, std::string& text)
      : s_(s), next_(first), text_(text) {}
  void operator()(std::nullptr_t) { s_.bind_null(next_++); }
  void operator()(int64_t v) { s_.bind(next_++, v); }
  void operator()(double v) { s_.bind(next_++, v); }
  void operator()(std::string_view v) { s_.bind_static(next_++, v); }
  void operator()(const JsonText& dict) {
    if (dict.empty())
      s_.bind_null(next_++);
    else
      s_.bind_static(next_++, dict.text());
  }
  void operator()(const TaskDict& dict) {
    if (dict.empty()) {
      s_.bind_null(next_++);
      return;
    }
    text_.clear();
    dict.append_text(text_);
    s_.bind(next_++, text_);
  }

 private:
  SqliteStatement& s_;
  int next_;
  std::string& text_;
};

// Rows of `width` values each: numbers as given, text (and dicts' JSON text) copied into one
// buffer, so that what they came from may go at once.
class HeldRows {
 public:
  explicit HeldRows(size_t width) : width_(width) {}

  void operator()(std::nullptr_t) { values_.push_back({Kind::Null, {}}); }
  void operator()(int64_t v) { values_.push_back({Kind::Integer, {.integer = v}}); }
  void operator()(double v) { values_.push_back({Kind::Real, {.real = v}}); }
  void operator()(std::string_view v) {
    values_.push_back(text_value(text_.size(), v.size()));
    text_.append(v);
  }
  void operator()(const JsonText& dict) {
    if (dict.empty())
      (*this)(nullptr);
    else
      (*this)(std::string_view(dict.text()));
  }
  void operator()(const TaskDict& dict) {
    if (dict.empty()) {
      (*this)(nullptr);
      return;
    }
    size_t at = text_.size();
    dict.append_text(text_);
    values_.push_back(text_value(at, text_.size() - at));
  }

  // Rows whose `width` values have all been given.
  size_t rows() const noexcept { return values_.size() / width_; }
  bool empty() const noexcept { return values_.empty(); }

  // Binds `count` rows from row `from` to parameters 1, 2, ... of `s`.
  void bind(SqliteStatement& s, size_t from, size_t count) const {
    int param = 1;
    for (size_t i = from * width_; i < (from + count) * width_; ++i, ++param) {
      const Value& v = values_[i];
      switch (v.kind) {
        case Kind::Null:
          s.bind_null(param);
          break;
        case Kind::Integer:
          s.bind(param, v.integer);
          break;
        case Kind::Real:
          s.bind(param, v.real);
          break;
        case Kind::Text:  // not copied: the rows are cleared after their statements ran
          s.bind_static(param, std::string_view(text_).substr(v.text.at, v.text.size));
          break;
      }
    }
  }

  // Drops every row, keeping the memory for the next ones.
  void clear() noexcept {
    values_.clear();
    text_.clear();
  }

 private:
  enum class Kind : uint8_t { Null, Integer, Real, Text };
  struct Value {  // 16 bytes: a row of tasks holds 19
    Kind kind;
    union {
      int64_t integer;
      double real;
      struct {
        uint32_t at, size;  // where its text is in text_
      } text;
    };
  };
  static Value text_value(size_t at, size_t size) {
    if (at + size > UINT32_MAX) throw std::length_error("held rows: more than 4 GiB of text");
    return {Kind::Text, {.text = {static_cast<uint32_t>(at), static_cast<uint32_t>(size)}}};
  }

  size_t width_;
  std::vector<Value> values_;
  std::string text_;
};

}  // namespace squall::detail
