// `squall fetch` typed as curl users type it: the built command against httpbin, nginx and
// scripted peers on loopback, and curl itself where the two must agree.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fetch_peers.h"
#include "support/process.h"
#include "support/reply_server.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using test::CommandResult;
using test::Process;
using test::ReplyServer;
using test::TempDir;

using test::contains;

const std::string& kSquall = test::squall_binary();

// httpbin's JSON with its whitespace removed, so checks do not depend on its indentation.
std::string compact(const std::string& json) {
  std::string out;
  for (char c : json)
    if (c != ' ' && c != '\n') out.push_back(c);
  return out;
}

class FetchCurlFlags : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    peers_ = new test::FetchPeers(*dir_);
  }
  static void TearDownTestSuite() {
    delete peers_;
    delete dir_;
  }

  // `squall fetch ARGS...` in a fresh directory of its own (work()), as a shell runs it.
  CommandResult fetch(std::vector<std::string> args,
                      const std::vector<std::pair<std::string, std::string>>& env = {}) {
    args.insert(args.begin(), {kSquall, "fetch"});
    return test::run_command(args, work_.path(), env);
  }
  // The same flags given to curl, in another directory (curl_work()).
  CommandResult curl(std::vector<std::string> args) {
    args.insert(args.begin(), "/usr/bin/curl");
    return test::run_command(args, curl_work_.path());
  }
  static std::string httpbin(std::string_view path) { return peers_->httpbin(path); }
  static std::string tls(std::string_view host) { return peers_->tls(host); }
  const TempDir& work() const { return work_; }
  const TempDir& curl_work() const { return curl_work_; }

  static inline TempDir* dir_;
  static inline test::FetchPeers* peers_;

 private:
  TempDir work_, curl_work_;
};

TEST_F(FetchCurlFlags, TheFlagsCurlUsersTypeWithoutThinkingAreAccepted) {
  auto r = fetch({"-sSfL", "--compressed", "-o", "-", httpbin("/gzip")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(compact(r.out), "\"gzipped\":true")) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST_F(FetchCurlFlags, WriteOutPrintsWhatCurlPrintsForTheSameRedirects) {
  std::string format =
      "%{http_code} %{response_code} %{num_redirects} %{url_effective} %{content_type} "
      "%{remote_ip} %{remote_port} %{size_header} %{method} %{scheme} %{http_version} "
      "%header{content-type} 100%%\\n";
  std::vector<std::string> args = {"-s", "-o", "/dev/null", "-w", format, httpbin("/redirect/2")};
  auto squall = fetch(args);
  args.insert(args.begin(), "-L");
  auto reference = curl(args);
  EXPECT_EQ(squall.status, 0) << squall.err;
  EXPECT_EQ(reference.status, 0) << reference.err;
  EXPECT_EQ(squall.out, reference.out);
  EXPECT_TRUE(squall.out.starts_with("200 200 2 " + httpbin("/get") + " application/json"))
      << squall.out;
}

TEST_F(FetchCurlFlags, WriteOutTimesAndSizesAreFilledAndAnUnknownVariableIsNamed) {
  auto r = fetch({"-o", "/dev/null", "-w",
                  "%{size_download} %{time_total} %{time_connect} %{time_starttransfer} "
                  "%{speed_download} %{no_such_thing}|",
                  httpbin("/bytes/1000")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("1000 0.")) << r.out;
  EXPECT_TRUE(r.out.ends_with(" |")) << r.out;
  EXPECT_TRUE(contains(r.err, "no_such_thing")) << r.err;
}

TEST_F(FetchCurlFlags, OutputsPairWithUrlsInOrderAsCurlPairsThem) {
  std::vector<std::string> args = {"-s",
                                   "-O",
                                   httpbin("/image/png"),
                                   "-o",
                                   "second.json",
                                   httpbin("/get?n=2"),
                                   httpbin("/get?n=3")};
  auto squall = fetch(args);
  auto reference = curl(args);
  EXPECT_EQ(squall.status, 0) << squall.err;
  EXPECT_EQ(reference.status, 0) << reference.err;
  EXPECT_EQ(test::read_file(work().path() / "png"), test::read_file(curl_work().path() / "png"));
  EXPECT_FALSE(test::read_file(work().path() / "png").empty());
  EXPECT_TRUE(contains(compact(test::read_file(work().path() / "second.json")), "\"n\":\"2\""));
  // The third URL has no output of its own: standard output.
  EXPECT_TRUE(contains(compact(squall.out), "\"n\":\"3\"")) << squall.out;
}

TEST_F(FetchCurlFlags, RemoteNameOfAUrlWithoutAFileNameExits23AsCurlDoes) {
  auto squall = fetch({"-O", httpbin("/")});
  auto reference = curl({"-s", "-O", httpbin("/")});
  EXPECT_EQ(squall.status, 23);
  EXPECT_EQ(reference.status, 23);
  EXPECT_TRUE(contains(squall.err, "-o FILE")) << squall.err;
}

TEST_F(FetchCurlFlags, UserAndPasswordAuthenticateAndAUserWithoutPasswordIsNamed) {
  auto ok = fetch({"-u", "me:pw", httpbin("/basic-auth/me/pw")});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_TRUE(contains(compact(ok.out), "\"authenticated\":true")) << ok.out;
  EXPECT_EQ(fetch({"-u", "me:wrong", httpbin("/basic-auth/me/pw")}).status, 22);
  auto bare = fetch({"-u", "me", httpbin("/basic-auth/me/pw")});
  EXPECT_EQ(bare.status, 2);
  EXPECT_TRUE(contains(bare.err, "-u 'me' has no password")) << bare.err;
}

TEST_F(FetchCurlFlags, AFlagSquallDoesNotSupportIsNamedInsteadOfTheUrl) {
  auto r = fetch({"--ntlm", "-u", "me:pw", httpbin("/get")});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "squall fetch: squall fetch does not support --ntlm (squall fetch --help lists the "
            "flags it has)\n");
  auto with_value = fetch({"--oauth2-bearer=token", httpbin("/get")});
  EXPECT_TRUE(contains(with_value.err, "does not support --oauth2-bearer ")) << with_value.err;
}

TEST_F(FetchCurlFlags, DataFlagsBuildTheBodyAsCurlDoes) {
  work().write("lines.txt", "x=1\r\ny=2\n");
  auto r = fetch({"-d", "a=1", "-d", "@lines.txt", "--data-urlencode", "q=a b&c", "--data-raw",
                  "@raw", httpbin("/post")});
  EXPECT_EQ(r.status, 0) << r.err;
  std::string out = compact(r.out);
  EXPECT_TRUE(contains(out, R"("form":{"@raw":"","a":"1","q":"ab&c","x":"1y=2"})")) << out;
  auto binary =
      fetch({"--data-binary", "@lines.txt", "-H", "Content-Type: text/plain", httpbin("/post")});
  EXPECT_TRUE(contains(compact(binary.out), R"("data":"x=1\r\ny=2\n")")) << binary.out;
  auto get = fetch({"-G", "-d", "a=1", "-d", "b=2", httpbin("/get")});
  EXPECT_TRUE(contains(compact(get.out), R"("args":{"a":"1","b":"2"})")) << get.out;
}

TEST_F(FetchCurlFlags, FormPartsAreSentAsMultipart) {
  work().write("note.txt", "hello\n");
  auto r = fetch(
      {"-F", "name=squall", "-F", "file=@note.txt", "-F", "inline=<note.txt", httpbin("/post")});
  EXPECT_EQ(r.status, 0) << r.err;
  std::string out = compact(r.out);
  EXPECT_TRUE(contains(out, R"("files":{"file":"hello\n"})")) << out;
  EXPECT_TRUE(contains(out, R"("form":{"inline":"hello\n","name":"squall"})")) << out;
  EXPECT_TRUE(contains(out, "multipart/form-data;boundary=------------------------")) << out;
}

TEST_F(FetchCurlFlags, UploadFilePutsItUnderItsNameWhenTheUrlEndsInASlash) {
  work().write("up.txt", "uploaded bytes");
  auto r = fetch({"-T", "up.txt", httpbin("/anything/")});
  EXPECT_EQ(r.status, 0) << r.err;
  std::string out = compact(r.out);
  EXPECT_TRUE(contains(out, R"("data":"uploadedbytes")")) << out;
  EXPECT_TRUE(contains(out, R"("method":"PUT")")) << out;
  EXPECT_TRUE(contains(out, "\"url\":\"" + httpbin("/anything/up.txt") + "\"")) << out;
  EXPECT_EQ(fetch({"-T", "missing.txt", httpbin("/anything/")}).status, 26);
}

TEST_F(FetchCurlFlags, HeadAsksWithHeadAndPrintsTheHeadOfEveryHop) {
  auto r = fetch({"-I", httpbin("/redirect/1")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("HTTP/1.1 302 FOUND\r\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "\r\n\r\nHTTP/1.1 200 OK\r\n")) << r.out;
  EXPECT_TRUE(r.out.ends_with("\r\n\r\n")) << r.out;
}

TEST_F(FetchCurlFlags, RangeRefererAgentAndCookieStringAreSent) {
  auto range = fetch({"-r", "0-9", httpbin("/range/100")});
  EXPECT_EQ(range.status, 0) << range.err;
  EXPECT_EQ(range.out, "abcdefghij");
  auto r =
      fetch({"-A", "agent/7", "-e", "http://from.example/", "-b", "a=1; b=2", httpbin("/headers")});
  std::string out = compact(r.out);
  EXPECT_TRUE(contains(out, R"("User-Agent":"agent/7")")) << out;
  EXPECT_TRUE(contains(out, R"("Referer":"http://from.example/")")) << out;
  EXPECT_TRUE(contains(out, R"("Cookie":"a=1;b=2")")) << out;
}

TEST_F(FetchCurlFlags, TheCookieJarKeepsCookiesAcrossRedirectsAndRunsAsCurlDoes) {
  // httpbin sets the cookie on a redirect to /cookies, which shows what came back.
  std::vector<std::string> args = {"-s", "-c", "jar.txt", httpbin("/cookies/set?flavour=oat")};
  auto squall = fetch(args);
  args.insert(args.begin(), "-L");
  auto reference = curl(args);
  EXPECT_EQ(squall.status, 0) << squall.err;
  EXPECT_TRUE(contains(compact(squall.out), R"("cookies":{"flavour":"oat"})")) << squall.out;
  EXPECT_EQ(squall.out, reference.out);
  // The cookie lines are curl's (the comments above them differ).
  auto lines = [](const std::string& jar) { return jar.substr(jar.find("\n\n") + 2); };
  std::string jar = test::read_file(work().path() / "jar.txt");
  EXPECT_EQ(lines(jar), lines(test::read_file(curl_work().path() / "jar.txt")));
  EXPECT_TRUE(contains(jar, "127.0.0.1\tFALSE\t/\tFALSE\t0\tflavour\toat\n")) << jar;
  // The next run sends it from the file, with a cookie string beside it.
  auto next = fetch({"-b", "jar.txt", "-b", "extra=1", httpbin("/cookies")});
  EXPECT_TRUE(contains(compact(next.out), R"("cookies":{"extra":"1","flavour":"oat"})"))
      << next.out;
  // A -b file that does not exist yet is no error, as in curl ("-b jar -c jar").
  EXPECT_EQ(fetch({"-b", "none.txt", "-c", "none.txt", httpbin("/cookies")}).status, 0);
}

TEST_F(FetchCurlFlags, TheProxyComesFromTheFlagOrTheEnvironmentUnlessNoProxyNamesTheHost) {
  // httpbin answers absolute-form targets, so it stands in for a forwarding proxy: the host in
  // the URL (which cannot resolve) is never looked up.
  std::string url = "http://squall-test.invalid/get?via=proxy";
  std::string proxy = "127.0.0.1:" + std::to_string(peers_->httpbin_port());
  auto flag = fetch({"-x", proxy, url});
  EXPECT_EQ(flag.status, 0) << flag.err;
  EXPECT_TRUE(contains(compact(flag.out), R"("via":"proxy")")) << flag.out;
  auto env = fetch({url}, {{"http_proxy", proxy}});
  EXPECT_EQ(env.status, 0) << env.err;
  EXPECT_EQ(fetch({url}, {{"all_proxy", proxy}}).status, 0);
  // HTTP_PROXY is ignored, as curl ignores it (a CGI request's Proxy header can set it).
  EXPECT_EQ(fetch({url}, {{"HTTP_PROXY", proxy}}).status, 6);
  EXPECT_EQ(fetch({url}, {{"http_proxy", proxy}, {"no_proxy", "other.example,.invalid"}}).status,
            6);
  EXPECT_EQ(fetch({"--noproxy", "*", "-x", proxy, url}).status, 6);
}

TEST_F(FetchCurlFlags, ResolvePinsAnAddressAndIpFamilyFlagsFilterAddresses) {
  std::string port = std::to_string(peers_->httpbin_port());
  auto r = fetch({"--resolve", "squall.example:" + port + ":127.0.0.1",
                  "http://squall.example:" + port + "/get"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(compact(r.out), "\"Host\":\"squall.example:" + port + "\"")) << r.out;
  auto v6 = fetch({"-6", httpbin("/get")});
  EXPECT_EQ(v6.status, 6);
  EXPECT_TRUE(contains(v6.err, "no IPv6 address")) << v6.err;
  EXPECT_EQ(fetch({"-4", httpbin("/get")}).status, 0);
  EXPECT_EQ(fetch({"--resolve", "nonsense", httpbin("/get")}).status, 2);
}

TEST_F(FetchCurlFlags, RetryTriesAgainAfterATransientStatus) {
  ReplyServer server(
      std::vector<std::string>{"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n",
                               "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"});
  std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  auto r = fetch({"--retry", "1", "--retry-delay", "0", url});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "ok");
  EXPECT_TRUE(contains(r.err, "503")) << r.err;
  EXPECT_TRUE(contains(r.err, "trying again")) << r.err;
  ReplyServer once("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(fetch({"http://127.0.0.1:" + std::to_string(once.port()) + "/"}).status, 22);
}

TEST_F(FetchCurlFlags, SilentHidesTheErrorAndShowErrorBringsItBack) {
  auto silent = fetch({"-s", httpbin("/status/404")});
  EXPECT_EQ(silent.status, 22);
  EXPECT_EQ(silent.err, "");
  auto shown = fetch({"-sS", httpbin("/status/404")});
  EXPECT_EQ(shown.status, 22);
  EXPECT_TRUE(contains(shown.err, "404")) << shown.err;
}

TEST_F(FetchCurlFlags, SeveralUrlsAreFetchedInTurnAndTheStatusIsTheFailures) {
  auto r = fetch({httpbin("/base64/b25l"), httpbin("/status/500"), httpbin("/base64/dHdv")});
  EXPECT_EQ(r.status, 22);
  EXPECT_EQ(r.out, "onetwo");
}

TEST_F(FetchCurlFlags, VerboseShowsTheTlsSessionAndTheCertificate) {
  auto r = fetch({"-v", "--cacert", peers_->cert().cert.string(), tls("localhost")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "secure");
  EXPECT_TRUE(contains(r.err, "* TLS connection using TLSv1.")) << r.err;
  EXPECT_TRUE(contains(r.err, "* ALPN: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "*  subject: CN=localhost\n")) << r.err;
  EXPECT_TRUE(contains(r.err, "*  issuer: CN=localhost\n")) << r.err;
  EXPECT_TRUE(contains(r.err, "> GET / HTTP/1.1\n")) << r.err;
  EXPECT_TRUE(contains(r.err, "< HTTP/1.1 200 OK\n")) << r.err;
}

TEST_F(FetchCurlFlags, AnUntrustedCertificateAdvisesTheFlagsThatHelp) {
  auto r = fetch({tls("127.0.0.1")});
  EXPECT_EQ(r.status, 60);
  EXPECT_TRUE(contains(r.err, "--cacert FILE")) << r.err;
  EXPECT_TRUE(contains(r.err, "-k (--insecure)")) << r.err;
  EXPECT_FALSE(contains(r.err, "ca_file")) << r.err;
  auto k = fetch({"-k", tls("127.0.0.1")});
  EXPECT_EQ(k.status, 0) << k.err;
  EXPECT_EQ(k.out, "secure");
}

}  // namespace
}  // namespace squall
