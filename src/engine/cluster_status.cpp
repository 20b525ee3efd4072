// ClusterStatus: the registry's records and the streams' depths, read one after the other.
#include "squall/engine/cluster_status.h"

#include "squall/core/seconds.h"

namespace squall {

size_t ClusterStatus::live() const noexcept {
  size_t n = 0;
  for (const ComponentStatus& c : components) n += c.dead ? 0 : 1;
  return n;
}

Task<ClusterStatus> read_cluster_status(RedisClient& redis, std::string ns) {
  ClusterStatus status;
  status.ns = ns;
  ComponentRegistryOptions o;
  o.ns = ns;
  ComponentRegistry registry(redis, o);
  status.components = co_await registry.components();
  for (const EngineStream& s : engine_streams) {
    ClusterStream row{s, cluster_key(ns, s.name), {}};
    row.depth = co_await stream_depth(redis, row.key, std::string(s.group));
    status.streams.push_back(std::move(row));
  }
  co_return status;
}

nlohmann::ordered_json component_status_json(const ComponentStatus& c) {
  nlohmann::ordered_json e;
  e["id"] = c.id;
  e["role"] = c.role;
  e["host"] = c.host;
  e["pid"] = c.pid;
  e["state"] = c.dead ? "dead" : "live";
  e["alive"] = !c.dead;
  e["heartbeat_age"] = to_seconds(c.age);
  e["lease"] = to_seconds(c.lease);
  e["started"] = c.started;
  e["handled"] = c.report.pages;
  e["lag"] = c.report.lag;
  return e;
}

nlohmann::ordered_json cluster_stream_json(const ClusterStream& s) {
  nlohmann::ordered_json e;
  e["name"] = s.stream.name;
  e["key"] = s.key;
  e["group"] = s.stream.group;
  e["from"] = s.stream.from;
  e["to"] = s.stream.to;
  e["length"] = s.depth.length;
  e["pending"] = s.depth.pending;
  e["lag"] = s.depth.lag;
  e["dead"] = s.depth.dead;
  e["consumers"] = s.depth.consumers;
  return e;
}

nlohmann::ordered_json cluster_status_json(const ClusterStatus& status) {
  nlohmann::ordered_json j;
  j["namespace"] = status.ns;
  j["components"] = nlohmann::ordered_json::array();
  for (const ComponentStatus& c : status.components)
    j["components"].push_back(component_status_json(c));
  j["streams"] = nlohmann::ordered_json::array();
  for (const ClusterStream& s : status.streams) j["streams"].push_back(cluster_stream_json(s));
  return j;
}

}  // namespace squall
