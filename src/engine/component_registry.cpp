// ComponentRegistry: records and heartbeats in two hashes, written and read by Lua scripts that
// take the time from Redis' own clock.
#include "squall/engine/component_registry.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "squall/core/log.h"
#include "squall/core/sleep.h"
#include "squall/engine/cluster_keys.h"
#include "squall/net/redis_script.h"

namespace squall {

namespace {

constexpr std::array<std::string_view, 4> role_names = {"scheduler", "fetcher", "processor",
                                                        "result-worker"};

// KEYS[1] records, KEYS[2] heartbeats; ARGV[1] id, ARGV[2] record, ARGV[3] forget_after (ms).
// Writes the record and the heartbeat, removes records silent for forget_after, returns now.
const RedisScript& beat_script() {
  static const RedisScript script(R"(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], now)
local beats = redis.call('HGETALL', KEYS[2])
for i = 1, #beats, 2 do
  if now - tonumber(beats[i + 1]) > tonumber(ARGV[3]) then
    redis.call('HDEL', KEYS[1], beats[i])
    redis.call('HDEL', KEYS[2], beats[i])
  end
end
return now
)");
  return script;
}

// KEYS[1] records, KEYS[2] heartbeats. Returns {now (ms), records, heartbeats}.
const RedisScript& list_script() {
  static const RedisScript script(R"(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {now, redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2])}
)");
  return script;
}

std::string host_name() {
  char host[256] = {};
  std::string name = gethostname(host, sizeof host - 1) == 0 ? host : "";
  return name.empty() ? "unknown" : name;
}

int64_t ms(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

size_t role_rank(std::string_view role) {
  auto it = std::find(role_names.begin(), role_names.end(), role);
  return static_cast<size_t>(it - role_names.begin());
}

// The record's fields into `c`; false when the record is not one this registry wrote.
bool read_record(std::string_view text, ComponentStatus& c) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return false;
  try {
    c.role = j.at("role").get<std::string>();
    c.host = j.at("host").get<std::string>();
    c.pid = j.at("pid").get<int64_t>();
    c.started = j.at("started").get<double>();
    c.lease = std::chrono::milliseconds(j.at("lease_ms").get<int64_t>());
    c.report.pages = j.at("pages").get<uint64_t>();
    c.report.lag = j.at("lag").get<uint64_t>();
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  return true;
}

std::string record_json(const std::string& role, const ComponentRegistryOptions& o, double started,
                        const ComponentReport& report) {
  nlohmann::json record = {{"role", role},       {"host", o.host},          {"pid", o.pid},
                           {"started", started}, {"lease_ms", ms(o.lease)}, {"pages", report.pages},
                           {"lag", report.lag}};
  return record.dump();
}

CommandOptions safe_twice() {
  CommandOptions o;
  o.idempotent = true;
  return o;
}

}  // namespace

std::string_view component_role_name(ComponentRole role) noexcept {
  return role_names[static_cast<size_t>(role)];
}

std::optional<ComponentRole> parse_component_role(std::string_view name) noexcept {
  size_t rank = role_rank(name);
  if (rank >= role_names.size()) return std::nullopt;
  return static_cast<ComponentRole>(rank);
}

ComponentRegistry::ComponentRegistry(RedisClient& redis, ComponentRegistryOptions options)
    : redis_(redis),
      options_(std::move(options)),
      components_key_(cluster_key(options_.ns, "components")),
      heartbeats_key_(cluster_key(options_.ns, "heartbeats")) {
  if (options_.lease < std::chrono::milliseconds(3))
    throw InvalidArgumentError("ComponentRegistry: the lease must be at least 3 ms");
  if (options_.dead_after_leases < 1)
    throw InvalidArgumentError("ComponentRegistry: dead_after_leases must be at least 1");
  if (options_.host.empty()) options_.host = host_name();
  if (options_.pid == 0) options_.pid = getpid();
}

ComponentRegistry::~ComponentRegistry() {
  if (beating_) beating_->kill();
}

Task<void> ComponentRegistry::join(ComponentRole role, std::function<ComponentReport()> report) {
  if (!id_.empty()) throw InvalidStateError("ComponentRegistry: already joined as " + id_);
  role_ = std::string(component_role_name(role));
  id_ = role_ + "@" + options_.host + ":" + std::to_string(options_.pid);
  started_ =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  report_ = std::move(report);
  try {
    co_await beat();
  } catch (...) {
    id_.clear();
    throw;
  }
  beating_ = spawn(heartbeats());
}

Task<void> ComponentRegistry::leave() {
  if (id_.empty()) co_return;
  if (beating_) {
    beating_->kill();
    co_await beating_->join();
    beating_.reset();
  }
  RedisPipeline forget;
  forget.add("HDEL", components_key_, id_).add("HDEL", heartbeats_key_, id_);
  std::vector<RedisReply> replies = co_await redis_.execute(forget, safe_twice());
  for (const auto& r : replies) throw_if_error(r, "HDEL", redis_.peer());
  id_.clear();
}

Task<void> ComponentRegistry::beat() {
  if (id_.empty()) throw InvalidStateError("ComponentRegistry: beat() before join()");
  ComponentReport report = report_ ? report_() : ComponentReport{};
  std::vector<std::string> keys = {components_key_, heartbeats_key_};
  std::vector<std::string> args = {id_, record_json(role_, options_, started_, report),
                                   std::to_string(ms(options_.forget_after))};
  co_await beat_script().run(redis_, keys, args, safe_twice());
}

Task<void> ComponentRegistry::heartbeats() {
  Duration period = options_.lease / 3;
  for (;;) {
    co_await sleep(period);
    try {
      co_await beat();
    } catch (const CancelledError&) {
      throw;
    } catch (const std::exception& e) {
      log(LogLevel::Warning, "component " + id_ + ": heartbeat failed: " + e.what());
    }
  }
}

Task<std::vector<ComponentStatus>> ComponentRegistry::components() {
  std::vector<std::string> keys = {components_key_, heartbeats_key_};
  std::vector<std::string> args;
  RedisReply r = co_await list_script().run(redis_, keys, args, safe_twice());
  if (r.type != RedisReply::Type::Array || r.elements.size() != 3 ||
      r.elements[0].type != RedisReply::Type::Integer ||
      r.elements[1].type != RedisReply::Type::Array ||
      r.elements[2].type != RedisReply::Type::Array) {
    throw Error(ErrorKind::Protocol, "redis " + redis_.peer() +
                                         ": the component registry's list script replied " +
                                         r.to_string().substr(0, 120));
  }
  int64_t now = r.elements[0].integer;
  std::vector<ComponentStatus> out;
  const auto& records = r.elements[1].elements;
  const auto& beats = r.elements[2].elements;
  std::unordered_map<std::string_view, int64_t> last_beat;
  for (size_t k = 0; k + 1 < beats.size(); k += 2)
    last_beat[beats[k].str] = std::atoll(beats[k + 1].str.c_str());
  for (size_t i = 0; i + 1 < records.size(); i += 2) {
    ComponentStatus c;
    c.id = records[i].str;
    auto beat = last_beat.find(c.id);
    if (beat == last_beat.end() || !read_record(records[i + 1].str, c)) continue;
    int64_t last = beat->second;
    c.age = std::chrono::milliseconds(std::max<int64_t>(0, now - last));
    c.dead = c.age > c.lease * options_.dead_after_leases;
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const ComponentStatus& a, const ComponentStatus& b) {
    auto ra = role_rank(a.role), rb = role_rank(b.role);
    if (ra != rb) return ra < rb;
    if (a.host != b.host) return a.host < b.host;
    return a.pid < b.pid;
  });
  co_return out;
}

}  // namespace squall
