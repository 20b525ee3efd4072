// WireCapture: the client tells each exchange's connection, heads and bytes as they crossed the
// wire, against nginx on loopback.
#include "squall/http/wire_capture.h"

#include <gtest/gtest.h>

#include "squall/http/client.h"
#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;

// Every call, in order, as text.
struct Recorder final : WireCapture {
  struct Exchange {
    std::string url, peer;
    bool reused = false;
    std::string request_head, sent, response_heads, received, payload;
    std::optional<bool> complete;
  };
  std::vector<Exchange> exchanges;

  void begin(const Url& url, const Connection& connection) override {
    Exchange& x = exchanges.emplace_back();
    x.url = url.href();
    x.peer = connection.peer;
    x.reused = connection.reused;
  }
  void request_head(std::string_view head) override { exchanges.back().request_head.append(head); }
  void sent(std::string_view bytes) override { exchanges.back().sent.append(bytes); }
  void response_head(std::string_view head) override {
    exchanges.back().response_heads.append(head);
  }
  void received(std::string_view bytes) override { exchanges.back().received.append(bytes); }
  void payload(std::string_view bytes) override { exchanges.back().payload.append(bytes); }
  void end(bool complete) override { exchanges.back().complete = complete; }
};

TEST(WireCaptureConnection, TheAddressIsTheOneInThePeersName) {
  auto address = [](std::string_view peer) {
    auto a = WireCapture::Connection{peer}.address();
    return a ? a->to_string() : std::string("none");
  };
  EXPECT_EQ(address("127.0.0.1:8080"), "127.0.0.1:8080");
  EXPECT_EQ(address("[::1]:443"), "[::1]:443");
  EXPECT_EQ(address("example.com (93.184.216.34:443)"), "93.184.216.34:443");
  EXPECT_EQ(address("example.com ([2001:db8::1]:80)"), "[2001:db8::1]:80");
  EXPECT_EQ(address("nowhere"), "none");
  EXPECT_EQ(address("example.com:80"), "none") << "a name is not an address";
}

class WireCaptureTest : public test::LoopTest {
 protected:
  WireCaptureTest() {
    dir_.write("site/page.html", "<p>" + std::string(5000, 'x') + "</p>");
    nginx_ = test::start_nginx(dir_,
                               "location / { root " + (dir_.path() / "site").string() +
                                   "; }\n"
                                   "location = /moved { return 302 /page.html; }\n"
                                   "location = /post { return 200 'posted'; }\n",
                               port_, "", "gzip on; gzip_min_length 1; gzip_types text/html;");
  }
  // Fetches `req` on a client of its own, closed afterwards.
  HttpResponse fetch(HttpRequest req) {
    return run([](HttpRequest req) -> Task<HttpResponse> {
      HttpClient client;
      HttpResponse out = co_await client.fetch(std::move(req));
      client.close();
      co_return out;
    }(std::move(req)));
  }
  std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  test::TempDir dir_;
  uint16_t port_ = test::free_port();
  test::Process nginx_;
};

TEST_F(WireCaptureTest, EachHopIsAnExchangeWithItsBytesAsWrittenAndRead) {
  Recorder recorder;
  HttpRequest req;
  req.url = url("/moved");
  req.capture = &recorder;
  HttpResponse r = fetch(std::move(req));
  EXPECT_EQ(r.code, 200);
  ASSERT_EQ(recorder.exchanges.size(), 2u);
  const std::string authority = "127.0.0.1:" + std::to_string(port_);

  const auto& hop = recorder.exchanges[0];
  EXPECT_EQ(hop.url, url("/moved"));
  EXPECT_EQ(hop.peer, authority);
  EXPECT_FALSE(hop.reused);
  EXPECT_TRUE(hop.request_head.starts_with("GET /moved HTTP/1.1\r\nHost: " + authority + "\r\n"))
      << hop.request_head;
  EXPECT_TRUE(hop.request_head.ends_with("\r\n\r\n"));
  EXPECT_EQ(hop.sent, "");
  EXPECT_TRUE(hop.response_heads.starts_with("HTTP/1.1 302 Moved Temporarily\r\n"))
      << hop.response_heads;
  EXPECT_TRUE(hop.response_heads.ends_with("\r\n\r\n"));
  EXPECT_EQ(hop.complete, true);

  const auto& page = recorder.exchanges[1];
  EXPECT_EQ(page.url, url("/page.html"));
  EXPECT_TRUE(page.reused) << "the redirect's connection is kept alive";
  EXPECT_TRUE(page.request_head.starts_with("GET /page.html HTTP/1.1\r\n")) << page.request_head;
  EXPECT_NE(page.request_head.find("\r\nAccept-Encoding: "), std::string::npos)
      << page.request_head;
  const std::string& head = page.response_heads;
  EXPECT_EQ(head.find("\r\n\r\n"), head.size() - 4) << "one head, ending where the body begins";
  EXPECT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Encoding: gzip\r\n"), std::string::npos) << head;
  // The payload is the gzip stream without its chunk framing: the response body decoded from it.
  EXPECT_TRUE(page.payload.starts_with("\x1f\x8b"));
  EXPECT_LT(page.payload.size(), page.received.size());
  EXPECT_TRUE(page.received.ends_with("0\r\n\r\n"));
  EXPECT_EQ(r.body, "<p>" + std::string(5000, 'x') + "</p>");
  EXPECT_EQ(page.complete, true);
}

TEST_F(WireCaptureTest, ABodySentWithItsHeadComesApartFromTheHead) {
  Recorder recorder;
  HttpRequest req;
  req.url = url("/post");
  req.method = "POST";
  req.body = "a=1&b=2";
  req.capture = &recorder;
  HttpResponse r = fetch(std::move(req));
  EXPECT_EQ(r.code, 200);
  ASSERT_EQ(recorder.exchanges.size(), 1u);
  const auto& x = recorder.exchanges[0];
  EXPECT_TRUE(x.request_head.starts_with("POST /post HTTP/1.1\r\n")) << x.request_head;
  EXPECT_NE(x.request_head.find("\r\nContent-Length: 7\r\n"), std::string::npos) << x.request_head;
  EXPECT_TRUE(x.request_head.ends_with("\r\n\r\n")) << x.request_head;
  EXPECT_EQ(x.sent, "a=1&b=2");
  EXPECT_EQ(x.received, "posted");
}

TEST_F(WireCaptureTest, AProducedBodyIsCapturedWithItsChunkFraming) {
  Recorder recorder;
  HttpRequest req;
  req.url = url("/post");
  req.method = "POST";
  req.body_producer = [](BodyWriter& w) -> Task<void> {
    co_await w.write("ab");
    co_await w.write("cde");
  };
  req.capture = &recorder;
  HttpResponse r = fetch(std::move(req));
  EXPECT_EQ(r.code, 200);
  ASSERT_EQ(recorder.exchanges.size(), 1u);
  const std::string& head = recorder.exchanges[0].request_head;
  EXPECT_TRUE(head.starts_with("POST /post HTTP/1.1\r\n")) << head;
  EXPECT_NE(head.find("\r\nTransfer-Encoding: chunked\r\n"), std::string::npos) << head;
  EXPECT_EQ(recorder.exchanges[0].sent, "2\r\nab\r\n3\r\ncde\r\n0\r\n\r\n");
  EXPECT_EQ(recorder.exchanges[0].received, "posted");
  EXPECT_EQ(recorder.exchanges[0].payload, "posted");
}

TEST_F(WireCaptureTest, AFailedExchangeEndsIncomplete) {
  Recorder recorder;
  HttpRequest req;
  req.url = url("/page.html");
  req.max_body_size = 100;  // the body is larger: the exchange fails part way
  req.raise_error = false;
  req.decompress_response = false;
  req.capture = &recorder;
  HttpResponse r = fetch(std::move(req));
  EXPECT_EQ(r.code, 599);
  ASSERT_EQ(recorder.exchanges.size(), 1u);
  EXPECT_TRUE(recorder.exchanges[0].response_heads.starts_with("HTTP/1.1 200 OK\r\n"));
  EXPECT_EQ(recorder.exchanges[0].complete, false);
}

}  // namespace
}  // namespace squall::http
