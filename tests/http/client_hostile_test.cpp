// HttpClient against a server written here to misbehave, and the request queue's contract.
#include <gtest/gtest.h>
#include <zlib.h>

#include <map>
#include <string>
#include <vector>

#include "squall/core.h"
#include "squall/http/client.h"
#include "squall/http/parser.h"
#include "squall/net/net_error.h"
#include "squall/net/tcp_server.h"
#include "support/loop_fixture.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;

class ClientHostileTest : public test::LoopTest {};

// The path of a request head, without the query ("GET /x HTTP/1.1\r\n...").
std::string path_of(std::string_view head) {
  size_t a = head.find(' ');
  size_t b = head.find(' ', a + 1);
  std::string_view target = head.substr(a + 1, b - a - 1);
  return std::string(target.substr(0, target.find('?')));
}

// Writes `bytes` forever (until the client goes away): the endless cases.
Task<void> forever(Stream& s, std::string bytes) {
  for (;;) co_await s.write(std::string_view(bytes));
}

// Reads a request body framed by the head's fields; the decoded bytes.
Task<std::string> read_request_body(Stream& s, std::string_view head) {
  std::array<HeaderView, 64> storage;
  RequestView view;
  ParseResult p = parse_request(head, view, storage);
  if (p.status != ParseStatus::Ok) throw std::runtime_error("test server: bad request head");
  Framing framing;
  if (is_error(request_framing(view.version, view.headers, framing)))
    throw std::runtime_error("test server: bad request framing");
  if (framing.kind == BodyKind::Length) co_return co_await s.read_bytes(framing.length);
  std::string body;
  if (framing.kind == BodyKind::Chunked) {
    ChunkedDecoder decoder(MessageKind::Request);
    for (;;) {
      if (s.buffered().empty() && co_await s.read_more() == 0)
        throw std::runtime_error("test server: chunked body cut short");
      auto step = decoder.decode(s.buffered());
      body.append(step.data);
      s.consume(step.consumed);
      if (step.status == ParseStatus::Ok) break;
      if (step.status != ParseStatus::Incomplete)
        throw std::runtime_error("test server: bad chunked body");
    }
  }
  co_return body;
}

std::string ok(std::string_view body, std::string_view extra = "") {
  std::string r = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  r += extra;
  r += "\r\n";
  r += body;
  return r;
}

// 16 MiB of zeros, gzipped to a few KiB.
std::string gzip_bomb() {
  static const std::string bomb = [] {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY);
    std::string zeros(1 << 20, '\0'), out;
    char buf[64 * 1024];
    for (int i = 0; i < 16; ++i) {
      z.next_in = reinterpret_cast<Bytef*>(zeros.data());
      z.avail_in = static_cast<uInt>(zeros.size());
      int flush = i == 15 ? Z_FINISH : Z_NO_FLUSH;
      do {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        deflate(&z, flush);
        out.append(buf, sizeof buf - z.avail_out);
      } while (z.avail_out == 0);
    }
    deflateEnd(&z);
    return out;
  }();
  return bomb;
}

// One misbehaviour per path; well-behaved answers for /ok, /echo and /expect.
Task<void> hostile(Stream& s) {
  for (;;) {
    std::string head;
    try {
      head = co_await s.read_until("\r\n\r\n", 64 * 1024);
    } catch (const NetError&) {
      co_return;
    }
    std::string path = path_of(head);
    if (path == "/ok") {
      co_await s.write(ok("fine"));
    } else if (path == "/echo") {
      std::string body = co_await read_request_body(s, head);
      co_await s.write(ok(body));
    } else if (path == "/expect") {
      if (head.find("Expect: 100-continue\r\n") == std::string::npos) {
        co_await s.write(ok("no expect"));
        continue;
      }
      co_await s.write("HTTP/1.1 100 Continue\r\n\r\n");
      std::string body = co_await read_request_body(s, head);
      co_await s.write(ok("after continue: " + body));
    } else if (path == "/expect-refused") {
      co_await s.write(
          "HTTP/1.1 417 Expectation Failed\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno");
      co_return;
    } else if (path == "/never") {
      co_await sleep(60s);
    } else if (path == "/empty-reply") {
      co_return;
    } else if (path == "/close-mid-header") {
      co_await s.write("HTTP/1.1 200 OK\r\nContent-Le");
      co_return;
    } else if (path == "/close-mid-body") {
      co_await s.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
      co_return;
    } else if (path == "/length-too-short") {
      co_await s.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n0123456789");
    } else if (path == "/length-too-long") {
      co_await s.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
      co_await sleep(60s);
    } else if (path == "/huge-length") {
      co_await s.write("HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n0123456789");
      co_await sleep(60s);
    } else if (path == "/endless-headers") {
      co_await s.write("HTTP/1.1 200 OK\r\n");
      co_await forever(s, "X-Endless: " + std::string(200, 'a') + "\r\n");
    } else if (path == "/endless-status-line") {
      co_await s.write("HTTP/1.1 200 ");
      co_await forever(s, std::string(1024, 'k'));
    } else if (path == "/too-many-headers") {
      std::string r = "HTTP/1.1 200 OK\r\n";
      for (int i = 0; i < 300; ++i) r += "X-" + std::to_string(i) + ": v\r\n";
      r += "Content-Length: 0\r\n\r\n";
      co_await s.write(r);
    } else if (path == "/endless-chunked") {
      co_await s.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      co_await forever(s, "400\r\n" + std::string(1024, 'c') + "\r\n");
    } else if (path == "/endless-until-close") {
      co_await s.write("HTTP/1.0 200 OK\r\n\r\n");
      co_await forever(s, std::string(4096, 'u'));
    } else if (path == "/until-close") {
      co_await s.write("HTTP/1.0 200 OK\r\n\r\nevery byte until the end");
      co_return;
    } else if (path == "/bad-chunk-size") {
      co_await s.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\nzz\r\n");
      co_await sleep(60s);
    } else if (path == "/bad-chunk-end") {
      co_await s.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n");
      co_await sleep(60s);
    } else if (path == "/bad-status-line") {
      co_await s.write("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n");
    } else if (path == "/not-http") {
      co_await s.write("SSH-2.0-OpenSSH_9.2\r\n\r\n");
    } else if (path == "/no-colon") {
      co_await s.write("HTTP/1.1 200 OK\r\nContent-Length 0\r\n\r\n");
    } else if (path == "/nul") {
      static constexpr char kNul[] = "HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n";
      co_await s.write(std::string_view(kNul, sizeof kNul - 1));
    } else if (path == "/conflicting-length") {
      co_await s.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc");
    } else if (path == "/bad-transfer-coding") {
      co_await s.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n");
    } else if (path == "/switching") {
      co_await s.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n");
      co_await sleep(60s);
    } else if (path == "/early-hints") {
      co_await s.write("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" + ok("after hints"));
    } else if (path == "/drip") {
      std::string r = ok("drip drip drip");
      for (char c : r) {
        co_await s.write(std::string_view(&c, 1));
        co_await sleep(1s);
      }
    } else if (path == "/redirect-loop") {
      co_await s.write(
          "HTTP/1.1 302 Found\r\nLocation: /redirect-loop\r\nContent-Length: 0\r\n\r\n");
    } else if (path == "/redirect-ftp") {
      co_await s.write(
          "HTTP/1.1 301 Moved\r\nLocation: ftp://127.0.0.1/file\r\nContent-Length: 0\r\n\r\n");
    } else if (path == "/redirect-javascript") {
      co_await s.write(
          "HTTP/1.1 302 Found\r\nLocation: javascript:alert(1)\r\nContent-Length: 0\r\n\r\n");
    } else if (path == "/redirect-relative") {
      co_await s.write(
          "HTTP/1.1 302 Found\r\nLocation: ./a/../ok?x=1#frag\r\nContent-Length: 0\r\n\r\n");
    } else if (path == "/reset") {
      // The request body is left unread: closing with unread bytes makes the kernel send RST.
      co_return;
    } else if (path == "/gzip-bomb") {
      co_await s.write(ok(gzip_bomb(), "Content-Encoding: gzip\r\n"));
    } else if (path == "/bad-gzip") {
      co_await s.write(ok("this is not gzip", "Content-Encoding: gzip\r\n"));
    } else if (path == "/unknown-coding") {
      co_await s.write(ok("abc", "Content-Encoding: compress\r\n"));
    } else if (path == "/trailers") {
      co_await s.write(
          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
          "4\r\nwiki\r\n5;ext=1\r\npedia\r\n0\r\nX-Checksum: 42\r\n\r\n");
    } else {
      co_await s.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    }
  }
}

struct Hostile {
  TcpServer server{hostile};
  Hostile() { server.listen(Address::parse("127.0.0.1:0")); }
  std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(server.port()) + std::string(path);
  }
};

ClientOptions limits() {
  ClientOptions o;
  o.max_header_size = 8 * 1024;
  o.max_body_size = 64 * 1024;
  o.defaults.request_timeout = 2s;
  o.defaults.connect_timeout = 2s;
  return o;
}

// A 599 (or status) response from fetch with raise_error off. (No default argument for the
// request: GCC 12 mishandles default arguments of coroutines.)
Task<HttpResponse> attempt(HttpClient& client, std::string url, HttpRequest request) {
  request.url = std::move(url);
  request.raise_error = false;
  co_return co_await client.fetch(std::move(request));
}
Task<HttpResponse> attempt(HttpClient& client, std::string url) {
  return attempt(client, std::move(url), HttpRequest{});
}

// The error on a response; a test failure when there is none.
HttpError error_of(const HttpResponse& r) {
  try {
    r.rethrow();
  } catch (const HttpError& e) {
    return e;
  }
  ADD_FAILURE() << "no error on the response";
  return HttpError(0, ErrorKind::InvalidState, "no error on the response");
}

HttpFailure failure_of(const HttpResponse& r) {
  return error_of(r).failure();
}

ErrorKind kind_of(const HttpResponse& r) {
  return error_of(r).kind();
}

std::string message_of(const HttpResponse& r) {
  try {
    r.rethrow();
  } catch (const HttpError& e) {
    return e.what();
  }
  return "";
}

struct Case {
  const char* path;
  ErrorKind kind;
  const char* words;  // part of the message
  HttpFailure failure = HttpFailure::Other;
};

TEST_F(ClientHostileTest, EachMisbehaviourEndsInACleanErrorAndTheClientKeepsServing) {
  const std::vector<Case> cases = {
      {"/never", ErrorKind::Timeout, "Timeout during request"},
      {"/empty-reply", ErrorKind::Closed, "without answering", HttpFailure::EmptyReply},
      {"/close-mid-header", ErrorKind::Closed, "middle of the response head"},
      {"/close-mid-body", ErrorKind::Closed, "middle of the body"},
      {"/length-too-long", ErrorKind::Timeout, "Timeout during request"},
      {"/huge-length", ErrorKind::TooLarge, "max_body_size"},
      {"/endless-headers", ErrorKind::TooLarge, "head too large"},
      {"/endless-status-line", ErrorKind::TooLarge, "start line too long"},
      {"/too-many-headers", ErrorKind::TooLarge, "too many headers"},
      {"/endless-chunked", ErrorKind::TooLarge, "max_body_size"},
      {"/endless-until-close", ErrorKind::TooLarge, "max_body_size"},
      {"/bad-chunk-size", ErrorKind::Protocol, "bad chunk size"},
      {"/bad-chunk-end", ErrorKind::Protocol, "bad chunk end"},
      {"/bad-status-line", ErrorKind::Protocol, "bad status line"},
      {"/not-http", ErrorKind::Protocol, "bad response head"},
      {"/no-colon", ErrorKind::Protocol, "bad header name"},
      {"/nul", ErrorKind::Protocol, "bad response head"},
      {"/conflicting-length", ErrorKind::Protocol, "conflicting content length"},
      {"/bad-transfer-coding", ErrorKind::Protocol, "framing"},
      {"/switching", ErrorKind::Protocol, "switched protocols"},
      {"/gzip-bomb", ErrorKind::TooLarge, "max_body_size"},
      {"/bad-gzip", ErrorKind::Protocol, "bad gzip data"},
      {"/unknown-coding", ErrorKind::Protocol, "compress"},
      {"/redirect-loop", ErrorKind::Protocol, "too many redirects", HttpFailure::TooManyRedirects},
      {"/redirect-ftp", ErrorKind::InvalidArgument, "'ftp:' URL is refused",
       HttpFailure::BadRedirect},
      {"/redirect-javascript", ErrorKind::InvalidArgument, "'javascript:' URL is refused",
       HttpFailure::BadRedirect},
  };
  auto body = [&]() -> Task<void> {
    Hostile h;
    ClientOptions o = limits();
    o.defaults.request_timeout = 1s;
    HttpClient client(o);
    for (const Case& c : cases) {
      TimePoint started = Loop::time();
      HttpResponse r = co_await attempt(client, h.url(c.path));
      EXPECT_EQ(r.code, 599) << c.path;
      EXPECT_EQ(kind_of(r), c.kind) << c.path << ": " << message_of(r);
      EXPECT_EQ(failure_of(r), c.failure) << c.path << ": " << message_of(r);
      EXPECT_NE(message_of(r).find(c.words), std::string::npos) << c.path << ": " << message_of(r);
      // Within its timeout (1 s), with room for a loaded machine.
      EXPECT_LT(Loop::time() - started, 10s) << c.path;
      EXPECT_LE(r.body.size(), 64u * 1024) << c.path;
      // The same client goes on serving.
      HttpResponse fine = co_await client.fetch(h.url("/ok"));
      EXPECT_EQ(fine.code, 200) << "after " << c.path;
      EXPECT_EQ(fine.body, "fine") << "after " << c.path;
    }
    client.close();
    co_await h.server.stop(100ms);
  };
  run(body());
}

TEST_F(ClientHostileTest, ASlowDripEndsAtTheRequestTimeout) {
  auto body = []() -> Task<void> {
    Hostile h;
    HttpClient client(limits());
    HttpRequest req;
    req.request_timeout = 1500ms;
    HttpResponse r = co_await attempt(client, h.url("/drip"), std::move(req));
    EXPECT_EQ(r.code, 599);
    EXPECT_EQ(kind_of(r), ErrorKind::Timeout);
    EXPECT_NE(message_of(r).find("Timeout during request"), std::string::npos) << message_of(r);
    EXPECT_EQ((co_await client.fetch(h.url("/ok"))).body, "fine");
    client.close();
    co_await h.server.stop(100ms);
  };
  run(body());
}

TEST_F(ClientHostileTest, AResetAfterTheRequestIsAClosedError) {
  auto body = []() -> Task<void> {
    Hostile h;
    HttpClient client(limits());
    HttpRequest req;
    req.method = "POST";
    req.body.assign(4 << 20, 'p');  // more than the server reads before it closes
    HttpResponse r = co_await attempt(client, h.url("/reset"), std::move(req));
    EXPECT_EQ(r.code, 599);
    EXPECT_EQ(kind_of(r), ErrorKind::Closed) << message_of(r);
    EXPECT_EQ((co_await client.fetch(h.url("/ok"))).body, "fine");
    client.close();
    co_await h.server.stop(100ms);
  };
  run(body());
}

TEST_F(ClientHostileTest, ExtraBytesAfterAShortContentLengthAreNotTakenForTheNextResponse) {
  auto body = []() -> Task<void> {
    Hostile h;
    HttpClient client(limits());
    HttpResponse r = co_await client.fetch(h.url("/length-too-short"));
    EXPECT_EQ(r.body, "01234");
    // The connection held stray bytes, so it was closed rather than pooled.
    EXPECT_EQ(client.stats().idle_connections, 0u);
    HttpResponse fine = co_await client.fetch(h.url("/ok"));
    EXPECT_EQ(fine.body, "fine");
    EXPECT_FALSE(fine.reused_connection);
    client.close();
    co_await h.server.stop(100ms);
  };
  run(body());
}

TEST_F(ClientHostileTest, InterimResponsesAreSkippedAndTrailersKept) {
  auto body = []() -> Task<void> {
    Hostile h;
    HttpClient client(limits());
    HttpResponse hints = co_await client.fetch(h.url("/early-hints"));
    EXPECT_EQ(hints.code, 200);
    EXPECT_EQ(hints.body, "after hints");
    HttpResponse t = co_await client.fetch(h.url("/trailers"));
    EXPECT_EQ(t.body, "wikipedia");
    EXPECT_EQ(t.trailers.get("X-Checksum"), "42");
    HttpResponse closed = co_await client.fetch(h.url("/until-close"));
    EXPECT_EQ(closed.body, "every byte until the end");
    client.close();
    co_await h.server.stop(100ms);
  };
  run(body());
}

TEST_F(ClientHostileTest, RelativeLocationsResolveAgainstTheRequestUrl) {
  auto body = []() -> Task<void> {
    Hostile h;
    HttpClient client(limits());
    HttpResponse r = co_await client.fetch(h.url("/redirect-relative"));
    EXPECT_EQ(r.body, "fine");
    EXPECT_EQ(r.effective_url, h.url("/ok?x=1"));
    EXPECT_EQ(r.redirect_chain, std::vector<std::string>{h.url("/redirect-relative")});
    client.close();
    co_await h.server.stop(100ms);
  };
  run(body());
}

TEST_F(ClientHostileTest, BodiesFromAProducerAreChunkedOrSizedAndExpectContinueWaitsForTheServer) {
  auto body = []() -> Task<void> {
    Hostile h;
    HttpClient client(limits());
    HttpRequest chunked;
    chunked.url = h.url("/echo");
    chunked.method = "POST";
    chunked.body_producer = [](BodyWriter& w) -> Task<void> {
      co_await w.write("hello ");
      co_await sleep(0ms);
      co_await w.write("chunked ");
      co_await w.write("world");
    };
    EXPECT_EQ((co_await client.fetch(std::move(chunked))).body, "hello chunked world");

    HttpRequest sized;
    sized.url = h.url("/echo");
    sized.method = "PUT";
    sized.headers.add("Content-Length", "10");
    sized.body_producer = [](BodyWriter& w) -> Task<void> {
      co_await w.write("01234");
      co_await w.write("56789");
    };
    EXPECT_EQ((co_await client.fetch(std::move(sized))).body, "0123456789");

    HttpRequest lying;
    lying.url = h.url("/echo");
    lying.method = "PUT";
    lying.raise_error = false;
    lying.headers.add("Content-Length", "3");
    lying.body_producer = [](BodyWriter& w) -> Task<void> { co_await w.write("too long"); };
    HttpResponse bad = co_await client.fetch(std::move(lying));
    EXPECT_EQ(bad.code, 599);
    EXPECT_EQ(kind_of(bad), ErrorKind::InvalidArgument);

    HttpRequest expect;
    expect.url = h.url("/expect");
    expect.method = "POST";
    expect.body = "the body";
    expect.expect_continue = true;
    EXPECT_EQ((co_await client.fetch(std::move(expect))).body, "after continue: the body");

    HttpRequest refused;
    refused.url = h.url("/expect-refused");
    refused.method = "POST";
    refused.body = "never sent";
    refused.expect_continue = true;
    refused.raise_error = false;
    HttpResponse no = co_await client.fetch(std::move(refused));
    EXPECT_EQ(no.code, 417);
    EXPECT_EQ(no.body, "no");

    HttpClient roomy;
    HttpRequest memory;
    memory.url = h.url("/echo");
    memory.method = "POST";
    memory.body.assign(200 * 1024, 'm');  // past the one-write size
    EXPECT_EQ((co_await roomy.fetch(std::move(memory))).body.size(), 200u * 1024);
    roomy.close();
    client.close();
    co_await h.server.stop(100ms);
  };
  run(body());
}

TEST_F(ClientHostileTest, BadUrlsAndHeadersFailBeforeAnythingIsSent) {
  auto body = []() -> Task<void> {
    HttpClient client(limits());
    // As in a browser (and `squall url`), "http:///x" is http://x/ and so not among them.
    for (const char* url : {"ftp://127.0.0.1/", "127.0.0.1/x", "http://[::1/x", "http://a b/",
                            "http://h:99999/", "http://h:x/"}) {
      HttpResponse r = co_await attempt(client, url);
      EXPECT_EQ(r.code, 599) << url;
      EXPECT_EQ(kind_of(r), ErrorKind::InvalidArgument) << url;
    }
    HttpRequest injected;
    injected.headers.add("X-Evil", "a\r\nHost: other");
    HttpResponse r = co_await attempt(client, "http://127.0.0.1:1/", std::move(injected));
    EXPECT_EQ(kind_of(r), ErrorKind::InvalidArgument) << message_of(r);
    EXPECT_EQ(client.stats().requests, 0u);
    client.close();
  };
  run(body());
}

// --- the queue ------------------------------------------------------------------------------

// Holds every request until `release` is set; counts what reaches it.
struct SlowServer {
  Event release;
  int in_flight = 0;
  int max_in_flight = 0;
  int requests = 0;
  TcpServer server{[this](Stream& s) -> Task<void> { return handle(s); }};

  SlowServer() { server.listen(Address::parse("127.0.0.1:0")); }
  Task<void> handle(Stream& s) {
    for (;;) {
      try {
        co_await s.read_until("\r\n\r\n", 64 * 1024);
      } catch (const NetError&) {
        co_return;
      }
      ++requests;
      max_in_flight = std::max(max_in_flight, ++in_flight);
      co_await release.wait();
      --in_flight;
      co_await s.write(ok("slow"));
    }
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server.port()) + "/"; }
};

TEST_F(ClientHostileTest, QueuedRequestsThatOutliveTheirTimeoutFailWithoutReachingTheServer) {
  auto body = []() -> Task<void> {
    SlowServer slow;
    ClientOptions o;
    o.max_clients = 2;
    HttpClient client(o);
    EXPECT_EQ(client.free_size(), 2u);
    std::vector<TaskHandle<HttpResponse>> fetches;
    for (int i = 0; i < 10; ++i) {
      HttpRequest req;
      req.url = slow.url();
      req.connect_timeout = 300ms;  // the queue limit: min(connect, request) timeouts
      req.request_timeout = 20s;
      req.raise_error = false;
      fetches.push_back(spawn(client.fetch(std::move(req))));
    }
    co_await sleep(0ms);
    EXPECT_EQ(client.free_size(), 0u);
    EXPECT_EQ(client.queued_count(), 8u);
    // Every queued one times out while the two on the wire are held.
    for (size_t i = 2; i < fetches.size(); ++i) {
      HttpResponse r = co_await fetches[i];
      EXPECT_EQ(r.code, 599);
      EXPECT_EQ(kind_of(r), ErrorKind::Timeout);
      EXPECT_NE(message_of(r).find("Timeout in request queue"), std::string::npos);
      EXPECT_EQ(failure_of(r), HttpFailure::QueueTimeout);
      EXPECT_GE(r.times.queued, 300ms);
    }
    EXPECT_EQ(slow.requests, 2);
    slow.release.set();
    for (size_t i = 0; i < 2; ++i) {
      HttpResponse r = co_await fetches[i];
      EXPECT_EQ(r.code, 200);
      EXPECT_EQ(r.body, "slow");
    }
    EXPECT_EQ(slow.max_in_flight, 2);
    EXPECT_EQ(slow.requests, 2);
    EXPECT_EQ(client.free_size(), 2u);
    EXPECT_EQ(client.stats().queue_timeouts, 8u);
    client.close();
    co_await slow.server.stop(100ms);
  };
  run(body());
}

TEST_F(ClientHostileTest, TheQueueIsFifoAndNeverPutsMoreThanMaxClientsOnTheWire) {
  auto body = []() -> Task<void> {
    SlowServer slow;
    slow.release.set();  // answers at once
    ClientOptions o;
    o.max_clients = 2;
    HttpClient client(o);
    std::vector<int> order;
    auto one = [&](int i) -> Task<void> {
      HttpResponse r = co_await client.fetch(slow.url());
      EXPECT_EQ(r.body, "slow");
      order.push_back(i);
    };
    std::vector<TaskHandle<void>> tasks;
    for (int i = 0; i < 10; ++i) tasks.push_back(spawn(one(i)));
    for (auto& t : tasks) co_await t;
    EXPECT_LE(slow.max_in_flight, 2);
    EXPECT_EQ(slow.requests, 10);
    EXPECT_EQ(order.size(), 10u);
    // Two at a time, in order: every request finishes after those queued two places ahead.
    for (size_t i = 2; i < order.size(); ++i) EXPECT_LT(order[i - 2], order[i]);
    client.close();
    co_await slow.server.stop(100ms);
  };
  run(body());
}

// The answer to `request` from a client with one slot and a queue_timeout of 100 ms, while a
// fetch the server holds has that slot.
Task<HttpResponse> fetch_behind_a_held_one(HttpRequest request) {
  SlowServer slow;
  ClientOptions o;
  o.max_clients = 1;
  o.queue_timeout = 100ms;
  HttpClient client(o);
  HttpRequest held;
  held.url = slow.url();
  auto first = spawn(client.fetch(std::move(held)));
  co_await sleep(0ms);
  if (request.url.empty() && !request.parsed_url) request.url = slow.url();
  request.raise_error = false;
  HttpResponse queued = co_await client.fetch(std::move(request));
  slow.release.set();
  EXPECT_EQ((co_await first).code, 200);
  client.close();
  co_await slow.server.stop(100ms);
  co_return queued;
}

TEST_F(ClientHostileTest, QueueTimeoutOverridesTheConnectAndRequestTimeouts) {
  HttpResponse queued = run(fetch_behind_a_held_one(HttpRequest{}));
  EXPECT_EQ(queued.code, 599);
  EXPECT_NE(message_of(queued).find("Timeout in request queue after 100 ms"), std::string::npos)
      << message_of(queued);
}

TEST_F(ClientHostileTest, AQueuedFetchOfAParsedUrlNamesThatUrlWhenItTimesOut) {
  // Nothing listens on port 9: the URL is only named, never fetched.
  const std::string url = "http://127.0.0.1:9/queued";
  HttpRequest request;
  request.parsed_url = *Url::parse(url);
  HttpResponse r = run(fetch_behind_a_held_one(std::move(request)));
  EXPECT_EQ(r.code, 599);
  EXPECT_EQ(r.effective_url, url);
  EXPECT_NE(message_of(r).find("(GET " + url + ")"), std::string::npos) << message_of(r);
}

TEST_F(ClientHostileTest, ClosingTheClientFailsQueuedFetchesAndRefusesNewOnes) {
  auto body = []() -> Task<void> {
    SlowServer slow;
    ClientOptions o;
    o.max_clients = 1;
    HttpClient client(o);
    HttpRequest held;
    held.url = slow.url();
    auto first = spawn(client.fetch(std::move(held)));
    auto second = spawn(attempt(client, slow.url()));
    co_await sleep(0ms);
    client.close();
    HttpResponse r = co_await second;
    EXPECT_EQ(r.code, 599);
    EXPECT_EQ(kind_of(r), ErrorKind::Closed);
    bool refused = false;
    try {
      co_await client.fetch(slow.url());
    } catch (const InvalidStateError&) {
      refused = true;
    }
    EXPECT_TRUE(refused);
    slow.release.set();
    EXPECT_EQ((co_await first).code, 200);
    co_await slow.server.stop(100ms);
  };
  run(body());
}

TEST_F(ClientHostileTest, AKilledFetchGivesBackItsSlotAndConnection) {
  auto body = []() -> Task<void> {
    SlowServer slow;
    ClientOptions o;
    o.max_clients = 1;
    HttpClient client(o);
    auto held = spawn(client.fetch(slow.url()));
    auto queued = spawn(client.fetch(slow.url()));
    co_await sleep(50ms);
    queued.kill();
    held.kill();
    co_await held.join();
    co_await queued.join();
    EXPECT_EQ(client.free_size(), 1u);
    EXPECT_EQ(client.queued_count(), 0u);
    slow.release.set();
    EXPECT_EQ((co_await client.fetch(slow.url())).body, "slow");
    // An outer timeout propagates as it is, not as a 599.
    slow.release.clear();
    bool timed_out = false;
    try {
      co_await with_timeout(100ms, client.fetch(slow.url()));
    } catch (const TimeoutError&) {
      timed_out = true;
    }
    EXPECT_TRUE(timed_out);
    EXPECT_EQ(client.free_size(), 1u);
    slow.release.set();
    client.close();
    co_await slow.server.stop(100ms);
  };
  run(body());
}

}  // namespace
}  // namespace squall::http
