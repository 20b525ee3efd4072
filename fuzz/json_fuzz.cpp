// Fuzzes parse_json against nlohmann's reader: for any input both refuse it, or both read the
// same value with the same type at every level; and what append_json writes reads back the same.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "squall/crawl/jsonl.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

bool same(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
      if (ia.key() != ib.key() || !same(*ia, *ib)) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const nlohmann::json ours = squall::parse_json(input);
  const nlohmann::json theirs = nlohmann::json::parse(input, nullptr, false);
  check(ours.is_discarded() == theirs.is_discarded());
  if (ours.is_discarded()) return 0;
  check(same(ours, theirs));
  std::string text;
  squall::append_json(text, ours);
  const nlohmann::json again = squall::parse_json(text);
  check(!again.is_discarded());
  return 0;
}
