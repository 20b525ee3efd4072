// HostLeases: each step a Lua script on the server's clock, acquires and releases in batches.
#include "squall/engine/host_leases.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "squall/core/error.h"
#include "squall/core/future.h"
#include "squall/core/spawn.h"
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

// A ready time that has passed changes no decision, so a host without a delay gets none: its
// grants and releases write nothing but its leases.
// A batch of acquires and releases, applied in order. KEYS: ready, seq, then each op's leases and
// delay. ARGV: per_host, delay ms, lease ttl ms, busy retry ms, then each op's host and lease id
// (empty for an acquire). Returns each op's answer: an acquire's {1, lease id, delay} or
// {0, wait ms, delay}; a release's 1 when the lease was held, else 0.
const RedisScript kBatch(kPrelude + R"(
local per_host = tonumber(ARGV[1])
local default_delay = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local busy_retry = tonumber(ARGV[4])
local granted = false
local function acquire(host, leases, delay_key)
  redis.call('ZREMRANGEBYSCORE', leases, '-inf', now)
  local delay = host_delay(default_delay, delay_key)
  local ready = tonumber(redis.call('ZSCORE', KEYS[1], host) or 0)
  if ready > now then return {0, ready - now, delay} end
  if per_host > 0 and redis.call('ZCARD', leases) >= per_host then
    local first = redis.call('ZRANGE', leases, 0, 0, 'WITHSCORES')
    local wait = math.min(tonumber(first[2]) - now, busy_retry)
    return {0, math.max(wait, 1), delay}
  end
  local id = t[1] .. string.format('%06d', tonumber(t[2])) .. '-' .. redis.call('INCR', KEYS[2])
  redis.call('ZADD', leases, now + ttl, id)
  redis.call('PEXPIRE', leases, ttl)
  if delay > 0 then redis.call('ZADD', KEYS[1], now + delay, host) end
  granted = true
  return {1, id, delay}
end
local function release(host, id, leases, delay_key)
  local held = redis.call('ZREM', leases, id)
  local delay = host_delay(default_delay, delay_key)
  if delay > 0 then
    local ready = tonumber(redis.call('ZSCORE', KEYS[1], host) or 0)
    if now + delay > ready then redis.call('ZADD', KEYS[1], now + delay, host) end
  end
  return held
end
local out = {}
for i = 1, (#ARGV - 4) / 2 do
  local host, id = ARGV[3 + 2 * i], ARGV[4 + 2 * i]
  local leases, delay_key = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  if id == '' then
    out[i] = acquire(host, leases, delay_key)
  else
    out[i] = release(host, id, leases, delay_key)
  end
end
if granted then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 3600000) end
return out
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

// The most acquires and releases one script call takes: a script holds the server while it runs.
constexpr size_t kMaxBatch = 256;

}  // namespace

struct HostLeases::Batches {
  struct Op {
    std::string host, id;  // an empty id: an acquire
    Promise<RedisReply> reply;
  };
  RedisClient& redis;
  HostLeasesOptions options;
  std::string prefix;  // "squall:NS:"
  std::deque<Op> next;
  std::optional<TaskHandle<void>> sender;
};

Task<void> HostLeases::send_batches(std::shared_ptr<Batches> b) {
  const HostLeasesOptions& o = b->options;
  while (!b->next.empty()) {
    size_t n = std::min(b->next.size(), kMaxBatch);
    std::vector<Batches::Op> ops;
    ops.reserve(n);
    for (; n > 0; --n) {
      ops.push_back(std::move(b->next.front()));
      b->next.pop_front();
    }
    std::vector<std::string> keys = {b->prefix + "hosts:ready", b->prefix + "leases:seq"};
    std::vector<std::string> args = {std::to_string(o.per_host),
                                     std::to_string(seconds_to_ms(o.delay)),
                                     std::to_string(std::max<int64_t>(1, to_ms(o.lease_ttl))),
                                     std::to_string(std::max<int64_t>(1, to_ms(o.busy_retry)))};
    for (const auto& op : ops) {
      keys.push_back(b->prefix + "host:" + op.host + ":leases");
      keys.push_back(b->prefix + "host:" + op.host + ":delay");
      args.push_back(op.host);
      args.push_back(op.id);
    }
    std::exception_ptr failed;
    try {
      RedisReply r = co_await kBatch.run(b->redis, std::span<const std::string>(keys),
                                         std::span<const std::string>(args));
      if (r.type != RedisReply::Type::Array || r.elements.size() != ops.size())
        throw Error(ErrorKind::Protocol, "HostLeases: the batch script answered " + r.to_string() +
                                             ", not one answer per lease asked");
      for (size_t i = 0; i < ops.size(); ++i) ops[i].reply.set_value(std::move(r.elements[i]));
    } catch (const CancelledError&) {
      // The HostLeases went: every op still queued fails as well.
      failed = std::current_exception();
      for (; !b->next.empty(); b->next.pop_front()) ops.push_back(std::move(b->next.front()));
    } catch (...) {
      failed = std::current_exception();
    }
    if (failed)
      for (auto& op : ops)
        if (!op.reply.done()) op.reply.set_exception(failed);
  }
}

HostLeases::HostLeases(RedisClient& redis, HostLeasesOptions options)
    : redis_(redis), options_(std::move(options)) {
  if (options_.ns.empty()) options_.ns = "squall";
  batches_ = std::shared_ptr<Batches>(
      new Batches{redis_, options_, "squall:" + options_.ns + ":", {}, std::nullopt});
}

HostLeases::~HostLeases() {
  if (batches_->sender) batches_->sender->kill();
  for (auto& op : batches_->next)
    op.reply.set_exception(std::make_exception_ptr(CancelledError("the HostLeases went")));
  batches_->next.clear();
}

Future<RedisReply> HostLeases::batched(std::string host, std::string id) {
  std::shared_ptr<Batches> b = batches_;
  b->next.push_back(Batches::Op{std::move(host), std::move(id), {}});
  Future<RedisReply> reply = b->next.back().reply.future();
  if (!b->sender || b->sender->done()) b->sender = spawn(send_batches(b));
  return reply;
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

// acquire() and release() are plain functions that queue their op at once and hand back a
// task awaiting its answer: a coroutine would queue it only when first resumed, after whatever
// its caller (or a spawn's next loop iteration) did meanwhile.
Task<LeaseGrant> HostLeases::acquire(std::string host) {
  Future<RedisReply> reply = batched(host, "");
  return granted(std::move(host), std::move(reply));
}

Task<LeaseGrant> HostLeases::granted(std::string host, Future<RedisReply> reply) {
  RedisReply r = co_await reply;
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
  if (lease.id.empty()) {
    Promise<RedisReply> invalid;
    invalid.set_exception(
        std::make_exception_ptr(InvalidArgumentError("HostLeases: a lease without an id")));
    return released(invalid.future());
  }
  return released(batched(std::move(lease.host), std::move(lease.id)));
}

Task<void> HostLeases::released(Future<RedisReply> reply) {
  co_await reply;
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
