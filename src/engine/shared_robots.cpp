// SharedRobots: a Redis hash per host's robots.txt, a SET NX lock for the one fetch, polls with
// a doubling wait for the others.
#include "squall/engine/shared_robots.h"

#include <openssl/rand.h>

#include <algorithm>
#include <exception>
#include <span>
#include <vector>

#include "squall/core/error.h"
#include "squall/core/sleep.h"
#include "squall/net/redis_script.h"

namespace squall {

namespace {

// KEYS: entry, lock. ARGV: token, lock ttl ms. Returns {1, status, body, kind, error, pttl} for
// an entry, {2} when the caller took the lock, {0, the lock's pttl} when another holds it.
const RedisScript kGetOrLock(R"(
local e = redis.call('HMGET', KEYS[1], 'status', 'body', 'kind', 'error')
if e[1] then
  return {1, e[1], e[2] or '', e[3] or '', e[4] or '', redis.call('PTTL', KEYS[1])}
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2} end
return {0, redis.call('PTTL', KEYS[2])}
)");

// KEYS: entry, lock. ARGV: token, ttl ms, status, body, kind, error. Stores the entry and drops
// the lock if the caller still holds it.
const RedisScript kStore(R"(
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'body', ARGV[4], 'kind', ARGV[5], 'error', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1
)");

// KEYS: lock. ARGV: token.
const RedisScript kUnlock(R"(
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
)");

int64_t to_ms(Duration d) {
  return std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

std::string random_token() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1)
    throw InvalidStateError("SharedRobots: OpenSSL could not make a random lock token");
  static const char hex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token += hex[b >> 4];
    token += hex[b & 15];
  }
  return token;
}

// The life RobotsPolicy gives the answer (its refresh_after), as Politeness keeps it.
Duration policy_life(const SharedRobotsEntry& e) {
  if (e.status == 599) return RobotsPolicy::unreachable().refresh_after();
  return RobotsPolicy::from_response(e.status, e.body).refresh_after();
}

}  // namespace

std::optional<std::chrono::seconds> SharedRobotsEntry::max_age() const {
  if (ttl <= Duration{}) return std::nullopt;
  // Rounded up: a copy that expired before the shared one would find it still there and take
  // it again, over and over, until it went.
  return std::chrono::ceil<std::chrono::seconds>(ttl);
}

SharedRobots::SharedRobots(RedisClient& redis, SharedRobotsOptions options)
    : redis_(redis), options_(std::move(options)) {
  if (options_.ns.empty()) options_.ns = "squall";
  if (options_.poll_initial <= Duration{}) options_.poll_initial = std::chrono::milliseconds(1);
  options_.poll_max = std::max(options_.poll_max, options_.poll_initial);
}

std::string SharedRobots::entry_key(const std::string& host) const {
  return "squall:" + options_.ns + ":robots:" + host;
}

std::string SharedRobots::lock_key(const std::string& host) const {
  return entry_key(host) + ":lock";
}

Task<SharedRobotsEntry> SharedRobots::get(std::string host, Fetch fetch) {
  std::vector<std::string> keys = {entry_key(host), lock_key(host)};
  std::string token = random_token();
  std::vector<std::string> args = {token, std::to_string(to_ms(options_.lock_ttl))};
  Duration poll = options_.poll_initial;
  for (;;) {
    RedisReply r = co_await kGetOrLock.run(redis_, std::span<const std::string>(keys),
                                           std::span<const std::string>(args));
    if (r.type != RedisReply::Type::Array || r.elements.empty())
      throw Error(ErrorKind::Protocol,
                  "SharedRobots: redis " + redis_.peer() + " answered " + r.to_string());
    int64_t what = r.elements[0].integer;
    if (what == 1 && r.elements.size() == 6) {
      SharedRobotsEntry e;
      e.status = std::atoi(r.elements[1].str.c_str());
      e.body = std::move(r.elements[2].str);
      if (e.body.size() > options_.max_body) e.body.resize(options_.max_body);
      e.error_kind = std::move(r.elements[3].str);
      e.error = std::move(r.elements[4].str);
      e.ttl = std::chrono::milliseconds(std::max<int64_t>(0, r.elements[5].integer));
      co_return e;
    }
    if (what == 2) break;
    // Another caller fetches: ask again later, but not after its lock could have expired.
    Duration lock_left =
        std::chrono::milliseconds(r.elements.size() > 1 ? r.elements[1].integer : 0);
    co_await sleep(std::clamp<Duration>(lock_left, std::chrono::milliseconds(1), poll));
    poll = std::min(poll * 2, options_.poll_max);
  }

  SharedRobotsEntry e;
  std::exception_ptr failed;
  try {
    e = co_await fetch();
  } catch (const CancelledError&) {
    // Killed: nothing more is awaited; the lock expires after lock_ttl.
    throw;
  } catch (...) {
    failed = std::current_exception();
  }
  if (failed) {
    // A later caller fetches instead; the unlock is best effort (the lock expires anyway).
    std::vector<std::string> unlock_keys = {keys[1]};
    std::vector<std::string> unlock_args = {token};
    try {
      co_await kUnlock.run(redis_, std::span<const std::string>(unlock_keys),
                           std::span<const std::string>(unlock_args));
    } catch (const Error&) {
    }
    std::rethrow_exception(failed);
  }
  if (e.body.size() > options_.max_body) e.body.resize(options_.max_body);
  if (e.ttl <= Duration{}) e.ttl = policy_life(e);
  std::vector<std::string> store = {
      token, std::to_string(to_ms(e.ttl)), std::to_string(e.status), e.body, e.error_kind, e.error};
  co_await kStore.run(redis_, std::span<const std::string>(keys),
                      std::span<const std::string>(store));
  e.fetched_here = true;
  co_return e;
}

}  // namespace squall
