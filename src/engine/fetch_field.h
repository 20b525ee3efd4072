// Fields of a task's `fetch` dict read as pyspider scripts give them: a missing or null key is
// the default, a value of the wrong type is the default too (a script's typo never stops a
// fetch), and a switch is on for true, a non-zero number or a non-empty string.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace squall::detail {

template <class T>
T fetch_field(const nlohmann::json& fetch, const char* key, T otherwise) {
  auto it = fetch.find(key);
  if (it == fetch.end() || it->is_null()) return otherwise;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return otherwise;
  }
}

inline bool fetch_switch(const nlohmann::json& fetch, const char* key, bool otherwise) {
  auto it = fetch.find(key);
  if (it == fetch.end() || it->is_null()) return otherwise;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_number()) return it->get<double>() != 0;
  return !(it->is_string() && it->get<std::string>().empty());
}

// The name/value pairs of a dict field (`headers`, `cookies`); a value that is not a string is
// given as its JSON text.
inline std::vector<std::pair<std::string, std::string>> fetch_pairs(const nlohmann::json& fetch,
                                                                    const char* key) {
  std::vector<std::pair<std::string, std::string>> pairs;
  auto it = fetch.find(key);
  if (it == fetch.end() || !it->is_object()) return pairs;
  for (const auto& [name, value] : it->items())
    pairs.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
  return pairs;
}

// The proxy to fetch through, as a URL ("" for none): pyspider takes "host:port".
inline std::string fetch_proxy(const nlohmann::json& fetch) {
  std::string proxy = fetch_field<std::string>(fetch, "proxy", "");
  if (!proxy.empty() && proxy.find("://") == std::string::npos) proxy = "http://" + proxy;
  return proxy;
}

}  // namespace squall::detail
