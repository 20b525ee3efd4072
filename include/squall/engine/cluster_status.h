// ClusterStatus: what a distributed crawl's Redis says of it at one moment: every component that
// registered in its namespace, and the depth of each of the engine's four streams. `squall
// status` prints it; the control plane's cluster view (control/cluster_view.h) serves it.
//
//   RedisClient redis("redis://10.0.0.5:6379/0");
//   ClusterStatus status = co_await read_cluster_status(redis, "shop");
//   for (const ComponentStatus& c : status.components) ... // role, host, pid, age, dead, report
//   for (const ClusterStream& s : status.streams) ...      // s.key, s.depth.pending, ...
//   nlohmann::ordered_json j = cluster_status_json(status);
//
// The components come from ComponentRegistry::components() (live and dead, in role order; a
// component is dead after 3 of its leases without a heartbeat), the streams from stream_depth()
// in engine_streams' order (fetch, process, outcome, result). Nothing is written.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "squall/core/task.h"
#include "squall/engine/cluster_keys.h"
#include "squall/engine/component_registry.h"
#include "squall/engine/stream_queue.h"
#include "squall/net/redis.h"

namespace squall {

// One of the engine's streams with its key under the namespace and its depth.
struct ClusterStream {
  EngineStream stream;
  std::string key;  // "squall:<ns>:<name>"
  StreamDepth depth;
};

struct ClusterStatus {
  std::string ns;
  std::vector<ComponentStatus> components;
  std::vector<ClusterStream> streams;

  // Components not marked dead.
  size_t live() const noexcept;
};

// Reads the namespace's components and streams: one registry script call and one depth script
// call per stream. Throws InvalidArgumentError for a bad namespace (cluster_keys.h), and what
// the client throws when Redis cannot be reached or refuses.
[[nodiscard]] Task<ClusterStatus> read_cluster_status(RedisClient& redis, std::string ns);

// One component as JSON: id, role, host, pid, state ("live" or "dead"), alive, heartbeat_age and
// lease (seconds), started (Unix time, by the component's clock), handled (its unit of work done
// since it started) and lag (its input stream's entries waiting, as it last reported).
nlohmann::ordered_json component_status_json(const ComponentStatus& component);
// One stream as JSON: name, key, group, from, to, length, pending, lag, dead, consumers.
nlohmann::ordered_json cluster_stream_json(const ClusterStream& stream);
// {"namespace", "components": [...], "streams": [...]}, each as above.
nlohmann::ordered_json cluster_status_json(const ClusterStatus& status);

}  // namespace squall
