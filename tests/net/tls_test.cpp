// TLS against real peers on loopback: nginx and openssl s_server as servers, curl and our own
// client against our server; verification failures, timeouts, kills, resumption, big writes.
#include "squall/net/tls.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "squall/net/socket.h"
#include "squall/net/tcp_client.h"
#include "squall/net/tcp_server.h"
#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall {
namespace {

using namespace std::chrono_literals;
using test::CertFiles;
using test::Process;
using test::TempDir;

// The certificates every case uses, made once: a CA and leaves it signed (valid, expired), a
// second CA that signed nothing here, and a self-signed leaf.
struct Certificates {
  TempDir dir;
  CertFiles ca, leaf, expired, other_ca, self_signed;
  Certificates() {
    ca = test::make_ca(dir, "ca", "squall test CA");
    leaf = test::make_signed(dir, "leaf", "localhost", ca);
    expired = test::make_signed(dir, "expired", "localhost", ca, true);
    other_ca = test::make_ca(dir, "other-ca", "another CA");
    self_signed = test::make_self_signed(dir, "self", "localhost");
  }
};

// `openssl s_server -www` (answers a GET with a status page) on 127.0.0.1:port.
Process start_s_server(uint16_t port, const CertFiles& cert,
                       const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {
      "openssl", "s_server",         "-accept", "127.0.0.1:" + std::to_string(port),
      "-cert",   cert.cert.string(), "-key",    cert.key.string(),
      "-www"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Process p = Process::start(argv);
  test::wait_for_port(port, "openssl s_server", &p);
  return p;
}

// A listening socket that completes TCP handshakes (the kernel does) and never says a word.
struct SilentListener {
  Socket socket = Socket::tcp(AF_INET);
  uint16_t port = 0;
  SilentListener() {
    EXPECT_EQ(socket.bind(Address::ipv4_loopback(0)), 0);
    EXPECT_EQ(socket.listen(8), 0);
    port = socket.local_address()->port();
  }
};

ConnectOptions tls_options(TlsClientOptions tls) {
  static LiteralResolver literal;  // "localhost" and IP literals, nothing asked of DNS
  ConnectOptions options;
  options.resolver = &literal;
  options.tls = std::move(tls);
  return options;
}

TlsClientOptions trusting(const CertFiles& ca) {
  TlsClientOptions tls;
  tls.ca_file = ca.cert.string();
  return tls;
}

// A GET over the stream; the whole response (the server closes after it).
Task<std::string> get(Stream& s, const std::string& path = "/") {
  co_await s.write("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  co_return co_await s.read_until_close();
}

class TlsTest : public test::LoopTest {
 protected:
  static void SetUpTestSuite() { certs_ = new Certificates(); }
  static void TearDownTestSuite() {
    delete certs_;
    certs_ = nullptr;
  }
  void SetUp() override { clear_tls_caches(); }

  // The TlsError a connection to 127.0.0.1:port with `tls` fails with.
  TlsError connect_failure(uint16_t port, TlsClientOptions tls, std::string host = "localhost") {
    auto body = [&]() -> Task<TlsError> {
      try {
        Stream s = co_await tcp_connect(host, port, tls_options(tls));
      } catch (const TlsError& e) {
        co_return e;
      }
      ADD_FAILURE() << "the handshake succeeded";
      co_return TlsError(TlsFailure::Protocol, "", "no failure");
    };
    return run(body());
  }

  static Certificates* certs_;
};
Certificates* TlsTest::certs_ = nullptr;

TEST_F(TlsTest, AGetThroughNginxNegotiatesAlpnAndTheSecondConnectionResumesTheSession) {
  TempDir dir;
  dir.write("index.html", "hello over TLS\n");
  uint16_t port = test::free_port();
  Process nginx = test::start_nginx(dir,
                                    "ssl_certificate " + certs_->leaf.cert.string() +
                                        ";\nssl_certificate_key " + certs_->leaf.key.string() +
                                        ";\nssl_session_cache shared:SSL:1m;\n",
                                    port, "ssl");
  TlsClientOptions tls = trusting(certs_->ca);
  tls.alpn = {"h2", "http/1.1"};  // nginx without http2 picks http/1.1
  auto body = [&]() -> Task<void> {
    for (int round = 0; round < 2; ++round) {
      Stream s = co_await tcp_connect("localhost", port, tls_options(tls));
      const TlsInfo* info = s.tls();
      EXPECT_NE(info, nullptr);
      if (!info) co_return;
      EXPECT_EQ(info->alpn, "http/1.1");
      EXPECT_EQ(info->server_name, "localhost");
      EXPECT_TRUE(info->version == "TLSv1.3" || info->version == "TLSv1.2") << info->version;
      EXPECT_FALSE(info->cipher.empty());
      EXPECT_EQ(info->session_reused, round == 1) << "round " << round;
      std::string response = co_await get(s, "/index.html");
      EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
      EXPECT_NE(response.find("\r\n\r\nhello over TLS\n"), std::string::npos) << response;
    }
  };
  run(body());
}

TEST_F(TlsTest, APlainStreamIsNotTls) {
  SilentListener listener;
  auto body = [&]() -> Task<void> {
    Stream s = co_await tcp_connect(Address::ipv4_loopback(listener.port));
    EXPECT_EQ(s.tls(), nullptr);
  };
  run(body());
}

TEST_F(TlsTest, ACertificateForAnotherNameIsAHostnameMismatchNamingBoth) {
  uint16_t port = test::free_port();
  Process server = start_s_server(port, certs_->leaf);
  TlsClientOptions tls = trusting(certs_->ca);
  tls.server_name = "www.example.org";
  TlsError e = connect_failure(port, tls);
  EXPECT_EQ(e.failure(), TlsFailure::HostnameMismatch) << e.what();
  EXPECT_TRUE(e.certificate_problem());
  EXPECT_EQ(e.kind(), ErrorKind::Tls);
  EXPECT_EQ(e.phase(), NetPhase::Tls);
  EXPECT_NE(std::string(e.what()).find(
                "hostname mismatch: certificate is for localhost, 127.0.0.1, ::1, not "
                "www.example.org"),
            std::string::npos)
      << e.what();
}

TEST_F(TlsTest, AnIpLiteralIsCheckedAgainstTheCertificatesIpNames) {
  uint16_t port = test::free_port();
  Process server = start_s_server(port, certs_->leaf);
  auto body = [&]() -> Task<void> {
    Stream s = co_await tcp_connect("127.0.0.1", port, tls_options(trusting(certs_->ca)));
    EXPECT_EQ(s.tls()->server_name, "") << "no SNI for an IP address";
    std::string page = co_await get(s);
    EXPECT_EQ(page.rfind("HTTP/1.0 200 ok", 0), 0u) << page;
  };
  run(body());
}

TEST_F(TlsTest, ASelfSignedCertificateIsUntrustedUnderTheSystemStore) {
  uint16_t port = test::free_port();
  Process server = start_s_server(port, certs_->self_signed);
  TlsError e = connect_failure(port, TlsClientOptions{});
  EXPECT_EQ(e.failure(), TlsFailure::Untrusted) << e.what();
  EXPECT_TRUE(e.certificate_problem());
  EXPECT_NE(std::string(e.what()).find("unknown issuer / self-signed certificate (not trusted)"),
            std::string::npos)
      << e.what();
  EXPECT_NE(std::string(e.what()).find("TLS with localhost:"), std::string::npos) << e.what();
}

TEST_F(TlsTest, AnExpiredCertificateSaysSo) {
  uint16_t port = test::free_port();
  Process server = start_s_server(port, certs_->expired);
  TlsError e = connect_failure(port, trusting(certs_->ca));
  EXPECT_EQ(e.failure(), TlsFailure::Expired) << e.what();
  EXPECT_TRUE(e.certificate_problem());
  EXPECT_NE(std::string(e.what()).find("certificate has expired"), std::string::npos) << e.what();
}

TEST_F(TlsTest, ACertificateFromAnUnknownCaIsUntrusted) {
  uint16_t port = test::free_port();
  Process server = start_s_server(port, certs_->leaf);
  TlsError e = connect_failure(port, trusting(certs_->other_ca));
  EXPECT_EQ(e.failure(), TlsFailure::Untrusted) << e.what();
  EXPECT_NE(std::string(e.what()).find("unable to get local issuer certificate"), std::string::npos)
      << e.what();
}

TEST_F(TlsTest, VerifyFalseAcceptsExpiredSelfSignedAndMisnamedCertificates) {
  uint16_t expired_port = test::free_port();
  Process expired = start_s_server(expired_port, certs_->expired);
  uint16_t self_port = test::free_port();
  Process self = start_s_server(self_port, certs_->self_signed);
  TlsClientOptions tls;
  tls.verify = false;
  tls.server_name = "www.example.org";
  auto body = [&]() -> Task<void> {
    for (uint16_t port : {expired_port, self_port}) {
      Stream s = co_await tcp_connect("localhost", port, tls_options(tls));
      std::string page = co_await get(s);
      EXPECT_EQ(page.rfind("HTTP/1.0 200 ok", 0), 0u) << page;
    }
  };
  run(body());
}

TEST_F(TlsTest, AMissingCaFileIsAConfigurationError) {
  SilentListener listener;
  TlsClientOptions tls;
  tls.ca_file = "/nonexistent/ca.pem";
  TlsError e = connect_failure(listener.port, tls);
  EXPECT_EQ(e.failure(), TlsFailure::Configuration) << e.what();
  EXPECT_NE(std::string(e.what()).find("cannot load the CA file /nonexistent/ca.pem"),
            std::string::npos)
      << e.what();
}

TEST_F(TlsTest, AServerThatNeverSpeaksTlsTimesOutTheHandshake) {
  SilentListener listener;
  TlsClientOptions tls = trusting(certs_->ca);
  tls.handshake_timeout = 200ms;
  TlsError e = connect_failure(listener.port, tls);
  EXPECT_EQ(e.failure(), TlsFailure::Timeout) << e.what();
  EXPECT_FALSE(e.certificate_problem());
  EXPECT_NE(std::string(e.what()).find("handshake timed out after 200 ms"), std::string::npos)
      << e.what();
}

TEST_F(TlsTest, APeerThatAnswersWithGarbageIsAProtocolError) {
  TcpServer garbage([](Stream& s) -> Task<void> {
    co_await s.read_bytes(1, true);
    co_await s.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
    co_await s.shutdown_write();
  });
  garbage.listen(Address::ipv4_loopback(0));
  TlsError e = connect_failure(garbage.port(), trusting(certs_->ca));
  EXPECT_EQ(e.failure(), TlsFailure::Protocol) << e.what();
  EXPECT_FALSE(e.certificate_problem());
  EXPECT_NE(std::string(e.what()).find(": protocol error: "), std::string::npos) << e.what();
  run([&]() -> Task<void> { co_await garbage.stop(); }());
}

TEST_F(TlsTest, KillingATaskBlockedInTheHandshakeReleasesTheSocket) {
  SilentListener listener;
  size_t before = test::open_fds();
  auto body = [&]() -> Task<void> {
    auto connecting = spawn(tcp_connect("localhost", listener.port, tls_options({})));
    // Once the listener holds the connection, the client has sent its hello and waits.
    int error = 0;
    Socket accepted = listener.socket.accept(error);
    while (!accepted && error == EAGAIN) {
      co_await wait_readable(listener.socket.fd());
      accepted = listener.socket.accept(error);
    }
    co_await wait_readable(accepted.fd());  // the ClientHello arrived
    EXPECT_FALSE(connecting.done());
    connecting.kill();
    EXPECT_THROW(co_await connecting, CancelledError);
    accepted.close();
  };
  run(body());
  EXPECT_EQ(test::open_fds(), before);
}

// Our server, echoing lines back, with ALPN.
TcpServer::Handler line_echo() {
  return [](Stream& s) -> Task<void> {
    for (;;) {
      std::string line;
      try {
        line = co_await s.read_until("\n", 1 << 20);
      } catch (const NetError&) {
        co_return;
      }
      std::string reply = s.tls() ? s.tls()->alpn : std::string("plain");
      reply += ':';
      reply += line;
      co_await s.write(std::move(reply));
    }
  };
}

ServerOptions tls_server(const CertFiles& cert) {
  ServerOptions options;
  options.tls = TlsServerOptions{cert.cert.string(), cert.key.string(), {"http/1.1"}, 5s};
  return options;
}

TEST_F(TlsTest, OurServerAndOurClientTalkAndResume) {
  TcpServer server(line_echo(), tls_server(certs_->leaf));
  server.listen(Address::ipv4_loopback(0));
  TlsClientOptions tls = trusting(certs_->ca);
  tls.alpn = {"http/1.1"};
  auto body = [&]() -> Task<void> {
    for (int round = 0; round < 2; ++round) {
      Stream s = co_await tcp_connect("localhost", server.port(), tls_options(tls));
      co_await s.write("hello\n");
      EXPECT_EQ(co_await s.read_until("\n"), "http/1.1:hello\n");
      EXPECT_EQ(s.tls()->session_reused, round == 1) << "round " << round;
    }
    co_await server.stop();
  };
  run(body());
}

TEST_F(TlsTest, CurlFetchesFromOurServer) {
  TcpServer server(
      [](Stream& s) -> Task<void> {
        co_await s.read_until("\r\n\r\n", 65536);
        std::string alpn = s.tls() ? s.tls()->alpn : "none";
        co_await s.write("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(alpn.size()) +
                         "\r\nConnection: close\r\n\r\n" + alpn);
        co_await s.shutdown_write();
      },
      tls_server(certs_->leaf));
  server.listen(Address::ipv4_loopback(0));
  TempDir dir;
  Process curl = Process::start(
      {"curl", "-sS", "--http1.1", "--cacert", certs_->ca.cert.string(), "-o",
       (dir.path() / "body").string(), "https://localhost:" + std::to_string(server.port()) + "/",
       "--resolve", "localhost:" + std::to_string(server.port()) + ":127.0.0.1"});
  auto body = [&]() -> Task<void> {
    while (curl.running()) co_await sleep(5ms);
    co_await server.stop();
  };
  run(body());
  EXPECT_EQ(curl.wait(1s), 0) << curl.output();
  std::ifstream in(dir.path() / "body");
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, "http/1.1");
}

TEST_F(TlsTest, AClientThatFailsTheHandshakeEndsOnlyItsConnectionAndIsLogged) {
  test::LogCapture log;
  TcpServer server(line_echo(), tls_server(certs_->leaf));
  server.listen(Address::ipv4_loopback(0));
  auto body = [&]() -> Task<void> {
    {
      Stream plain = co_await tcp_connect(Address::ipv4_loopback(server.port()));
      co_await plain.write("not a client hello\r\n\r\n");
      try {
        co_await plain.read_until_close();  // an alert, perhaps, then the end
      } catch (const NetError&) {
      }
    }
    {
      Stream s =
          co_await tcp_connect("localhost", server.port(), tls_options(trusting(certs_->ca)));
      co_await s.write("still serving\n");
      EXPECT_EQ(co_await s.read_until("\n"), ":still serving\n");
    }
    co_await server.stop();
  };
  run(body());
  EXPECT_TRUE(log.contains("protocol error")) << ::testing::PrintToString(log.lines());
}

TEST_F(TlsTest, StartTlsUpgradesAPlainConnection) {
  TcpServer server(
      [](Stream& s) -> Task<void> {
        EXPECT_EQ(co_await s.read_until("\n"), "STARTTLS\n");
        co_await s.write("GO\n");
        co_await s.flush();
        // Named: GCC 12 destroys a braced temporary in a co_await expression twice.
        TlsServerOptions options{certs_->leaf.cert.string(), certs_->leaf.key.string(), {}, 5s};
        Stream secure = co_await start_tls_server(std::move(s), options);
        std::string reply = "secret:";
        reply += co_await secure.read_until("\n");
        co_await secure.write(std::move(reply));
        co_await secure.shutdown_write();
        EXPECT_EQ(co_await secure.read_until_close(), "");
      },
      ServerOptions{});
  server.listen(Address::ipv4_loopback(0));
  auto body = [&]() -> Task<void> {
    Stream plain = co_await tcp_connect(Address::ipv4_loopback(server.port()));
    co_await plain.write("STARTTLS\n");
    EXPECT_EQ(co_await plain.read_until("\n"), "GO\n");
    Stream s = co_await start_tls(std::move(plain), "localhost", trusting(certs_->ca));
    EXPECT_NE(s.tls(), nullptr);
    co_await s.write("x\n");
    EXPECT_EQ(co_await s.read_until_close(), "secret:x\n") << "close_notify reads as the end";
    co_await s.shutdown_write();
    co_await server.stop();
  };
  run(body());
}

TEST_F(TlsTest, StartTlsRefusesAStreamWithBytesBuffered) {
  TcpServer server(
      [](Stream& s) -> Task<void> {
        co_await s.write("two\nlines\n");
        co_await s.read_until_close();
      },
      ServerOptions{});
  server.listen(Address::ipv4_loopback(0));
  auto body = [&]() -> Task<void> {
    Stream plain = co_await tcp_connect(Address::ipv4_loopback(server.port()));
    EXPECT_EQ(co_await plain.read_until("\n"), "two\n");
    EXPECT_THROW(co_await start_tls(std::move(plain), "localhost"), InvalidStateError);
    co_await server.stop();
  };
  run(body());
}

std::string pattern(size_t n) {
  std::string s(n, '\0');
  uint32_t x = 12345;
  for (auto& c : s) {
    x = x * 1103515245 + 12345;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

TEST_F(TlsTest, SeveralMebibytesRoundTripIntactAndASlowReaderBoundsTheWriter) {
  constexpr size_t kTotal = 12 << 20;  // more than loopback's socket buffers hold
  constexpr size_t kChunk = 64 << 10;
  constexpr size_t kHighWater = 128 << 10;
  ServerOptions options = tls_server(certs_->leaf);
  options.stream.write_high_water = kHighWater;
  Event go;
  // The server reads nothing until `go`, then echoes in 64 KiB pieces, pausing now and then.
  TcpServer server(
      [&go](Stream& s) -> Task<void> {
        co_await go.wait();
        std::vector<char> piece(64 << 10);
        size_t count = 0;
        for (;;) {
          size_t n = co_await s.read_into(piece, true);
          co_await s.write(std::string_view(piece.data(), n));
          EXPECT_LE(s.pending_write_bytes(), s.options().write_high_water);
          if (++count % 16 == 0) co_await sleep(1ms);
        }
      },
      options);
  server.listen(Address::ipv4_loopback(0));
  std::string data = pattern(kTotal);
  auto body = [&]() -> Task<void> {
    ConnectOptions connect = tls_options(trusting(certs_->ca));
    connect.stream.write_high_water = kHighWater;
    Stream s = co_await tcp_connect("localhost", server.port(), connect);
    auto writer = [&]() -> Task<void> {
      for (size_t at = 0; at < kTotal; at += kChunk) {
        co_await s.write(std::string_view(data).substr(at, kChunk));
        EXPECT_LE(s.pending_write_bytes(), kHighWater);
      }
      co_await s.flush();
    };
    auto w = spawn(writer());
    // With nobody reading, the buffers fill and the writer must queue, then wait.
    while (s.pending_write_bytes() == 0 && !w.done()) co_await sleep(1ms);
    EXPECT_FALSE(w.done()) << "the writer never had to queue: the test proves nothing";
    EXPECT_LE(s.pending_write_bytes(), kHighWater + kChunk);
    go.set();
    std::string back = co_await s.read_bytes(kTotal);
    co_await w;
    EXPECT_TRUE(back == data) << "the echo differs";
    co_await server.stop(0s);
  };
  run(body());
}

TEST_F(TlsTest, SendFileOverTlsCopiesTheFile) {
  TempDir dir;
  std::string data = pattern(3 << 20);
  auto path = dir.write("big.bin", data);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  TcpServer server(
      [fd](Stream& s) -> Task<void> {
        co_await s.send_file(fd, 1000, (3 << 20) - 2000);
        co_await s.shutdown_write();
        co_await s.read_until_close();
      },
      tls_server(certs_->leaf));
  server.listen(Address::ipv4_loopback(0));
  auto body = [&]() -> Task<void> {
    Stream s = co_await tcp_connect("localhost", server.port(), tls_options(trusting(certs_->ca)));
    std::string got = co_await s.read_until_close();
    EXPECT_TRUE(got == data.substr(1000, (3 << 20) - 2000)) << got.size() << " bytes";
    co_await s.shutdown_write();
    co_await server.stop();
  };
  run(body());
  ::close(fd);
}

TEST_F(TlsTest, AClientCertificateSatisfiesAServerThatDemandsOne) {
  uint16_t port = test::free_port();
  Process server =
      start_s_server(port, certs_->leaf,
                     {"-Verify", "1", "-verify_return_error", "-CAfile", certs_->ca.cert.string()});
  auto body = [&]() -> Task<void> {
    TlsClientOptions tls = trusting(certs_->ca);
    tls.cert_file = certs_->leaf.cert.string();
    tls.key_file = certs_->leaf.key.string();
    Stream s = co_await tcp_connect("localhost", port, tls_options(tls));
    std::string page = co_await get(s);
    EXPECT_EQ(page.rfind("HTTP/1.0 200 ok", 0), 0u) << page;
  };
  run(body());
}

}  // namespace
}  // namespace squall
