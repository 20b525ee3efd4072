// Tests for websocket_connect: against the servers of Python's websockets, Tornado and npm's ws,
// over TLS, through a CONNECT proxy, with the client's timeouts, and against a server that stops
// reading.
#include "squall/http/websocket_client.h"

#include <gtest/gtest.h>

#include <string>

#include "http/websocket_peers.h"
#include "squall/core.h"
#include "squall/http/proxy.h"
#include "squall/http/server.h"
#include "squall/http/web.h"
#include "squall/http/websocket_handler.h"
#include "squall/net/net_error.h"
#include "squall/net/tls.h"
#include "support/loop_fixture.h"
#include "support/tunnel_proxy.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;

class WebSocketConnectPeerTest : public test::WsPeerTest {};

TEST_P(WebSocketConnectPeerTest, TalksToThePeersServer) {
  test::WsPeerServer peer(kind(), deflate());
  run([&]() -> Task<void> {
    WebSocketConnectOptions options;
    options.compression = deflate();
    options.subprotocols = {"echo.v1", "echo.v2"};
    WebSocket ws = co_await websocket_connect(
        "ws://127.0.0.1:" + std::to_string(peer.port) + "/chat?room=1", options);
    EXPECT_EQ(ws.compressed(), deflate());
    EXPECT_EQ(ws.selected_subprotocol(), "echo.v2");
    co_await ws.write_message("hello");
    std::optional<WsMessage> text = co_await ws.read_message();
    EXPECT_TRUE(text && text->data == "hello" && !text->binary);
    co_await ws.write_message(std::string("\0\1\xff", 3), true);
    std::optional<WsMessage> binary = co_await ws.read_message();
    EXPECT_TRUE(binary && binary->data == std::string("\0\1\xff", 3) && binary->binary);
    co_await ws.write_message("subprotocol");
    std::optional<WsMessage> agreed = co_await ws.read_message();
    EXPECT_TRUE(agreed && agreed->data == "subprotocol:echo.v2");
    co_await ws.write_message("ping:still there?");  // the peer pings; we answer while reading
    std::optional<WsMessage> ponged = co_await ws.read_message();
    EXPECT_TRUE(ponged && ponged->data == "pong:still there?");
    co_await ws.close(ws_close::kNormal, "bye");
    EXPECT_EQ(ws.close_code(), ws_close::kNormal);
    std::optional<WsMessage> after = co_await ws.read_message();
    EXPECT_FALSE(after);  // Tornado's None
  }());
  EXPECT_NE(peer.closes(1).find("closed 1000 bye"), std::string::npos) << peer.process.output();
}

INSTANTIATE_TEST_SUITE_P(Peers, WebSocketConnectPeerTest, test::ws_peer_params(),
                         test::ws_peer_param_name);

// Echoes each message; counts what it saw.
struct Counts {
  int messages = 0;
  uint64_t bytes = 0;
};

struct Echo : WebSocketHandler {
  explicit Echo(Counts* counts) : counts_(counts) {}
  Task<void> on_message(WsMessage m) override {
    ++counts_->messages;
    counts_->bytes += m.data.size();
    co_await write_message(m.data, m.binary);
  }
  Counts* counts_;
};

class WebSocketConnectTest : public test::LoopTest {
 protected:
  Counts counts;
  Application app{{{"/echo", handler<Echo>(&counts)}}};
};

// One message there and back.
Task<void> expect_echo(WebSocket& ws, std::string text) {
  co_await ws.write_message(text);
  std::optional<WsMessage> back = co_await ws.read_message();
  EXPECT_TRUE(back && back->data == text);
}

TEST_F(WebSocketConnectTest, ConnectsOverTlsTrustingTheGivenCertificates) {
  test::TempDir dir;
  test::CertFiles cert = test::make_self_signed(dir, "server", "localhost");
  HttpServerOptions options;
  options.tcp.tls.emplace();
  options.tcp.tls->cert_file = cert.cert.string();
  options.tcp.tls->key_file = cert.key.string();
  options.tcp.tls->handshake_timeout = 10s;
  HttpServer& server = app.listen(0, "127.0.0.1", options);
  const std::string url = "wss://127.0.0.1:" + std::to_string(server.port()) + "/echo";
  run([&]() -> Task<void> {
    HttpClient client;
    client.close();  // a closed client refuses, as fetch() does
    WebSocketConnectOptions on_closed;
    on_closed.client = &client;
    EXPECT_THROW(co_await websocket_connect(url, on_closed), InvalidStateError);

    WebSocketConnectOptions untrusted;
    bool refused = false;
    try {
      co_await websocket_connect(url, untrusted);
    } catch (const NetError& e) {
      refused = e.kind() == ErrorKind::Tls;
    }
    EXPECT_TRUE(refused);

    WebSocketConnectOptions trusted;
    trusted.request.ca_certs = cert.cert.string();
    WebSocket ws = co_await websocket_connect(url, trusted);
    EXPECT_NE(ws.stream().tls(), nullptr);
    co_await expect_echo(ws, "over TLS");
    co_await ws.close();
    co_await app.stop();
  }());
  EXPECT_EQ(counts.messages, 1);
}

TEST_F(WebSocketConnectTest, TunnelsThroughAConnectProxyChosenByProxySettings) {
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    test::TunnelProxy proxy;
    ProxySettings proxies;
    proxies.use_for_all(normalize_proxy("127.0.0.1:" + std::to_string(proxy.server.port())));
    const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/echo";
    WebSocketConnectOptions options;
    options.request.proxy = std::string(proxies.for_url(*Url::parse(url)));
    EXPECT_FALSE(options.request.proxy.empty());
    WebSocket ws = co_await websocket_connect(url, options);
    co_await expect_echo(ws, "through the tunnel");
    co_await ws.close();
    EXPECT_EQ(proxy.tunnels, 1);  // ws:// tunnels too: a forwarding proxy would not upgrade
    co_await proxy.server.stop(1s);
    co_await app.stop();
  }());
}

TEST_F(WebSocketConnectTest, AnswersOtherThanA101AreHttpErrorsWithTheStatus) {
  app.add("GET", "/plain", [](Request&, Response& r) -> Task<void> { co_await r.finish("no"); });
  HttpServer& server = app.listen(0);
  const std::string base = "ws://127.0.0.1:" + std::to_string(server.port());
  run([&]() -> Task<void> {
    struct Case {
      const char* path;
      const char* origin;
      int status;
    };
    const Case cases[] = {
        {"/missing", "", 404}, {"/plain", "", 200}, {"/echo", "http://elsewhere.example", 403}};
    for (const Case& c : cases) {
      WebSocketConnectOptions options;
      if (*c.origin) options.request.headers.add("Origin", c.origin);
      int code = 0;
      try {
        co_await websocket_connect(base + c.path, options);
      } catch (const HttpError& e) {
        code = e.code();
        EXPECT_TRUE(e.response() && e.response()->code == c.status);
      }
      EXPECT_EQ(code, c.status) << c.path;
    }
    WebSocketConnectOptions none;
    EXPECT_THROW(co_await websocket_connect("ftp://127.0.0.1/echo", none), InvalidArgumentError);
    EXPECT_THROW(co_await websocket_connect("ws://", none), InvalidArgumentError);
    co_await app.stop();
  }());
}

TEST_F(WebSocketConnectTest, RequestTimeoutBoundsAServerThatNeverAnswers) {
  TcpServer silent([](Stream& s) -> Task<void> {
    co_await s.read_until("\r\n\r\n", 8192);
    co_await sleep(60s);
  });
  silent.listen(Address::parse("127.0.0.1:0"));
  run([&]() -> Task<void> {
    WebSocketConnectOptions options;
    options.request.request_timeout = 100ms;
    EXPECT_THROW(
        co_await websocket_connect("ws://127.0.0.1:" + std::to_string(silent.port()), options),
        TimeoutError);
    co_await silent.stop(0s);
  }());
}

// A server whose handler stops reading after the first message until `go` is set, then reads
// (and drops) the rest.
struct Stalled {
  Event go;
  int messages = 0;
};

struct StallingReader : WebSocketHandler {
  explicit StallingReader(Stalled* s) : s_(s) {}
  Task<void> on_message(WsMessage) override {
    if (++s_->messages == 1) co_await s_->go.wait();
  }
  Stalled* s_;
};

TEST_F(WebSocketConnectTest, AWriterIsHeldBackWhileTheServerStopsReading) {
  Stalled stalled;
  app.add(Route{"/stall", handler<StallingReader>(&stalled)});
  HttpServer& server = app.listen(0);
  constexpr int kMessages = 400;
  const std::string message(64 * 1024, 'm');
  run([&]() -> Task<void> {
    WebSocket ws =
        co_await websocket_connect("ws://127.0.0.1:" + std::to_string(server.port()) + "/stall");
    const size_t high_water = ws.stream().options().write_high_water;
    size_t most = 0;
    int sent = 0;
    bool held = false;
    auto write_all = [&]() -> Task<void> {
      for (; sent < kMessages; ++sent) {
        Task<void> queued = ws.write_message(message);
        most = std::max(most, ws.buffered_amount());
        held = held || ws.buffered_amount() > high_water;  // this write now waits
        co_await std::move(queued);
      }
    };
    auto writer = spawn(write_all());
    while (!held) co_await sleep(5ms);
    // The kernel's buffers are full and the writer waits: what it holds is bounded by the
    // high-water mark and one message, however long the reader stalls.
    EXPECT_LT(sent, kMessages);
    EXPECT_LE(most, high_water + message.size() + kWsMaxHeader);
    stalled.go.set();
    co_await writer.join();
    EXPECT_LE(most, high_water + message.size() + kWsMaxHeader);
    co_await ws.close();
    co_await app.stop();
  }());
  EXPECT_EQ(stalled.messages, kMessages);
}

}  // namespace
}  // namespace squall::http
