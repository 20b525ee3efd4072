// ClusterView: the control plane's window on a distributed crawl: the namespace's components
// and streams (engine/cluster_status.h) read from its Redis, each live component's rate, and
// Prometheus metrics of them; what GET /api/cluster, /metrics and the dashboard's cluster pane
// show.
//
//   ClusterView view({.redis = "redis://10.0.0.5:6379/0", .ns = "shop"});
//   nlohmann::ordered_json j = co_await view.read();   // {"redis", "namespace", "live", ...}
//   PrometheusText out;
//   co_await view.prometheus(out);
//
// read() answers the status as cluster_status_json() gives it, with "redis" (host:port), "live"
// and "dead" (how many) and, for each component, "rate": what it handled a second between the
// last two heartbeats this view saw (null until it has seen two, 0 for a dead one). A component
// heartbeats every third of its lease, so a rate is an average over that long, and the view
// must be read at least that often to follow it (the dashboard reads it every second). Reads
// closer together than `fresh_for` share one read of Redis, so any number of open dashboards
// cost Redis one read a second.
//
// Errors: the constructor throws InvalidArgumentError for a bad URL or namespace; read() and
// prometheus() throw what the client throws when Redis cannot be reached (after `timeout`), and
// prometheus() then writes squall_cluster_up 0 before it throws.
//
// Threads: the loop it was made on; it owns its Redis client.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "squall/control/prometheus.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/engine/cluster_status.h"
#include "squall/net/redis.h"

namespace squall {

struct ClusterViewOptions {
  std::string redis;  // redis://[[user]:password@]host[:port][/db]
  std::string ns = "squall";
  Duration fresh_for = std::chrono::milliseconds(500);
  Duration timeout = std::chrono::seconds(5);  // connecting, and each command
};

class ClusterView {
 public:
  explicit ClusterView(ClusterViewOptions options);
  ClusterView(const ClusterView&) = delete;
  ClusterView& operator=(const ClusterView&) = delete;

  // The cluster now (or as read less than fresh_for ago), as described above.
  [[nodiscard]] Task<nlohmann::ordered_json> read();
  // The metrics of a read: squall_cluster_up, squall_cluster_components{state},
  // squall_component_up, _heartbeat_age_seconds, _handled_total and _lag (labels id, role,
  // host), squall_stream_length, _pending, _lag, _dead_letters and _consumers (label stream);
  // every sample with the namespace's label.
  [[nodiscard]] Task<void> prometheus(PrometheusText& out);

  // "host:port" of its Redis.
  const std::string& peer() const noexcept { return peer_; }
  const std::string& ns() const noexcept { return options_.ns; }
  // Closes the Redis connection; a later read opens it again.
  void close() noexcept { redis_.close(); }

 private:
  // Reads the status into last_, unless it was read less than fresh_for ago.
  Task<void> refresh();
  // What this view has seen of a component: its last heartbeat's handled count and when the
  // heartbeat was sent (by this loop's clock: the read's time less its age), and its rate.
  struct Seen {
    uint64_t handled = 0;
    TimePoint beat{};
    std::optional<double> rate;
  };
  void follow(const ClusterStatus& status, TimePoint now);

  ClusterViewOptions options_;
  RedisClient redis_;
  std::string peer_;
  std::optional<ClusterStatus> last_;
  TimePoint last_at_{};
  std::map<std::string, Seen> seen_;
};

}  // namespace squall
