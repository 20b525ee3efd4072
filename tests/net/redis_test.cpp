// RedisClient against a real redis-server on loopback: commands, pipelines, errors, scripts,
// reconnection, URLs, limits and timeouts.
#include "squall/net/redis.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <future>

#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "squall/core.h"
#include "squall/net/redis_script.h"
#include "support/loop_fixture.h"
#include "support/redis_server.h"
#include "support/reply_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::RedisServer;

class RedisTest : public test::LoopTest {
 protected:
  RedisOptions options() {
    RedisOptions o = parse_redis_url(server_.url());
    o.command_timeout = 10s;
    return o;
  }

  // The value of `field` in CLIENT INFO / INFO output ("db=3" -> "3").
  static std::string info_field(const std::string& info, const std::string& field) {
    size_t at = info.find(field + "=");
    if (at == std::string::npos) at = info.find(field + ":");
    if (at == std::string::npos) return "";
    size_t start = at + field.size() + 1;
    size_t end = info.find_first_of(" \r\n,", start);
    return info.substr(start, end - start);
  }

  RedisServer server_;
};

TEST_F(RedisTest, SetsAndGetsBinaryValues) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    std::string binary;
    for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
    binary += "\r\n$3\r\n*1\r\n";
    std::string big(3 << 20, '\0');
    std::mt19937 rng(7);
    for (char& c : big) c = static_cast<char>(rng());
    RedisReply ok = co_await redis.command("SET", "bin", binary);
    EXPECT_EQ(ok.type, RedisReply::Type::Status);
    EXPECT_EQ(ok.str, "OK");
    co_await redis.command("SET", std::string("key\0with nul", 12), big);
    RedisReply got = co_await redis.command("GET", "bin");
    EXPECT_EQ(got.type, RedisReply::Type::Bulk);
    EXPECT_EQ(got.str, binary);
    RedisReply got_big = co_await redis.command("GET", std::string("key\0with nul", 12));
    EXPECT_TRUE(got_big.str == big) << "the 3 MiB value came back changed";
    RedisReply missing = co_await redis.command("GET", "no such key");
    EXPECT_TRUE(missing.is_nil());
    RedisReply n = co_await redis.command("STRLEN", "bin");
    EXPECT_EQ(n.integer, static_cast<int64_t>(binary.size()));
    EXPECT_EQ(redis.connections(), 1u);
    redis.close();
  }());
}

TEST_F(RedisTest, PipelinesTenThousandCommandsInOneWrite) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    RedisPipeline p;
    for (int i = 0; i < 10000; ++i) p.add("INCR", "counter");
    EXPECT_EQ(p.size(), 10000u);
    std::vector<RedisReply> replies = co_await redis.execute(p);
    EXPECT_EQ(replies.size(), 10000u);
    int in_order = 0;
    for (size_t i = 0; i < replies.size(); ++i) in_order += replies[i].integer == int64_t(i) + 1;
    EXPECT_EQ(in_order, 10000);
    RedisReply info = co_await redis.command("INFO", "commandstats");
    EXPECT_EQ(info_field(info.str, "cmdstat_incr:calls"), "10000");
    EXPECT_EQ(redis.connections(), 1u);
    redis.close();
  }());
}

TEST_F(RedisTest, MatchesRepliesInOrderForManyTasksAtOnce) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    co_await redis.connect();
    std::vector<TaskHandle<RedisReply>> tasks;
    for (int i = 0; i < 10000; ++i) {
      // Integers go as their digits: key "37", value "1037".
      tasks.push_back(spawn(redis.command("SET", i % 100, i, "GET")));
    }
    co_await sleep(0ms);  // the tasks run up to their replies
    EXPECT_GT(redis.in_flight(), 0u);
    // SET ... GET answers the previous value: task i sees what task i - 100 set.
    int in_order = 0;
    for (int i = 0; i < 10000; ++i) {
      RedisReply r = co_await tasks[i];
      in_order += i < 100 ? r.is_nil() : r.str == std::to_string(i - 100);
    }
    EXPECT_EQ(in_order, 10000);
    EXPECT_EQ(redis.in_flight(), 0u);
    EXPECT_EQ(redis.connections(), 1u);
    redis.close();
  }());
}

TEST_F(RedisTest, ThrowsRedisErrorForErrorRepliesAndGoesOn) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    std::string message;
    std::string code;
    try {
      co_await redis.command("NOSUCHCOMMAND", "x");
    } catch (const RedisError& e) {
      message = e.what();
      code = std::string(e.code());
    }
    EXPECT_EQ(code, "ERR");
    EXPECT_NE(message.find("redis " + redis.peer() + ": NOSUCHCOMMAND: ERR unknown command"),
              std::string::npos)
        << message;
    co_await redis.command("LPUSH", "list", "a");
    code.clear();
    try {
      co_await redis.command("GET", "list");
    } catch (const RedisError& e) {
      code = std::string(e.code());
    }
    EXPECT_EQ(code, "WRONGTYPE");
    // In a pipeline an error is one of the replies; the others are there.
    RedisPipeline p;
    p.add("SET", "a", "1").add("INCR", "list").add("GET", "a");
    std::vector<RedisReply> replies = co_await redis.execute(p);
    EXPECT_EQ(replies.size(), 3u);
    replies.resize(3);
    EXPECT_EQ(replies[0].str, "OK");
    EXPECT_TRUE(replies[1].is_error());
    EXPECT_NE(replies[1].str.find("WRONGTYPE"), std::string::npos);
    EXPECT_EQ(replies[2].str, "1");
    EXPECT_THROW(throw_if_error(replies[1], "INCR", redis.peer()), RedisError);
    EXPECT_EQ(redis.connections(), 1u);
    redis.close();
  }());
}

TEST_F(RedisTest, RunsAScriptByItsShaAndLoadsItOnNoscript) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    RedisScript script("return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}");
    co_await redis.command("SCRIPT", "FLUSH");
    co_await redis.command("CONFIG", "RESETSTAT");
    RedisReply first = co_await script.run(redis, 1, "n", "arg");
    EXPECT_EQ(first.to_string(), "[\"n\", \"arg\", (integer) 1]");
    RedisReply second = co_await script.run(redis, 1, "n", "arg");
    EXPECT_EQ(second.elements[2].integer, 2);
    RedisReply info = co_await redis.command("INFO", "commandstats");
    // EVALSHA twice (NOSCRIPT the first time), EVAL once, in between.
    EXPECT_EQ(info_field(info.str, "cmdstat_evalsha:calls"), "2");
    EXPECT_EQ(info_field(info.str, "cmdstat_eval:calls"), "1");
    // SCRIPT LOAD agrees on the SHA1, and an error the script raises is a RedisError.
    co_await script.load(redis);
    RedisReply exists = co_await redis.command("SCRIPT", "EXISTS", script.sha1());
    EXPECT_EQ(exists.elements.at(0).integer, 1);
    RedisScript failing("return redis.error_reply('NOPE not today')");
    std::string code;
    try {
      co_await failing.run(redis, 0);
    } catch (const RedisError& e) {
      code = std::string(e.code());
    }
    EXPECT_EQ(code, "NOPE");
    redis.close();
  }());
}

TEST_F(RedisTest, ReconnectsAfterClientKillWhenIdle) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    RedisClient admin(options());
    RedisReply id = co_await redis.command("CLIENT", "ID");
    co_await admin.command("CLIENT", "KILL", "ID", std::to_string(id.integer));
    // The idle client notices the end by itself, and the next command goes out on a new
    // connection and succeeds: nothing was in flight.
    for (int i = 0; i < 2000 && redis.connected(); ++i) co_await sleep(1ms);
    EXPECT_FALSE(redis.connected());
    RedisReply pong = co_await redis.command("PING");
    EXPECT_EQ(pong.str, "PONG");
    EXPECT_EQ(redis.connections(), 2u);
    RedisReply new_id = co_await redis.command("CLIENT", "ID");
    EXPECT_NE(new_id.integer, id.integer);
    redis.close();
    admin.close();
  }());
}

TEST_F(RedisTest, FailsCommandsInFlightWhenTheConnectionDrops) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    RedisClient admin(options());
    RedisReply id = co_await redis.command("CLIENT", "ID");
    auto blocked = spawn(redis.command("BLPOP", "nothing", "0"));
    auto behind = spawn(redis.command("PING"));
    for (int i = 0; i < 5000 && redis.in_flight() < 2; ++i) co_await sleep(1ms);
    co_await sleep(20ms);
    co_await admin.command("CLIENT", "KILL", "ID", std::to_string(id.integer));
    co_await blocked.join(5s);
    co_await behind.join(5s);
    for (auto* h : {&blocked, &behind}) {
      EXPECT_TRUE(h->done());
      if (!h->done()) continue;
      std::string message;
      ErrorKind kind = ErrorKind::Timeout;
      try {
        std::rethrow_exception(h->exception());
      } catch (const NetError& e) {
        message = e.what();
        kind = e.kind();
      }
      EXPECT_EQ(kind, ErrorKind::Closed) << message;
      EXPECT_NE(message.find("was not sent again"), std::string::npos) << message;
    }
    // The list was never pushed to: the BLPOP was not resent behind our back.
    RedisReply clients = co_await admin.command("CLIENT", "LIST");
    EXPECT_EQ(clients.str.find("cmd=blpop"), std::string::npos) << clients.str;
    RedisReply r1 = co_await redis.command("PING");
    EXPECT_EQ(r1.str, "PONG");
    EXPECT_EQ(redis.connections(), 2u);
    redis.close();
    admin.close();
  }());
}

TEST_F(RedisTest, ResendsAnIdempotentCommandOnceAfterADrop) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    RedisClient admin(options());
    RedisReply id = co_await redis.command("CLIENT", "ID");
    CommandOptions idempotent;
    idempotent.idempotent = true;
    auto blocked = spawn(redis.command(idempotent, "BLPOP", "jobs", "0"));
    for (int i = 0; i < 5000 && redis.in_flight() < 1; ++i) co_await sleep(1ms);
    co_await sleep(20ms);
    co_await admin.command("CLIENT", "KILL", "ID", std::to_string(id.integer));
    // The resent BLPOP waits on the new connection; a push answers it.
    for (int i = 0; i < 5000 && redis.connections() < 2; ++i) co_await sleep(1ms);
    co_await admin.command("RPUSH", "jobs", "one");
    RedisReply r = co_await blocked.get(5s);
    EXPECT_EQ(r.to_string(), "[\"jobs\", \"one\"]");
    redis.close();
    admin.close();
  }());
}

TEST_F(RedisTest, ReconnectsAfterAServerRestart) {
  run([&]() -> Task<void> {
    RedisOptions o = options();
    o.backoff_initial = 20ms;
    o.backoff_max = 100ms;
    o.connect_attempts = 2;
    RedisClient redis(o);
    co_await redis.command("SET", "before", "1");
    server_.stop();
    // Down: a command fails with a connect error after its attempts.
    ErrorKind kind = ErrorKind::Timeout;
    std::string message;
    try {
      co_await redis.command("PING");
    } catch (const NetError& e) {
      kind = e.kind();
      message = e.what();
    }
    EXPECT_TRUE(kind == ErrorKind::Connect || kind == ErrorKind::Closed) << message;
    server_.start();
    RedisReply pong = co_await redis.command("PING");
    EXPECT_EQ(pong.str, "PONG");
    EXPECT_GE(redis.connections(), 2u);
    redis.close();
  }());
}

// A restarted Redis accepts connections while it reads its data back, answering LOADING to
// every command meanwhile (key-load-delay makes that last: 20000 keys at 50 µs, a second; it
// answers every kilobyte it reads).
class RedisLoadingTest : public test::LoopTest {
 protected:
  RedisServer server_{
      {"--key-load-delay", "50", "--loading-process-events-interval-bytes", "1024"}};
};

TEST_F(RedisLoadingTest, SendsACommandAgainUntilARestartedServerHasLoadedItsData) {
  RedisOptions o = parse_redis_url(server_.url());
  o.command_timeout = 30s;
  run([&]() -> Task<void> {
    RedisClient redis(o);
    RedisPipeline fill;
    for (int i = 0; i < 20000; ++i) fill.add("SET", std::to_string(i), "v");
    for (const RedisReply& r : co_await redis.execute(fill)) throw_if_error(r, "SET", "");
    co_await redis.command("SAVE");
    redis.close();
  }());
  server_.stop();
  // A peer lives as long as the thread that started it (support/process.h): this one waits for
  // the test's end, however the test ends.
  std::promise<void> test_over;
  std::thread starting([&, over = test_over.get_future()] {
    try {
      server_.start();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "redis-server did not start again: " << e.what();
    }
    over.wait();
  });
  struct Joined {
    std::promise<void>& over;
    std::thread& thread;
    ~Joined() {
      over.set_value();
      thread.join();
    }
  } joined{test_over, starting};
  bool loading_seen = false;
  run([&]() -> Task<void> {
    // A client of one attempt sees it loading: it answers, and runs nothing.
    RedisOptions once = o;
    once.connect_attempts = 1;
    RedisClient probe(once);
    for (int i = 0; i < 500 && !loading_seen; ++i) {
      try {
        co_await probe.command("DBSIZE");
        break;
      } catch (const RedisError& e) {
        loading_seen = e.code() == "LOADING";
      } catch (const NetError&) {
      }
      co_await sleep(10ms);
    }
    probe.close();
    if (!loading_seen) co_return;
    RedisOptions patient = o;
    patient.connect_attempts = 100;
    patient.backoff_initial = 20ms;
    patient.backoff_max = 200ms;
    RedisClient redis(patient);
    RedisReply size = co_await redis.command("DBSIZE");
    EXPECT_EQ(size.integer, 20000);
    redis.close();
  }());
  EXPECT_TRUE(loading_seen) << "the server loaded its data before the test could see it";
}

TEST_F(RedisTest, BacksOffBetweenAttemptsWithinItsBounds) {
  uint16_t port = server_.port();
  server_.stop();
  run([&]() -> Task<void> {
    RedisOptions o;
    o.port = port;
    o.backoff_initial = 40ms;
    o.backoff_max = 80ms;
    o.connect_attempts = 4;
    RedisClient redis(o);
    TimePoint start = Clock::now();
    std::string message;
    try {
      co_await redis.command("PING");
    } catch (const NetError& e) {
      message = e.what();
    }
    Duration took = Clock::now() - start;
    EXPECT_NE(message.find("connect"), std::string::npos) << message;
    // Three delays between four attempts: at least 20 + 40 + 40 ms (half of each), at most
    // 40 + 80 + 80 ms and the attempts themselves.
    EXPECT_GE(took, 100ms);
    EXPECT_LT(took, 1s);
    redis.close();

    // One attempt per command: the first fails at once, the next first waits out the delay
    // the failure set (200 to 400 ms).
    o.connect_attempts = 1;
    o.backoff_initial = 400ms;
    o.backoff_max = 400ms;
    RedisClient once(o);
    start = Clock::now();
    try {
      co_await once.command("PING");
    } catch (const NetError&) {
    }
    EXPECT_LT(Clock::now() - start, 150ms);
    start = Clock::now();
    try {
      co_await once.command("PING");
    } catch (const NetError&) {
    }
    EXPECT_GE(Clock::now() - start, 195ms);
    once.close();
  }());
}

TEST_F(RedisTest, SelectsTheDatabaseOfTheUrl) {
  run([&]() -> Task<void> {
    RedisClient db3(server_.url(3));
    RedisClient db0(server_.url(0));
    co_await db3.command("SET", "where", "three");
    RedisReply r2 = co_await db0.command("GET", "where");
    EXPECT_TRUE(r2.is_nil());
    RedisReply r3 = co_await db3.command("GET", "where");
    EXPECT_EQ(r3.str, "three");
    RedisReply info = co_await db3.command("CLIENT", "INFO");
    EXPECT_EQ(info_field(info.str, "db"), "3");
    // Reconnected, it selects the database again.
    RedisReply id = co_await db3.command("CLIENT", "ID");
    co_await db0.command("CLIENT", "KILL", "ID", std::to_string(id.integer));
    for (int i = 0; i < 2000 && db3.connected(); ++i) co_await sleep(1ms);
    RedisReply r4 = co_await db3.command("GET", "where");
    EXPECT_EQ(r4.str, "three");
    EXPECT_EQ(db3.connections(), 2u);
    db3.close();
    db0.close();
  }());
}

class RedisAuthTest : public test::LoopTest {
 protected:
  RedisServer server_{std::vector<std::string>{"--requirepass", "s3cr#t"}};
};

TEST_F(RedisAuthTest, AuthenticatesWithThePasswordOfTheUrl) {
  run([&]() -> Task<void> {
    RedisClient good("redis://:s3cr%23t@127.0.0.1:" + std::to_string(server_.port()) + "/2");
    co_await good.command("SET", "k", "v");
    RedisReply info = co_await good.command("CLIENT", "INFO");
    EXPECT_NE(info.str.find("db=2"), std::string::npos);
    good.close();

    RedisOptions wrong = parse_redis_url(server_.url(0, "nope"));
    wrong.connect_attempts = 3;
    RedisClient bad(wrong);
    std::string code;
    try {
      co_await bad.command("PING");
    } catch (const RedisError& e) {
      code = std::string(e.code());
    }
    EXPECT_EQ(code, "WRONGPASS");
    // A refused password is not retried.
    EXPECT_EQ(bad.connections(), 1u);
    bad.close();

    RedisClient none(server_.url(0));
    code.clear();
    try {
      co_await none.command("GET", "k");
    } catch (const RedisError& e) {
      code = std::string(e.code());
    }
    EXPECT_EQ(code, "NOAUTH");
    none.close();
  }());
}

TEST_F(RedisTest, TimesOutACommandAndMovesToANewConnection) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    co_await redis.connect();
    CommandOptions quick;
    quick.timeout = 100ms;
    TimePoint start = Clock::now();
    std::string message;
    try {
      co_await redis.command(quick, "BLPOP", "never", "0");
    } catch (const TimeoutError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("BLPOP got no reply within 100 ms"), std::string::npos) << message;
    EXPECT_LT(Clock::now() - start, 2s);
    // The BLPOP would hold up every reply behind it: the next command goes on a new connection.
    RedisReply r5 = co_await redis.command("PING");
    EXPECT_EQ(r5.str, "PONG");
    EXPECT_EQ(redis.connections(), 2u);
    redis.close();
  }());
}

TEST_F(RedisTest, KeepsTheConnectionInStepAfterAKilledCommand) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    co_await redis.connect();
    // An outer with_timeout: the command stays sent, and its reply is dropped when it comes.
    bool timed_out = false;
    try {
      co_await with_timeout(50ms, redis.command("EVAL",
                                                "local t = redis.call('TIME'); "
                                                "while (tonumber(redis.call('TIME')[1]) * 1000000 "
                                                "+ tonumber(redis.call('TIME')[2])) - "
                                                "(tonumber(t[1]) * 1000000 + tonumber(t[2])) "
                                                "< 200000 do end return 'slow'",
                                                "0"));
    } catch (const TimeoutError&) {
      timed_out = true;
    }
    EXPECT_TRUE(timed_out);
    RedisReply r6 = co_await redis.command("ECHO", "next");
    EXPECT_EQ(r6.str, "next");
    EXPECT_EQ(redis.connections(), 1u);
    redis.close();
  }());
}

TEST_F(RedisTest, FailsTheConnectionOnAReplyOverTheLimit) {
  run([&]() -> Task<void> {
    RedisOptions o = options();
    o.limits.max_reply_bytes = 1 << 20;
    RedisClient redis(o);
    co_await redis.command("SET", "big", std::string(2 << 20, 'x'));
    ErrorKind kind = ErrorKind::Timeout;
    std::string message;
    try {
      co_await redis.command("GET", "big");
    } catch (const NetError& e) {
      kind = e.kind();
      message = e.what();
    }
    EXPECT_EQ(kind, ErrorKind::TooLarge) << message;
    EXPECT_NE(message.find("larger than the limit of 1048576 bytes"), std::string::npos) << message;
    RedisReply r7 = co_await redis.command("STRLEN", "big");
    EXPECT_EQ(r7.integer, 2 << 20);
    EXPECT_EQ(redis.connections(), 2u);
    redis.close();
  }());
}

TEST_F(RedisTest, SpeaksRespThreeWithHello) {
  run([&]() -> Task<void> {
    RedisOptions o = options();
    o.protocol = 3;
    o.client_name = "squall-test";
    o.db = 1;
    RedisClient redis(o);
    co_await redis.command("HSET", "h", "a", "1", "b", "2");
    RedisReply map = co_await redis.command("HGETALL", "h");
    EXPECT_EQ(map.type, RedisReply::Type::Map);
    EXPECT_EQ(map.elements.size(), 4u);
    co_await redis.command("ZADD", "z", "1.5", "m");
    RedisReply score = co_await redis.command("ZSCORE", "z", "m");
    EXPECT_EQ(score.type, RedisReply::Type::Double);
    EXPECT_EQ(score.str, "1.5");
    RedisReply info = co_await redis.command("CLIENT", "INFO");
    EXPECT_EQ(info_field(info.str, "resp"), "3");
    EXPECT_EQ(info_field(info.str, "name"), "squall-test");
    EXPECT_EQ(info_field(info.str, "db"), "1");
    redis.close();
  }());
}

TEST_F(RedisTest, CloseFailsWhatIsInFlightAndRefusesMore) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    auto blocked = spawn(redis.command("BLPOP", "nothing", "0"));
    for (int i = 0; i < 5000 && redis.in_flight() < 1; ++i) co_await sleep(1ms);
    redis.close();
    co_await blocked.join(5s);
    std::string message;
    try {
      std::rethrow_exception(blocked.exception());
    } catch (const NetError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("the client was closed"), std::string::npos) << message;
    bool refused = false;
    try {
      co_await redis.command("PING");
    } catch (const InvalidStateError&) {
      refused = true;
    }
    EXPECT_TRUE(refused);
  }());
}

TEST_F(RedisTest, ConnectsOnceForCommandsIssuedTogether) {
  run([&]() -> Task<void> {
    RedisClient redis(options());
    std::vector<TaskHandle<RedisReply>> tasks;
    for (int i = 0; i < 50; ++i) tasks.push_back(spawn(redis.command("PING")));
    int pongs = 0;
    for (auto& t : tasks) {
      RedisReply r = co_await t;
      pongs += r.str == "PONG";
    }
    EXPECT_EQ(pongs, 50);
    EXPECT_EQ(redis.connections(), 1u);
    redis.close();
  }());
}

// --- peers that break the protocol -------------------------------------------------------------

class RedisPeerTest : public test::LoopTest {};

// ECHO "" ends in an empty line, which is where ReplyServer stops reading a request.
Task<std::string> echo_error(RedisClient& redis) {
  std::string message;
  try {
    co_await redis.command("ECHO", "");
  } catch (const NetError& e) {
    message = e.what();
  }
  co_return message;
}

TEST_F(RedisPeerTest, FailsClearlyOnBytesThatAreNotResp) {
  test::ReplyServer peer("HTTP/1.1 400 Bad Request\r\n\r\n");
  run([&]() -> Task<void> {
    RedisOptions o;
    o.port = peer.port();
    o.connect_attempts = 1;
    RedisClient redis(o);
    std::string message = co_await echo_error(redis);
    EXPECT_NE(message.find("protocol: read from 127.0.0.1:"), std::string::npos) << message;
    EXPECT_NE(message.find("no RESP type"), std::string::npos) << message;
    redis.close();
  }());
}

TEST_F(RedisPeerTest, FailsClearlyWhenTheServerEndsMidReply) {
  test::ReplyServer peer("$10\r\nabc");
  run([&]() -> Task<void> {
    RedisOptions o;
    o.port = peer.port();
    RedisClient redis(o);
    std::string message = co_await echo_error(redis);
    EXPECT_NE(message.find("closed the connection in the middle of a reply"), std::string::npos)
        << message;
    redis.close();
  }());
}

TEST_F(RedisPeerTest, FailsClearlyOnARepliesNoCommandAskedFor) {
  // The peer keeps the connection open: only the client can notice the extra reply.
  test::ReplyServer peer("+OK\r\n+EXTRA\r\n", true);
  run([&]() -> Task<void> {
    RedisOptions o;
    o.port = peer.port();
    RedisClient redis(o);
    // The first reply answers the ECHO; the second answers nothing, and the client closes.
    RedisReply r = co_await redis.command("ECHO", "");
    EXPECT_EQ(r.str, "OK");
    for (int i = 0; i < 500 && redis.connected(); ++i) co_await sleep(1ms);
    EXPECT_FALSE(redis.connected());
    redis.close();
  }());
  EXPECT_TRUE(peer.closed_by_client());
}

// A listener that never accepts: the kernel completes connections into its backlog and then
// takes bytes only until the socket buffers are full.
class SilentListener {
 public:
  SilentListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(fd_, 4) != 0 || ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      throw std::runtime_error("SilentListener: cannot listen on 127.0.0.1");
    port_ = ntohs(addr.sin_port);
  }
  ~SilentListener() { ::close(fd_); }
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

TEST_F(RedisPeerTest, TimesOutACommandThePeerDoesNotTake) {
  SilentListener peer;
  run([&]() -> Task<void> {
    RedisOptions o;
    o.port = peer.port();
    RedisClient redis(o);
    CommandOptions quick;
    quick.timeout = 200ms;
    std::string huge(64 << 20, 'x');
    TimePoint start = Clock::now();
    std::string message;
    try {
      co_await redis.command(quick, "SET", "k", huge);
    } catch (const TimeoutError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find("SET got no reply within 200 ms"), std::string::npos) << message;
    EXPECT_LT(Clock::now() - start, 5s);
    // The connection holding the unsent rest is given up.
    EXPECT_FALSE(redis.connected());
    redis.close();
  }());
}

// --- URLs --------------------------------------------------------------------------------------

TEST(RedisUrl, ReadsHostPortDatabaseAndPassword) {
  RedisOptions o = parse_redis_url("redis://:p%40ss@example.test:6380/5");
  EXPECT_EQ(o.host, "example.test");
  EXPECT_EQ(o.port, 6380);
  EXPECT_EQ(o.db, 5);
  EXPECT_EQ(o.password, "p@ss");
  EXPECT_EQ(o.user, "");
  RedisOptions user = parse_redis_url("REDIS://alice:pw@[::1]/");
  EXPECT_EQ(user.host, "::1");
  EXPECT_EQ(user.port, 6379);
  EXPECT_EQ(user.db, 0);
  EXPECT_EQ(user.user, "alice");
  EXPECT_EQ(user.password, "pw");
  EXPECT_EQ(parse_redis_url("redis://h").port, 6379);
  EXPECT_EQ(parse_redis_url("redis://secret@h").password, "secret");
}

TEST(RedisUrl, RefusesWhatItCannotUseWithAClearMessage) {
  const std::pair<const char*, const char*> cases[] = {
      {"http://h:6379", "not a redis:// URL"},
      {"rediss://h:6379", "not a redis:// URL"},
      {"redis://h:0", "port"},
      {"redis://h:99999", "port"},
      {"redis://h:", "port"},
      {"redis://h:12ab", "port"},
      {"redis:///0", "no host"},
      {"redis://h/x", "database number"},
      {"redis://h/-1", "database number"},
      {"redis://h/0?timeout=1", "queries"},
      {"redis://:%zz@h", "percent-escape"},
      {"redis://[::1", "IPv6"},
  };
  for (const auto& [url, part] : cases) {
    std::string message;
    try {
      parse_redis_url(url);
    } catch (const InvalidArgumentError& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(part), std::string::npos) << url << ": " << message;
    EXPECT_NE(message.find(url), std::string::npos) << url << ": " << message;
  }
}

}  // namespace
}  // namespace squall
