// Tests for squall::http::WebSocket against real peers serving on loopback: Python's websockets,
// Tornado and npm's ws (tests/http/websocket_peers.h), with and without permessage-deflate. The
// handshake here is written out by hand, so that only the connection is under test.
#include "squall/http/websocket.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

#include "http/websocket_peers.h"
#include "squall/http/parser.h"
#include "squall/net/tcp_client.h"
#include "support/loop_fixture.h"

namespace squall::http {
namespace {

using namespace std::literals;

// The client's side of the handshake over a plain TCP stream.
Task<WebSocket> connect(uint16_t port, bool offer_deflate, WebSocketOptions options = {}) {
  Stream stream = co_await tcp_connect("127.0.0.1", port);
  const std::string key = ws_new_key();
  std::string request = "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n";
  for (const Header& h : ws_client_fields(key, {}, offer_deflate))
    request += h.name + ": " + h.value + "\r\n";
  request += "\r\n";
  co_await stream.write(request);
  std::string head = co_await stream.read_until("\r\n\r\n", 16384);
  std::array<HeaderView, 32> fields;
  ResponseView view;
  ParseResult parsed = parse_response(head, view, fields);
  if (parsed.status != ParseStatus::Ok) throw std::runtime_error("unreadable handshake answer");
  WsAccepted accepted;
  if (auto problem = check_ws_accept(to_head(view), key, {}, offer_deflate, accepted))
    throw std::runtime_error(*problem);
  if (offer_deflate != accepted.deflate.has_value())
    throw std::runtime_error("permessage-deflate was not agreed as expected");
  co_return WebSocket(std::move(stream), WebSocket::Role::Client, options, accepted.deflate,
                      accepted.protocol);
}

class WebSocketPeerTest : public test::WsPeerTest {};

TEST_P(WebSocketPeerTest, EchoesTextAndBinaryMessagesOfEveryLengthForm) {
  test::WsPeerServer peer(kind(), deflate());
  run([&]() -> Task<void> {
    WebSocket ws = co_await connect(peer.port, deflate());
    for (size_t length : {0u, 1u, 125u, 126u, 65535u, 65536u, 1u << 20}) {
      std::string text(length, 't'), binary(length, '\0');
      for (size_t i = 0; i < length; ++i) binary[i] = static_cast<char>(i * 31);
      co_await ws.write_message(text);
      co_await ws.write_message(binary, true);
      auto first = co_await ws.read_message();
      auto second = co_await ws.read_message();
      EXPECT_TRUE(first && second)
          << length << " " << ws.close_code().value_or(0) << " " << ws.close_reason();
      if (!first || !second) co_return;
      EXPECT_EQ(first->data, text);
      EXPECT_FALSE(first->binary);
      EXPECT_EQ(second->data, binary);
      EXPECT_TRUE(second->binary);
    }
    std::string kosme = "\xCE\xBA\xE1\xBD\xB9\xCF\x83\xCE\xBC\xCE\xB5";
    co_await ws.write_message(kosme);
    auto echoed = co_await ws.read_message();
    EXPECT_TRUE(echoed && echoed->data == kosme);
    co_await ws.close(ws_close::kNormal, "done");
    EXPECT_TRUE(ws.closed());
    EXPECT_EQ(ws.close_code(), ws_close::kNormal);  // the peer echoed the code
  }());
  EXPECT_NE(peer.closes(1).find("closed 1000 done"), std::string::npos) << peer.process.output();
}

TEST_P(WebSocketPeerTest, ReportsTheCodeAndReasonOfAClosingPeer) {
  test::WsPeerServer peer(kind(), deflate());
  run([&]() -> Task<void> {
    WebSocket ws = co_await connect(peer.port, deflate());
    co_await ws.write_message("close:4001:all done");
    auto message = co_await ws.read_message();
    EXPECT_FALSE(message);
    EXPECT_EQ(ws.close_code(), 4001);
    EXPECT_EQ(ws.close_reason(), "all done");
    EXPECT_THROW(co_await ws.write_message("late"), WebSocketClosedError);
  }());
  // The peer reports the code our side echoed.
  EXPECT_NE(peer.closes(1).find("closed 4001"), std::string::npos) << peer.process.output();
}

TEST_P(WebSocketPeerTest, AnswersThePeersPingsWhileReading) {
  test::WsPeerServer peer(kind(), deflate());
  run([&]() -> Task<void> {
    WebSocket ws = co_await connect(peer.port, deflate());
    co_await ws.write_message("ping:are you there");
    auto message = co_await ws.read_message();  // the peer got our pong before it sends this
    EXPECT_TRUE(message && message->data == "pong:are you there");
    co_await ws.close();
  }());
}

TEST_P(WebSocketPeerTest, FailsAMessageOverTheLimitWith1009) {
  test::WsPeerServer peer(kind(), deflate());
  run([&]() -> Task<void> {
    WebSocket ws = co_await connect(peer.port, deflate(), {.max_message_size = 100000});
    co_await ws.write_message("big:100000");
    auto fits = co_await ws.read_message();
    EXPECT_TRUE(fits && fits->data.size() == 100000);
    co_await ws.write_message("big:100001");
    auto too_big = co_await ws.read_message();
    EXPECT_FALSE(too_big);
    EXPECT_EQ(ws.close_code(), ws_close::kTooBig);
  }());
  EXPECT_NE(peer.closes(1).find("closed 1009"), std::string::npos) << peer.process.output();
}

TEST_P(WebSocketPeerTest, EndsWith1006WhenThePeerVanishes) {
  test::WsPeerServer peer(kind(), deflate());
  run([&]() -> Task<void> {
    WebSocket ws = co_await connect(peer.port, deflate());
    co_await ws.write_message("hello");
    auto hello = co_await ws.read_message();
    EXPECT_TRUE(hello);
    peer.process.stop(9);
    auto gone = co_await ws.read_message();
    EXPECT_FALSE(gone);
    EXPECT_EQ(ws.close_code(), ws_close::kAbnormal);
  }());
}

INSTANTIATE_TEST_SUITE_P(Peers, WebSocketPeerTest, test::ws_peer_params(),
                         test::ws_peer_param_name);

}  // namespace
}  // namespace squall::http
