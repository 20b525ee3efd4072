// ConnectionPool over real TCP connections on loopback: reuse, and idle connections the server
// closed or wrote to while they sat in the pool.
#include "squall/http/pool.h"

#include <gtest/gtest.h>

#include "squall/core.h"
#include "squall/net/net_error.h"
#include "squall/net/tcp_client.h"
#include "squall/net/tcp_server.h"
#include "support/loop_fixture.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;

class PoolTest : public test::LoopTest {};

// Answers "ok\n" to each line; after "close\n" it closes the connection, after "junk\n" it
// writes bytes nobody asked for, and sets `acted` once it has.
struct LineServer {
  Event acted;
  TcpServer server{[this](Stream& s) -> Task<void> {
    for (;;) {
      std::string line;
      try {
        line = co_await s.read_until("\n", 1024);
      } catch (const NetError&) {
        co_return;
      }
      co_await s.write("ok\n");
      if (line == "close\n") break;
      if (line == "junk\n") {
        co_await s.write("unasked for\n");
        acted.set();
      }
    }
    s.close();
    acted.set();
  }};
  LineServer() { server.listen(Address::parse("127.0.0.1:0")); }
};

constexpr std::string_view kKey = "http://127.0.0.1";

// A lease with a new connection that has sent `line` and read the answer.
Task<ConnectionPool::Lease> exchanged(ConnectionPool& pool, const LineServer& s, std::string line) {
  ConnectionPool::Lease lease = co_await pool.checkout(std::string(kKey));
  EXPECT_FALSE(lease.connection);
  lease.connection =
      std::make_unique<PooledConnection>(co_await tcp_connect("127.0.0.1", s.server.port()));
  co_await lease.connection->stream.write(line);
  EXPECT_EQ(co_await lease.connection->stream.read_until("\n"), "ok\n");
  co_return lease;
}

// Lets the loop poll, so that what the kernel holds for a socket reaches its stream.
Task<void> let_the_loop_poll() {
  co_await sleep(1ms);
}

TEST_F(PoolTest, AQuietIdleConnectionIsHandedOutAgain) {
  auto body = []() -> Task<void> {
    LineServer s;
    ConnectionPool pool;
    auto lease = co_await exchanged(pool, s, "hello\n");
    PooledConnection* first = lease.connection.get();
    pool.checkin(std::move(lease), true);
    co_await let_the_loop_poll();
    auto again = co_await pool.checkout(std::string(kKey));
    EXPECT_TRUE(again.reused);
    EXPECT_EQ(again.connection.get(), first);
    co_await again.connection->stream.write("hello\n");
    EXPECT_EQ(co_await again.connection->stream.read_until("\n"), "ok\n");
    pool.checkin(std::move(again), false);
    EXPECT_EQ(pool.connection_count(kKey), 0u);
    co_await s.server.stop();
  };
  run(body());
}

TEST_F(PoolTest, AnIdleConnectionTheServerClosedIsDroppedAtCheckout) {
  auto body = []() -> Task<void> {
    LineServer s;
    ConnectionPool pool;
    auto lease = co_await exchanged(pool, s, "close\n");
    pool.checkin(std::move(lease), true);
    EXPECT_EQ(pool.idle_count(kKey), 1u);
    co_await s.acted.wait();
    co_await let_the_loop_poll();
    auto next = co_await pool.checkout(std::string(kKey));
    EXPECT_FALSE(next.connection) << "a closed connection was handed out";
    EXPECT_FALSE(next.reused);
    EXPECT_EQ(pool.idle_count(kKey), 0u);
    EXPECT_EQ(pool.connection_count(kKey), 1u) << "the new lease's slot only";
    pool.checkin(std::move(next), false);
    co_await s.server.stop();
  };
  run(body());
}

TEST_F(PoolTest, BytesNobodyAskedForMakeAnIdleConnectionUnusable) {
  auto body = []() -> Task<void> {
    LineServer s;
    ConnectionPool pool;
    auto lease = co_await exchanged(pool, s, "junk\n");
    pool.checkin(std::move(lease), true);
    co_await s.acted.wait();
    co_await let_the_loop_poll();
    auto next = co_await pool.checkout(std::string(kKey));
    EXPECT_FALSE(next.connection);
    pool.checkin(std::move(next), false);
    co_await s.server.stop();
  };
  run(body());
}

TEST_F(PoolTest, ClosedIdleConnectionsAreSkippedForALiveOne) {
  auto body = []() -> Task<void> {
    LineServer s;
    ConnectionPool pool;
    auto live = co_await exchanged(pool, s, "hello\n");
    auto dead = co_await exchanged(pool, s, "close\n");
    PooledConnection* alive = live.connection.get();
    pool.checkin(std::move(live), true);
    pool.checkin(std::move(dead), true);  // the newest: tried first
    co_await s.acted.wait();
    co_await let_the_loop_poll();
    auto next = co_await pool.checkout(std::string(kKey));
    EXPECT_TRUE(next.reused);
    EXPECT_EQ(next.connection.get(), alive);
    EXPECT_EQ(pool.idle_count(), 0u);
    EXPECT_EQ(pool.connection_count(kKey), 1u);
    pool.checkin(std::move(next), false);
    co_await s.server.stop();
  };
  run(body());
}

}  // namespace
}  // namespace squall::http
