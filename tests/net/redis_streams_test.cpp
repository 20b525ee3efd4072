// Redis Streams calls against a real redis-server: a consumer group's round trip, blocking reads
// on a connection of their own, and reclaiming what a dead consumer held.
#include "squall/net/redis_streams.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "squall/core.h"
#include "support/loop_fixture.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

class RedisStreamsTest : public test::LoopTest {
 protected:
  RedisOptions options(int protocol = 2) {
    RedisOptions o = parse_redis_url(server_.url());
    o.command_timeout = 10s;
    o.protocol = protocol;
    return o;
  }

  test::RedisServer server_;
};

// The IDs of `entries`, in order.
std::vector<std::string> ids(const std::vector<RedisStreamEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.id);
  return out;
}

Task<void> round_trip(RedisClient& redis, RedisClient& blocking) {
  auto v1 = co_await xgroup_create(redis, "tasks", "fetchers", "$");
  EXPECT_TRUE(v1);
  // A second create finds the group (BUSYGROUP) and says so.
  auto v2 = co_await xgroup_create(redis, "tasks", "fetchers", "$");
  EXPECT_FALSE(v2);

  std::vector<std::string> added;
  for (int i = 0; i < 3; ++i) {
    std::vector<RedisField> fields = {{"url", "http://example.test/" + std::to_string(i)},
                                      {"body", std::string("a\0b", 3)}};
    added.push_back(co_await xadd(redis, "tasks", fields));
  }
  EXPECT_EQ(added.size(), 3u);
  EXPECT_NE(added[0], added[1]);

  XReadGroupOptions two;
  two.count = 2;
  std::vector<RedisStreamEntry> first = co_await xreadgroup(redis, "tasks", "fetchers", "f1", two);
  EXPECT_EQ(ids(first), std::vector<std::string>(added.begin(), added.begin() + 2));
  if (first.size() == 2) {
    EXPECT_EQ(first[1].fields.size(), 2u);
    EXPECT_EQ(first[1].fields[0], (RedisField{"url", "http://example.test/1"}));
    EXPECT_EQ(first[1].fields[1].second, std::string("a\0b", 3));
  }
  std::vector<std::string> ack_first = {added[0]};
  auto v3 = co_await xack(redis, "tasks", "fetchers", ack_first);
  EXPECT_EQ(v3, 1);
  // Acknowledged twice counts once.
  auto v4 = co_await xack(redis, "tasks", "fetchers", ack_first);
  EXPECT_EQ(v4, 0);

  // A blocking read on its own client takes the third entry; then waits and finds nothing.
  XReadGroupOptions block;
  block.block = 100ms;
  std::vector<RedisStreamEntry> third =
      co_await xreadgroup(blocking, "tasks", "fetchers", "f2", block);
  EXPECT_EQ(ids(third), std::vector<std::string>{added[2]});
  TimePoint start = Clock::now();
  std::vector<RedisStreamEntry> none =
      co_await xreadgroup(blocking, "tasks", "fetchers", "f2", block);
  EXPECT_TRUE(none.empty());
  EXPECT_GE(Clock::now() - start, 90ms);

  // A blocked read wakes for an entry another client adds; the other client is not held up.
  block.block = 5s;
  auto waiting = spawn(xreadgroup(blocking, "tasks", "fetchers", "f2", block));
  co_await sleep(50ms);
  std::vector<RedisField> late = {{"url", "http://example.test/late"}};
  std::string late_id = co_await xadd(redis, "tasks", late);
  std::vector<RedisStreamEntry> woken = co_await waiting.get(2s);
  EXPECT_EQ(ids(woken), std::vector<std::string>{late_id});

  // f1 died holding added[1]; f2 holds added[2] and late_id. f3 reclaims what idled 0 ms.
  RedisAutoClaim claimed = co_await xautoclaim(redis, "tasks", "fetchers", "f3", 0ms, "0-0", 10);
  EXPECT_EQ(claimed.next, "0-0");
  EXPECT_EQ(ids(claimed.entries), (std::vector<std::string>{added[1], added[2], late_id}));
  EXPECT_TRUE(claimed.deleted.empty());
  // An entry idle for less than min_idle stays where it is.
  RedisAutoClaim fresh = co_await xautoclaim(redis, "tasks", "fetchers", "f4", 60s);
  EXPECT_TRUE(fresh.entries.empty());

  // f3's pending history (an ID instead of ">") shows what it holds; deleted entries are marked.
  std::vector<std::string> gone = {added[1]};
  co_await redis.command("XDEL", "tasks", added[1]);
  XReadGroupOptions history;
  history.id = "0";
  std::vector<RedisStreamEntry> held =
      co_await xreadgroup(redis, "tasks", "fetchers", "f3", history);
  EXPECT_EQ(held.size(), 3u);
  if (held.size() == 3) {
    EXPECT_TRUE(held[0].deleted);
    EXPECT_FALSE(held[1].deleted);
  }
  std::vector<std::string> rest = {added[1], added[2], late_id};
  auto v5 = co_await xack(redis, "tasks", "fetchers", rest);
  EXPECT_EQ(v5, 3);
  RedisReply pending = co_await redis.command("XPENDING", "tasks", "fetchers");
  EXPECT_EQ(pending.elements.at(0).integer, 0);
}

TEST_F(RedisStreamsTest, RoundTripsThroughAConsumerGroup) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    RedisClient blocking(options());
    co_await round_trip(redis, blocking);
    redis.close();
    blocking.close();
  }());
}

TEST_F(RedisStreamsTest, RoundTripsOverRespThree) {
  run([&]() -> Task<void> {
    RedisClient redis(options(3));
    RedisClient blocking(options(3));
    co_await round_trip(redis, blocking);
    redis.close();
    blocking.close();
  }());
}

TEST_F(RedisStreamsTest, TrimsWithMaxlenAndKeepsToExistingStreams) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    XAddOptions trim;
    trim.maxlen = 5;
    trim.approximate = false;
    std::vector<RedisField> fields = {{"n", "1"}};
    for (int i = 0; i < 20; ++i) co_await xadd(redis, "capped", fields, trim);
    RedisReply r6 = co_await redis.command("XLEN", "capped");
    EXPECT_EQ(r6.integer, 5);
    XAddOptions existing;
    existing.no_mkstream = true;
    auto v7 = co_await xadd(redis, "absent", fields, existing);
    EXPECT_EQ(v7, "");
    RedisReply r8 = co_await redis.command("EXISTS", "absent");
    EXPECT_EQ(r8.integer, 0);
    XAddOptions explicit_id;
    explicit_id.id = "9999999999999-1";
    auto v9 = co_await xadd(redis, "capped", fields, explicit_id);
    EXPECT_EQ(v9, "9999999999999-1");
    redis.close();
  }());
}

TEST_F(RedisStreamsTest, ReportsAMissingGroupAsARedisError) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    std::string code;
    try {
      co_await xreadgroup(redis, "nostream", "nogroup", "c");
    } catch (const RedisError& e) {
      code = std::string(e.code());
    }
    EXPECT_EQ(code, "NOGROUP");
    redis.close();
  }());
}

}  // namespace
}  // namespace squall
