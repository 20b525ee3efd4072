// StreamQueue: an at-least-once work queue between two stages, on one Redis stream and one
// consumer group, with leases, dead letters and trimming that never loses an entry.
//
//   RedisClient redis("redis://127.0.0.1:6379/0");
//   StreamQueueOptions o;
//   o.group = "fetchers";
//   StreamQueue tasks(redis, "squall:squall:fetch", o);
//   co_await tasks.push(payloads);                  // one round trip for the whole batch
//   std::vector<StreamDelivery> got = co_await tasks.take(10, 2s);  // id, payload, deliveries
//   ... hand the payloads to the next stage ...
//   co_await tasks.ack(ids);                        // their IDs, once the next stage holds them
//
// An entry is one opaque byte string (the stream entry's one field, "payload"). Each entry goes
// to one consumer of the group, once, unless its lease passes unacknowledged: then another
// take() reclaims it and delivers it again with a delivery count one higher. So a consumer that
// dies (a crashed fetcher, a closed connection) loses nothing: after the lease its entries go
// to the others. Handling must be idempotent, since an entry may come twice.
//
// Poison: an entry whose delivery would pass max_deliveries is not delivered again; one Lua
// script writes it to the dead-letter stream "<stream>:dead" (fields "id" its ID, "deliveries"
// how often it was delivered, "consumer" who held it last, "payload") and acknowledges it, so it
// neither blocks the queue nor is lost. The dead-letter stream is never trimmed: an operator
// reads it (XRANGE) and deletes it when done.
//
// Round trips: push() is one script call (EVALSHA) for any number of entries. take() is one
// call: the take script (reclaim, dead-letter, read new entries) when it looks for expired
// leases (see take()), else a plain XREADGROUP; a blocking take whose look found nothing
// makes one more, a blocking XREADGROUP on a connection of the queue's own (a blocking read
// holds its connection, so it never delays the shared client's other commands). ack(),
// renew() and depth() are one call each. The first call of each script after a Redis restart
// costs one more (EVALSHA answers NOSCRIPT, then EVAL).
//
// Trimming: push() trims the stream by whole nodes (XTRIM MINID ~), trim() exactly (XTRIM MINID
// =), and both to the smaller of the oldest pending entry's ID and the group's last-delivered
// ID, computed in the same script: an entry that is pending or not yet delivered is never
// trimmed. Entries acknowledged long ago and the last one delivered may stay.
//
// Failures: calls throw what RedisClient and RedisScript throw. When the connection drops,
// ack(), renew(), depth() and trim() are sent once more on a new connection (each is safe to
// run twice); push() and take() fail with a NetError of kind Closed, and the caller may call
// them again: a push that did reach Redis is then pushed twice (at-least-once), and a take
// whose reply was lost leaves its entries pending under this consumer, so they come back after
// the lease. When take() finds its group gone (a Redis that restarted without persistence, a
// deleted key), it creates it again at the stream's start and tries once more.
//
// Persistence: what Redis keeps across its own crash is what its configuration keeps. With
// appendonly yes and appendfsync everysec, a crash (not a clean shutdown, which writes all)
// can lose the last second of writes: pushes (gone: the producer must push them again from
// its own store, as the scheduler re-dispatches tasks its store still holds as active),
// deliveries (the entries come back as never delivered and are delivered again) and acks (the
// entries come back pending and are reclaimed after the lease). Only the first is a loss; the
// others are duplicates, which idempotent handling absorbs.
//
// Threads: a queue belongs to its client's loop and is used from that loop's thread; any number
// of tasks may push, take and ack at once (take() calls that block share the queue's one
// blocking connection and wait their turn on it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/redis.h"

namespace squall {

struct StreamQueueOptions {
  // The consumer group that shares the stream's entries; created at the stream's start ("0")
  // on first use, so entries pushed before any consumer came are delivered too.
  std::string group = "workers";
  // This consumer's name within the group: the owner of what it takes, which only renew()
  // cares about. Empty: "<host name>:<pid>", one per process; give each queue of a process
  // its own name when it runs several consumers of one group.
  std::string consumer;
  // How long a taken entry stays with its consumer before another take() may reclaim it.
  // 30 s (SQS's default visibility timeout): above squall's 20 s fetch timeout; renew() what
  // takes longer.
  Duration lease = std::chrono::seconds(30);
  // Deliveries after which an entry goes to the dead-letter stream instead (at least 1).
  int max_deliveries = 5;
  // What room() measures against: entries pushed and not yet taken (pyspider's queue maxsize,
  // 100). Entries taken are bounded by the consumers' own concurrency and do not count.
  uint64_t bound = 100;
  // push() trims the stream (by whole nodes) after adding, and deletes from the group the
  // consumers that hold nothing and have not read for forget_consumers_after (processes gone:
  // a consumer's default name has its pid); false leaves trimming to trim().
  bool trim_on_push = true;
  Duration forget_consumers_after = std::chrono::hours(1);
  // ... at most once per trim_every: the trim reads the group's pending summary and its
  // consumers, which costs a push of one entry some ten times what the XADD does.
  Duration trim_every = std::chrono::seconds(1);
};

// One entry handed to a consumer.
struct StreamDelivery {
  std::string id;
  std::string payload;
  // 1 the first time; one more each time a lease passed and it was reclaimed.
  int64_t deliveries = 1;
};

// A queue's state: what its length is made of.
struct StreamDepth {
  // Entries in the stream (XLEN), acknowledged ones not yet trimmed included.
  uint64_t length = 0;
  // Taken and not yet acknowledged (the group's pending entries).
  uint64_t pending = 0;
  // Pushed and not yet delivered to the group (XINFO GROUPS' lag).
  uint64_t lag = 0;
  // Entries in the dead-letter stream.
  uint64_t dead = 0;
  // The group's consumers (those that ever took, until deleted).
  uint64_t consumers = 0;
};

class StreamQueue {
 public:
  // A queue on the stream `key` through `redis` (which must outlive it). Nothing is sent until
  // the first call. Throws InvalidArgumentError for an empty key or group, a lease under 1 ms
  // or max_deliveries under 1.
  StreamQueue(RedisClient& redis, std::string key, StreamQueueOptions options = {});
  StreamQueue(const StreamQueue&) = delete;
  StreamQueue& operator=(const StreamQueue&) = delete;
  ~StreamQueue();

  const std::string& key() const noexcept { return key_; }
  // "<key>:dead".
  const std::string& dead_key() const noexcept { return dead_key_; }
  const StreamQueueOptions& options() const noexcept { return options_; }

  // Adds every payload as an entry, in order, in one round trip, and returns their IDs. An
  // empty span sends nothing.
  [[nodiscard]] Task<std::vector<std::string>> push(std::span<const std::string> payloads);

  // Up to `max` (at least 1) entries: first those whose lease passed (oldest first; poison
  // ones go to the dead letters instead), then new ones. When there are none it waits up to
  // `block` for new ones (a zero `block` returns at once); an entry whose lease passes during
  // the wait is found by a later take(). Returns an empty vector when nothing came.
  //
  // Looking for expired leases walks the group's pending list on the server, so after a look
  // that found none, this queue's takes skip it for an eighth of the lease: an entry is
  // reclaimed between one lease and 9/8 of it after its consumer last renewed it.
  [[nodiscard]] Task<std::vector<StreamDelivery>> take(size_t max, Duration block = Duration{});

  // Acknowledges entries: they are done and never delivered again. Returns how many were
  // pending (an ID acknowledged twice, or unknown, counts 0).
  [[nodiscard]] Task<uint64_t> ack(std::span<const std::string> ids);

  // Restarts the lease of each entry this consumer still holds (XCLAIM ... JUSTID, which does
  // not count a delivery) and returns those IDs; an entry another consumer reclaimed meanwhile,
  // or one acknowledged, is left alone and missing from the result.
  [[nodiscard]] Task<std::vector<std::string>> renew(std::span<const std::string> ids);

  // Trims exactly to the smaller of the oldest pending ID and the last-delivered ID, and
  // returns how many entries went.
  [[nodiscard]] Task<uint64_t> trim();

  // Length, pending, lag, dead letters and consumers, read in one script (zeros for a stream
  // that does not exist yet).
  [[nodiscard]] Task<StreamDepth> depth();
  // options().bound minus the lag, or 0 when the lag reached it: how many entries a producer
  // may push before the next stage is full.
  [[nodiscard]] Task<uint64_t> room();

  // Closes the queue's blocking connection (a take() waiting on it fails with Closed); the
  // shared client is the caller's. Later blocking takes open it again.
  void close() noexcept;

 private:
  Task<void> ensure_group();
  Task<std::vector<StreamDelivery>> take_once(size_t max, Duration block);
  // The take script: expired leases reclaimed (or dead-lettered), then new entries.
  Task<std::vector<StreamDelivery>> take_ready(size_t max);
  // XREADGROUP ... > on `client`, blocking when `block` is given.
  Task<std::vector<StreamDelivery>> read_new(RedisClient& client, size_t max,
                                             std::optional<Duration> block);

  RedisClient& redis_;
  RedisClient blocking_;
  std::string key_;
  std::string dead_key_;
  StreamQueueOptions options_;
  bool group_ready_ = false;
  // When take() next looks for expired leases.
  TimePoint next_scan_{};
  // When push() next trims.
  TimePoint next_trim_{};
};

// Depth of the stream `key` as read by `group`, in one script call (StreamQueue::depth without
// a queue: what `squall status` reads). Zeros for a stream or group that does not exist.
[[nodiscard]] Task<StreamDepth> stream_depth(RedisClient& redis, std::string key,
                                             std::string group);

}  // namespace squall
