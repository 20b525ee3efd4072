// ComponentRegistry: which processes of a distributed crawl are alive, as they say themselves
// through heartbeats in Redis.
//
//   ComponentRegistry registry(redis);                       // namespace "squall", lease 30 s
//   co_await registry.join(ComponentRole::Fetcher, [&] { return ComponentReport{pages, lag}; });
//   ...                                                      // heartbeats every lease/3
//   co_await registry.leave();                               // a clean exit: the record goes
//   for (const auto& c : co_await registry.components()) ... // c.role, c.host, c.age, c.dead
//
// Each component process registers itself under an ID "<role>@<host>:<pid>" with its role,
// host name, pid, the time it joined and its lease, then heartbeats every lease/3 in a task of its
// own, sending what its report function returns (pages done, its input queue's lag). A heartbeat
// that fails (Redis down) is logged as a warning and the next one tries again.
//
// components() lists every record with the age of its last heartbeat and marks it dead when
// that age passed dead_after_leases (3) of the component's own lease: the component missed
// nine heartbeats in a row. Its stream entries are by then reclaimable by the others (their
// StreamQueue lease is the same or shorter); the registry only reports. Ages are measured on
// Redis' clock (TIME, read inside the scripts), so machines whose clocks disagree still agree
// on who is dead. A record silent for forget_after is removed by the next heartbeat of any
// component; leave() removes this process' own at once. A process that comes back with the
// same role, host and pid takes its old record over.
//
// Keys: the hashes "squall:<ns>:components" (ID → the record, as JSON) and
// "squall:<ns>:heartbeats" (ID → the last heartbeat, in ms of Redis' clock).
//
// Threads: a registry belongs to its client's loop and is used from that loop's thread. The
// client must outlive it. Destroying it stops the heartbeats (the record stays, and ages).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/core/spawn.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/redis.h"

namespace squall {

enum class ComponentRole { Scheduler, Fetcher, Processor, ResultWorker };

// "scheduler", "fetcher", "processor", "result-worker" (as the commands are named).
std::string_view component_role_name(ComponentRole role) noexcept;
// The role of one of those names, or nothing.
std::optional<ComponentRole> parse_component_role(std::string_view name) noexcept;

// What a component says of itself at each heartbeat.
struct ComponentReport {
  // Pages (or tasks, results: its unit of work) done since it started.
  uint64_t pages = 0;
  // Its input stream's lag: entries waiting for its group (StreamDepth::lag).
  uint64_t lag = 0;
};

// One component as the registry knows it.
struct ComponentStatus {
  std::string id;
  std::string role;
  std::string host;
  int64_t pid = 0;
  // When it joined (Unix time, seconds), by its own clock.
  double started = 0;
  Duration lease{};
  ComponentReport report;
  // Since its last heartbeat, by Redis' clock.
  Duration age{};
  bool dead = false;
};

struct ComponentRegistryOptions {
  // The crawl's namespace: keys under "squall:<ns>:".
  std::string ns = "squall";
  // The component's lease: it heartbeats every lease/3 and is dead after dead_after_leases of
  // it. 30 s, as StreamQueue's.
  Duration lease = std::chrono::seconds(30);
  int dead_after_leases = 3;
  // A record silent this long is removed (a dead component is listed until then).
  Duration forget_after = std::chrono::hours(1);
  // This process' host name and pid in its ID and record; empty and 0: the real ones.
  std::string host;
  int64_t pid = 0;
};

class ComponentRegistry {
 public:
  // Nothing is sent until join() or components(). Throws InvalidArgumentError for a bad
  // namespace (cluster_keys.h), a lease under 3 ms, or dead_after_leases under 1.
  explicit ComponentRegistry(RedisClient& redis, ComponentRegistryOptions options = {});
  ComponentRegistry(const ComponentRegistry&) = delete;
  ComponentRegistry& operator=(const ComponentRegistry&) = delete;
  ~ComponentRegistry();

  // Registers this process as `role` with a first heartbeat (its failure is thrown: a
  // component that cannot reach Redis should not start), then heartbeats every lease/3 until
  // leave() or destruction. `report` is called at each heartbeat; none reports zeros. Throws
  // InvalidStateError when already joined.
  [[nodiscard]] Task<void> join(ComponentRole role,
                                std::function<ComponentReport()> report = nullptr);
  // Stops the heartbeats and removes this process' record. Does nothing when not joined.
  [[nodiscard]] Task<void> leave();
  // One heartbeat now, besides the periodic ones (a component that just finished a batch).
  [[nodiscard]] Task<void> beat();

  // Every record, live and dead, ordered by role (scheduler, fetcher, processor,
  // result-worker), then host, then pid. One script call.
  [[nodiscard]] Task<std::vector<ComponentStatus>> components();

  // "<role>@<host>:<pid>" once joined, else empty.
  const std::string& id() const noexcept { return id_; }
  const ComponentRegistryOptions& options() const noexcept { return options_; }

 private:
  Task<void> heartbeats();

  RedisClient& redis_;
  ComponentRegistryOptions options_;
  std::string components_key_;
  std::string heartbeats_key_;
  std::string id_;
  std::string role_;
  double started_ = 0;
  std::function<ComponentReport()> report_;
  std::optional<TaskHandle<void>> beating_;
};

}  // namespace squall
