// Tests for WebSocketHandler on an Application: the clients of Python's websockets, Tornado and
// npm's ws against it, refused handshakes, and clients written by hand that break the protocol,
// send without end, stop reading, stop answering pings or vanish.
#include "squall/http/websocket_handler.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/socket.h>

#include <csignal>
#include <string>

#include "http/websocket_peers.h"
#include "squall/core.h"
#include "squall/http/server.h"
#include "squall/http/websocket_client.h"
#include "squall/http/websocket_deflate.h"
#include "squall/net/net_error.h"
#include "squall/net/socket.h"
#include "squall/net/tcp_client.h"
#include "support/loop_fixture.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;

// What the handlers saw, for the test to check.
struct Seen {
  int opened = 0, closed = 0, pongs = 0;
  std::optional<uint16_t> close_code;
  std::string close_reason, protocol;
  bool compressed = false;
};

struct EchoHandler : WebSocketHandler {
  EchoHandler(Seen* seen, bool compress) : seen_(seen), compress_(compress) {}
  Task<void> open() override {
    ++seen_->opened;
    seen_->protocol = selected_subprotocol();
    seen_->compressed = websocket().compressed();
    co_return;
  }
  Task<void> on_message(WsMessage m) override {
    if (m.data == "throw") throw std::runtime_error("the handler broke");
    co_await write_message(m.data, m.binary);
  }
  void on_pong(std::string_view) override { ++seen_->pongs; }
  void on_close() override {
    ++seen_->closed;
    seen_->close_code = close_code();
    seen_->close_reason = close_reason();
  }
  std::optional<std::string> select_subprotocol(const std::vector<std::string>& offered) override {
    for (const std::string& p : offered)
      if (p == "echo.v2") return p;
    return std::nullopt;
  }
  std::optional<WsCompressionOptions> compression_options() const override {
    if (!compress_) return std::nullopt;
    return WsCompressionOptions{};
  }
  Seen* seen_;
  bool compress_;
};

class WebSocketHandlerPeerTest : public test::WsPeerTest {
 protected:
  Seen seen;
  Application app{{{"/echo", handler<EchoHandler>(&seen, deflate())}}};
};

TEST_P(WebSocketHandlerPeerTest, ServesThePeersClient) {
  HttpServer& server = app.listen(0);
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/echo";
  test::Process client = test::start_ws_peer_client(kind(), url, deflate());
  run([&]() -> Task<void> {
    while (client.running()) co_await sleep(20ms);
    co_await app.stop();
  }());
  test::expect_ws_client_transcript(kind(), client.output());
  EXPECT_EQ(seen.opened, 1);
  EXPECT_EQ(seen.closed, 1);
  EXPECT_EQ(seen.close_code, ws_close::kNormal);
  EXPECT_EQ(seen.close_reason, "bye");
  EXPECT_EQ(seen.protocol, "echo.v2");
  EXPECT_EQ(seen.compressed, deflate());
}

TEST_P(WebSocketHandlerPeerTest, StopClosesAnOpenWebSocketWith1001AndRunsOnClose) {
  HttpServer& server = app.listen(0);
  const std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/echo";
  test::Process client = test::start_ws_peer_waiter(kind(), url, deflate());
  run([&]() -> Task<void> {
    while (seen.opened == 0) co_await sleep(5ms);
    // No grace limit: stop() returns once the peer has answered the close.
    co_await app.stop();
  }());
  EXPECT_EQ(client.wait(std::chrono::seconds(30)), 0) << client.output();
  EXPECT_NE(client.output().find("closed 1001\n"), std::string::npos) << client.output();
  EXPECT_EQ(seen.closed, 1);
  EXPECT_EQ(seen.close_code, ws_close::kGoingAway);
}

INSTANTIATE_TEST_SUITE_P(Peers, WebSocketHandlerPeerTest, test::ws_peer_params(),
                         test::ws_peer_param_name);

// A client written by hand: the handshake, then frames exactly as the test writes them.
struct RawClient {
  Stream stream;

  static Task<RawClient> open(uint16_t port, bool offer_deflate = false,
                              std::string path = "/echo") {
    Stream stream = co_await tcp_connect("127.0.0.1", port);
    std::string request =
        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n";
    for (const Header& h : ws_client_fields(ws_new_key(), {}, offer_deflate))
      request += h.name + ": " + h.value + "\r\n";
    co_await stream.write(request + "\r\n");
    std::string head = co_await stream.read_until("\r\n\r\n", 16384);
    EXPECT_TRUE(head.starts_with("HTTP/1.1 101 ")) << head;
    co_return RawClient{std::move(stream)};
  }

  // One masked frame.
  Task<void> send(WsOpcode opcode, std::string_view payload, bool fin = true, bool rsv1 = false) {
    return stream.write(ws_frame(opcode, payload, fin, 0x01020304, rsv1));
  }

  struct Frame {
    WsOpcode opcode;
    std::string payload;
    uint16_t close_code() const {
      return payload.size() >= 2 ? static_cast<uint16_t>(static_cast<uint8_t>(payload[0]) << 8 |
                                                         static_cast<uint8_t>(payload[1]))
                                 : ws_close::kNoStatus;
    }
  };
  // The next frame from the server (which never masks), or nullopt at the end of the stream.
  Task<std::optional<Frame>> next() {
    try {
      std::string head = co_await stream.read_bytes(2);
      uint64_t length = static_cast<uint8_t>(head[1]) & 0x7f;
      if (length >= 126) {
        std::string extended = co_await stream.read_bytes(length == 126 ? 2 : 8);
        length = 0;
        for (char c : extended) length = length << 8 | static_cast<uint8_t>(c);
      }
      std::string payload = co_await stream.read_bytes(length);
      co_return Frame{static_cast<WsOpcode>(head[0] & 0x0f), std::move(payload)};
    } catch (const NetError&) {
      co_return std::nullopt;
    }
  }
  // Skips frames until a close frame, then closes the connection; the frame's code, or 0 when
  // the stream ended without one.
  Task<uint16_t> close_code() {
    for (;;) {
      std::optional<Frame> frame = co_await next();
      if (!frame) co_return 0;
      if (frame->opcode == WsOpcode::Close) {
        stream.close();
        co_return frame->close_code();
      }
    }
  }
};

class WebSocketHandlerTest : public test::LoopTest {
 protected:
  Seen seen;
  Application app{{{"/echo", handler<EchoHandler>(&seen, false)}}};
};

TEST_F(WebSocketHandlerTest, AgreesASubprotocolAndClosesWith1011WhenTheHandlerThrows) {
  HttpServer& server = app.listen(0);
  test::LogCapture log;
  run([&]() -> Task<void> {
    WebSocketConnectOptions options;
    options.subprotocols = {"echo.v1", "echo.v2"};
    WebSocket ws = co_await websocket_connect(
        "ws://127.0.0.1:" + std::to_string(server.port()) + "/echo", options);
    EXPECT_EQ(ws.selected_subprotocol(), "echo.v2");
    co_await ws.write_message("once");
    std::optional<WsMessage> echoed = co_await ws.read_message();
    EXPECT_TRUE(echoed && echoed->data == "once");
    co_await ws.write_message("throw");
    std::optional<WsMessage> after = co_await ws.read_message();
    EXPECT_FALSE(after);
    EXPECT_EQ(ws.close_code(), ws_close::kInternalError);
    co_await app.stop();
  }());
  EXPECT_EQ(seen.protocol, "echo.v2");
  EXPECT_EQ(seen.closed, 1);
  EXPECT_EQ(seen.close_code, ws_close::kInternalError);
  EXPECT_TRUE(log.contains("WebSocket handler for /echo failed: the handler broke"));
}

// A raw request to the route and the head of the answer.
Task<std::string> answer_to(uint16_t port, std::string request) {
  Stream stream = co_await tcp_connect("127.0.0.1", port);
  co_await stream.write(request);
  co_return co_await stream.read_until("\r\n\r\n", 16384);
}

TEST_F(WebSocketHandlerTest, RefusesBrokenHandshakesAndForeignOrigins) {
  HttpServer& server = app.listen(0);
  const std::string host = "Host: 127.0.0.1:" + std::to_string(server.port()) + "\r\n";
  const std::string upgrade =
      "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: "
      "dGhlIHNhbXBsZSBub25jZQ==\r\n";
  run([&]() -> Task<void> {
    std::string plain = co_await answer_to(server.port(), "GET /echo HTTP/1.1\r\n" + host + "\r\n");
    EXPECT_TRUE(plain.starts_with("HTTP/1.1 400 ")) << plain;
    std::string old_version =
        co_await answer_to(server.port(), "GET /echo HTTP/1.1\r\n" + host + upgrade +
                                              "Sec-WebSocket-Version: 8\r\n\r\n");
    EXPECT_TRUE(old_version.starts_with("HTTP/1.1 426 ")) << old_version;
    EXPECT_NE(old_version.find("Sec-WebSocket-Version: 13"), std::string::npos) << old_version;
    std::string foreign = co_await answer_to(
        server.port(), "GET /echo HTTP/1.1\r\n" + host + upgrade +
                           "Sec-WebSocket-Version: 13\r\nOrigin: http://evil.example\r\n\r\n");
    EXPECT_TRUE(foreign.starts_with("HTTP/1.1 403 ")) << foreign;
    std::string same = co_await answer_to(
        server.port(), "GET /echo HTTP/1.1\r\n" + host + upgrade +
                           "Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:" +
                           std::to_string(server.port()) + "\r\n\r\n");
    EXPECT_TRUE(same.starts_with("HTTP/1.1 101 ")) << same;
    EXPECT_NE(same.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), std::string::npos);
    co_await app.stop();
  }());
  EXPECT_EQ(seen.opened, 1);
}

TEST_F(WebSocketHandlerTest, ANeverCompletedHandshakeIsAnswered408AtTheHeaderTimeout) {
  HttpServerOptions options;
  options.header_timeout = 100ms;
  HttpServer& server = app.listen(0, "127.0.0.1", options);
  run([&]() -> Task<void> {
    Stream stream = co_await tcp_connect("127.0.0.1", server.port());
    co_await stream.write("GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n");
    std::string answer = co_await stream.read_until_close();
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 408 ")) << answer;
    co_await app.stop();
  }());
  EXPECT_EQ(seen.opened, 0);
}

TEST_F(WebSocketHandlerTest, FailsAFrameLongerThanMaxMessageSizeWith1009BeforeItsPayload) {
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    RawClient client = co_await RawClient::open(server.port());
    // The header announces 10 MiB and a byte (the default limit, plus one); a little of the
    // payload follows, the rest never does.
    std::array<uint8_t, kWsMaxHeader> header;
    size_t n = ws_frame_header(header, WsOpcode::Text, true, (uint64_t{10} << 20) + 1, 0x01020304);
    co_await client.stream.write(std::string(reinterpret_cast<const char*>(header.data()), n) +
                                 std::string(4096, 'x'));
    EXPECT_EQ(co_await client.close_code(), ws_close::kTooBig);
    co_await app.stop();
  }());
  EXPECT_EQ(seen.close_code, ws_close::kTooBig);
}

TEST_F(WebSocketHandlerTest, FailsAnEndlessFragmentedMessageWith1009AtMaxMessageSize) {
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    RawClient client = co_await RawClient::open(server.port());
    uint64_t sent = 0;
    bool refused = false;
    // Sends continuation frames until the server's close frame comes, as a peer that reads does.
    auto send_until_refused = [&]() -> Task<void> {
      const std::string piece(64 * 1024, 'x');
      try {
        co_await client.send(WsOpcode::Text, piece, false);
        sent += piece.size();
        while (!refused) {
          co_await client.send(WsOpcode::Continuation, piece, false);
          sent += piece.size();
        }
      } catch (const NetError&) {
      }
    };
    auto sender = spawn(send_until_refused());
    EXPECT_EQ(co_await client.close_code(), ws_close::kTooBig);
    refused = true;
    EXPECT_GT(sent, uint64_t{10} << 20);  // the server took 10 MiB before it refused
    co_await sender.join();
    co_await app.stop();
  }());
  EXPECT_EQ(seen.close_code, ws_close::kTooBig);
}

// Accepts messages up to 1000 bytes.
struct SmallLimit : EchoHandler {
  using EchoHandler::EchoHandler;
  WebSocketOptions websocket_options() const override {
    WebSocketOptions o;
    o.max_message_size = 1000;
    return o;
  }
};

TEST_F(WebSocketHandlerTest, AMessageOfExactlyMaxMessageSizeGoesThroughAndOneByteMoreIs1009) {
  app.add(Route{"/small", handler<SmallLimit>(&seen, true)});
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    WebSocketConnectOptions options;
    options.compression = true;  // the limit holds for inflated messages too
    WebSocket ws = co_await websocket_connect(
        "ws://127.0.0.1:" + std::to_string(server.port()) + "/small", options);
    EXPECT_TRUE(ws.compressed());
    co_await ws.write_message(std::string(1000, 'a'));
    std::optional<WsMessage> fits = co_await ws.read_message();
    EXPECT_TRUE(fits && fits->data.size() == 1000);
    co_await ws.write_message(std::string(1001, 'a'));
    std::optional<WsMessage> too_big = co_await ws.read_message();
    EXPECT_FALSE(too_big);
    EXPECT_EQ(ws.close_code(), ws_close::kTooBig);
    co_await app.stop();
  }());
  EXPECT_EQ(seen.close_code, ws_close::kTooBig);
}

TEST_F(WebSocketHandlerTest, InvalidUtf8FailsWith1007AtTheFrameThatHoldsIt) {
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    RawClient client = co_await RawClient::open(server.port());
    // A character split across frames is fine...
    co_await client.send(WsOpcode::Text, "\xCE", false);
    co_await client.send(WsOpcode::Continuation, "\xBA", true);
    std::optional<RawClient::Frame> kappa = co_await client.next();
    EXPECT_TRUE(kappa && kappa->payload == "\xCE\xBA");
    // ...an invalid byte fails at its frame, though the message has not ended.
    co_await client.send(WsOpcode::Text, "valid so far ", false);
    co_await client.send(WsOpcode::Continuation, "then \xC0\xAF", false);
    EXPECT_EQ(co_await client.close_code(), ws_close::kInvalidPayload);
    co_await app.stop();
  }());
  EXPECT_EQ(seen.close_code, ws_close::kInvalidPayload);
}

TEST_F(WebSocketHandlerTest, InflatedInvalidUtf8FailsWith1007BeforeTheMessageEnds) {
  app.add(Route{"/deflate", handler<EchoHandler>(&seen, true)});
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    RawClient client = co_await RawClient::open(server.port(), true, "/deflate");
    // Every compressed byte of the message, in frames that never end it.
    WsDeflater deflater;
    std::string compressed =
        deflater.compress(std::string(1000, 'a') + "\xFF" + std::string(1000, 'b'));
    size_t half = compressed.size() / 2;
    co_await client.send(WsOpcode::Text, compressed.substr(0, half), false, true);
    co_await client.send(WsOpcode::Continuation, compressed.substr(half), false);
    EXPECT_EQ(co_await client.close_code(), ws_close::kInvalidPayload);
    co_await app.stop();
  }());
  EXPECT_TRUE(seen.compressed);
  EXPECT_EQ(seen.close_code, ws_close::kInvalidPayload);
}

// Writes kMessages of 64 KiB as soon as it is open, noting what it held.
struct Flood {
  static constexpr int kMessages = 400;
  size_t most = 0, high_water = 0;
  int sent = 0;
  bool held = false;
};

struct Flooder : WebSocketHandler {
  explicit Flooder(Flood* f) : f_(f) {}
  Task<void> open() override {
    const std::string message(64 * 1024, 'm');
    f_->high_water = websocket().stream().options().write_high_water;
    for (; f_->sent < Flood::kMessages; ++f_->sent) {
      Task<void> queued = write_message(message);
      f_->most = std::max(f_->most, websocket().buffered_amount());
      f_->held = f_->held || websocket().buffered_amount() > f_->high_water;
      co_await std::move(queued);
    }
  }
  Flood* f_;
};

TEST_F(WebSocketHandlerTest, AWriterIsHeldBackWhileTheClientStopsReading) {
  Flood flood;
  app.add(Route{"/flood", handler<Flooder>(&flood)});
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    RawClient client = co_await RawClient::open(server.port(), false, "/flood");
    while (!flood.held) co_await sleep(5ms);
    // The kernel's buffers are full and the handler waits: it holds at most the high-water
    // mark and one frame.
    EXPECT_LT(flood.sent, Flood::kMessages);
    EXPECT_LE(flood.most, flood.high_water + 64 * 1024 + kWsMaxHeader);
    int received = 0;
    while (received < Flood::kMessages) {
      std::optional<RawClient::Frame> frame = co_await client.next();
      if (!frame) break;
      ++received;
    }
    EXPECT_EQ(received, Flood::kMessages);
    EXPECT_LE(flood.most, flood.high_water + 64 * 1024 + kWsMaxHeader);
    co_await client.send(WsOpcode::Close, ws_close_payload(ws_close::kNormal, ""));
    EXPECT_EQ(co_await client.close_code(), ws_close::kNormal);
    co_await app.stop();
  }());
}

// Pings every 10 ms; gives up on a peer silent for 50 ms.
struct Pinger : EchoHandler {
  using EchoHandler::EchoHandler;
  WebSocketOptions websocket_options() const override {
    WebSocketOptions o;
    o.ping_interval = 10ms;
    o.ping_timeout = 50ms;
    return o;
  }
  void on_pong(std::string_view data) override {
    EchoHandler::on_pong(data);
    if (seen_->pongs == 2) spawn(write_message("two pongs"));
  }
};

TEST_F(WebSocketHandlerTest, PingsAtPingIntervalAndHearsThePongs) {
  app.add(Route{"/ping", handler<Pinger>(&seen, false)});
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    WebSocket ws =
        co_await websocket_connect("ws://127.0.0.1:" + std::to_string(server.port()) + "/ping");
    std::optional<WsMessage> told = co_await ws.read_message();  // our reader answers the pings
    EXPECT_TRUE(told && told->data == "two pongs");
    co_await ws.close();
    co_await app.stop();
  }());
  EXPECT_GE(seen.pongs, 2);
  EXPECT_EQ(seen.close_code, ws_close::kNormal);
}

TEST_F(WebSocketHandlerTest, EndsWith1006WhenThePeerStopsAnsweringPings) {
  app.add(Route{"/ping", handler<Pinger>(&seen, false)});
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    RawClient client = co_await RawClient::open(server.port(), false, "/ping");
    // Reads the pings and answers none: the server gives up and ends the connection.
    EXPECT_EQ(co_await client.close_code(), 0);
    co_await app.stop();
  }());
  EXPECT_EQ(seen.closed, 1);
  EXPECT_EQ(seen.close_code, ws_close::kAbnormal);
}

TEST_F(WebSocketHandlerTest, EndsWith1006WhenThePeerVanishes) {
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    {
      RawClient client = co_await RawClient::open(server.port());
      co_await client.send(WsOpcode::Text, "hello");
      std::optional<RawClient::Frame> echo = co_await client.next();
      EXPECT_TRUE(echo && echo->payload == "hello");
    }  // gone without a close frame
    while (seen.closed == 0) co_await sleep(5ms);
    co_await app.stop();
  }());
  EXPECT_EQ(seen.close_code, ws_close::kAbnormal);
}

TEST_F(WebSocketHandlerTest, StopEndsAWebSocketWhosePeerDoesNotAnswerTheCloseAfterTheGrace) {
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    RawClient client = co_await RawClient::open(server.port());
    co_await app.stop(20ms);  // the client answers nothing: the handler is cancelled
    EXPECT_EQ(seen.closed, 1);
    EXPECT_EQ(co_await client.close_code(), ws_close::kGoingAway);  // what it was sent
  }());
}

// Sleeps in on_message, so that no read is waiting when the server stops.
struct Slow : EchoHandler {
  using EchoHandler::EchoHandler;
  Task<void> on_message(WsMessage m) override {
    co_await sleep(50ms);
    co_await write_message(m.data, m.binary);
  }
};

TEST_F(WebSocketHandlerTest, StopClosesWith1001WhileAHandlerIsBusyWithAMessage) {
  app.add(Route{"/slow", handler<Slow>(&seen, false)});
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    WebSocket ws =
        co_await websocket_connect("ws://127.0.0.1:" + std::to_string(server.port()) + "/slow");
    co_await ws.write_message("late");
    while (seen.opened == 0) co_await sleep(1ms);
    co_await sleep(10ms);  // the message is in on_message
    auto stopping = spawn(app.stop());
    std::optional<WsMessage> m = co_await ws.read_message();
    // The close went out first; what the handler wrote after it was refused.
    EXPECT_FALSE(m);
    EXPECT_EQ(ws.close_code(), ws_close::kGoingAway);
    co_await stopping;
  }());
  EXPECT_EQ(seen.closed, 1);
  EXPECT_EQ(seen.close_code, ws_close::kGoingAway);
}

// Bytes the allocator has handed out and not had back (glibc's count; sanitizers replace it).
size_t heap_in_use() {
  return ::mallinfo2().uordblks;
}

TEST_F(WebSocketHandlerTest, AnIdleWebSocketHoldsUnderATenThousandthOf64MiB) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator is not glibc's: mallinfo2 does not count it";
#endif
  // What 10,000 idle WebSockets cost the server, counted in bytes rather than as a process's
  // RSS (the goal is 64 MiB for 10,000): the connection and its request, the handler, the
  // WebSocket's state, its stream and the frames of the tasks that wait for the next message.
  // The request's fields are cut to their size at the upgrade, the handshake's copies are gone
  // and the reader waits before its read frame exists; what is left is about 5.3 KiB.
  constexpr size_t kClients = 300;
  constexpr size_t kMostBytesPerConnection = (size_t{64} << 20) / 10000;
  HttpServer& server = app.listen(0);
  run([&]() -> Task<void> {
    const std::string request =
        "GET /echo HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
        "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n";
    const Address address = server.address();
    // Raw blocking sockets, so that the clients allocate nothing on this heap; a blocking
    // connect completes in the listener's backlog, so they come in batches the loop accepts.
    auto open_client = [&] {
      Socket client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
      EXPECT_EQ(::connect(client.fd(), address.sockaddr_ptr(), address.length()), 0);
      EXPECT_EQ(::send(client.fd(), request.data(), request.size(), 0),
                static_cast<ssize_t>(request.size()));
      return client;
    };
    auto wait_opened = [&](size_t n) -> Task<void> {
      while (static_cast<size_t>(seen.opened) < n) co_await sleep(1ms);
    };
    std::vector<Socket> clients;
    clients.reserve(kClients + 1);
    clients.push_back(open_client());  // the first connection warms the pools up
    co_await wait_opened(1);
    co_await sleep(10ms);  // the 101 leaves and the reader waits for the first frame
    size_t before = heap_in_use();
    while (clients.size() < kClients + 1) {
      for (int i = 0; i < 50; ++i) clients.push_back(open_client());
      co_await wait_opened(clients.size());
    }
    co_await sleep(10ms);
    size_t after = heap_in_use();
    EXPECT_EQ(server.connection_count(), kClients + 1);
    EXPECT_LE((after - before) / kClients, kMostBytesPerConnection)
        << (after - before) / kClients << " bytes per idle WebSocket";
    char reply[256];
    for (Socket& client : clients) {
      ssize_t n = ::recv(client.fd(), reply, sizeof reply, MSG_DONTWAIT);
      EXPECT_TRUE(n > 0 &&
                  std::string_view(reply, static_cast<size_t>(n)).starts_with("HTTP/1.1 101 "));
    }
    clients.clear();
    co_await app.stop();
  }());
  EXPECT_EQ(seen.closed, static_cast<int>(kClients + 1));
}

// examples/ws_echo --port 0 as a user runs it, with Python's client talking to it.
TEST(WebSocketExamples, WsEchoServesTheWebsocketsClientUntilSigterm) {
  test::Process echo = test::Process::start({SQUALL_BINARY_DIR "/examples/ws_echo", "--port", "0"});
  std::string url;
  for (int i = 0; i < 500 && url.empty(); ++i) {
    std::string out = echo.output();
    size_t at = out.find("listening on ws://");
    size_t end = out.find('\n', at);
    if (at != std::string::npos && end != std::string::npos)
      url = out.substr(at + 13, end - at - 13);
    else
      usleep(10000);
  }
  ASSERT_TRUE(url.ends_with("/echo")) << echo.output();
  test::Process client = test::start_ws_peer_client(test::ws_peer_kinds()[0], url, true);
  EXPECT_EQ(client.wait(std::chrono::seconds(30)), 0) << client.output();
  std::string out = client.output();
  EXPECT_NE(out.find("fragments fragmented\n"), std::string::npos) << out;
  EXPECT_NE(out.find("closed 1000"), std::string::npos) << out;
  EXPECT_EQ(echo.stop(SIGTERM), 0) << echo.output();
}

}  // namespace
}  // namespace squall::http
