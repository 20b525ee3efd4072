// `squall fetch` against real peers on loopback (httpbin, nginx): output, flags and exit statuses.
#include "squall/cli/fetch_command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>

#include "fetch_peers.h"
#include "squall/cli/url_command.h"
#include "support/process.h"
#include "support/reply_server.h"

namespace squall::cli {
namespace {

using test::Process;
using test::ReplyServer;
using test::TempDir;

struct Output {
  std::ostringstream out, err;
  int status = -1;
};

// run_fetch in this process, which reads the proxy variables as curl does: cleared first, since
// every peer here is on loopback.
std::unique_ptr<Output> fetch(FetchCommand command) {
  test::clear_proxy_environment();
  auto o = std::make_unique<Output>();
  o->status = run_fetch(command, o->out, o->err);
  return o;
}

// httpbin's JSON with its whitespace removed, so checks do not depend on its indentation.
std::string compact(const std::string& json) {
  std::string out;
  for (char c : json)
    if (c != ' ' && c != '\n') out.push_back(c);
  return out;
}

std::string base(uint16_t port) {
  return "http://127.0.0.1:" + std::to_string(port);
}

// The fetch peers and one more nginx for the whole suite: starting them is most of the cost.
class FetchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    dir_->write("file.txt", std::string(1024, 'x'));
    peers_ = new test::FetchPeers(*dir_);
    nginx_port_ = test::free_port();
    nginx_ = new Process(test::start_nginx(*dir_, R"(
      location = /hello { return 200 'hello'; }
      location = /empty { return 444; }
      location = /notgzip { add_header Content-Encoding gzip; return 200 'this is not gzip'; }
      location = /compress { add_header Content-Encoding compress; return 200 'x'; }
      location = /missing { return 404 'no such page'; }
      location / { }
    )",
                                           nginx_port_));
  }
  static void TearDownTestSuite() {
    delete nginx_;
    delete peers_;
    delete dir_;
  }

  static FetchCommand get(std::string url) {
    FetchCommand c;
    c.urls = {std::move(url)};
    c.timeout = 20;
    return c;
  }
  static std::string httpbin(std::string_view path) { return peers_->httpbin(path); }
  static std::string nginx(std::string_view path) { return base(nginx_port_).append(path); }

  // One line on stderr, naming what went wrong.
  static void expect_one_line(const Output& o, std::string_view part) {
    std::string err = o.err.str();
    EXPECT_EQ(err.rfind("squall fetch: ", 0), 0u) << err;
    EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
    EXPECT_NE(err.find(part), std::string::npos) << err;
  }

  static inline TempDir* dir_;
  static inline test::FetchPeers* peers_;
  static inline Process* nginx_;
  static inline uint16_t nginx_port_;
};

TEST_F(FetchTest, PrintsTheBodyAndExitsZero) {
  auto o = fetch(get(nginx("/hello")));
  EXPECT_EQ(o->status, 0) << o->err.str();
  EXPECT_EQ(o->out.str(), "hello");
  EXPECT_EQ(o->err.str(), "");
  auto file = fetch(get(nginx("/file.txt")));
  EXPECT_EQ(file->out.str(), std::string(1024, 'x'));
}

TEST_F(FetchTest, IncludeAddsTheStatusLineAndHeadersBeforeTheBody) {
  FetchCommand c = get(nginx("/hello"));
  c.include = true;
  auto o = fetch(c);
  EXPECT_EQ(o->status, 0);
  std::string out = o->out.str();
  EXPECT_EQ(out.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << out;
  EXPECT_NE(out.find("\r\nServer: nginx"), std::string::npos) << out;
  EXPECT_NE(out.find("\r\nContent-Length: 5\r\n"), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.size() - 9), "\r\n\r\nhello");
}

TEST_F(FetchTest, OutputFileGetsTheBodyAndStandardOutputNothing) {
  TempDir dir;
  FetchCommand c = get(nginx("/file.txt"));
  std::string got = (dir.path() / "got.txt").string();
  c.outputs = {got};
  auto o = fetch(c);
  EXPECT_EQ(o->status, 0) << o->err.str();
  EXPECT_EQ(o->out.str(), "");
  std::ifstream in(got, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), std::string(1024, 'x'));
}

TEST_F(FetchTest, VerboseDescribesRequestHeadRedirectsAndTimesOnStandardError) {
  FetchCommand c = get(httpbin("/redirect/2"));
  c.verbose = true;
  auto o = fetch(c);
  EXPECT_EQ(o->status, 0) << o->err.str();
  std::string err = o->err.str();
  EXPECT_NE(err.find("> GET /redirect/2 HTTP/1.1\n> Host: 127.0.0.1:" +
                     std::to_string(peers_->httpbin_port()) + "\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("< HTTP/1.1 302 FOUND\n"), std::string::npos) << err;
  EXPECT_NE(err.find("> GET /get HTTP/1.1\n"), std::string::npos) << err;
  EXPECT_NE(err.find("* Connected to 127.0.0.1:" + std::to_string(peers_->httpbin_port()) + "\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("< HTTP/1.1 200 OK\n"), std::string::npos) << err;
  EXPECT_NE(err.find("* redirected from " + httpbin("/redirect/2") + "\n"), std::string::npos)
      << err;
  EXPECT_NE(err.find("* redirected from " + httpbin("/relative-redirect/1") + "\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("* final URL " + httpbin("/get") + "\n"), std::string::npos) << err;
  EXPECT_NE(err.find("* times: queued "), std::string::npos) << err;
  EXPECT_NE(err.find(", first byte "), std::string::npos) << err;
  EXPECT_NE(compact(o->out.str()).find("\"url\":\"" + httpbin("/get") + "\""), std::string::npos);
}

TEST_F(FetchTest, AnHttpErrorStatusExits22WithNothingOnStandardOutput) {
  auto o = fetch(get(nginx("/missing")));
  EXPECT_EQ(o->status, 22);
  EXPECT_EQ(o->out.str(), "");
  expect_one_line(*o, "404");
  auto teapot = fetch(get(httpbin("/status/418")));
  EXPECT_EQ(teapot->status, 22);
}

TEST_F(FetchTest, NoFailPrintsTheErrorBodyAndExitsZero) {
  FetchCommand c = get(nginx("/missing"));
  c.no_fail = true;
  auto o = fetch(c);
  EXPECT_EQ(o->status, 0);
  EXPECT_EQ(o->out.str(), "no such page");
  EXPECT_EQ(o->err.str(), "");
}

TEST_F(FetchTest, GzipDeflateAndBrotliBodiesFromHttpbinAreDecoded) {
  auto gz = fetch(get(httpbin("/gzip")));
  EXPECT_EQ(gz->status, 0) << gz->err.str();
  EXPECT_NE(compact(gz->out.str()).find("\"gzipped\":true"), std::string::npos) << gz->out.str();
  auto deflate = fetch(get(httpbin("/deflate")));
  EXPECT_EQ(deflate->status, 0) << deflate->err.str();
  EXPECT_NE(compact(deflate->out.str()).find("\"deflated\":true"), std::string::npos);
  auto br = fetch(get(httpbin("/brotli")));
  EXPECT_EQ(br->status, 0) << br->err.str();
  EXPECT_NE(compact(br->out.str()).find("\"brotli\":true"), std::string::npos);
}

TEST_F(FetchTest, DataIsPostedAsAFormAndHeadersAndUserAgentAreSent) {
  FetchCommand c = get(httpbin("/post"));
  c.data = {{FetchData::Kind::Ascii, "a=1&b=two"}};
  c.headers = {"X-Squall-Test: yes", "Accept:application/json"};
  c.user_agent = "squall-test/2";
  auto o = fetch(c);
  EXPECT_EQ(o->status, 0) << o->err.str();
  std::string out = compact(o->out.str());
  EXPECT_NE(out.find("\"a\":\"1\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"b\":\"two\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"X-Squall-Test\":\"yes\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"User-Agent\":\"squall-test/2\""), std::string::npos) << out;
}

TEST_F(FetchTest, DataFileIsTheBodyAndMethodCanBeChosen) {
  TempDir dir;
  auto path = dir.write("body.json", R"({"k": [1, 2]})");
  FetchCommand c = get(httpbin("/put"));
  c.method = "PUT";
  c.data_file = path.string();
  c.headers = {"Content-Type: application/json"};
  auto o = fetch(c);
  EXPECT_EQ(o->status, 0) << o->err.str();
  EXPECT_NE(compact(o->out.str()).find(R"("json":{"k":[1,2]})"), std::string::npos) << o->out.str();
}

TEST_F(FetchTest, ProxySendsTheRequestInAbsoluteFormToTheProxy) {
  // httpbin answers absolute-form targets, so it stands in for a forwarding proxy: the host
  // in the URL is never looked up.
  FetchCommand c = get("http://squall-test.invalid/get?via=proxy");
  c.proxy = base(peers_->httpbin_port());
  auto o = fetch(c);
  EXPECT_EQ(o->status, 0) << o->err.str();
  EXPECT_NE(compact(o->out.str()).find("\"via\":\"proxy\""), std::string::npos) << o->out.str();
}

TEST_F(FetchTest, AProxyThatIsNotHttpIsAUsageErrorNamingIt) {
  FetchCommand c = get(nginx("/hello"));
  c.proxy = "socks5://127.0.0.1:1080";
  auto o = fetch(c);
  EXPECT_EQ(o->status, 2);
  expect_one_line(*o, "bad proxy 'socks5://127.0.0.1:1080'");
  EXPECT_EQ(o->out.str(), "");
}

// What `squall url --json` prints for an input: the URL the request must name.
nlohmann::json url_json(const std::string& input) {
  UrlCommand command;
  command.json = true;
  command.inputs = {input};
  std::ostringstream out, err;
  EXPECT_EQ(run_url(command, out, err), 0) << input << ": " << out.str() << err.str();
  return nlohmann::json::parse(out.str());
}

// The request line's target and the Host field of a request head.
std::pair<std::string, std::string> target_and_host(const std::string& head) {
  std::string target, host;
  size_t sp = head.find(' ');
  if (sp != std::string::npos) target = head.substr(sp + 1, head.find(' ', sp + 1) - sp - 1);
  size_t h = head.find("\r\nHost: ");
  if (h != std::string::npos) host = head.substr(h + 8, head.find("\r\n", h + 8) - h - 8);
  return {target, host};
}

TEST(FetchAgreesWithUrl, TheRequestNamesTheUrlThatSquallUrlPrints) {
  // Sent through a forwarding proxy (the server below), the request line carries the whole URL
  // as squall parsed it, so hosts that cannot be resolved here are checked too.
  const char* ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
  for (const std::string input : {
           "http://example.com/a b?c d#e",
           "http://example.com/a\tb\nc?d\te",
           "  http://example.com/trimmed  ",
           "http://example.com\\a\\b\\c",
           "http://example.com/a/%2e%2E/b/%2e/c/.%2E",
           "http://example.com//a//b/../c",
           "http://example.com/ñand€?q=é&r=%zz",
           "http://bücher.example/",
           "http://EXAMPLE.com:80/Case",
           "http://example.com:443/",
           "http://example.com:/empty-port",
           "http://0x7f.1/hex",
           "http://2130706433/decimal",
           "http://127.1/short",
           "http://[::1]/v6",
           "http://[0:0::1]:8080/v6?port",
           "http://us%65r:pa%20ss@example.com/userinfo",
           "http://example.com/?",
           "http://example.com/a?b#c#d",
           "HTTP:example.com/no-slashes",
           "http:///example.com/three-slashes",
           "http://example.com/%7Efoo/./bar/%2F",
       }) {
    SCOPED_TRACE(input);
    nlohmann::json url = url_json(input);
    std::string href = url["href"];
    std::string expected = href.substr(0, href.find('#'));
    if (size_t at = expected.find('@'); at != std::string::npos)
      expected.erase(expected.find("//") + 2, at + 1 - (expected.find("//") + 2));

    ReplyServer proxy(ok);
    FetchCommand c;
    c.urls = {input};
    c.timeout = 20;
    c.proxy = "http://127.0.0.1:" + std::to_string(proxy.port());
    auto o = fetch(c);
    EXPECT_EQ(o->status, 0) << o->err.str();
    auto [target, host] = target_and_host(proxy.request());
    EXPECT_EQ(target, expected);
    EXPECT_EQ(host, url["host"].get<std::string>());
    bool credentials = !url["username"].get<std::string>().empty();
    EXPECT_EQ(proxy.request().find("\r\nAuthorization: Basic ") != std::string::npos, credentials);
  }
}

TEST(FetchAgreesWithUrl, IPv4NumberFormsConnectWhereSquallUrlSaysTheHostIs) {
  const char* ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
  for (const char* host : {"0x7f.0.0.1", "2130706433", "127.1", "0177.0.0.01", "127.0.0.1."}) {
    ReplyServer server(ok);
    std::string input =
        "http://" + std::string(host) + ":" + std::to_string(server.port()) + "/a/%2e%2e/b?q=1";
    SCOPED_TRACE(input);
    nlohmann::json url = url_json(input);
    FetchCommand c;
    c.urls = {input};
    c.timeout = 20;
    auto o = fetch(c);
    EXPECT_EQ(o->status, 0) << o->err.str();
    auto [target, sent_host] = target_and_host(server.request());
    EXPECT_EQ(target, url["pathname"].get<std::string>() + url["search"].get<std::string>());
    EXPECT_EQ(sent_host, url["host"].get<std::string>());
  }
}

TEST_F(FetchTest, ConnectionRefusedExits7) {
  auto o = fetch(get(base(test::free_port()) + "/"));
  EXPECT_EQ(o->status, 7);
  expect_one_line(*o, "connect");
}

TEST_F(FetchTest, AnUnknownHostExits6) {
  // RFC 6761: *.invalid never resolves, and the resolver answers that without asking DNS.
  auto o = fetch(get("http://squall-test.invalid/"));
  EXPECT_EQ(o->status, 6);
  expect_one_line(*o, "squall-test.invalid");
}

TEST_F(FetchTest, ATimeoutExits28) {
  FetchCommand c = get(httpbin("/delay/5"));
  c.timeout = 0.5;
  auto o = fetch(c);
  EXPECT_EQ(o->status, 28);
  expect_one_line(*o, "timeout");
}

TEST_F(FetchTest, TooManyRedirectsExits47) {
  FetchCommand c = get(httpbin("/redirect/3"));
  c.max_redirects = 1;
  auto o = fetch(c);
  EXPECT_EQ(o->status, 47);
  expect_one_line(*o, "too many redirects");
  c.max_redirects = 3;
  EXPECT_EQ(fetch(c)->status, 0);
}

TEST_F(FetchTest, AConnectionClosedWithoutAnAnswerExits52) {
  auto o = fetch(get(nginx("/empty")));  // nginx's 444 closes without a response
  EXPECT_EQ(o->status, 52);
  expect_one_line(*o, "without answering");
}

TEST_F(FetchTest, AConnectionClosedInTheMiddleOfTheBodyExits56) {
  ReplyServer server("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten..");
  auto o = fetch(get(base(server.port()) + "/"));
  EXPECT_EQ(o->status, 56);
  expect_one_line(*o, "middle of the body");
}

TEST_F(FetchTest, ABodyThatIsNotWhatItsContentEncodingSaysExits61) {
  auto o = fetch(get(nginx("/notgzip")));
  EXPECT_EQ(o->status, 61);
  expect_one_line(*o, "bad gzip data");
  auto unknown = fetch(get(nginx("/compress")));
  EXPECT_EQ(unknown->status, 61);
  expect_one_line(*unknown, "compress");
}

TEST_F(FetchTest, ASelfSignedCertificateExits60AndInsecureFetchesAnyway) {
  FetchCommand c = get(peers_->tls("127.0.0.1"));
  auto o = fetch(c);
  EXPECT_EQ(o->status, 60);
  expect_one_line(*o, "tls");
  c.insecure = true;
  auto insecure = fetch(c);
  EXPECT_EQ(insecure->status, 0) << insecure->err.str();
  EXPECT_EQ(insecure->out.str(), "secure");
}

TEST_F(FetchTest, ACacertFileThatCannotBeReadExits77BeforeAnyRequest) {
  FetchCommand c = get(peers_->tls("127.0.0.1"));
  c.cacert = "/nonexistent/ca.pem";
  auto o = fetch(c);
  EXPECT_EQ(o->status, 77);
  expect_one_line(*o, "cannot read the --cacert file '/nonexistent/ca.pem'");
}

TEST_F(FetchTest, ACookieFileThatIsNotOneExits26NamingItsLine) {
  TempDir dir;
  auto jar = dir.write("jar.txt", "# Netscape HTTP Cookie File\nnot a cookie\n");
  FetchCommand c = get(nginx("/hello"));
  c.cookies = {jar.string()};
  auto o = fetch(c);
  EXPECT_EQ(o->status, 26);
  expect_one_line(*o, "cookie file '" + jar.string() + "' line 2");
  EXPECT_EQ(o->out.str(), "");
}

TEST_F(FetchTest, AHandshakeWithAPlainHttpServerExits35) {
  FetchCommand c = get("https://127.0.0.1:" + std::to_string(nginx_port_) + "/hello");
  c.insecure = true;
  auto o = fetch(c);
  EXPECT_EQ(o->status, 35);
  expect_one_line(*o, "tls");
}

TEST_F(FetchTest, MaxFilesizeExits63) {
  FetchCommand c = get(nginx("/file.txt"));
  c.max_filesize = 100;
  auto o = fetch(c);
  EXPECT_EQ(o->status, 63);
  expect_one_line(*o, "max_body_size");
  c.max_filesize = 1024;
  EXPECT_EQ(fetch(c)->status, 0);
}

TEST_F(FetchTest, AHeaderWithoutAColonIsAUsageErrorBeforeAnyRequest) {
  FetchCommand c = get(nginx("/hello"));
  c.headers = {"NoColonHere"};
  auto o = fetch(c);
  EXPECT_EQ(o->status, 2);
  expect_one_line(*o, "NoColonHere");
  c.headers.clear();
  c.data_file = "/nonexistent/body";
  EXPECT_EQ(fetch(c)->status, 26);  // curl's "read error"
}

TEST_F(FetchTest, AnUnsupportedSchemeExits1) {
  auto o = fetch(get("ftp://127.0.0.1/file"));
  EXPECT_EQ(o->status, 1);
  expect_one_line(*o, "ftp");
}

}  // namespace
}  // namespace squall::cli
