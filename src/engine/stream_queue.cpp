// StreamQueue: the queue's steps as Lua scripts, so that each is atomic and one round trip.
#include "squall/engine/stream_queue.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "squall/net/redis_script.h"
#include "squall/net/redis_streams.h"

namespace squall {

namespace {

// Where trimming may stop: the smallest, over every group of the stream, of its oldest pending
// ID and its last-delivered ID (nil when the stream has no group, and then nothing is trimmed:
// a group created later starts at "0" and must find every entry).
constexpr std::string_view trim_point_lua = R"(
local function id_less(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as < bs)
end
local function trim_point(stream)
  local point = nil
  for _, g in ipairs(redis.call('XINFO', 'GROUPS', stream)) do
    local name, last
    for i = 1, #g, 2 do
      if g[i] == 'name' then name = g[i + 1] elseif g[i] == 'last-delivered-id' then last = g[i + 1] end
    end
    local keep = last
    local summary = redis.call('XPENDING', stream, name)
    if summary[1] > 0 and id_less(summary[2], keep) then keep = summary[2] end
    if point == nil or id_less(keep, point) then point = keep end
  end
  return point
end
)";

// KEYS[1] stream; ARGV[1] '1' to trim after adding, ARGV[2] the group, ARGV[3] how long (ms) a
// consumer holding nothing may stay idle before it is deleted from the group, ARGV[4...]
// payloads. Returns the new IDs.
const RedisScript& push_script() {
  static const RedisScript script(std::string(trim_point_lua) + R"(
local ids = {}
for i = 4, #ARGV do
  ids[#ids + 1] = redis.call('XADD', KEYS[1], '*', 'payload', ARGV[i])
end
if ARGV[1] == '1' then
  local point = trim_point(KEYS[1])
  if point then redis.call('XTRIM', KEYS[1], 'MINID', '~', point) end
  local ok, consumers = pcall(redis.call, 'XINFO', 'CONSUMERS', KEYS[1], ARGV[2])
  if ok then
    for _, c in ipairs(consumers) do
      local info = {}
      for i = 1, #c, 2 do info[c[i]] = c[i + 1] end
      if info['pending'] == 0 and info['idle'] > tonumber(ARGV[3]) then
        redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[2], info['name'])
      end
    end
  end
end
return ids
)");
  return script;
}

// KEYS[1] stream. Returns how many entries were trimmed.
const RedisScript& trim_script() {
  static const RedisScript script(std::string(trim_point_lua) + R"(
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local point = trim_point(KEYS[1])
if not point then return 0 end
return redis.call('XTRIM', KEYS[1], 'MINID', '=', point)
)");
  return script;
}

// KEYS[1] stream, KEYS[2] dead letters; ARGV group, consumer, lease (ms), max, max_deliveries.
// Reclaims entries idle for the lease (oldest first),
// dead-letters those already delivered max_deliveries times, then reads new entries up to max.
// Returns {expired leases found, {{id, payload, deliveries}...}}.
const RedisScript& take_script() {
  static const RedisScript script(R"(
local stream, dead, group, consumer = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local lease, max, most = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local function payload_of(fields)
  if not fields then return nil end
  for i = 1, #fields, 2 do
    if fields[i] == 'payload' then return fields[i + 1] end
  end
  return fields[2] or ''
end
local out = {}
local expired = redis.call('XPENDING', stream, group, 'IDLE', lease, '-', '+', max)
for _, p in ipairs(expired) do
  local id, holder, count = p[1], p[2], p[4]
  if count >= most then
    local entry = redis.call('XRANGE', stream, id, id)[1]
    if entry then
      redis.call('XADD', dead, '*', 'id', id, 'deliveries', count, 'consumer', holder,
                 'payload', payload_of(entry[2]))
    end
    redis.call('XACK', stream, group, id)
  else
    local claimed = redis.call('XCLAIM', stream, group, consumer, lease, id)[1]
    local payload = claimed and payload_of(claimed[2])
    if payload then out[#out + 1] = {id, payload, count + 1} end
  end
end
if #out < max then
  local read = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', max - #out,
                          'STREAMS', stream, '>')
  if read and read[1] then
    for _, e in ipairs(read[1][2]) do out[#out + 1] = {e[1], payload_of(e[2]) or '', 1} end
  end
end
return {#expired, out}
)");
  return script;
}

// KEYS[1] stream; ARGV group, consumer, IDs... Restarts the lease of the IDs this consumer
// holds and returns them.
const RedisScript& renew_script() {
  static const RedisScript script(R"(
local out = {}
for i = 3, #ARGV do
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)[1]
  if p and p[2] == ARGV[2] then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    out[#out + 1] = ARGV[i]
  end
end
return out
)");
  return script;
}

// KEYS[1] stream, KEYS[2] dead letters; ARGV[1] group, ARGV[2] how far to count a lag Redis
// cannot tell. Returns {length, pending, lag, dead, consumers}.
const RedisScript& depth_script() {
  static const RedisScript script(R"(
local dead = redis.call('XLEN', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 0, 0, dead, 0} end
local length = redis.call('XLEN', KEYS[1])
for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local info = {}
  for i = 1, #g, 2 do info[g[i]] = g[i + 1] end
  if info['name'] == ARGV[1] then
    local lag = info['lag']
    if not lag then
      lag = #redis.call('XRANGE', KEYS[1], '(' .. info['last-delivered-id'], '+', 'COUNT', ARGV[2])
    end
    return {length, info['pending'], lag, dead, info['consumers']}
  end
end
return {length, 0, length, dead, 0}
)");
  return script;
}

// A lag Redis cannot compute (entries deleted with XDEL) is counted by XRANGE up to this many.
constexpr uint64_t lag_count_limit = 10000;

std::string default_consumer() {
  char host[256] = {};
  std::string name = gethostname(host, sizeof host - 1) == 0 ? host : "";
  if (name.empty()) name = "unknown";
  return name + ":" + std::to_string(getpid());
}

bool lost_group(const RedisError& e) {
  return e.reply_text().find("NOGROUP") != std::string::npos;
}

[[noreturn]] void bad_reply(const RedisClient& redis, std::string_view step, const RedisReply& r) {
  throw Error(ErrorKind::Protocol, "redis " + redis.peer() + ": the stream queue's " +
                                       std::string(step) + " script replied with an unexpected " +
                                       std::string(RedisReply::type_name(r.type)) + ": " +
                                       r.to_string().substr(0, 120));
}

uint64_t as_count(const RedisReply& r) {
  return r.type == RedisReply::Type::Integer && r.integer > 0 ? static_cast<uint64_t>(r.integer)
                                                              : 0;
}

std::string ms_text(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

std::string payload_of(std::vector<RedisField>& fields) {
  for (auto& [name, value] : fields) {
    if (name == "payload") return std::move(value);
  }
  return fields.empty() ? std::string() : std::move(fields.front().second);
}

RedisOptions blocking_options(const RedisClient& redis) {
  RedisOptions o = redis.options();
  if (!o.client_name.empty()) o.client_name += ":blocking";
  return o;
}

CommandOptions safe_twice() {
  CommandOptions o;
  o.idempotent = true;
  return o;
}

}  // namespace

StreamQueue::StreamQueue(RedisClient& redis, std::string key, StreamQueueOptions options)
    : redis_(redis),
      blocking_(blocking_options(redis)),
      key_(std::move(key)),
      dead_key_(key_ + ":dead"),
      options_(std::move(options)) {
  if (key_.empty()) throw InvalidArgumentError("StreamQueue: the stream's key is empty");
  if (options_.group.empty()) throw InvalidArgumentError("StreamQueue: the group's name is empty");
  if (options_.lease < std::chrono::milliseconds(1))
    throw InvalidArgumentError("StreamQueue: the lease must be at least 1 ms");
  if (options_.max_deliveries < 1)
    throw InvalidArgumentError("StreamQueue: max_deliveries must be at least 1");
  if (options_.consumer.empty()) options_.consumer = default_consumer();
}

StreamQueue::~StreamQueue() = default;

void StreamQueue::close() noexcept {
  blocking_.close();
  blocking_ = RedisClient(blocking_options(redis_));
}

Task<void> StreamQueue::ensure_group() {
  if (group_ready_) co_return;
  co_await xgroup_create(redis_, key_, options_.group, "0", true);
  group_ready_ = true;
}

Task<std::vector<std::string>> StreamQueue::push(std::span<const std::string> payloads) {
  std::vector<std::string> args;
  args.reserve(payloads.size() + 3);
  bool trim = options_.trim_on_push && Clock::now() >= next_trim_;
  if (trim) next_trim_ = Clock::now() + options_.trim_every;
  args.emplace_back(trim ? "1" : "0");
  args.push_back(options_.group);
  args.push_back(ms_text(options_.forget_consumers_after));
  args.insert(args.end(), payloads.begin(), payloads.end());
  std::vector<std::string> keys(1, key_);
  std::vector<std::string> ids;
  if (payloads.empty()) co_return ids;
  RedisReply r = co_await push_script().run(redis_, keys, args);
  if (r.type != RedisReply::Type::Array || r.elements.size() != payloads.size())
    bad_reply(redis_, "push", r);
  ids.reserve(r.elements.size());
  for (auto& id : r.elements) ids.push_back(std::move(id.str));
  co_return ids;
}

Task<std::vector<StreamDelivery>> StreamQueue::take(size_t max, Duration block) {
  if (max == 0) throw InvalidArgumentError("StreamQueue::take: max must be at least 1");
  co_await ensure_group();
  for (int attempt = 0;; ++attempt) {
    bool regroup = false;
    std::vector<StreamDelivery> got;
    try {
      got = co_await take_once(max, block);
    } catch (const RedisError& e) {
      if (!lost_group(e) || attempt > 0) throw;
      regroup = true;
    }
    if (!regroup) co_return got;
    group_ready_ = false;
    co_await ensure_group();
  }
}

Task<std::vector<StreamDelivery>> StreamQueue::take_once(size_t max, Duration block) {
  bool wait = block > Duration::zero();
  if (Clock::now() >= next_scan_) {
    std::vector<StreamDelivery> got = co_await take_ready(max);
    if (!got.empty() || !wait) co_return got;
  } else if (!wait) {
    co_return co_await read_new(redis_, max, std::nullopt);
  }
  // A blocking read answers at once when there are entries, so it is the only round trip.
  co_return co_await read_new(blocking_, max,
                              std::max<Duration>(block, std::chrono::milliseconds(1)));
}

Task<std::vector<StreamDelivery>> StreamQueue::take_ready(size_t max) {
  std::vector<std::string> keys = {key_, dead_key_};
  TimePoint now = Clock::now();
  std::vector<std::string> args = {options_.group, options_.consumer, ms_text(options_.lease),
                                   std::to_string(max), std::to_string(options_.max_deliveries)};
  RedisReply reply = co_await take_script().run(redis_, keys, args);
  if (reply.type != RedisReply::Type::Array || reply.elements.size() != 2 ||
      reply.elements[0].type != RedisReply::Type::Integer ||
      reply.elements[1].type != RedisReply::Type::Array)
    bad_reply(redis_, "take", reply);
  // A look that found expired leases may have left more; one that found none is not worth
  // repeating for an eighth of a lease (it walks the whole pending list on the server).
  next_scan_ = reply.elements[0].integer > 0 ? now : now + options_.lease / 8;
  RedisReply& r = reply.elements[1];
  std::vector<StreamDelivery> out;
  out.reserve(r.elements.size());
  for (auto& e : r.elements) {
    if (e.type != RedisReply::Type::Array || e.elements.size() != 3 ||
        e.elements[2].type != RedisReply::Type::Integer)
      bad_reply(redis_, "take", r);
    out.push_back(StreamDelivery{std::move(e.elements[0].str), std::move(e.elements[1].str),
                                 e.elements[2].integer});
  }
  co_return out;
}

Task<std::vector<StreamDelivery>> StreamQueue::read_new(RedisClient& client, size_t max,
                                                        std::optional<Duration> block) {
  XReadGroupOptions read;
  read.count = max;
  read.block = block;
  std::vector<RedisStreamEntry> entries =
      co_await xreadgroup(client, key_, options_.group, options_.consumer, read);
  std::vector<StreamDelivery> out;
  out.reserve(entries.size());
  for (auto& e : entries) {
    if (e.deleted) continue;
    out.push_back(StreamDelivery{std::move(e.id), payload_of(e.fields), 1});
  }
  co_return out;
}

Task<uint64_t> StreamQueue::ack(std::span<const std::string> ids) {
  if (ids.empty()) co_return 0;
  std::vector<std::string_view> argv = {"XACK", key_, options_.group};
  for (const auto& id : ids) argv.push_back(id);
  RedisReply r = co_await redis_.command(std::span<const std::string_view>(argv), safe_twice());
  co_return as_count(r);
}

Task<std::vector<std::string>> StreamQueue::renew(std::span<const std::string> ids) {
  std::vector<std::string> keys(1, key_);
  std::vector<std::string> args = {options_.group, options_.consumer};
  args.insert(args.end(), ids.begin(), ids.end());
  std::vector<std::string> held;
  if (ids.empty()) co_return held;
  RedisReply r = co_await renew_script().run(redis_, keys, args, safe_twice());
  if (r.type != RedisReply::Type::Array) bad_reply(redis_, "renew", r);
  for (auto& id : r.elements) held.push_back(std::move(id.str));
  co_return held;
}

Task<uint64_t> StreamQueue::trim() {
  std::vector<std::string> keys(1, key_);
  std::vector<std::string> args;
  RedisReply r = co_await trim_script().run(redis_, keys, args, safe_twice());
  co_return as_count(r);
}

Task<StreamDepth> StreamQueue::depth() {
  return stream_depth(redis_, key_, options_.group);
}

Task<uint64_t> StreamQueue::room() {
  StreamDepth d = co_await depth();
  co_return d.lag >= options_.bound ? 0 : options_.bound - d.lag;
}

Task<StreamDepth> stream_depth(RedisClient& redis, std::string key, std::string group) {
  std::vector<std::string> keys = {key, key + ":dead"};
  std::vector<std::string> args = {group, std::to_string(lag_count_limit)};
  RedisReply r = co_await depth_script().run(redis, keys, args, safe_twice());
  if (r.type != RedisReply::Type::Array || r.elements.size() != 5) bad_reply(redis, "depth", r);
  StreamDepth d;
  d.length = as_count(r.elements[0]);
  d.pending = as_count(r.elements[1]);
  d.lag = as_count(r.elements[2]);
  d.dead = as_count(r.elements[3]);
  d.consumers = as_count(r.elements[4]);
  co_return d;
}

}  // namespace squall
