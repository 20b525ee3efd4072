// StreamQueue against a real redis-server: delivery and ack, leases reclaimed from a dead
// consumer, dead letters, trimming that keeps what is owed, round trips, depth, and restarts.
#include "squall/engine/stream_queue.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "squall/core.h"
#include "squall/net/redis_streams.h"
#include "support/loop_fixture.h"
#include "support/redis_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

class StreamQueueTest : public test::LoopTest {
 protected:
  RedisOptions options() {
    RedisOptions o = parse_redis_url(server_.url());
    o.command_timeout = 10s;
    return o;
  }
  static StreamQueueOptions queue_options(std::string consumer, Duration lease = 30s) {
    StreamQueueOptions o;
    o.group = "fetchers";
    o.consumer = std::move(consumer);
    o.lease = lease;
    return o;
  }

  test::RedisServer server_;
};

std::vector<std::string> numbered(int n, const std::string& prefix = "task-") {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::vector<std::string> ids_of(const std::vector<StreamDelivery>& got) {
  std::vector<std::string> out;
  for (const auto& d : got) out.push_back(d.id);
  return out;
}

std::vector<std::string> payloads_of(const std::vector<StreamDelivery>& got) {
  std::vector<std::string> out;
  for (const auto& d : got) out.push_back(d.payload);
  return out;
}

// The calls of each command so far, from INFO commandstats ("xadd" -> 12).
Task<std::map<std::string, int64_t>> command_calls(RedisClient& redis) {
  RedisReply info = co_await redis.command("INFO", "commandstats");
  std::map<std::string, int64_t> calls;
  size_t at = 0;
  while ((at = info.str.find("cmdstat_", at)) != std::string::npos) {
    size_t colon = info.str.find(':', at);
    size_t value = info.str.find("calls=", colon);
    std::string name = info.str.substr(at + 8, colon - at - 8);
    calls[name] = std::stoll(info.str.substr(value + 6));
    at = colon;
  }
  co_return calls;
}

TEST_F(StreamQueueTest, DeliversEachPushedEntryOnceUntilItIsAcknowledged) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueue queue(redis, "squall:t:fetch", queue_options("a"));
    std::vector<std::string> payloads = numbered(3);
    payloads[1] = std::string("bin\0ary\r\n", 9);
    std::vector<std::string> ids = co_await queue.push(payloads);
    EXPECT_EQ(ids.size(), 3u);

    std::vector<StreamDelivery> got = co_await queue.take(10);
    EXPECT_EQ(ids_of(got), ids);
    EXPECT_EQ(payloads_of(got), payloads);
    for (const auto& d : got) EXPECT_EQ(d.deliveries, 1);
    // Taken entries are not handed out again while their lease runs.
    auto again = co_await queue.take(10);
    EXPECT_TRUE(again.empty());

    StreamDepth held = co_await queue.depth();
    EXPECT_EQ(held.length, 3u);
    EXPECT_EQ(held.pending, 3u);
    EXPECT_EQ(held.lag, 0u);
    auto acked = co_await queue.ack(ids);
    EXPECT_EQ(acked, 3u);
    // Acknowledged twice counts once.
    auto twice = co_await queue.ack(ids);
    EXPECT_EQ(twice, 0u);
    StreamDepth done = co_await queue.depth();
    EXPECT_EQ(done.pending, 0u);
    EXPECT_EQ(done.consumers, 1u);
    redis.close();
  }());
}

TEST_F(StreamQueueTest, TakesNoMoreThanAskedAndKeepsTheRestForTheNextTake) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueue queue(redis, "squall:t:fetch", queue_options("a"));
    std::vector<std::string> payloads = numbered(5);
    co_await queue.push(payloads);
    auto first = co_await queue.take(2);
    auto rest = co_await queue.take(10);
    EXPECT_EQ(payloads_of(first), (std::vector<std::string>{"task-0", "task-1"}));
    EXPECT_EQ(payloads_of(rest), (std::vector<std::string>{"task-2", "task-3", "task-4"}));
    redis.close();
  }());
}

TEST_F(StreamQueueTest, ABlockingTakeWakesForAnEntryPushedWhileItWaits) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueue consumer(redis, "squall:t:fetch", queue_options("a"));
    StreamQueue producer(redis, "squall:t:fetch", queue_options("p"));
    // Nothing there: a short block returns empty.
    auto none = co_await consumer.take(5, 50ms);
    EXPECT_TRUE(none.empty());
    auto waiting = spawn(consumer.take(5, 10s));
    co_await sleep(50ms);
    // The shared client is not held up by the blocked read.
    std::vector<std::string> late = {"late"};
    co_await producer.push(late);
    std::vector<StreamDelivery> woken = co_await waiting.get(5s);
    EXPECT_EQ(payloads_of(woken), late);
    consumer.close();
    redis.close();
  }());
}

TEST_F(StreamQueueTest, AConsumerThatDiesHasItsEntriesReclaimedByAnotherAfterTheLease) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    std::vector<std::string> taken;
    {
      RedisClient doomed(options());
      StreamQueue dying(doomed, "squall:t:fetch", queue_options("dying", 300ms));
      std::vector<std::string> payloads = numbered(3);
      co_await dying.push(payloads);
      taken = ids_of(co_await dying.take(2));
      EXPECT_EQ(taken.size(), 2u);
      doomed.close();
    }
    // Within a long lease, another consumer only gets what was never taken.
    StreamQueue patient(redis, "squall:t:fetch", queue_options("patient", 60s));
    auto fresh = co_await patient.take(10);
    EXPECT_EQ(payloads_of(fresh), std::vector<std::string>{"task-2"});
    std::vector<std::string> fresh_ids = ids_of(fresh);
    co_await patient.ack(fresh_ids);

    // The survivor looks before the lease passed (and finds nothing, unless the machine was
    // slow), then again after it: looks are spaced, but never past 9/8 of the lease.
    StreamQueue survivor(redis, "squall:t:fetch", queue_options("survivor", 300ms));
    std::vector<StreamDelivery> reclaimed = co_await survivor.take(10);
    co_await sleep(400ms);
    std::vector<StreamDelivery> later = co_await survivor.take(10);
    reclaimed.insert(reclaimed.end(), later.begin(), later.end());
    EXPECT_EQ(ids_of(reclaimed), taken);
    EXPECT_EQ(payloads_of(reclaimed), (std::vector<std::string>{"task-0", "task-1"}));
    for (const auto& d : reclaimed) EXPECT_EQ(d.deliveries, 2);
    // Now they are the survivor's: its ack settles them.
    auto acked = co_await survivor.ack(taken);
    EXPECT_EQ(acked, 2u);
    redis.close();
  }());
}

TEST_F(StreamQueueTest, RenewKeepsOnlyTheLeasesThisConsumerStillHolds) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueue a(redis, "squall:t:fetch", queue_options("a", 1s));
    StreamQueue b(redis, "squall:t:fetch", queue_options("b", 1s));
    std::vector<std::string> payloads = numbered(2);
    std::vector<std::string> ids = co_await a.push(payloads);
    co_await a.take(2);
    co_await sleep(1200ms);
    // a renews the first entry: its lease starts over, so b reclaims only the second.
    std::vector<std::string> first = {ids[0]};
    auto renewed = co_await a.renew(first);
    EXPECT_EQ(renewed, first);
    auto reclaimed = co_await b.take(10);
    EXPECT_EQ(ids_of(reclaimed), std::vector<std::string>{ids[1]});
    // a lost the second one to b: renewing it changes nothing; b's renew keeps it and does not
    // count a delivery.
    std::vector<std::string> second = {ids[1]};
    auto lost = co_await a.renew(second);
    EXPECT_TRUE(lost.empty());
    auto kept = co_await b.renew(second);
    EXPECT_EQ(kept, second);
    RedisReply pending =
        co_await redis.command("XPENDING", "squall:t:fetch", "fetchers", "-", "+", 10);
    EXPECT_EQ(pending.elements.size(), 2u);
    if (pending.elements.size() == 2) {
      EXPECT_EQ(pending.elements[0].elements[1].str, "a");
      EXPECT_EQ(pending.elements[0].elements[3].integer, 1);
      EXPECT_EQ(pending.elements[1].elements[1].str, "b");
      EXPECT_EQ(pending.elements[1].elements[3].integer, 2);
    }
    redis.close();
  }());
}

TEST_F(StreamQueueTest, APoisonEntryGoesToTheDeadLettersAfterMaxDeliveries) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueueOptions o = queue_options("crashy", 50ms);
    o.max_deliveries = 3;
    StreamQueue queue(redis, "squall:t:fetch", o);
    std::vector<std::string> poison = {"poison"};
    std::vector<std::string> ids = co_await queue.push(poison);
    for (int delivery = 1; delivery <= 3; ++delivery) {
      auto got = co_await queue.take(10);
      EXPECT_EQ(ids_of(got), ids);
      if (!got.empty()) {
        EXPECT_EQ(got[0].deliveries, delivery);
      }
      co_await sleep(100ms);
    }
    // The fourth delivery would pass max_deliveries: dead-lettered and acknowledged instead.
    std::vector<std::string> healthy = {"healthy"};
    co_await queue.push(healthy);
    auto after = co_await queue.take(10);
    EXPECT_EQ(payloads_of(after), healthy);
    StreamDepth depth = co_await queue.depth();
    EXPECT_EQ(depth.dead, 1u);
    EXPECT_EQ(depth.pending, 1u);

    RedisReply dead = co_await redis.command("XRANGE", queue.dead_key(), "-", "+");
    EXPECT_EQ(dead.elements.size(), 1u);
    if (dead.elements.size() == 1) {
      std::map<std::string, std::string> fields;
      const auto& kv = dead.elements[0].elements[1].elements;
      for (size_t i = 0; i + 1 < kv.size(); i += 2) fields[kv[i].str] = kv[i + 1].str;
      EXPECT_EQ(fields["id"], ids[0]);
      EXPECT_EQ(fields["deliveries"], "3");
      EXPECT_EQ(fields["consumer"], "crashy");
      EXPECT_EQ(fields["payload"], "poison");
    }
    redis.close();
  }());
}

TEST_F(StreamQueueTest, TrimmingNeverDropsPendingOrUndeliveredEntries) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueueOptions o = queue_options("a");
    o.trim_on_push = false;
    StreamQueue queue(redis, "squall:t:fetch", o);
    std::vector<std::string> payloads = numbered(300);
    std::vector<std::string> ids = co_await queue.push(payloads);
    auto taken = co_await queue.take(150);
    EXPECT_EQ(taken.size(), 150u);
    // The first 100 are done; 50 are still being worked on; 150 were never delivered.
    std::vector<std::string> done(ids.begin(), ids.begin() + 100);
    co_await queue.ack(done);
    auto trimmed = co_await queue.trim();
    EXPECT_EQ(trimmed, 100u);
    RedisReply first = co_await redis.command("XRANGE", queue.key(), "-", "+", "COUNT", 1);
    EXPECT_EQ(first.elements.at(0).elements.at(0).str, ids[100]);

    // Nothing owed went: the 50 pending come back to a reclaimer, the 150 to any consumer.
    StreamQueue reclaimer(redis, "squall:t:fetch", queue_options("b", 1ms));
    co_await sleep(10ms);
    auto rest = co_await reclaimer.take(1000);
    EXPECT_EQ(payloads_of(rest), std::vector<std::string>(payloads.begin() + 100, payloads.end()));

    // With nothing pending, the stream keeps entries from the last delivered one on.
    co_await reclaimer.ack(ids);
    auto trimmed_all = co_await queue.trim();
    EXPECT_EQ(trimmed_all, 199u);
    StreamDepth depth = co_await queue.depth();
    EXPECT_EQ(depth.length, 1u);
    redis.close();
  }());
}

TEST_F(StreamQueueTest, TrimmingKeepsWhatAnotherGroupOfTheStreamStillOwes) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueueOptions o = queue_options("a");
    o.trim_on_push = false;
    StreamQueue queue(redis, "squall:t:fetch", o);
    std::vector<std::string> payloads = numbered(10);
    co_await queue.push(payloads);
    auto created = co_await xgroup_create(redis, "squall:t:fetch", "auditors", "0");
    EXPECT_TRUE(created);
    auto taken = co_await queue.take(10);
    std::vector<std::string> taken_ids = ids_of(taken);
    co_await queue.ack(taken_ids);
    auto trimmed = co_await queue.trim();
    EXPECT_EQ(trimmed, 0u);
    redis.close();
  }());
}

TEST_F(StreamQueueTest, PushTrimsWholeNodesOfWhatWasAcknowledged) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueueOptions o = queue_options("a");
    o.trim_every = Duration::zero();
    StreamQueue queue(redis, "squall:t:fetch", o);
    std::vector<std::string> payloads = numbered(500);
    co_await queue.push(payloads);
    auto taken = co_await queue.take(400);
    std::vector<std::string> taken_ids = ids_of(taken);
    co_await queue.ack(taken_ids);
    std::vector<std::string> more = {"more"};
    co_await queue.push(more);
    StreamDepth depth = co_await queue.depth();
    EXPECT_LT(depth.length, 501u);
    // The 100 never delivered and the new one are all there.
    EXPECT_GE(depth.length, 101u);
    EXPECT_EQ(depth.lag, 101u);
    auto rest = co_await queue.take(1000);
    EXPECT_EQ(rest.size(), 101u);
    redis.close();
  }());
}

TEST_F(StreamQueueTest, PushTrimsAtMostOncePerTrimEvery) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueueOptions o = queue_options("a");
    o.trim_every = 300ms;
    StreamQueue queue(redis, "squall:t:fetch", o);
    std::vector<std::string> payloads = numbered(500);
    co_await queue.push(payloads);  // the first push trims (there is nothing to trim yet)
    auto taken = co_await queue.take(400);
    std::vector<std::string> taken_ids = ids_of(taken);
    co_await queue.ack(taken_ids);
    std::vector<std::string> one = {"one"};
    co_await queue.push(one);
    EXPECT_EQ((co_await queue.depth()).length, 501u) << "trimmed again within trim_every";
    co_await sleep(400ms);
    co_await queue.push(one);
    EXPECT_LT((co_await queue.depth()).length, 502u) << "not trimmed after trim_every";
    redis.close();
  }());
}

TEST_F(StreamQueueTest, PushForgetsConsumersThatHoldNothingAndStoppedReading) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueueOptions o = queue_options("producer");
    o.forget_consumers_after = 100ms;
    o.trim_every = Duration::zero();
    StreamQueue producer(redis, "squall:t:fetch", o);
    StreamQueue gone(redis, "squall:t:fetch", queue_options("gone"));
    StreamQueue holder(redis, "squall:t:fetch", queue_options("holder"));
    std::vector<std::string> two = numbered(2);
    co_await producer.push(two);
    auto done = co_await gone.take(1);
    std::vector<std::string> done_ids = ids_of(done);
    co_await gone.ack(done_ids);
    co_await holder.take(1);
    StreamDepth before = co_await producer.depth();
    EXPECT_EQ(before.consumers, 2u);

    co_await sleep(200ms);
    std::vector<std::string> one = {"next"};
    co_await producer.push(one);
    // "gone" held nothing and went; "holder" is idle too but holds an entry, which must stay
    // reclaimable, so it stays.
    RedisReply consumers =
        co_await redis.command("XINFO", "CONSUMERS", "squall:t:fetch", "fetchers");
    EXPECT_EQ(consumers.elements.size(), 1u);
    if (consumers.elements.size() == 1) {
      EXPECT_EQ(consumers.elements[0].elements.at(1).str, "holder");
    }
    redis.close();
  }());
}

TEST_F(StreamQueueTest, WorksOverRespThree) {
  run([&]() -> Task<void> {
    RedisOptions o = options();
    o.protocol = 3;
    RedisClient redis(o);
    StreamQueue queue(redis, "squall:t:fetch", queue_options("a"));
    std::vector<std::string> payloads = numbered(3);
    std::vector<std::string> ids = co_await queue.push(payloads);
    auto got = co_await queue.take(2);
    EXPECT_EQ(payloads_of(got), (std::vector<std::string>{"task-0", "task-1"}));
    auto blocked = co_await queue.take(5, 10ms);
    EXPECT_EQ(payloads_of(blocked), std::vector<std::string>{"task-2"});
    auto acked = co_await queue.ack(ids);
    EXPECT_EQ(acked, 3u);
    StreamDepth depth = co_await queue.depth();
    EXPECT_EQ(depth.length, 3u);
    EXPECT_EQ(depth.pending, 0u);
    EXPECT_EQ(depth.consumers, 1u);
    auto renewed = co_await queue.renew(ids);
    EXPECT_TRUE(renewed.empty());
    queue.close();
    redis.close();
  }());
}

TEST_F(StreamQueueTest, ABatchedPushIsOneRoundTrip) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueue queue(redis, "squall:t:fetch", queue_options("a"));
    std::vector<std::string> warm = {"warm"};
    co_await queue.push(warm);  // the server caches the script (EVALSHA, NOSCRIPT, EVAL)
    auto before = co_await command_calls(redis);
    std::vector<std::string> payloads = numbered(50);
    co_await queue.push(payloads);
    auto after = co_await command_calls(redis);
    // One EVALSHA from the client; the 50 XADDs and the trim ran inside it.
    EXPECT_EQ(after["evalsha"] - before["evalsha"], 1);
    EXPECT_EQ(after["eval"] - before["eval"], 0);
    EXPECT_EQ(after["xadd"] - before["xadd"], 50);
    for (const auto& [name, calls] : after) {
      if (name == "evalsha" || name == "info" || name.starts_with("x")) continue;
      EXPECT_EQ(calls - before[name], 0) << name;
    }

    // So is a take of them all and their ack. (The first take looked for expired leases with
    // the take script; the next one, soon after, is a plain XREADGROUP, or the script again if
    // the machine stalled for an eighth of the lease: one command either way.)
    auto first = co_await queue.take(1);
    auto before_take = co_await command_calls(redis);
    auto taken = co_await queue.take(100);
    EXPECT_EQ(taken.size(), 50u);
    std::vector<std::string> taken_ids = ids_of(taken);
    co_await queue.ack(taken_ids);
    auto after_take = co_await command_calls(redis);
    EXPECT_LE(after_take["evalsha"] - before_take["evalsha"], 1);
    EXPECT_EQ(after_take["xreadgroup"] - before_take["xreadgroup"], 1);
    EXPECT_EQ(after_take["xack"] - before_take["xack"], 1);
    EXPECT_EQ(after_take["eval"] - before_take["eval"], 0);
    redis.close();
  }());
}

TEST_F(StreamQueueTest, DepthAndRoomFollowWhatIsPushedAndTaken) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueueOptions o = queue_options("a");
    o.bound = 10;
    StreamQueue queue(redis, "squall:t:fetch", o);
    StreamDepth empty = co_await queue.depth();
    EXPECT_EQ(empty.length, 0u);
    EXPECT_EQ(empty.lag, 0u);
    auto all_room = co_await queue.room();
    EXPECT_EQ(all_room, 10u);

    std::vector<std::string> four = numbered(4);
    co_await queue.push(four);
    StreamDepth pushed = co_await queue.depth();
    EXPECT_EQ(pushed.length, 4u);
    EXPECT_EQ(pushed.lag, 4u);
    EXPECT_EQ(pushed.pending, 0u);
    auto room = co_await queue.room();
    EXPECT_EQ(room, 6u);

    co_await queue.take(3);
    StreamDepth taken = co_await queue.depth();
    EXPECT_EQ(taken.lag, 1u);
    EXPECT_EQ(taken.pending, 3u);
    auto room_after = co_await queue.room();
    EXPECT_EQ(room_after, 9u);

    std::vector<std::string> many = numbered(20);
    co_await queue.push(many);
    auto full = co_await queue.room();
    EXPECT_EQ(full, 0u);
    redis.close();
  }());
}

TEST_F(StreamQueueTest, AGroupThatVanishedIsCreatedAgainAtTheStreamsStart) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    StreamQueue queue(redis, "squall:t:fetch", queue_options("a"));
    std::vector<std::string> one = {"one"};
    co_await queue.push(one);
    co_await queue.take(1);
    // As after a restart without persistence: the stream and its group are gone.
    co_await redis.command("DEL", "squall:t:fetch");
    std::vector<std::string> two = {"two"};
    co_await queue.push(two);
    auto got = co_await queue.take(5);
    EXPECT_EQ(payloads_of(got), two);
    redis.close();
  }());
}

TEST_F(StreamQueueTest, RejectsOptionsThatCannotWork) {
  RedisClient redis(options());
  StreamQueueOptions no_group = queue_options("a");
  no_group.group = "";
  EXPECT_THROW(StreamQueue(redis, "k", no_group), InvalidArgumentError);
  StreamQueueOptions never = queue_options("a");
  never.max_deliveries = 0;
  EXPECT_THROW(StreamQueue(redis, "k", never), InvalidArgumentError);
  EXPECT_THROW(StreamQueue(redis, "", queue_options("a")), InvalidArgumentError);
  StreamQueue queue(redis, "k", queue_options("a"));
  EXPECT_EQ(queue.dead_key(), "k:dead");
  EXPECT_THROW(run(queue.take(0)), InvalidArgumentError);
}

class StreamQueueRestartTest : public test::LoopTest {
 protected:
  test::RedisServer server_{{"--appendonly", "yes", "--appendfsync", "everysec"}};
};

TEST_F(StreamQueueRestartTest, AnEntryTakenBeforeARestartIsDeliveredAgainAfterIt) {
  run([&]() -> Task<void> {
    RedisOptions o = parse_redis_url(server_.url());
    o.command_timeout = 10s;
    RedisClient redis(o);
    StreamQueueOptions qo;
    qo.group = "fetchers";
    qo.consumer = "a";
    qo.lease = 100ms;
    StreamQueue queue(redis, "squall:t:fetch", qo);
    std::vector<std::string> payloads = {"kept"};
    std::vector<std::string> ids = co_await queue.push(payloads);
    auto first = co_await queue.take(1);
    EXPECT_EQ(ids_of(first), ids);

    server_.stop();
    // While Redis is down a take fails with a NetError the caller can retry.
    bool failed = false;
    try {
      co_await queue.take(1);
    } catch (const NetError&) {
      failed = true;
    }
    EXPECT_TRUE(failed);
    server_.start();

    co_await sleep(200ms);
    auto again = co_await queue.take(1);
    EXPECT_EQ(ids_of(again), ids);
    if (!again.empty()) {
      EXPECT_EQ(again[0].payload, "kept");
      EXPECT_EQ(again[0].deliveries, 2);
    }
    auto acked = co_await queue.ack(ids);
    EXPECT_EQ(acked, 1u);
    StreamDepth depth = co_await queue.depth();
    EXPECT_EQ(depth.pending, 0u);
    EXPECT_EQ(depth.lag, 0u);
    redis.close();
  }());
}

}  // namespace
}  // namespace squall
