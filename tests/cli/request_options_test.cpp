// The request flags fetch and crawl share, read by the one helper each has.
#include "squall/cli/request_options.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "squall/core/error.h"
#include "support/parsed_url.h"
#include "support/process.h"
#include "support/proxy_environment.h"

namespace squall::cli {
namespace {

using test::url;

TEST(RequestOptions, AHeaderNeedsANameAndAColon) {
  http::Headers headers;
  EXPECT_EQ(add_header_flag("X-A:  1", headers), "");
  EXPECT_EQ(add_header_flag("X-B:", headers), "");
  EXPECT_EQ(headers.get("X-A"), "1");
  EXPECT_EQ(headers.get("X-B"), "");
  EXPECT_EQ(add_header_flag("NoColon", headers), "bad header 'NoColon' (give -H 'Name: value')");
  EXPECT_NE(add_header_flag(": value", headers), "");
}

TEST(RequestOptions, ACookieIsSentAsGivenAndAFileGoesIntoTheJar) {
  test::TempDir dir;
  auto file = dir.write("jar.txt", "example.com\tFALSE\t/\tFALSE\t0\tsid\t1\n");
  std::string header;
  http::CookieJar jar;
  EXPECT_FALSE(add_cookie_flag("a=1; b=2", header, jar));
  EXPECT_FALSE(add_cookie_flag("c=3", header, jar));
  EXPECT_TRUE(add_cookie_flag(file.string(), header, jar));
  EXPECT_EQ(header, "a=1; b=2; c=3");
  EXPECT_EQ(jar.header_for(url("http://example.com/")), "sid=1");
}

TEST(RequestOptions, AMissingCookieFileIsAnErrorUnlessTheCommandAllowsIt) {
  test::TempDir dir;
  std::string missing = (dir.path() / "none.txt").string();
  std::string header;
  http::CookieJar jar;
  EXPECT_THROW(add_cookie_flag(missing, header, jar), InvalidArgumentError);
  EXPECT_TRUE(add_cookie_flag(missing, header, jar, /*missing_ok=*/true));
  EXPECT_TRUE(jar.empty());
  auto bad = dir.write("bad.txt", "not a cookie\n");
  EXPECT_THROW(add_cookie_flag(bad.string(), header, jar, /*missing_ok=*/true),
               InvalidArgumentError)
      << "a file that is there must be a cookie file";
}

// Tests that set the proxy variables.
class ProxyFlags : public test::ProxyEnvironmentTest {};

TEST_F(ProxyFlags, TheFlagWinsOverTheEnvironmentAndNoproxyReplacesNoProxy) {
  setenv("http_proxy", "127.0.0.1:3128", 1);
  setenv("no_proxy", "example.com", 1);
  EXPECT_EQ(proxy_settings(std::nullopt).for_url(url("http://a.test/")), "http://127.0.0.1:3128");
  EXPECT_EQ(proxy_settings(std::nullopt).for_url(url("http://example.com/")), "");
  http::ProxySettings flag = proxy_settings("127.0.0.1:8080", "a.test");
  EXPECT_EQ(flag.for_url(url("https://b.test/")), "http://127.0.0.1:8080");
  EXPECT_EQ(flag.for_url(url("http://a.test/")), "");
  EXPECT_EQ(flag.for_url(url("http://example.com/")), "http://127.0.0.1:8080");
  EXPECT_THROW(proxy_settings("socks5://127.0.0.1:1080"), InvalidArgumentError);
}

TEST(RequestOptions, InsecureTurnsVerificationOffAndCacertMustBeAFile) {
  test::TempDir dir;
  auto ca = dir.write("ca.pem", "-----BEGIN CERTIFICATE-----\n");
  TlsTrust trust = tls_trust(false, "");
  EXPECT_TRUE(trust.verify);
  EXPECT_EQ(trust.ca_file, "");
  EXPECT_FALSE(tls_trust(true, "").verify);
  EXPECT_EQ(tls_trust(false, ca.string()).ca_file, ca.string());
  try {
    tls_trust(false, dir.path().string());
    FAIL() << "a directory is not a CA file";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the --cacert file '" + dir.path().string()),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace squall::cli
