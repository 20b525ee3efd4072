// Redis Streams as typed calls on a RedisClient: XADD, XGROUP CREATE, XREADGROUP, XACK, XAUTOCLAIM.
//
//   co_await xgroup_create(redis, "tasks", "fetchers");              // false if it exists
//   std::vector<RedisField> fields = {{"url", url}};
//   std::string id = co_await xadd(redis, "tasks", fields);
//   RedisClient blocking(options);                                   // a connection of its own
//   XReadGroupOptions read;
//   read.count = 10;
//   read.block = 2s;
//   auto entries = co_await xreadgroup(blocking, "tasks", "fetchers", "fetcher-1", read);
//   std::vector<std::string> done = {entries[0].id};
//   co_await xack(redis, "tasks", "fetchers", done);
//   RedisAutoClaim stale = co_await xautoclaim(redis, "tasks", "fetchers", "fetcher-2", 30s);
//
// Each is one command and returns what the reply means; nothing more (no retries, no trimming
// policy). Lists (fields, IDs) are spans of named containers, and options are named objects
// (there are overloads without them, not default arguments): GCC 12 miscompiles a braced list or
// a braced temporary with a std::string inside a co_await expression. They throw what
// RedisClient::command throws, and an Error of kind Protocol when the reply does not have the shape
// the command's documentation gives. Replies of RESP2 and RESP3 (maps) are both read.
//
// A blocking XREADGROUP holds its connection until entries come or `block` passes, and every
// command behind it on that client waits too: give blocking reads a client of their own. Its
// command timeout is `block` plus the client's command_timeout (or none).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/redis.h"

namespace squall {

using RedisField = std::pair<std::string, std::string>;

// One stream entry: its ID and its field-value pairs, in order. An entry deleted while it was
// pending comes back from XREADGROUP's history with no fields (`deleted`).
struct RedisStreamEntry {
  std::string id;
  std::vector<RedisField> fields;
  bool deleted = false;
};

struct XAddOptions {
  // The entry's ID; "*" lets the server choose.
  std::string id = "*";
  // MAXLEN: trim the stream to about (approximate: "~") this many entries.
  std::optional<uint64_t> maxlen;
  bool approximate = true;
  // NOMKSTREAM: do not create a missing stream (xadd then returns "").
  bool no_mkstream = false;
};

// XADD key [NOMKSTREAM] [MAXLEN ~ n] id field value...: the new entry's ID.
[[nodiscard]] Task<std::string> xadd(RedisClient& client, std::string_view key,
                                     std::span<const RedisField> fields);
[[nodiscard]] Task<std::string> xadd(RedisClient& client, std::string_view key,
                                     std::span<const RedisField> fields,
                                     const XAddOptions& options);

// XGROUP CREATE key group id [MKSTREAM]: true when made, false when the group exists (BUSYGROUP).
// `id` "$" starts the group at the stream's end, "0" at its start.
[[nodiscard]] Task<bool> xgroup_create(RedisClient& client, std::string_view key,
                                       std::string_view group, std::string_view id = "$",
                                       bool mkstream = true);

struct XReadGroupOptions {
  // COUNT: at most this many entries (0: no limit).
  size_t count = 0;
  // BLOCK: wait up to this long for entries (nothing: do not block).
  std::optional<Duration> block;
  // ">" for entries never delivered to the group; an ID for this consumer's pending history.
  std::string id = ">";
  // NOACK: entries are not added to the pending list.
  bool noack = false;
};

// XREADGROUP GROUP group consumer [COUNT n] [BLOCK ms] [NOACK] STREAMS key id: the entries read
// (none when the block passed without any). Deleted pending entries come with `deleted` set.
[[nodiscard]] Task<std::vector<RedisStreamEntry>> xreadgroup(RedisClient& client,
                                                             std::string_view key,
                                                             std::string_view group,
                                                             std::string_view consumer);
[[nodiscard]] Task<std::vector<RedisStreamEntry>> xreadgroup(RedisClient& client,
                                                             std::string_view key,
                                                             std::string_view group,
                                                             std::string_view consumer,
                                                             const XReadGroupOptions& options);

// XACK key group id...: how many of the entries were pending and are now acknowledged.
[[nodiscard]] Task<int64_t> xack(RedisClient& client, std::string_view key, std::string_view group,
                                 std::span<const std::string> ids);

struct RedisAutoClaim {
  // Where the next XAUTOCLAIM call should start ("0-0" once the whole pending list was scanned).
  std::string next;
  std::vector<RedisStreamEntry> entries;
  // IDs that were pending but are no longer in the stream (Redis 7 removes them from the list).
  std::vector<std::string> deleted;
};

// XAUTOCLAIM key group consumer min-idle-time start COUNT count: pending entries idle for at
// least `min_idle` move to `consumer` (their delivery count grows by one) and are returned.
[[nodiscard]] Task<RedisAutoClaim> xautoclaim(RedisClient& client, std::string_view key,
                                              std::string_view group, std::string_view consumer,
                                              Duration min_idle, std::string_view start = "0-0",
                                              size_t count = 100);

}  // namespace squall
