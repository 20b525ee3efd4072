// HttpClient's reuse of kept-alive connections against a server that closes them: after a
// 307 or 308, while idle, or as the next request arrives.
#include <gtest/gtest.h>

#include <string>

#include "squall/core.h"
#include "squall/http/client.h"
#include "squall/net/net_error.h"
#include "squall/net/tcp_server.h"
#include "support/loop_fixture.h"
#include "support/reply_server.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;

class ClientReuseTest : public test::LoopTest {};

// /307 and /308 redirect to /end and then leave the connection to die: the next request on it
// is read and counted (`refused`) and the connection closed without an answer, as a server does
// that had decided to close it. /close answers and closes at once (`closed` is set). /end and
// /ok answer with the method and body.
struct Server {
  int refused = 0;
  Event closed;
  TcpServer server{[this](Stream& s) -> Task<void> {
    bool dying = false;
    for (;;) {
      std::string head;
      try {
        head = co_await s.read_until("\r\n\r\n", 64 * 1024);
      } catch (const NetError&) {
        co_return;
      }
      if (dying) {
        ++refused;
        co_return;
      }
      std::string_view target(head);
      target = target.substr(target.find(' ') + 1);
      target = target.substr(0, target.find(' '));
      std::string body;
      if (size_t at = head.find("Content-Length: "); at != std::string::npos)
        body = co_await s.read_bytes(std::stoul(head.substr(at + 16)));
      if (target == "/307" || target == "/308") {
        co_await s.write("HTTP/1.1 " + std::string(target.substr(1)) +
                         " Redirect\r\nLocation: /end\r\nContent-Length: 0\r\n\r\n");
        dying = true;
        continue;
      }
      std::string answer = head.substr(0, head.find(' ')) + " " + body;
      co_await s.write("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(answer.size()) +
                       "\r\n\r\n" + answer);
      if (target == "/close") {
        s.close();
        closed.set();
        co_return;
      }
    }
  }};
  Server() { server.listen(Address::parse("127.0.0.1:0")); }
  std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(server.port()) + std::string(path);
  }
};

Task<HttpResponse> post(HttpClient& client, std::string url) {
  HttpRequest request;
  request.url = std::move(url);
  request.method = "POST";
  request.body = "x";
  request.raise_error = false;
  co_return co_await client.fetch(std::move(request));
}

TEST_F(ClientReuseTest, APostRedirectedBy307Or308IsAnsweredThoughTheServerDropsThatConnection) {
  auto body = []() -> Task<void> {
    Server s;
    HttpClient client;
    for (std::string path : {"/307", "/308"}) {
      HttpResponse r = co_await post(client, s.url(path));
      EXPECT_EQ(r.code, 200) << path;
      EXPECT_EQ(r.body, "POST x") << path;
      EXPECT_FALSE(r.reused_connection);
    }
    EXPECT_EQ(s.refused, 0) << "a POST went to a connection the server was dropping";
    EXPECT_EQ(client.stats().retries, 0u);
    EXPECT_EQ(client.stats().connections_opened, 4u);
    client.close();
    co_await s.server.stop();
  };
  run(body());
}

TEST_F(ClientReuseTest, APostNeverTakesAnIdleConnectionAndAGetDoes) {
  auto body = []() -> Task<void> {
    Server s;
    HttpClient client;
    EXPECT_EQ((co_await client.fetch(s.url("/ok"))).code, 200);
    HttpResponse p = co_await post(client, s.url("/ok"));
    EXPECT_EQ(p.body, "POST x");
    EXPECT_FALSE(p.reused_connection);
    HttpResponse g = co_await client.fetch(s.url("/ok"));
    EXPECT_TRUE(g.reused_connection);
    EXPECT_EQ(client.stats().connections_opened, 2u);
    client.close();
    co_await s.server.stop();
  };
  run(body());
}

TEST_F(ClientReuseTest, AConnectionTheServerClosedWhileIdleIsReplacedWithoutATry) {
  auto body = []() -> Task<void> {
    Server s;
    HttpClient client;
    EXPECT_EQ((co_await client.fetch(s.url("/close"))).code, 200);
    co_await s.closed.wait();
    co_await sleep(1ms);  // the loop polls and sees the connection's end
    HttpResponse r = co_await client.fetch(s.url("/ok"));
    EXPECT_EQ(r.code, 200);
    EXPECT_FALSE(r.reused_connection);
    EXPECT_EQ(client.stats().retries, 0u) << "the closed connection was tried";
    EXPECT_EQ(client.stats().connections_opened, 2u);
    client.close();
    co_await s.server.stop();
  };
  run(body());
}

TEST_F(ClientReuseTest, AGetOnAConnectionThatDiesUnderItIsResentOnceOnANewOne) {
  auto body = []() -> Task<void> {
    Server s;
    HttpClient client;
    // The redirect's connection looks alive when the next hop takes it; the server drops it
    // when that request arrives.
    HttpResponse r = co_await client.fetch(s.url("/307"));
    EXPECT_EQ(r.code, 200);
    EXPECT_EQ(r.body, "GET ");
    EXPECT_EQ(s.refused, 1);
    EXPECT_EQ(client.stats().retries, 1u);
    client.close();
    co_await s.server.stop();
  };
  run(body());
}

// One keep-alive answer, then the peer waits for the client to close the connection.
TEST(SharedClient, GoesWithItsLoopClosingItsPooledConnections) {
  test::ReplyServer peer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true);
  std::string url = "http://127.0.0.1:" + std::to_string(peer.port()) + "/";
  {
    Loop loop;
    HttpResponse r = run_sync(HttpClient::shared().fetch(url));
    EXPECT_EQ(r.code, 200);
    // The loop goes with the shared client still open and its connection pooled.
  }
  EXPECT_TRUE(peer.closed_by_client());
  // The next loop gets a client of its own.
  Loop next;
  EXPECT_FALSE(HttpClient::shared().closed());
}

}  // namespace
}  // namespace squall::http
