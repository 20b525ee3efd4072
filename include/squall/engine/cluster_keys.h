// The names a distributed crawl keeps in Redis: one namespace prefix, the engine's four streams.
//
// Every key of a crawl lives under "squall:<namespace>:" (the namespace defaults to "squall"),
// so several crawls share one Redis database without meeting. The components talk through four
// streams, each read by one consumer group:
//
//   squall:NS:fetch    scheduler  → fetchers        (tasks to fetch)         group "fetchers"
//   squall:NS:process  fetchers   → processors      (fetched pages)          group "processors"
//   squall:NS:outcome  processors → scheduler       (outcomes and follows)   group "scheduler"
//   squall:NS:result   processors → result worker   (results)                group "result-workers"
//
// and each stream's dead letters go to "<stream>:dead" (stream_queue.h).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace squall {

inline constexpr std::string_view default_cluster_namespace = "squall";

// One of the engine's streams: its name under the namespace, its consumer group, and the roles
// at its two ends (what `squall status` prints).
struct EngineStream {
  std::string_view name;
  std::string_view group;
  std::string_view from;
  std::string_view to;
};

inline constexpr std::array<EngineStream, 4> engine_streams = {{
    {"fetch", "fetchers", "scheduler", "fetcher"},
    {"process", "processors", "fetcher", "processor"},
    {"outcome", "scheduler", "processor", "scheduler"},
    {"result", "result-workers", "processor", "result-worker"},
}};

// "squall:<ns>:". Throws InvalidArgumentError for an empty namespace or one with a space, a
// control character or a ':' (which would let one namespace's keys fall inside another's).
std::string cluster_prefix(std::string_view ns);

// "squall:<ns>:<name>", checked as cluster_prefix checks.
std::string cluster_key(std::string_view ns, std::string_view name);

}  // namespace squall
