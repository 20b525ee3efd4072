// HostLeases: each step one Lua script on the server's clock.
#include "squall/engine/host_leases.h"

#include <algorithm>
#include <span>
#include <vector>

#include "squall/core/error.h"
#include "squall/net/redis_script.h"

namespace squall {

namespace {

// Each script starts by reading the server's clock in ms. Redis 7 replicates a script's effects,
// not the script, so a script that reads TIME may write.
const std::string kPrelude = R"(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function host_delay(default_ms, key)
  local own = tonumber(redis.call('GET', key) or 0)
  if own > default_ms then return own end
  return default_ms
end
)";

// KEYS: ready, leases, delay, seq. ARGV: host, per_host, delay ms, lease ttl ms, busy retry ms.
// Returns {1, lease id, delay} or {0, wait ms, delay}.
const RedisScript kAcquire(kPrelude + R"(
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local delay = host_delay(tonumber(ARGV[3]), KEYS[3])
local ready = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or 0)
if ready > now then return {0, ready - now, delay} end
local per_host = tonumber(ARGV[2])
if per_host > 0 and redis.call('ZCARD', KEYS[2]) >= per_host then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  local wait = math.min(tonumber(first[2]) - now, tonumber(ARGV[5]))
  return {0, math.max(wait, 1), delay}
end
local ttl = tonumber(ARGV[4])
local id = t[1] .. string.format('%06d', tonumber(t[2])) .. '-' .. redis.call('INCR', KEYS[4])
redis.call('ZADD', KEYS[2], now + ttl, id)
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('ZADD', KEYS[1], now + delay, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 3600000)
return {1, id, delay}
)");

// KEYS: ready, leases, delay. ARGV: host, lease id, delay ms. Returns 1 when the lease was held.
const RedisScript kRelease(kPrelude + R"(
local held = redis.call('ZREM', KEYS[2], ARGV[2])
local next_start = now + host_delay(tonumber(ARGV[3]), KEYS[3])
local ready = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or 0)
if next_start > ready then redis.call('ZADD', KEYS[1], next_start, ARGV[1]) end
return held
)");

// KEYS: leases. ARGV: lease id, lease ttl ms. Returns 1 when the lease was held and is renewed.
const RedisScript kRenew(kPrelude + R"(
local expires = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or 0)
if expires <= now then return 0 end
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
)");

// KEYS: ready. ARGV: host, pause ms.
const RedisScript kBackOff(kPrelude + R"(
local until_ms = now + tonumber(ARGV[2])
local ready = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or 0)
if until_ms > ready then redis.call('ZADD', KEYS[1], until_ms, ARGV[1]) end
return until_ms
)");

int64_t to_ms(Duration d) {
  return std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

int64_t seconds_to_ms(double s) {
  return s > 0 ? static_cast<int64_t>(s * 1000 + 0.5) : 0;
}

const RedisReply& element(const RedisReply& r, size_t i, const char* what) {
  if (r.type != RedisReply::Type::Array || r.elements.size() <= i)
    throw Error(ErrorKind::Protocol, std::string("HostLeases: the ") + what + " script answered " +
                                         r.to_string() + ", not the array it returns");
  return r.elements[i];
}

}  // namespace

HostLeases::HostLeases(RedisClient& redis, HostLeasesOptions options)
    : redis_(redis), options_(std::move(options)) {
  if (options_.ns.empty()) options_.ns = "squall";
}

std::string HostLeases::ready_key() const {
  return "squall:" + options_.ns + ":hosts:ready";
}

std::string HostLeases::leases_key(const std::string& host) const {
  return "squall:" + options_.ns + ":host:" + host + ":leases";
}

std::string HostLeases::delay_key(const std::string& host) const {
  return "squall:" + options_.ns + ":host:" + host + ":delay";
}

Task<LeaseGrant> HostLeases::acquire(std::string host) {
  std::vector<std::string> keys = {ready_key(), leases_key(host), delay_key(host),
                                   "squall:" + options_.ns + ":leases:seq"};
  std::vector<std::string> args = {
      host, std::to_string(options_.per_host), std::to_string(seconds_to_ms(options_.delay)),
      std::to_string(std::max<int64_t>(1, to_ms(options_.lease_ttl))),
      std::to_string(std::max<int64_t>(1, to_ms(options_.busy_retry)))};
  RedisReply r = co_await kAcquire.run(redis_, std::span<const std::string>(keys),
                                       std::span<const std::string>(args));
  LeaseGrant grant;
  grant.delay = std::chrono::milliseconds(element(r, 2, "acquire").integer);
  if (element(r, 0, "acquire").integer == 1) {
    grant.lease = HostLease{std::move(host), element(r, 1, "acquire").str};
  } else {
    grant.wait = std::chrono::milliseconds(std::max<int64_t>(1, element(r, 1, "acquire").integer));
  }
  co_return grant;
}

Task<void> HostLeases::release(HostLease lease) {
  std::vector<std::string> keys = {ready_key(), leases_key(lease.host), delay_key(lease.host)};
  std::vector<std::string> args = {lease.host, lease.id,
                                   std::to_string(seconds_to_ms(options_.delay))};
  co_await kRelease.run(redis_, std::span<const std::string>(keys),
                        std::span<const std::string>(args));
}

Task<bool> HostLeases::renew(HostLease lease) {
  std::vector<std::string> keys = {leases_key(lease.host)};
  std::vector<std::string> args = {lease.id,
                                   std::to_string(std::max<int64_t>(1, to_ms(options_.lease_ttl)))};
  RedisReply r = co_await kRenew.run(redis_, std::span<const std::string>(keys),
                                     std::span<const std::string>(args));
  co_return r.integer == 1;
}

Task<void> HostLeases::set_delay(std::string host, Duration delay, Duration valid_for) {
  int64_t ms = to_ms(delay);
  int64_t life = std::max<int64_t>(1, to_ms(valid_for));
  std::string key = delay_key(host);
  CommandOptions idempotent{.timeout = {}, .idempotent = true};
  if (ms == 0) {
    co_await redis_.command(idempotent, "DEL", key);
  } else {
    co_await redis_.command(idempotent, "SET", key, ms, "PX", life);
  }
}

Task<void> HostLeases::back_off(std::string host, Duration pause) {
  std::vector<std::string> keys = {ready_key()};
  std::vector<std::string> args = {std::move(host), std::to_string(to_ms(pause))};
  co_await kBackOff.run(redis_, std::span<const std::string>(keys),
                        std::span<const std::string>(args));
}

}  // namespace squall
