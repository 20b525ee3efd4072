// HttpServer over real sockets: raw bytes for framing, limits and malformed heads; curl and
// Python's http.client as real clients; slowloris, graceful stop and SO_REUSEPORT workers.
#include "squall/http/server.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "squall/core.h"
#include "squall/http/parser.h"
#include "squall/net/tcp_client.h"
#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;
using test::LogCapture;
using test::Process;
using test::TempDir;

// --- a small client for the tests ------------------------------------------------------------

struct Reply {
  int status = 0;
  Headers headers;
  std::string body;
};

// Reads one response from `s` (after any 1xx, which it skips unless `keep_interim`).
Task<Reply> read_reply(Stream& s, std::string method = "GET", bool keep_interim = false) {
  HeaderView storage[64];
  ResponseView view;
  Reply reply;
  for (;;) {
    size_t previous = 0;
    ParseResult r;
    for (;;) {
      r = parse_response(s.buffered(), view, storage, {}, previous);
      if (r.status == ParseStatus::Ok) break;
      if (r.status != ParseStatus::Incomplete)
        throw Error(ErrorKind::Protocol, parse_status_message(r.status));
      previous = s.buffered().size();
      if (co_await s.read_more() == 0) throw Error(ErrorKind::Closed, "closed before a response");
    }
    ResponseHead head = to_head(view);
    s.consume(r.consumed);
    reply.status = head.status;
    reply.headers = head.headers;
    if (head.status >= 200 || keep_interim) {
      Framing f;
      if (response_framing(method, head, f) != ParseStatus::Ok)
        throw Error(ErrorKind::Protocol, "bad response framing");
      if (f.kind == BodyKind::Length) {
        while (s.buffered().size() < f.length) {
          if (co_await s.read_more() == 0) throw Error(ErrorKind::Closed, "short body");
        }
        reply.body.assign(s.buffered().substr(0, f.length));
        s.consume(f.length);
      } else if (f.kind == BodyKind::Chunked) {
        ChunkedDecoder decoder(MessageKind::Response);
        for (;;) {
          auto step = decoder.decode(s.buffered());
          reply.body.append(step.data);
          s.consume(step.consumed);
          if (step.status == ParseStatus::Ok) break;
          if (step.status != ParseStatus::Incomplete) throw Error(ErrorKind::Protocol, "chunks");
          if (s.buffered().empty() && co_await s.read_more() == 0)
            throw Error(ErrorKind::Closed, "short chunked body");
        }
      } else if (f.kind == BodyKind::UntilClose) {
        reply.body = co_await s.read_until_close();
      }
      co_return reply;
    }
  }
}

Task<Stream> connect(uint16_t port) {
  co_return co_await tcp_connect("127.0.0.1", port);
}

// Sends `bytes` and reads everything until the server closes.
Task<std::string> exchange(uint16_t port, std::string bytes) {
  Stream s = co_await connect(port);
  co_await s.write(bytes);
  co_return co_await s.read_until_close();
}

// Whether the server has closed `s` (reads to the end; bytes left are a failure).
Task<bool> closed_by_server(Stream& s) {
  std::string rest = co_await s.read_until_close();
  co_return rest.empty();
}

Task<void> hello(ServerRequest& request, ServerResponse& response) {
  response.headers().set("Content-Type", "text/plain");
  co_await response.write("hello ");
  co_await response.write(request.path());
}

Task<void> echo_body(ServerRequest& request, ServerResponse& response) {
  std::string body = co_await request.body();
  co_await response.write(body);
}

class HttpServerTest : public test::LoopTest {
 protected:
  HttpServer& start(Handler handler, HttpServerOptions options = {}) {
    server_ = std::make_unique<HttpServer>(std::move(handler), std::move(options));
    server_->listen(Address::parse("127.0.0.1:0"));
    return *server_;
  }
  uint16_t port() const { return server_->port(); }
  // Every test ends with a graceful stop, so the fixture sees nothing left behind.
  Task<void> stop() { co_await server_->stop(2s); }

  std::unique_ptr<HttpServer> server_;
};

// --- basics ----------------------------------------------------------------------------------

TEST_F(HttpServerTest, AnswersWithLengthDateAndServerAndKeepsTheConnection) {
  start(hello);
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "hello /a");
    EXPECT_EQ(r.headers.get("Content-Length"), "8");
    EXPECT_EQ(r.headers.get("Content-Type"), "text/plain");
    EXPECT_EQ(r.headers.get("Server"), "squall");
    EXPECT_TRUE(r.headers.get("Date").value_or("").ends_with(" GMT"));
    EXPECT_FALSE(r.headers.contains("Connection"));
    co_await c.write("GET /b?x=1 HTTP/1.1\r\nHost: x\r\n\r\n");
    r = co_await read_reply(c);
    EXPECT_EQ(r.body, "hello /b");
    EXPECT_EQ(server_->requests_served(), 2u);
    co_await stop();
  }());
}

TEST_F(HttpServerTest, RequestAccessorsSeeTheHead) {
  start([](ServerRequest& q, ServerResponse& r) -> Task<void> {
    std::string out;
    out.append(q.method()).append("|").append(q.target()).append("|").append(q.path());
    out.append("|").append(q.query()).append("|").append(q.header("x-thing").value_or("-"));
    out.append("|").append(q.headers().get("X-Thing").value_or("-"));
    out.append("|").append(q.remote_ip()).append("|").append(q.protocol());
    out.append("|").append(q.keep_alive() ? "keep" : "close");
    co_await r.write(out);
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("DELETE /p/q?a=1&b HTTP/1.1\r\nHost: x\r\nX-Thing:  v 1 \r\n\r\n");
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.body, "DELETE|/p/q?a=1&b|/p/q|a=1&b|v 1|v 1|127.0.0.1|http|keep");
    co_await c.write(
        "GET http://example.com/abs?z HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    r = co_await read_reply(c);
    EXPECT_EQ(r.body, "GET|http://example.com/abs?z|/abs|z|-|-|127.0.0.1|http|close");
    co_await stop();
  }());
}

TEST_F(HttpServerTest, XHeadersNameTheClientBehindAProxyOnlyWhenTrusted) {
  auto handler = [](ServerRequest& q, ServerResponse& r) -> Task<void> {
    std::string out(q.remote_ip());
    out.append(" ").append(q.protocol());
    co_await r.write(out);
  };
  start(handler, {.xheaders = true});
  run([&]() -> Task<void> {
    std::string head =
        "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.0.0.1, 10.0.0.2\r\n"
        "X-Forwarded-Proto: https\r\nConnection: close\r\n\r\n";
    std::string all = co_await exchange(port(), head);
    EXPECT_TRUE(all.ends_with("\r\n\r\n10.0.0.2 https")) << all;
    co_await stop();
  }());
  start(handler);
  run([&]() -> Task<void> {
    std::string all = co_await exchange(
        port(), "GET / HTTP/1.1\r\nHost: x\r\nX-Real-Ip: 10.9.9.9\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(all.ends_with("\r\n\r\n127.0.0.1 http")) << all;
    co_await stop();
  }());
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrder) {
  start([](ServerRequest& q, ServerResponse& r) -> Task<void> {
    // The first request is the slowest: its answer must still come first.
    if (q.path() == "/1") co_await sleep(50ms);
    if (q.path() == "/2") co_await sleep(10ms);
    co_await r.write(q.path());
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write(
        "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n"
        "POST /3 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody"
        "GET /4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    for (std::string path : {"/1", "/2", "/3", "/4"}) {
      Reply r = co_await read_reply(c);
      EXPECT_EQ(r.body, path);
    }
    EXPECT_TRUE(co_await closed_by_server(c));
    co_await stop();
  }());
}

TEST_F(HttpServerTest, Http10ClosesUnlessItAsksForKeepAlive) {
  start(hello);
  run([&]() -> Task<void> {
    std::string all = co_await exchange(port(), "GET /x HTTP/1.0\r\n\r\n");
    EXPECT_TRUE(all.starts_with("HTTP/1.1 200 OK\r\n")) << all;
    EXPECT_NE(all.find("Connection: close\r\n"), std::string::npos) << all;
    EXPECT_TRUE(all.ends_with("hello /x"));

    Stream c = co_await connect(port());
    co_await c.write("GET /y HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.headers.get("Connection"), "keep-alive");
    EXPECT_EQ(r.body, "hello /y");
    co_await c.write("GET /z HTTP/1.0\r\n\r\n");
    r = co_await read_reply(c);
    EXPECT_EQ(r.body, "hello /z");
    EXPECT_TRUE(co_await closed_by_server(c));
    co_await stop();
  }());
}

TEST_F(HttpServerTest, ConnectionCloseFromEitherSideEndsTheConnection) {
  start([](ServerRequest& q, ServerResponse& r) -> Task<void> {
    if (q.path() == "/bye") r.headers().set("Connection", "close");
    co_await r.write("ok");
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.headers.get("Connection"), "close");
    EXPECT_TRUE(co_await closed_by_server(c));

    Stream d = co_await connect(port());
    co_await d.write("GET /bye HTTP/1.1\r\nHost: x\r\n\r\n");
    r = co_await read_reply(d);
    EXPECT_EQ(r.body, "ok");
    EXPECT_TRUE(co_await closed_by_server(d));
    co_await stop();
  }());
}

TEST_F(HttpServerTest, HeadSendsTheLengthGetWouldSendButNoBody) {
  start(hello);
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("HEAD /abc HTTP/1.1\r\nHost: x\r\n\r\nGET /abc HTTP/1.1\r\nHost: x\r\n\r\n");
    Reply r = co_await read_reply(c, "HEAD");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.headers.get("Content-Length"), "10");
    EXPECT_EQ(r.body, "");
    // The GET that follows parses cleanly: no body bytes were sent for the HEAD.
    r = co_await read_reply(c);
    EXPECT_EQ(r.body, "hello /abc");
    co_await stop();
  }());
}

TEST_F(HttpServerTest, NoContentAndNotModifiedCarryNoBody) {
  start([](ServerRequest& q, ServerResponse& r) -> Task<void> {
    r.set_status(q.path() == "/204" ? 204 : 304);
    co_await r.write("dropped");
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET /204 HTTP/1.1\r\nHost: x\r\n\r\nGET /304 HTTP/1.1\r\nHost: x\r\n\r\n");
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.status, 204);
    EXPECT_FALSE(r.headers.contains("Content-Length"));
    r = co_await read_reply(c);
    EXPECT_EQ(r.status, 304);
    co_await c.write("GET /204 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    std::string rest = co_await c.read_until_close();
    EXPECT_TRUE(rest.starts_with("HTTP/1.1 204 No Content\r\n")) << rest;
    EXPECT_TRUE(rest.ends_with("\r\n\r\n")) << rest;
    co_await stop();
  }());
}

TEST_F(HttpServerTest, StreamedResponsesAreChunkedForHttp11AndCloseDelimitedFor10) {
  start([](ServerRequest&, ServerResponse& r) -> Task<void> {
    r.set_status(201, "Made");
    co_await r.write("part one, ");
    co_await r.flush();
    EXPECT_TRUE(r.headers_sent());
    co_await r.write(std::string(100 * 1024, 'x'));  // past the buffer: sent on its own
    co_await r.write(", end");
    co_await r.finish();
    EXPECT_TRUE(r.finished());
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.status, 201);
    EXPECT_EQ(r.headers.get("Transfer-Encoding"), "chunked");
    EXPECT_EQ(r.body, std::string("part one, ").append(100 * 1024, 'x').append(", end"));
    std::string all = co_await exchange(port(), "GET / HTTP/1.0\r\n\r\n");
    EXPECT_TRUE(all.starts_with("HTTP/1.1 201 Made\r\n"));
    EXPECT_EQ(all.find("chunked"), std::string::npos);
    EXPECT_TRUE(
        all.ends_with(std::string("\r\n\r\npart one, ").append(100 * 1024, 'x').append(", end")));
    co_await stop();
  }());
}

TEST_F(HttpServerTest, SendFileSendsTheRangeWithItsLength) {
  TempDir dir;
  std::string contents;
  for (int i = 0; i < 20000; ++i) contents.append(std::to_string(i)).push_back(',');
  auto path = dir.write("f.txt", contents);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  start([fd](ServerRequest& q, ServerResponse& r) -> Task<void> {
    co_await r.write("<");
    if (q.path() == "/chunked") co_await r.flush();
    co_await r.send_file(fd, 10, q.path() == "/small" ? 5 : 90000);
    EXPECT_EQ(r.bytes_written(), q.path() == "/small" ? 6u : 90001u);
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET /small HTTP/1.1\r\nHost: x\r\n\r\nGET /big HTTP/1.1\r\nHost: x\r\n\r\n");
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.body, std::string("<").append(contents, 10, 5));
    r = co_await read_reply(c);
    EXPECT_EQ(r.headers.get("Content-Length"), "90001");
    EXPECT_EQ(r.body, std::string("<").append(contents, 10, 90000));
    // After the head went out without a length, the file goes out as one chunk.
    co_await c.write("GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n");
    r = co_await read_reply(c);
    EXPECT_EQ(r.headers.get("Transfer-Encoding"), "chunked");
    EXPECT_EQ(r.body, std::string("<").append(contents, 10, 90000));
    co_await stop();
  }());
  ::close(fd);
}

// --- request bodies --------------------------------------------------------------------------

TEST_F(HttpServerTest, BodiesWithLengthOrChunkedAreDecoded) {
  start([](ServerRequest& q, ServerResponse& r) -> Task<void> {
    std::string body = co_await q.body();
    std::string out = std::to_string(body.size()) + ":" + body;
    if (auto t = q.trailers().get("X-Sum")) out.append("|").append(*t);
    co_await r.write(out);
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
    EXPECT_EQ((co_await read_reply(c)).body, "5:hello");
    co_await c.write(
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "3;ext=1\r\nabc\r\n0A\r\n0123456789\r\n0\r\nX-Sum: 13\r\n\r\n");
    EXPECT_EQ((co_await read_reply(c)).body, "13:abc0123456789|13");
    // A body that arrives in pieces, after the handler started reading.
    co_await c.write("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nwi");
    co_await sleep(20ms);
    co_await c.write("ki\r\n");
    co_await sleep(20ms);
    co_await c.write("0\r\n\r\n");
    EXPECT_EQ((co_await read_reply(c)).body, "4:wiki");
    co_await stop();
  }());
}

TEST_F(HttpServerTest, ReadBodyStreamsInPiecesOfTheCallersSize) {
  start([](ServerRequest& q, ServerResponse& r) -> Task<void> {
    char piece[7];
    std::string out;
    while (size_t n = co_await q.read_body(piece)) out.append(piece, n).push_back('/');
    EXPECT_TRUE(q.body_complete());
    co_await r.write(out);
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write(
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "a\r\n0123456789\r\n2\r\nab\r\n0\r\n\r\n");
    // Size lines take room in the window too: never more data than the caller can take.
    EXPECT_EQ((co_await read_reply(c)).body, "0123/456789/ab/");
    co_await stop();
  }());
}

TEST_F(HttpServerTest, AnUnreadSmallBodyIsDrainedAndTheConnectionGoesOn) {
  start(hello, {.max_drain_size = 100});
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n");
    co_await c.write(std::string(50, 'z'));
    co_await c.write("GET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ((co_await read_reply(c)).body, "hello /a");
    EXPECT_EQ((co_await read_reply(c)).body, "hello /b");
    // Too big to drain: answered, then closed.
    co_await c.write("POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n");
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.body, "hello /c");
    EXPECT_EQ(r.headers.get("Connection"), "close");
    co_await stop();
  }());
}

TEST_F(HttpServerTest, ExpectContinueGetsAnInterimAnswerWhenTheBodyIsRead) {
  start([](ServerRequest& q, ServerResponse& r) -> Task<void> {
    if (q.path() == "/read")
      co_await r.write(co_await q.body());
    else
      co_await r.write("not reading");
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write(
        "PUT /read HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
    Reply interim = co_await read_reply(c, "PUT", true);
    EXPECT_EQ(interim.status, 100);
    co_await c.write("data");
    Reply r = co_await read_reply(c, "PUT");
    EXPECT_EQ(r.body, "data");

    // A handler that answers without reading: no 100, and the connection closes.
    co_await c.write(
        "PUT /skip HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\nExpect: 100-continue\r\n\r\n");
    std::string rest = co_await c.read_until_close();
    EXPECT_TRUE(rest.starts_with("HTTP/1.1 200 OK\r\n")) << rest;
    EXPECT_NE(rest.find("Connection: close"), std::string::npos);
    EXPECT_TRUE(rest.ends_with("not reading"));
    co_await stop();
  }());
}

// --- limits ----------------------------------------------------------------------------------

TEST_F(HttpServerTest, LimitsAnswerWithTheirStatusAndClose) {
  start(echo_body,
        {.max_request_line = 100, .max_header_size = 300, .max_headers = 5, .max_body_size = 10});
  run([&]() -> Task<void> {
    struct Case {
      std::string request;
      std::string status_line;
    };
    std::vector<Case> cases = {
        {std::string("GET /").append(200, 'a').append(" HTTP/1.1\r\nHost: x\r\n\r\n"),
         "HTTP/1.1 414 "},
        {std::string("GET / HTTP/1.1\r\nHost: x\r\nX: ").append(400, 'b').append("\r\n\r\n"),
         "HTTP/1.1 431 "},
        {"GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n",
         "HTTP/1.1 431 "},
        {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n01234567890", "HTTP/1.1 413 "},
        {"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
         "6\r\n012345\r\n6\r\n012345\r\n0\r\n\r\n",
         "HTTP/1.1 413 "},
    };
    for (const Case& c : cases) {
      std::string all = co_await exchange(port(), c.request);
      EXPECT_TRUE(all.starts_with(c.status_line)) << c.request.substr(0, 60) << " → " << all;
      EXPECT_NE(all.find("Connection: close\r\n"), std::string::npos);
    }
    // Right at the limits is fine.
    std::string all = co_await exchange(
        port(),
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nConnection: close\r\n\r\n0123456789");
    EXPECT_TRUE(all.starts_with("HTTP/1.1 200 ")) << all;
    co_await stop();
  }());
}

TEST_F(HttpServerTest, AHeadThatDoesNotArriveInTimeGets408) {
  start(hello, {.header_timeout = 100ms});
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET / HTTP/1.1\r\nHost:");
    std::string all = co_await c.read_until_close();
    EXPECT_TRUE(all.starts_with("HTTP/1.1 408 Request Timeout\r\n")) << all;
    // A connection that never sends a byte is closed without an answer.
    Stream d = co_await connect(port());
    EXPECT_TRUE(co_await closed_by_server(d));
    co_await stop();
  }());
}

TEST_F(HttpServerTest, AnIdleKeepAliveConnectionIsClosedSilently) {
  start(hello, {.idle_timeout = 100ms});
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ((co_await read_reply(c)).status, 200);
    EXPECT_TRUE(co_await closed_by_server(c));
    co_await stop();
  }());
}

TEST_F(HttpServerTest, ABodyThatStallsGets408WithBodyTimeout) {
  start(echo_body, {.body_timeout = 100ms});
  run([&]() -> Task<void> {
    std::string all =
        co_await exchange(port(), "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
    EXPECT_TRUE(all.starts_with("HTTP/1.1 408 ")) << all;
    co_await stop();
  }());
}

TEST_F(HttpServerTest, AClientThatReadsNothingIsCutOffAtTheWriteTimeout) {
  bool write_failed = false;
  auto big = [&](ServerRequest&, ServerResponse& response) -> Task<void> {
    try {
      // 64 MiB in 64 KiB writes: far more than the socket buffers and the high-water mark.
      for (int i = 0; i < 1024; ++i) co_await response.write(std::string(64 * 1024, 'x'));
    } catch (const NetError&) {
      write_failed = true;
      throw;
    }
  };
  start(big, {.write_timeout = 200ms});
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
    // The client reads nothing; the server gives up and closes the connection.
    for (int i = 0; i < 500 && server_->connection_count() != 0; ++i) co_await sleep(20ms);
    EXPECT_EQ(server_->connection_count(), 0u) << "still writing after 10 s";
    EXPECT_TRUE(write_failed);
    co_await stop();
  }());
}

TEST_F(HttpServerTest, MaxConnectionsHoldsFurtherClientsInTheBacklog) {
  start(hello, {.max_connections = 1});
  run([&]() -> Task<void> {
    Stream a = co_await connect(port());
    co_await a.write("GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ((co_await read_reply(a)).body, "hello /a");
    Stream b = co_await connect(port());  // the kernel accepts it into the backlog
    co_await b.write("GET /b HTTP/1.1\r\nHost: x\r\n\r\n");
    bool waited = false;
    try {
      co_await with_timeout(50ms, b.read_more());
    } catch (const TimeoutError&) {
      waited = true;
    }
    EXPECT_TRUE(waited);
    EXPECT_EQ(server_->connection_count(), 1u);
    a.close();
    EXPECT_EQ((co_await read_reply(b)).body, "hello /b");
    co_await stop();
  }());
}

// --- malformed heads and smuggling -------------------------------------------------------------

TEST_F(HttpServerTest, MalformedAndSmugglingShapesAreRefusedAndClosed) {
  std::atomic<int> handled{0};
  start([&](ServerRequest& q, ServerResponse& r) -> Task<void> {
    ++handled;
    co_await r.write(co_await q.body());
  });
  run([&]() -> Task<void> {
    struct Case {
      std::string request;
      int status;
    };
    const std::string tail = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
    std::vector<Case> cases = {
        {"GET / HTTP/1.1\nHost: x\n\n", 400},                                    // bare LF
        {"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n", 400},                // obs-fold
        {"GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400},                             // space before :
        {"GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400},                   // missing colon
        {std::string("GET / HTTP/1.1\r\nHost: x\r\nX: a\0b\r\n\r\n", 35), 400},  // NUL
        {"G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400},                              // bad method
        {"GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},                              // version
        {"GET / HTTX/1.1\r\nHost: x\r\n\r\n", 400},                              // version
        {"GET / HTTP/1.1\r\n\r\n", 400},                                         // no Host
        {"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},                   // two Hosts
        {"GET / HTTP/1.1\r\nHost: x\r\nExpect: magic\r\n\r\n", 417},             // expectation
        {std::string("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n") +
             tail,
         400},  // CL.TE
        {std::string(
             "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 40\r\n\r\nabc") +
             tail,
         400},  // two lengths
        {std::string("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc") + tail, 400},
        {std::string("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n") +
             tail,
         400},
        {"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501},
        {std::string("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") + tail, 400},
        {std::string("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n") +
             tail,
         400},
    };
    for (const Case& c : cases) {
      std::string all = co_await exchange(port(), c.request);
      std::string want = std::string("HTTP/1.1 ").append(std::to_string(c.status)).append(" ");
      EXPECT_TRUE(all.starts_with(want)) << c.request << " → " << all;
      EXPECT_EQ(all.find("smuggled"), std::string::npos) << all;
      // One answer only: nothing after the first response.
      EXPECT_EQ(all.find("HTTP/1.1", 1), std::string::npos) << all;
    }
    // Only the chunked body with a bad size reached a handler (it failed reading the body).
    EXPECT_EQ(handled.load(), 1);
    co_await stop();
  }());
}

// --- handlers --------------------------------------------------------------------------------

TEST_F(HttpServerTest, AHandlerExceptionIs500WithALogLineAndDetailsOnlyInDebug) {
  auto failing = [](ServerRequest&, ServerResponse& r) -> Task<void> {
    co_await r.write("partial");  // buffered, never sent
    throw std::runtime_error("secret detail");
  };
  LogCapture logs;
  start(failing);
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET /boom HTTP/1.1\r\nHost: x\r\n\r\n");
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.status, 500);
    EXPECT_EQ(r.body, "500 Internal Server Error\n");
    // The connection survives a handler's failure.
    co_await c.write("GET /boom HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ((co_await read_reply(c)).status, 500);
    co_await stop();
  }());
  EXPECT_TRUE(logs.contains("GET /boom")) << ::testing::PrintToString(logs.lines());
  EXPECT_TRUE(logs.contains("secret detail"));

  start(failing, {.debug = true});
  run([&]() -> Task<void> {
    std::string all =
        co_await exchange(port(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_NE(all.find("secret detail"), std::string::npos) << all;
    co_await stop();
  }());
}

TEST_F(HttpServerTest, AFailureAfterTheHeadWasSentCutsTheConnection) {
  start([](ServerRequest&, ServerResponse& r) -> Task<void> {
    co_await r.write("begun");
    co_await r.flush();
    throw std::runtime_error("late failure");
  });
  LogCapture logs;
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    std::string all = co_await c.read_until_close();
    EXPECT_TRUE(all.starts_with("HTTP/1.1 200 OK\r\n"));
    // The chunked body never ends: the client sees the close as a broken response.
    EXPECT_EQ(all.find("0\r\n\r\n"), std::string::npos) << all;
    co_await stop();
  }());
  EXPECT_TRUE(logs.contains("late failure"));
}

TEST_F(HttpServerTest, ABadResponseHeaderIsRefusedNotSent) {
  start([](ServerRequest&, ServerResponse& r) -> Task<void> {
    r.headers().set("Location", "/x\r\nSet-Cookie: evil=1");
    co_await r.write("x");
  });
  LogCapture logs;
  run([&]() -> Task<void> {
    std::string all =
        co_await exchange(port(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_TRUE(all.starts_with("HTTP/1.1 500 ")) << all;
    EXPECT_EQ(all.find("evil"), std::string::npos) << all;
    co_await stop();
  }());
  EXPECT_TRUE(logs.contains("response header Location")) << ::testing::PrintToString(logs.lines());
}

TEST_F(HttpServerTest, EveryRequestMakesOneAccessLogEntry) {
  std::vector<std::string> entries;
  HttpServerOptions options;
  options.access_log_sink = [&](const AccessLogEntry& e) {
    entries.push_back(std::string(e.method) + " " + std::string(e.target) + " " +
                      std::to_string(e.status) + " " + std::to_string(e.bytes));
  };
  start(hello, options);
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET /one HTTP/1.1\r\nHost: x\r\n\r\nHEAD /two HTTP/1.1\r\nHost: x\r\n\r\n");
    co_await read_reply(c);
    co_await read_reply(c, "HEAD");
    co_await exchange(port(), "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n");
    co_await stop();
  }());
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0], "GET /one 200 10");
  EXPECT_EQ(entries[1], "HEAD /two 200 10");
  EXPECT_EQ(entries[2].substr(0, 9), "GET / 400");

  LogCapture logs;
  start(hello, {.access_log = true});
  run([&]() -> Task<void> {
    co_await exchange(port(), "GET /logged HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    co_await stop();
  }());
  EXPECT_TRUE(logs.contains("\"GET /logged HTTP/1.1\" 200 13 "))
      << ::testing::PrintToString(logs.lines());
}

// --- stopping --------------------------------------------------------------------------------

TEST_F(HttpServerTest, StopFinishesRequestsInFlightAndClosesIdleConnections) {
  Event started;
  start([&](ServerRequest&, ServerResponse& r) -> Task<void> {
    started.set();
    co_await sleep(100ms);
    co_await r.write("finished");
  });
  run([&]() -> Task<void> {
    Stream idle = co_await connect(port());
    co_await idle.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    co_await read_reply(idle);
    started.clear();
    Stream busy = co_await connect(port());
    co_await busy.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    co_await started.wait();
    auto stopping = spawn(server_->stop(5s));
    Reply r = co_await read_reply(busy);
    EXPECT_EQ(r.body, "finished");
    EXPECT_EQ(r.headers.get("Connection"), "close");
    EXPECT_TRUE(co_await closed_by_server(busy));
    EXPECT_TRUE(co_await closed_by_server(idle));
    co_await stopping;
    EXPECT_EQ(server_->connection_count(), 0u);
    // Nobody listens any more.
    bool refused = false;
    try {
      co_await connect(port());
    } catch (const NetError&) {
      refused = true;
    }
    EXPECT_TRUE(refused);
  }());
}

TEST_F(HttpServerTest, StopKillsWhatOutlivesTheGrace) {
  Event started;
  start([&](ServerRequest&, ServerResponse& r) -> Task<void> {
    started.set();
    co_await sleep(1h);
    co_await r.write("never");
  });
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    co_await started.wait();
    co_await server_->stop(50ms);
    EXPECT_TRUE(co_await closed_by_server(c));
  }());
}

TEST_F(HttpServerTest, StopRunsTheStopHookOfAHandlerInFlightOnceAndOnlyWhileItRuns) {
  Event started, told;
  int hooks = 0;
  start([&](ServerRequest& q, ServerResponse& r) -> Task<void> {
    if (q.path() == "/quick") {
      r.on_server_stop([&] { ++hooks; });  // dropped when this handler returns
      co_return;
    }
    r.on_server_stop([&] {
      ++hooks;
      told.set();
    });
    started.set();
    co_await told.wait();  // a long answer (a stream of events, say) that ends when told
    co_await r.write("told");
  });
  run([&]() -> Task<void> {
    Stream quick = co_await connect(port());
    co_await quick.write("GET /quick HTTP/1.1\r\nHost: x\r\n\r\n");
    co_await read_reply(quick);
    Stream c = co_await connect(port());
    co_await c.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    co_await started.wait();
    EXPECT_EQ(hooks, 0);
    co_await server_->stop();  // no grace limit: returns because the hook ended the handler
    EXPECT_EQ(hooks, 1);
    Reply r = co_await read_reply(c);
    EXPECT_EQ(r.body, "told");
    EXPECT_EQ(r.headers.get("Connection"), "close");
  }());
}

// --- switching protocols ---------------------------------------------------------------------

// Switches to a line echo protocol ("Upgrade: echo"); answers anything else with the errors
// upgrade() gives.
Task<void> upgrade_to_echo(ServerRequest& q, ServerResponse& r) {
  ResponseHead head;
  head.status = 101;
  head.headers.add("Upgrade", "echo");
  head.headers.add("Connection", "Upgrade");
  if (q.path() == "/wrong-status") {
    head.status = 200;
    std::string error;
    try {
      co_await r.upgrade(head);
    } catch (const InvalidArgumentError& e) {
      error = e.what();
    }
    co_await r.write(error.empty() ? "upgraded" : "refused");
    co_return;
  }
  if (q.path() == "/late") {
    co_await r.write("a body first");
    co_await r.flush();
    bool refused = false;
    try {
      co_await r.upgrade(head);
    } catch (const InvalidStateError&) {
      refused = true;
    }
    co_await r.write(refused ? " then refused" : " then upgraded");
    co_return;
  }
  Stream stream = co_await r.upgrade(head);
  // The server reads and writes this connection no more: it is ours, with what the client
  // sent after its request already buffered.
  for (;;) {
    std::string line = co_await stream.read_until("\n", 1024);
    if (line == "bye\n") break;
    co_await stream.write(line);
  }
  co_await stream.write("from " + std::string(q.remote_ip()) + " " + std::string(q.path()));
}

TEST_F(HttpServerTest, UpgradeHandsTheConnectionToTheHandler) {
  struct Logged {
    int status;
    std::string peer;  // an entry's views live only during the callback
  };
  std::vector<Logged> log;
  HttpServerOptions options;
  options.access_log_sink = [&](const AccessLogEntry& e) {
    log.push_back({e.status, std::string(e.peer)});
  };
  start(upgrade_to_echo, options);
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\n\r\none\n");
    std::string head = co_await c.read_until("\r\n\r\n", 4096);
    EXPECT_TRUE(head.starts_with("HTTP/1.1 101 Switching Protocols\r\n")) << head;
    EXPECT_NE(head.find("Upgrade: echo\r\n"), std::string::npos) << head;
    EXPECT_EQ(co_await c.read_until("\n"), "one\n");  // sent with the request: not lost
    co_await c.write("two\nbye\n");
    EXPECT_EQ(co_await c.read_until("\n"), "two\n");
    EXPECT_EQ(co_await c.read_until_close(), "from 127.0.0.1 /echo");
    co_await stop();
  }());
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].status, 101);
  EXPECT_TRUE(log[0].peer.starts_with("127.0.0.1:"));
}

TEST_F(HttpServerTest, UpgradeRefusesAStatusOtherThan101AndALateCall) {
  start(upgrade_to_echo);
  run([&]() -> Task<void> {
    Stream c = co_await connect(port());
    co_await c.write("GET /wrong-status HTTP/1.1\r\nHost: x\r\n\r\n");
    Reply wrong = co_await read_reply(c);
    EXPECT_EQ(wrong.body, "refused");
    co_await c.write("GET /late HTTP/1.1\r\nHost: x\r\n\r\n");
    Reply late = co_await read_reply(c);
    EXPECT_EQ(late.status, 200);
    EXPECT_EQ(late.body, "a body first then refused");
    co_await stop();
  }());
}

// --- many connections --------------------------------------------------------------------------

TEST_F(HttpServerTest, FiveHundredSlowlorisConnectionsDoNotStopOthersBeingServed) {
  start(hello);
  run(
      [&]() -> Task<void> {
        std::vector<Stream> slow;
        for (int i = 0; i < 500; ++i) {
          slow.push_back(co_await connect(port()));
          co_await slow.back().write("GET / HTTP/1.1\r\nHost: x\r\n");
        }
        bool dripping = true;
        auto drip = [&]() -> Task<void> {
          // Each slow client sends one more header byte now and then, never finishing.
          while (dripping) {
            for (auto& s : slow) co_await s.write("X");
            co_await sleep(20ms);
          }
        };
        auto dripper = spawn(drip());
        Stream c = co_await connect(port());
        for (int i = 0; i < 20; ++i) {
          co_await c.write("GET /n HTTP/1.1\r\nHost: x\r\n\r\n");
          EXPECT_EQ((co_await with_timeout(5s, read_reply(c))).body, "hello /n");
        }
        EXPECT_EQ(server_->connection_count(), 501u);
        dripping = false;
        co_await dripper;
        slow.clear();
        co_await stop();
      }(),
      60s);
}

// Bytes the allocator has handed out and not had back (glibc's count; sanitizers replace it).
size_t heap_in_use() {
  return ::mallinfo2().uordblks;
}

TEST_F(HttpServerTest, AnIdleKeepAliveConnectionHoldsUnderOneAndAHalfKibibytes) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator is not glibc's: mallinfo2 does not count it";
#endif
  // What 10,000 idle keep-alive clients cost the server, counted in bytes: the request state,
  // the read buffer and the frames of a request are given back between requests, so what stays
  // is the socket's stream, the connection's task and its one coroutine frame.
  constexpr size_t kClients = 400;
  constexpr size_t kMostBytesPerConnection = 1536;
  start(hello);
  run([&]() -> Task<void> {
    const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    const Address address = server_->address();
    // Raw blocking sockets, so that the clients allocate nothing on this heap; a blocking
    // connect completes in the listener's backlog, so they come in batches the loop accepts.
    auto open_client = [&] {
      Socket client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
      EXPECT_EQ(::connect(client.fd(), address.sockaddr_ptr(), address.length()), 0);
      EXPECT_EQ(::send(client.fd(), request.data(), request.size(), 0),
                static_cast<ssize_t>(request.size()));
      return client;
    };
    auto wait_served = [&](uint64_t n) -> Task<void> {
      while (server_->requests_served() < n) co_await sleep(1ms);
    };
    std::vector<Socket> clients;
    clients.reserve(kClients + 1);
    clients.push_back(open_client());  // the first connection warms the pools up
    co_await wait_served(1);
    co_await sleep(10ms);  // the response's last write and the idle wait begin
    size_t before = heap_in_use();
    while (clients.size() < kClients + 1) {
      for (int i = 0; i < 50; ++i) clients.push_back(open_client());
      co_await wait_served(clients.size());
    }
    co_await sleep(10ms);
    size_t after = heap_in_use();
    EXPECT_EQ(server_->connection_count(), kClients + 1);
    EXPECT_LE((after - before) / kClients, kMostBytesPerConnection)
        << (after - before) / kClients << " bytes per idle connection";
    char reply[256];
    for (Socket& client : clients) {
      ssize_t n = ::recv(client.fd(), reply, sizeof reply, MSG_DONTWAIT);
      EXPECT_GT(n, 0);
      EXPECT_TRUE(n > 0 && std::string_view(reply, static_cast<size_t>(n)).ends_with("hello /"));
    }
    clients.clear();
    co_await stop();
  }());
}

TEST(HttpWorkersTest, SeveralWorkersShareThePortAndEachAnswers) {
  HttpWorkers workers(3, Address::parse("127.0.0.1:0"), [] { return Handler(hello); });
  EXPECT_EQ(workers.size(), 3u);
  EXPECT_NE(workers.port(), 0);
  run_sync(
      [&]() -> Task<void> {
        // New connections until the kernel has given each worker some (SO_REUSEPORT hashes
        // the four-tuple, so a few hundred connections reach all three).
        for (int i = 0; i < 600; ++i) {
          std::string all = co_await exchange(
              workers.port(), "GET /w HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
          EXPECT_TRUE(all.ends_with("hello /w"));
          auto counts = workers.requests_served();
          if (i >= 30 && std::ranges::all_of(counts, [](uint64_t n) { return n > 0; })) break;
        }
      }(),
      60s);
  auto counts = workers.requests_served();
  ASSERT_EQ(counts.size(), 3u);
  for (uint64_t n : counts) EXPECT_GT(n, 0u);
  workers.stop(1s);
  workers.stop(1s);  // idempotent
}

// --- real clients ------------------------------------------------------------------------------

// Runs a client program to completion (blocking: the server runs on worker threads).
struct Ran {
  int status = -1;
  std::string output;
};
Ran run_program(const std::vector<std::string>& argv) {
  Process p = Process::start(argv);
  Ran r;
  r.status = p.wait(30s);
  r.output = p.output();
  return r;
}

Task<void> upload_echo(ServerRequest& q, ServerResponse& r) {
  std::string body = co_await q.body();
  std::string out = std::string(q.method()) + " " + std::to_string(body.size()) + " " +
                    (q.header("Transfer-Encoding") ? "chunked" : "length") + " ";
  out.append(body.substr(0, 10));
  co_await r.write(out);
}

TEST(HttpServerClientsTest, CurlHeadChunkedUploadContinueAndKeepAliveReuse) {
  HttpWorkers workers(1, Address::parse("127.0.0.1:0"), [] { return Handler(upload_echo); });
  std::string base = std::string("http://127.0.0.1:").append(std::to_string(workers.port()));
  TempDir dir;
  auto file = dir.write("upload.bin", std::string(300000, 'u'));

  Ran head = run_program({"curl", "-sS", "-I", base + "/h"});
  EXPECT_EQ(head.status, 0) << head.output;
  EXPECT_NE(head.output.find("HTTP/1.1 200 OK"), std::string::npos) << head.output;
  EXPECT_NE(head.output.find("Content-Length: 14"), std::string::npos) << head.output;

  Ran chunked = run_program({"curl", "-sS", "-H", "Transfer-Encoding: chunked", "--data-binary",
                             std::string("@").append(file.string()), base + "/up"});
  EXPECT_EQ(chunked.output, "POST 300000 chunked uuuuuuuuuu");

  Ran cont = run_program(
      {"curl", "-sS", "-v", "-H", "Expect: 100-continue", "-T", file.string(), base + "/put"});
  EXPECT_NE(cont.output.find("HTTP/1.1 100 Continue"), std::string::npos) << cont.output;
  EXPECT_NE(cont.output.find("PUT 300000 length uuuuuuuuuu"), std::string::npos);

  Ran reuse = run_program({"curl", "-sS", "-v", base + "/1", base + "/2", base + "/3"});
  EXPECT_NE(reuse.output.find("Re-using existing connection"), std::string::npos) << reuse.output;
  // Counted once the worker has stopped: a worker counts an exchange after its last byte is
  // written, so curl may have read the answer and exited before the count moved.
  workers.stop(1s);
  EXPECT_EQ(workers.requests_served()[0], 6u);
}

TEST(HttpServerClientsTest, PythonHttpClientKeepsOneConnectionForManyRequests) {
  HttpWorkers workers(1, Address::parse("127.0.0.1:0"), [] { return Handler(upload_echo); });
  std::string script =
      "import http.client, sys\n"
      "c = http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]))\n"
      "for i in range(5):\n"
      "    c.request('POST', '/p', body=b'x' * i * 1000)\n"
      "    r = c.getresponse()\n"
      "    print(r.status, r.read().decode(), c.sock is not None)\n"
      "c.request('HEAD', '/h')\n"
      "r = c.getresponse()\n"
      "print(r.status, r.getheader('Content-Length'), repr(r.read()))\n";
  Ran py = run_program({"/usr/bin/python3", "-c", script, std::to_string(workers.port())});
  EXPECT_EQ(py.output,
            "200 POST 0 length  True\n"
            "200 POST 1000 length xxxxxxxxxx True\n"
            "200 POST 2000 length xxxxxxxxxx True\n"
            "200 POST 3000 length xxxxxxxxxx True\n"
            "200 POST 4000 length xxxxxxxxxx True\n"
            "200 14 b''\n");
  workers.stop(1s);
}

// The example binary, when built beside this test: serves until SIGTERM, then stops cleanly.
TEST(HttpServerClientsTest, TheNoblockExampleStopsGracefullyOnSigterm) {
  auto exe = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() /
             "examples" / "noblock";
  if (!std::filesystem::exists(exe)) GTEST_SKIP() << "examples/noblock is not built";
  uint16_t port = test::free_port();
  Process server = Process::start({exe.string(), "--port", std::to_string(port)});
  test::wait_for_port(port, "noblock", &server);
  Ran curl = run_program(
      {"curl", "-sS",
       std::string("http://127.0.0.1:").append(std::to_string(port)).append("/api/noblock")});
  EXPECT_EQ(curl.output, "abc");
  int status = server.stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << server.output();
  EXPECT_NE(server.output().find("stopping"), std::string::npos);
}

}  // namespace
}  // namespace squall::http
