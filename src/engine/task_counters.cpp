// TaskCounters: bucketed windows and state totals, saved as JSON.
#include "squall/engine/task_counters.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace squall {

using nlohmann::json;

namespace {

constexpr const char* kKindNames[] = {"pending", "success", "retry", "failed"};

json values_json(const CounterValues& v) {
  json j = json::object();
  for (size_t i = 0; i < v.size(); ++i) j[kKindNames[i]] = v[i];
  return j;
}

}  // namespace

void WindowCounter::add(CounterKind kind, int64_t delta, double now) {
  auto index = static_cast<int64_t>(std::floor(now / width_));
  if (ring_.empty() || ring_.back().index < index) ring_.push_back(Bucket{index, {}});
  // An event stamped before the newest bucket (a clock that stepped back) joins the newest.
  ring_.back().values[static_cast<size_t>(kind)] += delta;
  while (ring_.size() > buckets_ || ring_.front().index <= index - static_cast<int64_t>(buckets_))
    ring_.pop_front();
}

CounterValues WindowCounter::sums(double now) const {
  auto index = static_cast<int64_t>(std::floor(now / width_));
  CounterValues out{};
  for (const Bucket& b : ring_) {
    if (b.index <= index - static_cast<int64_t>(buckets_)) continue;
    for (size_t i = 0; i < out.size(); ++i) out[i] += b.values[i];
  }
  return out;
}

json WindowCounter::save() const {
  json j = json::array();
  for (const Bucket& b : ring_) {
    json row = json::array({b.index});
    for (int64_t v : b.values) row.push_back(v);
    j.push_back(std::move(row));
  }
  return j;
}

void WindowCounter::restore(const json& j) {
  ring_.clear();
  if (!j.is_array()) return;
  for (const json& row : j) {
    if (!row.is_array() || row.size() != 5) continue;
    Bucket b{row[0].get<int64_t>(), {}};
    for (size_t i = 0; i < b.values.size(); ++i) b.values[i] = row[i + 1].get<int64_t>();
    if (ring_.empty() || ring_.back().index < b.index) ring_.push_back(b);
  }
  while (ring_.size() > buckets_) ring_.pop_front();
}

TaskCounters::TaskCounters() : m5_(10, 30), h1_(60, 60), d1_(600, 144) {}

void TaskCounters::event(CounterKind kind, double now, int64_t delta) {
  m5_.add(kind, delta, now);
  h1_.add(kind, delta, now);
  d1_.add(kind, delta, now);
}

json TaskCounters::report(double now) const {
  CounterValues all = all_;
  all[static_cast<size_t>(CounterKind::Retry)] = 0;  // "all" has no retry count, as in pyspider
  return {{"5m", values_json(m5_.sums(now))},
          {"1h", values_json(h1_.sums(now))},
          {"1d", values_json(d1_.sums(now))},
          {"all", values_json(all)}};
}

json TaskCounters::save() const {
  return {{"5m", m5_.save()}, {"1h", h1_.save()}, {"1d", d1_.save()}, {"all", all_}};
}

void TaskCounters::restore(const json& j) {
  if (!j.is_object()) return;
  m5_.restore(j.value("5m", json()));
  h1_.restore(j.value("1h", json()));
  d1_.restore(j.value("1d", json()));
  if (auto it = j.find("all"); it != j.end() && it->is_array() && it->size() == all_.size())
    for (size_t i = 0; i < all_.size(); ++i) all_[i] = (*it)[i].get<int64_t>();
}

}  // namespace squall
