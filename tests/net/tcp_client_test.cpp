// tcp_connect on loopback: IPv4, IPv6, localhost, refusal, timeouts, and kills mid-connect.
#include "squall/net/tcp_client.h"

#include <gtest/gtest.h>

#include <optional>

#include <vector>

#include "squall/net/net_error.h"
#include "squall/net/socket.h"
#include "squall/net/tcp_server.h"
#include "support/loop_fixture.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

bool ipv6_loopback_available() {
  Socket s;
  try {
    s = Socket::tcp(AF_INET6);
  } catch (const SystemError&) {
    return false;
  }
  return s.bind(Address::ipv6_loopback(0)) == 0;
}

// A port on 127.0.0.1 with nothing listening (bound, then released).
uint16_t unused_port() {
  Socket s = Socket::tcp(AF_INET);
  EXPECT_EQ(s.bind(Address::ipv4_loopback(0)), 0);
  return s.local_address()->port();
}

Task<void> echo_line(Stream& s) {
  co_await s.write(co_await s.read_until("\n"));
}

ConnectOptions with_timeout_of(Duration d) {
  ConnectOptions options;
  options.timeout = d;
  return options;
}

class TcpClientTest : public test::LoopTest {};

TEST_F(TcpClientTest, ConnectsOverIpv4AndTheStreamCarriesBytesBothWays) {
  auto body = []() -> Task<void> {
    TcpServer server(echo_line);
    server.listen(Address::ipv4_loopback(0));
    Stream s = co_await tcp_connect("127.0.0.1", server.port());
    EXPECT_EQ(s.peer(), server.address().to_string());
    co_await s.write("ping\n");
    EXPECT_EQ(co_await s.read_until("\n"), "ping\n");
    co_await server.stop(1s);
  };
  run(body());
}

TEST_F(TcpClientTest, ConnectsOverIpv6OnLoopback) {
  if (!ipv6_loopback_available()) GTEST_SKIP() << "::1 is not available on this machine";
  auto body = []() -> Task<void> {
    TcpServer server(echo_line);
    server.listen(Address::parse("[::1]:0"));
    EXPECT_EQ(server.address().host(), "::1");
    Stream s = co_await tcp_connect("::1", server.port());
    EXPECT_EQ(s.peer(), "[::1]:" + std::to_string(server.port()));
    co_await s.write("six\n");
    EXPECT_EQ(co_await s.read_until("\n"), "six\n");
    co_await server.stop(1s);
  };
  run(body());
}

TEST_F(TcpClientTest, LocalhostFallsBackToTheNextAddressWhenOneIsRefused) {
  auto body = []() -> Task<void> {
    TcpServer server(echo_line);  // IPv4 only: ::1 refuses (or is absent)
    server.listen(Address::ipv4_loopback(0));
    Stream s = co_await tcp_connect("localhost", server.port());
    EXPECT_EQ(s.peer(), "localhost:" + std::to_string(server.port()) +
                            " (127.0.0.1:" + std::to_string(server.port()) + ")");
    co_await s.write("local\n");
    EXPECT_EQ(co_await s.read_until("\n"), "local\n");
    co_await server.stop(1s);
  };
  run(body());
}

TEST_F(TcpClientTest, ARefusedConnectionIsAConnectErrorNamingThePeerAndEconnrefused) {
  auto body = []() -> Task<void> {
    uint16_t port = unused_port();
    try {
      co_await tcp_connect("127.0.0.1", port);
      ADD_FAILURE() << "connected to a port with no listener";
    } catch (const NetError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Connect);
      EXPECT_EQ(e.phase(), NetPhase::Connect);
      EXPECT_EQ(e.error_number(), ECONNREFUSED);
      EXPECT_EQ(e.peer(), "127.0.0.1:" + std::to_string(port));
      std::string message = e.what();
      EXPECT_NE(message.find("connect to 127.0.0.1:" + std::to_string(port)), std::string::npos)
          << message;
      EXPECT_NE(message.find("ECONNREFUSED"), std::string::npos) << message;
    }
  };
  run(body());
}

TEST_F(TcpClientTest, ANameTheLiteralResolverCannotResolveIsAResolveError) {
  auto body = []() -> Task<void> {
    try {
      co_await tcp_connect("no-such-host.invalid", 80);
      ADD_FAILURE() << "resolved a name without a resolver";
    } catch (const NetError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Resolve);
      EXPECT_EQ(e.phase(), NetPhase::Resolve);
      EXPECT_NE(std::string(e.what()).find("no-such-host.invalid"), std::string::npos);
    }
  };
  run(body());
}

TEST_F(TcpClientTest, ASourceAddressOfTheOtherFamilyLeavesNothingToTry) {
  auto body = []() -> Task<void> {
    ConnectOptions options;
    options.source = Address::ipv6_loopback(0);
    EXPECT_THROW(co_await tcp_connect("127.0.0.1", 9, options), NetError);
    options.source = Address::ipv4_loopback(0);
    TcpServer server(echo_line);
    server.listen(Address::ipv4_loopback(0));
    Stream s = co_await tcp_connect("127.0.0.1", server.port(), options);
    co_await s.write("bound\n");
    EXPECT_EQ(co_await s.read_until("\n"), "bound\n");
    co_await server.stop(1s);
  };
  run(body());
}

// Maps every host:port to a fixed list of addresses, ports included: how a test (or the
// crawler) overrides lookups.
class FixedResolver final : public Resolver {
 public:
  explicit FixedResolver(std::vector<Address> addresses) : addresses_(std::move(addresses)) {}
  Task<std::vector<Address>> resolve(std::string, uint16_t) override { co_return addresses_; }

 private:
  std::vector<Address> addresses_;
};

// Never answers.
class SilentResolver final : public Resolver {
 public:
  Task<std::vector<Address>> resolve(std::string, uint16_t) override {
    co_await sleep(std::chrono::hours(1));
    co_return std::vector<Address>{};
  }
};

TEST_F(TcpClientTest, AResolverPlugsInAndEveryAddressItGivesIsTried) {
  auto body = []() -> Task<void> {
    TcpServer server(echo_line);
    server.listen(Address::ipv4_loopback(0));
    // The first address refuses; the next one answers.
    Socket refusing = Socket::tcp(AF_INET);
    EXPECT_EQ(refusing.bind(Address::ipv4_loopback(0)), 0);
    FixedResolver two({*refusing.local_address(), server.address()});
    ConnectOptions options;
    options.resolver = &two;
    Stream s = co_await tcp_connect("echo.test", server.port(), options);
    EXPECT_EQ(s.peer(), "echo.test:" + std::to_string(server.port()) + " (" +
                            server.address().to_string() + ")");
    co_await s.write("via resolver\n");
    EXPECT_EQ(co_await s.read_until("\n"), "via resolver\n");
    co_await server.stop(1s);
  };
  run(body());
}

TEST_F(TcpClientTest, WhenEveryAddressFailsTheErrorNamesEachWithItsErrno) {
  auto body = []() -> Task<void> {
    Socket a = Socket::tcp(AF_INET), b = Socket::tcp(AF_INET);
    EXPECT_EQ(a.bind(Address::ipv4_loopback(0)), 0);
    EXPECT_EQ(b.bind(Address::ipv4_loopback(0)), 0);
    FixedResolver resolver({*a.local_address(), *b.local_address()});
    ConnectOptions options;
    options.resolver = &resolver;
    try {
      co_await tcp_connect("both.test", 7, options);
      ADD_FAILURE() << "connected to bound sockets that do not listen";
    } catch (const NetError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Connect);
      std::string message = e.what();
      EXPECT_NE(message.find("connect to both.test:7"), std::string::npos) << message;
      EXPECT_NE(message.find(a.local_address()->to_string() + ": connection refused"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find(b.local_address()->to_string() + ": connection refused"),
                std::string::npos)
          << message;
    }
  };
  run(body());
}

TEST_F(TcpClientTest, TheConnectTimeoutAlsoBoundsResolution) {
  auto body = []() -> Task<void> {
    SilentResolver resolver;
    ConnectOptions options = with_timeout_of(10ms);
    options.resolver = &resolver;
    try {
      co_await tcp_connect("slow.test", 80, options);
      ADD_FAILURE() << "connected through a resolver that never answers";
    } catch (const NetError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Timeout) << e.what();
      EXPECT_EQ(e.phase(), NetPhase::Resolve) << e.what();
      EXPECT_NE(std::string(e.what()).find("slow.test:80"), std::string::npos) << e.what();
    }
  };
  run(body());
}

// A listener that never accepts, with its backlog full: further connects hang in SYN_SENT.
// Returns the connections that filled it; empty if the system never blocked (then skip).
Task<std::vector<Stream>> fill_backlog(const Address& address) {
  std::vector<Stream> filled;
  for (int i = 0; i < 16; ++i) {
    try {
      filled.push_back(co_await tcp_connect(address, with_timeout_of(300ms)));
    } catch (const NetError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Timeout) << e.what();
      EXPECT_NE(std::string(e.what()).find(address.to_string()), std::string::npos) << e.what();
      co_return filled;
    }
  }
  filled.clear();
  co_return filled;
}

// A listener on 127.0.0.1 that never accepts, with its backlog filled by fill_backlog();
// nullopt when the system never blocked (the caller then skips).
struct FullListener {
  Socket socket;
  Address address;
  std::vector<Stream> filled;
};

Task<std::optional<FullListener>> full_listener() {
  FullListener full{Socket::tcp(AF_INET), {}, {}};
  EXPECT_EQ(full.socket.bind(Address::ipv4_loopback(0)), 0);
  EXPECT_EQ(full.socket.listen(1), 0);
  full.address = *full.socket.local_address();
  full.filled = co_await fill_backlog(full.address);
  if (full.filled.empty()) co_return std::nullopt;
  co_return full;
}

TEST_F(TcpClientTest, AConnectToAFullBacklogTimesOutAndAKillReleasesTheSocket) {
  size_t before = test::open_fds();
  bool blocked = false;
  auto body = [&blocked]() -> Task<void> {
    std::optional<FullListener> full = co_await full_listener();
    if (!full) co_return;
    Address address = full->address;
    blocked = true;
    size_t watched = Loop::current().handler_count();
    auto connecting = spawn(tcp_connect(address));
    co_await sleep(20ms);
    EXPECT_FALSE(connecting.done());
    EXPECT_EQ(Loop::current().handler_count(), watched + 1);
    connecting.kill();
    EXPECT_TRUE(co_await connecting.join(1s));
    EXPECT_EQ(Loop::current().handler_count(), watched);
    EXPECT_THROW(connecting.value(), CancelledError);
  };
  run(body());
  if (!blocked) GTEST_SKIP() << "connects to a full backlog did not block here";
  EXPECT_EQ(test::open_fds(), before);
}

TEST_F(TcpClientTest, WithTimeoutAroundAConnectReleasesTheSocket) {
  size_t before = test::open_fds();
  auto body = []() -> Task<void> {
    std::optional<FullListener> full = co_await full_listener();
    if (!full) co_return;
    Address address = full->address;
    EXPECT_THROW(co_await with_timeout(10ms, tcp_connect(address)), TimeoutError);
  };
  run(body());
  EXPECT_EQ(test::open_fds(), before);
}

TEST_F(TcpClientTest, AnAttemptThatHangsGetsCompanyAfterTheAttemptDelayAndTheFirstToConnectWins) {
  size_t before = test::open_fds();
  bool blocked = false;
  auto body = [&blocked]() -> Task<void> {
    std::optional<FullListener> full = co_await full_listener();
    if (!full) co_return;
    Address hanging = full->address;
    blocked = true;
    TcpServer server(echo_line);
    server.listen(Address::ipv4_loopback(0));
    FixedResolver resolver({hanging, server.address()});
    ConnectOptions options;
    options.resolver = &resolver;
    options.attempt_delay = 10ms;
    Stream s = co_await tcp_connect("two.test", 1, options);
    EXPECT_NE(s.peer().find(server.address().to_string()), std::string::npos) << s.peer();
    co_await s.write("second\n");
    EXPECT_EQ(co_await s.read_until("\n"), "second\n");
    co_await server.stop(1s);
  };
  run(body());
  if (!blocked) GTEST_SKIP() << "connects to a full backlog did not block here";
  EXPECT_EQ(test::open_fds(), before);
}

}  // namespace
}  // namespace squall
