// TcpServer on loopback: a handler per connection, the connection limit, graceful stop.
#include "squall/net/tcp_server.h"

#include <gtest/gtest.h>

#include <optional>

#include "squall/net/net_error.h"
#include "squall/net/tcp_client.h"
#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

class TcpServerTest : public test::LoopTest {};

Task<void> echo_lines(Stream& s) {
  for (;;) {
    std::string line;
    try {
      line = co_await s.read_until("\n");
    } catch (const NetError& e) {
      if (e.kind() == ErrorKind::Closed) co_return;
      throw;
    }
    co_await s.write(std::move(line));
  }
}

ServerOptions limit(size_t max_connections) {
  ServerOptions options;
  options.max_connections = max_connections;
  return options;
}

TEST_F(TcpServerTest, AnEphemeralPortIsReadBackAndEachConnectionGetsTheHandler) {
  auto body = []() -> Task<void> {
    TcpServer server(echo_lines);
    server.listen(Address::parse("127.0.0.1:0"));
    EXPECT_NE(server.port(), 0);
    EXPECT_EQ(server.address().host(), "127.0.0.1");
    Stream a = co_await tcp_connect("127.0.0.1", server.port());
    Stream b = co_await tcp_connect(server.address());
    co_await a.write("from a\n");
    co_await b.write("from b\n");
    EXPECT_EQ(co_await b.read_until("\n"), "from b\n");
    EXPECT_EQ(co_await a.read_until("\n"), "from a\n");
    EXPECT_EQ(server.connection_count(), 2u);
    a.close();
    b.close();
    co_await server.stop(1s);
    EXPECT_EQ(server.connection_count(), 0u);
  };
  run(body());
}

TEST_F(TcpServerTest, AtTheConnectionLimitFurtherClientsWaitUntilAHandlerEnds) {
  auto body = []() -> Task<void> {
    int started = 0;
    auto handler = [&started](Stream& s) -> Task<void> {
      ++started;
      co_await s.read_until_close();
    };
    TcpServer server(handler, limit(1));
    server.listen(Address::ipv4_loopback(0));
    Stream a = co_await tcp_connect(server.address());
    while (started < 1) co_await sleep(1ms);
    // The kernel completes b's handshake from the backlog, but the server does not accept it.
    Stream b = co_await tcp_connect(server.address());
    co_await b.write("waiting\n");
    co_await sleep(20ms);
    EXPECT_EQ(started, 1);
    EXPECT_EQ(server.connection_count(), 1u);
    a.close();
    while (started < 2) co_await sleep(1ms);
    EXPECT_EQ(server.connection_count(), 1u);
    b.close();
    co_await server.stop(1s);
  };
  run(body());
}

TEST_F(TcpServerTest, GracefulStopLetsAHandlerInFlightFinishAndRefusesNewClients) {
  auto body = []() -> Task<void> {
    auto handler = [](Stream& s) -> Task<void> {
      std::string line = co_await s.read_until("\n");
      co_await sleep(20ms);
      co_await s.write("done: " + line);
    };
    TcpServer server(handler);
    server.listen(Address::ipv4_loopback(0));
    Address address = server.address();
    Stream client = co_await tcp_connect(address);
    co_await client.write("work\n");
    while (server.connection_count() == 0) co_await sleep(1ms);
    auto stopping = spawn(server.stop(5s));
    EXPECT_EQ(co_await client.read_until("\n"), "done: work\n");
    co_await stopping;
    EXPECT_EQ(server.connection_count(), 0u);
    try {
      co_await tcp_connect(address);
      ADD_FAILURE() << "connected to a stopped server";
    } catch (const NetError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Connect) << e.what();
    }
  };
  run(body());
}

TEST_F(TcpServerTest, StopKillsHandlersThatOutlastTheGracePeriod) {
  auto body = []() -> Task<void> {
    bool unwound = false;
    auto handler = [&unwound](Stream& s) -> Task<void> {
      struct Flag {
        bool& b;
        ~Flag() { b = true; }
      } flag{unwound};
      co_await s.read_until("\n");  // the client never sends one
    };
    TcpServer server(handler);
    server.listen(Address::ipv4_loopback(0));
    Stream client = co_await tcp_connect(server.address());
    while (server.connection_count() == 0) co_await sleep(1ms);
    co_await server.stop(5ms);
    EXPECT_TRUE(unwound);
    EXPECT_EQ(server.connection_count(), 0u);
    // The server closed its end: the client reads end of stream.
    EXPECT_EQ(co_await client.read_until_close(), "");
  };
  run(body());
}

TEST_F(TcpServerTest, AFailingHandlerIsLoggedWithThePeerAndTheServerGoesOn) {
  auto body = []() -> Task<void> {
    test::LogCapture logs;
    auto handler = [](Stream& s) -> Task<void> {
      if (co_await s.read_until("\n") == "bad\n") throw InvalidArgumentError("bad request");
      co_await s.write("ok\n");
    };
    TcpServer server(handler);
    server.listen(Address::ipv4_loopback(0));
    Stream bad = co_await tcp_connect(server.address());
    co_await bad.write("bad\n");
    EXPECT_EQ(co_await bad.read_until_close(), "");
    EXPECT_TRUE(logs.contains("bad request")) << "the handler's error was not logged";
    EXPECT_TRUE(logs.contains("connection from 127.0.0.1:"));
    Stream good = co_await tcp_connect(server.address());
    co_await good.write("good\n");
    EXPECT_EQ(co_await good.read_until("\n"), "ok\n");
    co_await server.stop(1s);
  };
  run(body());
}

TEST_F(TcpServerTest, DestroyingARunningServerKillsItsHandlersAndTheyUnwindSafely) {
  auto body = []() -> Task<void> {
    bool unwound = false;
    auto handler = [&unwound](Stream& s) -> Task<void> {
      struct Flag {
        bool& b;
        ~Flag() { b = true; }
      } flag{unwound};
      co_await s.read_until("\n");
    };
    std::optional<Stream> client;
    {
      TcpServer server(handler);
      server.listen(Address::ipv4_loopback(0));
      client.emplace(co_await tcp_connect(server.address()));
      while (server.connection_count() == 0) co_await sleep(1ms);
    }
    EXPECT_EQ(co_await client->read_until_close(), "");
    EXPECT_TRUE(unwound);
  };
  run(body());
}

TEST_F(TcpServerTest, ListeningOnAPortInUseFailsNamingTheAddress) {
  auto body = []() -> Task<void> {
    TcpServer first(echo_lines);
    first.listen(Address::ipv4_loopback(0));
    TcpServer second(echo_lines);
    try {
      second.listen(first.address());
      ADD_FAILURE() << "listened twice on one port";
    } catch (const NetError& e) {
      EXPECT_EQ(e.phase(), NetPhase::Listen);
      EXPECT_NE(std::string(e.what()).find(first.address().to_string()), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("EADDRINUSE"), std::string::npos) << e.what();
    }
    co_await first.stop();
    co_await second.stop();
  };
  run(body());
}

TEST_F(TcpServerTest, ReusePortLetsTwoServersShareAPort) {
  auto body = []() -> Task<void> {
    ServerOptions options;
    options.reuse_port = true;
    TcpServer first(echo_lines, options);
    first.listen(Address::ipv4_loopback(0));
    TcpServer second(echo_lines, options);
    second.listen(first.address());
    EXPECT_EQ(second.port(), first.port());
    Stream s = co_await tcp_connect(first.address());
    co_await s.write("hi\n");
    EXPECT_EQ(co_await s.read_until("\n"), "hi\n");
    s.close();
    co_await first.stop(1s);
    co_await second.stop(1s);
  };
  run(body());
}

}  // namespace
}  // namespace squall
