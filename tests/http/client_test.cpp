// HttpClient against real peers on loopback: httpbin for the HTTP surface, nginx for keep-alive.
#include "squall/http/client.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "squall/core.h"
#include "squall/net/net_error.h"
#include "squall/net/tcp_client.h"
#include "squall/net/tcp_server.h"
#include "squall/net/tls.h"
#include "support/loop_fixture.h"
#include "support/process.h"
#include "support/tunnel_proxy.h"

namespace squall::http {
namespace {

using namespace std::chrono_literals;

// One httpbin for the whole suite: it takes a second or two to start.
class ClientHttpbinTest : public test::LoopTest {
 protected:
  static void SetUpTestSuite() { httpbin_ = new test::Process(test::start_httpbin(port_)); }
  static void TearDownTestSuite() {
    delete httpbin_;
    httpbin_ = nullptr;
  }
  static std::string url(std::string_view path) {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  static std::string base() { return "http://127.0.0.1:" + std::to_string(port_); }

  static inline uint16_t port_ = 0;
  static inline test::Process* httpbin_ = nullptr;
};

int status_of(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const HttpError& error) {
    return error.code();
  } catch (...) {
    return -1;
  }
}

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

TEST_F(ClientHttpbinTest, AGetReturnsStatusHeadersBodyAndTimes) {
  auto body = []() -> Task<void> {
    HttpClient client;
    HttpResponse r = co_await client.fetch(url("/get?a=1"));
    EXPECT_EQ(r.code, 200);
    EXPECT_EQ(r.reason, "OK");
    EXPECT_EQ(r.headers.get("Content-Type"), "application/json");
    EXPECT_TRUE(contains(r.body, "\"a\":\"1\"")) << r.body;
    EXPECT_EQ(r.effective_url, url("/get?a=1"));
    EXPECT_TRUE(r.redirect_chain.empty());
    EXPECT_FALSE(r.error);
    EXPECT_GT(r.request_time, 0);
    EXPECT_GT(r.times.total, Duration::zero());
    EXPECT_GT(r.times.first_byte, Duration::zero());
    EXPECT_LE(r.times.first_byte, r.times.total);
    EXPECT_EQ(r.request->url, url("/get?a=1"));
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, AnErrorStatusThrowsHttpErrorCarryingTheResponse) {
  auto body = []() -> Task<void> {
    HttpClient client;
    bool thrown = false;
    try {
      co_await client.fetch(url("/status/404"));
    } catch (const HttpError& e) {
      thrown = true;
      EXPECT_EQ(e.code(), 404);
      EXPECT_EQ(e.failure(), HttpFailure::Status);
      EXPECT_NE(e.response(), nullptr);
      if (e.response()) {
        EXPECT_EQ(e.response()->code, 404);
      }
      EXPECT_TRUE(contains(e.what(), "HTTP 404")) << e.what();
    }
    EXPECT_TRUE(thrown);
    HttpRequest req;
    req.url = url("/status/503");
    req.raise_error = false;
    HttpResponse r = co_await client.fetch(std::move(req));
    EXPECT_EQ(r.code, 503);
    EXPECT_EQ(status_of(r.error), 503);
    HttpResponse created = co_await client.fetch(url("/status/201"));
    EXPECT_EQ(created.code, 201);
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, ANetworkFailureIs599NamingTheCause) {
  auto body = []() -> Task<void> {
    HttpClient client;
    uint16_t closed_port = test::free_port();
    HttpRequest req;
    req.url = "http://127.0.0.1:" + std::to_string(closed_port) + "/";
    req.raise_error = false;
    HttpResponse r = co_await client.fetch(std::move(req));
    EXPECT_EQ(r.code, 599);
    try {
      r.rethrow();
      ADD_FAILURE() << "no error";
    } catch (const HttpError& e) {
      EXPECT_EQ(e.code(), 599);
      EXPECT_EQ(e.kind(), ErrorKind::Connect);
      EXPECT_TRUE(contains(e.what(), "ECONNREFUSED")) << e.what();
      EXPECT_NE(e.cause(), nullptr);
    }
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, RedirectChainsAreFollowedAndKept) {
  auto body = []() -> Task<void> {
    HttpClient client;
    HttpResponse rel = co_await client.fetch(url("/relative-redirect/3"));
    EXPECT_EQ(rel.code, 200);
    EXPECT_EQ(rel.effective_url, url("/get"));
    EXPECT_EQ(rel.redirect_chain.size(), 3u);
    if (!rel.redirect_chain.empty()) {
      EXPECT_EQ(rel.redirect_chain[0], url("/relative-redirect/3"));
    }
    HttpResponse abs = co_await client.fetch(url("/absolute-redirect/2"));
    EXPECT_EQ(abs.code, 200);
    EXPECT_EQ(abs.redirect_chain.size(), 2u);

    HttpRequest too_many;
    too_many.url = url("/redirect/7");
    too_many.raise_error = false;
    HttpResponse r = co_await client.fetch(std::move(too_many));
    EXPECT_EQ(r.code, 599);
    EXPECT_EQ(r.redirect_chain.size(), 5u);

    HttpRequest not_followed;
    not_followed.url = url("/redirect/1");
    not_followed.follow_redirects = false;
    not_followed.raise_error = false;
    HttpResponse stop = co_await client.fetch(std::move(not_followed));
    EXPECT_EQ(stop.code, 302);
    EXPECT_EQ(stop.headers.get("Location"), "/get");
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, A303TurnsPostIntoGetAnd307And308KeepMethodAndBody) {
  auto body = []() -> Task<void> {
    HttpClient client;
    HttpRequest see_other;
    see_other.url = url("/redirect-to?url=/get&status_code=303");
    see_other.method = "POST";
    see_other.body = "dropped";
    HttpResponse get = co_await client.fetch(std::move(see_other));
    EXPECT_EQ(get.code, 200);
    EXPECT_EQ(get.effective_url, url("/get"));

    HttpRequest found;
    found.url = url("/redirect-to?url=/get&status_code=302");
    found.method = "POST";
    found.body = "dropped";
    EXPECT_EQ((co_await client.fetch(std::move(found))).effective_url, url("/get"));

    for (const char* code : {"307", "308"}) {
      HttpRequest keep;
      keep.url = url("/redirect-to?url=/post&status_code=") + code;
      keep.method = "POST";
      keep.body = "kept body";
      keep.headers.add("Content-Type", "text/plain");
      HttpResponse post = co_await client.fetch(std::move(keep));
      EXPECT_EQ(post.code, 200) << code;
      EXPECT_EQ(post.effective_url, url("/post")) << code;
      EXPECT_TRUE(contains(post.body, "\"data\":\"kept body\"")) << code << post.body;
    }
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, AuthorizationIsDroppedWhenARedirectChangesHost) {
  auto body = []() -> Task<void> {
    HttpClient client;
    // Same origin: the header goes along.
    HttpRequest same;
    same.url = url("/redirect-to?url=/headers");
    same.headers.add("Authorization", "Bearer secret");
    same.headers.add("Cookie", "session=1");
    HttpResponse kept = co_await client.fetch(std::move(same));
    EXPECT_TRUE(contains(kept.body, "Bearer secret")) << kept.body;
    EXPECT_TRUE(contains(kept.body, "session=1")) << kept.body;
    // Another host (localhost is not 127.0.0.1 as an origin): dropped.
    HttpRequest other;
    other.url = url("/redirect-to?url=http://localhost:" + std::to_string(port_) + "/headers");
    other.headers.add("Authorization", "Bearer secret");
    other.headers.add("Cookie", "session=1");
    other.auth_username = "u";
    other.auth_password = "p";
    HttpResponse dropped = co_await client.fetch(std::move(other));
    EXPECT_EQ(dropped.code, 200);
    EXPECT_FALSE(contains(dropped.body, "Bearer secret")) << dropped.body;
    EXPECT_FALSE(contains(dropped.body, "session=1")) << dropped.body;
    EXPECT_FALSE(contains(dropped.body, "Basic")) << dropped.body;

    HttpRequest ftp;
    ftp.url = url("/redirect-to?url=ftp://127.0.0.1/x");
    ftp.raise_error = false;
    HttpResponse refused = co_await client.fetch(std::move(ftp));
    EXPECT_EQ(refused.code, 599);
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, ChunkedStreamsArriveWholeOrThroughTheStreamingCallback) {
  auto body = []() -> Task<void> {
    HttpClient client;
    HttpResponse whole = co_await client.fetch(url("/stream/5"));
    EXPECT_EQ(std::count(whole.body.begin(), whole.body.end(), '\n'), 5);
    std::string streamed;
    int calls = 0;
    std::vector<std::string> lines;
    HttpRequest req;
    req.url = url("/stream/20");
    req.streaming_callback = [&](std::string_view chunk) {
      streamed.append(chunk);
      ++calls;
    };
    req.header_callback = [&](std::string_view line) { lines.emplace_back(line); };
    HttpResponse r = co_await client.fetch(std::move(req));
    EXPECT_TRUE(r.body.empty());
    EXPECT_EQ(std::count(streamed.begin(), streamed.end(), '\n'), 20);
    EXPECT_GE(calls, 1);
    EXPECT_GE(lines.size(), 3u);
    if (lines.size() >= 3) {
      EXPECT_EQ(lines.front().substr(0, 13), "HTTP/1.1 200 ");
      EXPECT_EQ(lines.back(), "\r\n");
    }
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, ARequestTimeoutIs599AndTheClientGoesOn) {
  auto body = []() -> Task<void> {
    HttpClient client;
    HttpRequest req;
    req.url = url("/delay/3");
    req.request_timeout = 500ms;
    req.raise_error = false;
    HttpResponse r = co_await client.fetch(std::move(req));
    EXPECT_EQ(r.code, 599);
    try {
      r.rethrow();
    } catch (const HttpError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Timeout);
      EXPECT_TRUE(contains(e.what(), "Timeout during request")) << e.what();
    }
    HttpResponse quick = co_await client.fetch(url("/delay/0"));
    EXPECT_EQ(quick.code, 200);
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, BasicAuthFromFieldsOrTheUrl) {
  auto body = []() -> Task<void> {
    HttpClient client;
    HttpRequest req;
    req.url = url("/basic-auth/user/pa:ss");
    req.auth_username = "user";
    req.auth_password = "pa:ss";
    EXPECT_EQ((co_await client.fetch(std::move(req))).code, 200);
    std::string with_userinfo =
        "http://user:pa%3Ass@127.0.0.1:" + std::to_string(port_) + "/basic-auth/user/pa:ss";
    EXPECT_EQ((co_await client.fetch(with_userinfo)).code, 200);
    HttpRequest wrong;
    wrong.url = url("/basic-auth/user/pa:ss");
    wrong.auth_username = "user";
    wrong.auth_password = "nope";
    wrong.raise_error = false;
    EXPECT_EQ((co_await client.fetch(std::move(wrong))).code, 401);
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, HeadersDefaultsAndRevalidationFieldsAreSent) {
  auto body = []() -> Task<void> {
    ClientOptions o;
    o.defaults.user_agent = "squall-test/2";
    o.defaults.headers.add("X-Default", "from defaults");
    HttpClient client(o);
    HttpRequest req;
    req.url = url("/headers");
    req.headers.add("X-Custom", "value 1");
    req.if_none_match = "\"abc\"";
    req.if_modified_since = std::chrono::system_clock::from_time_t(784111777);
    HttpResponse r = co_await client.fetch(std::move(req));
    EXPECT_TRUE(contains(r.body, "\"User-Agent\":\"squall-test/2\"")) << r.body;
    EXPECT_TRUE(contains(r.body, "\"X-Custom\":\"value 1\"")) << r.body;
    EXPECT_TRUE(contains(r.body, "\"X-Default\":\"from defaults\"")) << r.body;
    EXPECT_TRUE(contains(r.body, "Sun, 06 Nov 1994 08:49:37 GMT")) << r.body;
    EXPECT_TRUE(contains(r.body, "\\\"abc\\\"")) << r.body;
    // httpbin's /etag answers 304 to a matching If-None-Match.
    HttpRequest etag;
    etag.url = url("/etag/xyz");
    etag.if_none_match = "\"xyz\"";
    etag.raise_error = false;
    HttpResponse not_modified = co_await client.fetch(std::move(etag));
    EXPECT_EQ(not_modified.code, 304);
    EXPECT_TRUE(not_modified.body.empty());
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, HeadAnd204HaveNoBodyAndLargeBodiesAreBounded) {
  auto body = []() -> Task<void> {
    HttpClient client;
    HttpRequest head;
    head.url = url("/bytes/1000");
    head.method = "HEAD";
    HttpResponse h = co_await client.fetch(std::move(head));
    EXPECT_EQ(h.code, 200);
    EXPECT_TRUE(h.body.empty());
    EXPECT_EQ((co_await client.fetch(url("/status/204"))).body, "");
    HttpResponse big = co_await client.fetch(url("/bytes/102400"));
    EXPECT_EQ(big.body.size(), 102400u);
    HttpResponse range = co_await client.fetch(url("/range/50000"));
    EXPECT_EQ(range.body.size(), 50000u);
    HttpRequest limited;
    limited.url = url("/bytes/102400");
    limited.max_body_size = 1000;
    limited.raise_error = false;
    HttpResponse r = co_await client.fetch(std::move(limited));
    EXPECT_EQ(r.code, 599);
    try {
      r.rethrow();
    } catch (const HttpError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::TooLarge);
    }
    HttpRequest chunked_limit;
    chunked_limit.url = url("/stream-bytes/50000?chunk_size=1000");
    chunked_limit.max_body_size = 10000;
    chunked_limit.raise_error = false;
    EXPECT_EQ((co_await client.fetch(std::move(chunked_limit))).code, 599);
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, GzipDeflateAndBrotliBodiesAreDecoded) {
  auto body = []() -> Task<void> {
    HttpClient client;
    // httpbin answers {"gzipped":true}, {"deflated":true} and {"brotli":true}.
    for (const char* marker : {"gzipped", "deflated", "brotli"}) {
      std::string path = marker == std::string_view("brotli")    ? "/brotli"
                         : marker == std::string_view("gzipped") ? "/gzip"
                                                                 : "/deflate";
      HttpResponse r = co_await client.fetch(url(path));
      std::string coding = path.substr(1);
      EXPECT_TRUE(contains(r.body, std::string("\"") + marker + "\":true")) << coding << r.body;
      EXPECT_FALSE(r.headers.contains("Content-Encoding")) << coding;
      EXPECT_TRUE(r.headers.contains("X-Consumed-Content-Encoding")) << coding;
    }
    HttpRequest raw;
    raw.url = url("/gzip");
    raw.decompress_response = false;
    HttpResponse r = co_await client.fetch(std::move(raw));
    EXPECT_EQ(r.headers.get("Content-Encoding"), "gzip");
    EXPECT_EQ(r.body.substr(0, 2), "\x1f\x8b");
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, HostnameMappingSendsANameToAnotherAddress) {
  auto body = []() -> Task<void> {
    ClientOptions o;
    o.hostname_mapping["httpbin.example"] = "127.0.0.1";
    HttpClient client(o);
    HttpResponse r =
        co_await client.fetch("http://httpbin.example:" + std::to_string(port_) + "/headers");
    EXPECT_EQ(r.code, 200);
    EXPECT_TRUE(contains(r.body, "\"Host\":\"httpbin.example:")) << r.body;
    client.close();
  };
  run(body());
}

TEST_F(ClientHttpbinTest, TheSharedClientIsOnePerLoopAndConfigurable) {
  auto body = []() -> Task<void> {
    ClientOptions o;
    o.max_clients = 3;
    HttpClient::configure(o);
    HttpClient& shared = HttpClient::shared();
    EXPECT_EQ(&shared, &HttpClient::shared());
    EXPECT_EQ(shared.free_size(), 3u);
    EXPECT_EQ((co_await shared.fetch(url("/get"))).code, 200);
    shared.close();
    EXPECT_NE(&HttpClient::shared(), &shared);  // closed: the next one is new
    HttpClient::shared().close();
    HttpClient::configure({});
  };
  run(body());
}

// --- nginx: keep-alive counted on the server side ----------------------------------------------

class ClientNginxTest : public test::LoopTest {
 protected:
  // nginx serving dir_ and logging "<connection serial> <request number on it> <uri>".
  test::Process start(const std::string& server_body = "", const std::string& listen = "") {
    port_ = test::free_port();
    dir_.write("file.txt", std::string(1024, 'x'));
    return test::start_nginx(
        dir_, "access_log " + (dir_.path() / "conn.log").string() + " conn;\n" + server_body, port_,
        listen, "log_format conn '$connection $connection_requests $uri';\n");
  }
  std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  // The connection serials of logged requests. nginx writes a request's log line after the
  // response has gone out, so the client may finish first: wait (up to 10 s) until `expected`
  // lines are there.
  std::vector<std::string> connections(size_t expected) const {
    std::vector<std::string> out;
    for (int attempt = 0; attempt < 1000; ++attempt) {
      std::ifstream in(dir_.path() / "conn.log");
      out.clear();
      std::string conn, count, uri;
      while (in >> conn >> count >> uri) out.push_back(conn);
      if (out.size() >= expected) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return out;
  }

  test::TempDir dir_;
  uint16_t port_ = 0;
};

TEST_F(ClientNginxTest, SequentialRequestsReuseOneConnection) {
  test::Process nginx = start();
  auto body = [&]() -> Task<void> {
    HttpClient client;
    for (int i = 0; i < 20; ++i) {
      HttpResponse r = co_await client.fetch(url("/file.txt"));
      EXPECT_EQ(r.body.size(), 1024u);
      EXPECT_EQ(r.reused_connection, i > 0);
    }
    EXPECT_EQ(client.stats().connections_opened, 1u);
    EXPECT_EQ(client.stats().connections_reused, 19u);
    EXPECT_EQ(client.stats().idle_connections, 1u);
    client.close();
  };
  run(body());
  auto conns = connections(20);
  ASSERT_EQ(conns.size(), 20u);
  EXPECT_EQ(std::set<std::string>(conns.begin(), conns.end()).size(), 1u);
}

TEST_F(ClientNginxTest, APerHostLimitCapsConnectionsUnderConcurrency) {
  test::Process nginx = start();
  auto body = [&]() -> Task<void> {
    ClientOptions o;
    o.max_clients = 10;
    o.max_connections_per_host = 2;
    HttpClient client(o);
    std::vector<TaskHandle<HttpResponse>> tasks;
    for (int i = 0; i < 40; ++i) tasks.push_back(spawn(client.fetch(url("/file.txt"))));
    for (auto& t : tasks) EXPECT_EQ((co_await t).body.size(), 1024u);
    EXPECT_LE(client.stats().connections_opened, 2u);
    client.close();
  };
  run(body());
  auto conns = connections(40);
  ASSERT_EQ(conns.size(), 40u);
  EXPECT_LE(std::set<std::string>(conns.begin(), conns.end()).size(), 2u);
}

TEST_F(ClientNginxTest, AConnectionTheServerClosedWhileIdleIsReplacedWithoutATry) {
  test::Process nginx = start("keepalive_timeout 1s;\n");
  auto body = [&]() -> Task<void> {
    HttpClient client;
    EXPECT_EQ((co_await client.fetch(url("/file.txt"))).code, 200);
    co_await sleep(1500ms);  // nginx closes the idle connection after 1 s
    HttpResponse r = co_await client.fetch(url("/file.txt"));
    EXPECT_EQ(r.code, 200);
    EXPECT_FALSE(r.reused_connection);
    EXPECT_EQ(client.stats().retries, 0u);
    EXPECT_EQ(client.stats().connections_opened, 2u);
    // A POST goes on a new connection whatever the pool holds: nginx answers it (405 for a file).
    co_await sleep(1500ms);
    HttpRequest post;
    post.url = url("/file.txt");
    post.method = "POST";
    post.body = "x";
    post.raise_error = false;
    HttpResponse p = co_await client.fetch(std::move(post));
    EXPECT_EQ(p.code, 405);
    EXPECT_EQ(client.stats().connections_opened, 3u);
    client.close();
  };
  run(body());
}

TEST_F(ClientNginxTest, IdleConnectionsCloseAfterTheClientsIdleTimeout) {
  test::Process nginx = start();
  auto body = [&]() -> Task<void> {
    ClientOptions o;
    o.idle_timeout = 200ms;
    HttpClient client(o);
    EXPECT_EQ((co_await client.fetch(url("/file.txt"))).code, 200);
    EXPECT_EQ(client.stats().idle_connections, 1u);
    co_await sleep(500ms);
    EXPECT_EQ(client.stats().idle_connections, 0u);
    EXPECT_EQ((co_await client.fetch(url("/file.txt"))).code, 200);
    EXPECT_EQ(client.stats().connections_opened, 2u);
    EXPECT_EQ(client.stats().retries, 0u);
    client.close();
  };
  run(body());
}

TEST_F(ClientNginxTest, HttpsVerifiesTheCertificateAndKeepsConnectionsAlive) {
  test::CertFiles cert = test::make_self_signed(dir_, "server", "localhost");
  test::Process nginx = start("ssl_certificate " + cert.cert.string() + ";\nssl_certificate_key " +
                                  cert.key.string() + ";\n",
                              "ssl");
  auto body = [&]() -> Task<void> {
    HttpClient client;
    std::string https = "https://127.0.0.1:" + std::to_string(port_) + "/file.txt";
    for (int i = 0; i < 3; ++i) {
      HttpRequest req;
      req.url = https;
      req.ca_certs = cert.cert.string();
      HttpResponse r = co_await client.fetch(std::move(req));
      EXPECT_EQ(r.body.size(), 1024u);
      if (i == 0) {
        EXPECT_GT(r.times.tls, Duration::zero());
      }
    }
    EXPECT_EQ(client.stats().connections_opened, 1u);

    HttpRequest untrusted;
    untrusted.url = https;
    untrusted.raise_error = false;
    HttpResponse bad = co_await client.fetch(std::move(untrusted));
    EXPECT_EQ(bad.code, 599);
    try {
      bad.rethrow();
    } catch (const HttpError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Tls) << e.what();
      bool certificate_problem = false;
      try {
        std::rethrow_exception(e.cause());
      } catch (const TlsError& tls) {
        certificate_problem = tls.certificate_problem();
      } catch (...) {
      }
      EXPECT_TRUE(certificate_problem) << e.what();
    }

    HttpRequest insecure;
    insecure.url = https;
    insecure.validate_cert = false;
    EXPECT_EQ((co_await client.fetch(std::move(insecure))).code, 200);
    client.close();
  };
  run(body());
}

TEST_F(ClientNginxTest, HttpUrlsGoThroughAForwardingProxyWithCredentials) {
  test::Process origin = start();
  test::TempDir proxy_dir;
  uint16_t proxy_port = test::free_port();
  test::Process proxy = test::start_nginx(
      proxy_dir,
      "access_log " + (proxy_dir.path() / "proxy.log").string() +
          " forwarded;\n"
          "location / {\n"
          "  if ($http_proxy_authorization != \"Basic dXNlcjpwYXNz\") { return 407; }\n"
          "  proxy_pass http://127.0.0.1:" +
          std::to_string(port_) + ";\n}\n",
      proxy_port, "", "log_format forwarded '$request';\n");
  auto body = [&]() -> Task<void> {
    HttpClient client;
    HttpRequest req;
    req.url = url("/file.txt");
    req.proxy = "http://user:pass@127.0.0.1:" + std::to_string(proxy_port);
    HttpResponse r = co_await client.fetch(std::move(req));
    EXPECT_EQ(r.body.size(), 1024u);

    HttpRequest fields;
    fields.url = url("/file.txt");
    fields.proxy = "http://127.0.0.1:" + std::to_string(proxy_port);
    fields.proxy_username = "user";
    fields.proxy_password = "pass";
    EXPECT_EQ((co_await client.fetch(std::move(fields))).code, 200);

    HttpRequest anonymous;
    anonymous.url = url("/file.txt");
    anonymous.proxy = "http://127.0.0.1:" + std::to_string(proxy_port);
    anonymous.raise_error = false;
    EXPECT_EQ((co_await client.fetch(std::move(anonymous))).code, 407);
    client.close();
  };
  run(body());
  std::ifstream log(proxy_dir.path() / "proxy.log");
  std::string first;
  std::getline(log, first);
  EXPECT_EQ(first, "GET " + url("/file.txt") + " HTTP/1.1");
}

TEST_F(ClientNginxTest, HttpsUrlsTunnelThroughAConnectProxy) {
  test::CertFiles cert = test::make_self_signed(dir_, "server", "localhost");
  test::Process nginx = start("ssl_certificate " + cert.cert.string() + ";\nssl_certificate_key " +
                                  cert.key.string() + ";\n",
                              "ssl");
  auto body = [&]() -> Task<void> {
    test::TunnelProxy proxy;
    HttpClient client;
    for (int i = 0; i < 2; ++i) {
      HttpRequest req;
      req.url = "https://127.0.0.1:" + std::to_string(port_) + "/file.txt";
      req.ca_certs = cert.cert.string();
      req.proxy = "http://127.0.0.1:" + std::to_string(proxy.server.port());
      HttpResponse r = co_await client.fetch(std::move(req));
      EXPECT_EQ(r.body.size(), 1024u);
    }
    EXPECT_EQ(proxy.tunnels, 1);  // the tunnelled connection was kept alive
    client.close();
    co_await proxy.server.stop(1s);
  };
  run(body());
}

}  // namespace
}  // namespace squall::http
