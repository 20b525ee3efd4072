// ClusterView: reads through a short cache, and rates from the handled counts of successive
// heartbeats.
#include "squall/control/cluster_view.h"

#include <chrono>
#include <set>

#include "squall/core/loop.h"
#include "squall/core/seconds.h"

namespace squall {

namespace {

RedisOptions redis_options(const ClusterViewOptions& o) {
  RedisOptions r = parse_redis_url(o.redis);
  r.connect_timeout = o.timeout;
  r.command_timeout = o.timeout;
  r.connect_attempts = 2;
  r.client_name = "squall-control";
  return r;
}

}  // namespace

ClusterView::ClusterView(ClusterViewOptions options)
    : options_(std::move(options)), redis_(redis_options(options_)) {
  cluster_prefix(options_.ns);
  peer_ = redis_.options().host + ":" + std::to_string(redis_.options().port);
}

Task<void> ClusterView::refresh() {
  TimePoint now = Loop::time();
  if (last_ && now - last_at_ < options_.fresh_for) co_return;
  ClusterStatus fresh = co_await read_cluster_status(redis_, options_.ns);
  now = Loop::time();
  // Two reads that overlapped: the one that ended last stands.
  follow(fresh, now);
  last_ = std::move(fresh);
  last_at_ = now;
}

void ClusterView::follow(const ClusterStatus& status, TimePoint now) {
  std::set<std::string> present;
  for (const ComponentStatus& c : status.components) {
    present.insert(c.id);
    TimePoint beat = now - c.age;
    auto [it, added] = seen_.try_emplace(c.id, Seen{c.report.pages, beat, std::nullopt});
    Seen& s = it->second;
    if (added) continue;
    if (c.report.pages < s.handled) {
      // A process that came back with the same role, host and pid counts from 0 again.
      s = Seen{c.report.pages, beat, std::nullopt};
    } else if (beat - s.beat >= c.lease / 6) {
      // A heartbeat since the last one seen (they come every lease/3; the estimate of when
      // one was sent moves by a round trip at most between reads).
      s.rate = static_cast<double>(c.report.pages - s.handled) / to_seconds(beat - s.beat);
      s.handled = c.report.pages;
      s.beat = beat;
    }
  }
  std::erase_if(seen_, [&](const auto& entry) { return !present.contains(entry.first); });
}

Task<nlohmann::ordered_json> ClusterView::read() {
  co_await refresh();
  const ClusterStatus& status = *last_;
  nlohmann::ordered_json j;
  j["redis"] = peer_;
  nlohmann::ordered_json body = cluster_status_json(status);
  j["namespace"] = body["namespace"];
  j["live"] = status.live();
  j["dead"] = status.components.size() - status.live();
  for (size_t i = 0; i < status.components.size(); ++i) {
    const ComponentStatus& c = status.components[i];
    auto it = seen_.find(c.id);
    nlohmann::ordered_json rate;
    if (c.dead) {
      rate = 0.0;
    } else if (it != seen_.end() && it->second.rate) {
      rate = *it->second.rate;
    }
    body["components"][i]["rate"] = rate;
  }
  j["components"] = std::move(body["components"]);
  j["streams"] = std::move(body["streams"]);
  co_return j;
}

Task<void> ClusterView::prometheus(PrometheusText& out) {
  out.family("squall_cluster_up", "gauge",
             "1 when the cluster's Redis answered this scrape, 0 when it could not be read");
  try {
    co_await refresh();
  } catch (...) {
    out.sample("squall_cluster_up", {{"namespace", options_.ns}}, 0);
    throw;
  }
  const ClusterStatus* status = &*last_;
  const std::string& ns = options_.ns;
  out.sample("squall_cluster_up", {{"namespace", ns}}, 1);
  out.family("squall_cluster_components", "gauge",
             "Components registered in the namespace, live and dead (3 leases without a "
             "heartbeat)");
  out.sample("squall_cluster_components", {{"namespace", ns}, {"state", "live"}},
             static_cast<double>(status->live()));
  out.sample("squall_cluster_components", {{"namespace", ns}, {"state", "dead"}},
             static_cast<double>(status->components.size() - status->live()));
  struct Family {
    const char* name;
    const char* type;
    const char* help;
    double (*value)(const ComponentStatus&);
  };
  static constexpr Family components[] = {
      {"squall_component_up", "gauge", "1 for a live component, 0 for a dead one",
       [](const ComponentStatus& c) { return c.dead ? 0.0 : 1.0; }},
      {"squall_component_heartbeat_age_seconds", "gauge",
       "Since the component's last heartbeat, by Redis' clock",
       [](const ComponentStatus& c) { return to_seconds(c.age); }},
      {"squall_component_handled_total", "counter",
       "Work the component handled since it started: dispatches, pages fetched, pages "
       "processed or results stored, as its last heartbeat said",
       [](const ComponentStatus& c) { return static_cast<double>(c.report.pages); }},
      {"squall_component_lag", "gauge",
       "Entries of the component's input stream not yet delivered, as its last heartbeat said",
       [](const ComponentStatus& c) { return static_cast<double>(c.report.lag); }},
  };
  for (const Family& f : components) {
    out.family(f.name, f.type, f.help);
    for (const ComponentStatus& c : status->components)
      out.sample(f.name, {{"namespace", ns}, {"id", c.id}, {"role", c.role}, {"host", c.host}},
                 f.value(c));
  }
  struct StreamFamily {
    const char* name;
    const char* help;
    uint64_t StreamDepth::*field;
  };
  static constexpr StreamFamily streams[] = {
      {"squall_stream_length", "Entries in the stream, acknowledged ones not yet trimmed included",
       &StreamDepth::length},
      {"squall_stream_pending", "Entries taken by a consumer and not yet acknowledged",
       &StreamDepth::pending},
      {"squall_stream_lag", "Entries pushed and not yet delivered to the stream's group",
       &StreamDepth::lag},
      {"squall_stream_dead_letters", "Entries in the stream's dead letters", &StreamDepth::dead},
      {"squall_stream_consumers", "Consumers of the stream's group", &StreamDepth::consumers},
  };
  for (const StreamFamily& f : streams) {
    out.family(f.name, "gauge", f.help);
    for (const ClusterStream& s : status->streams)
      out.sample(f.name, {{"namespace", ns}, {"stream", s.stream.name}},
                 static_cast<double>(s.depth.*f.field));
  }
}

}  // namespace squall
