// ProxySettings: the environment read as curl reads it, and no_proxy matching.
#include "squall/http/proxy.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "squall/core/error.h"
#include "support/parsed_url.h"
#include "support/proxy_environment.h"

namespace squall::http {
namespace {

using test::url;

// Tests that set the proxy variables.
class ProxyEnvironment : public test::ProxyEnvironmentTest {};

TEST_F(ProxyEnvironment, EachSchemeHasItsVariableAndLowerCaseWins) {
  setenv("http_proxy", "127.0.0.1:3128", 1);
  setenv("HTTPS_PROXY", "http://127.0.0.1:3129", 1);
  setenv("https_proxy", "http://127.0.0.1:3130", 1);
  ProxySettings p = ProxySettings::from_environment();
  EXPECT_EQ(p.for_url(url("http://a.test/")), "http://127.0.0.1:3128") << "scheme added";
  EXPECT_EQ(p.for_url(url("https://a.test/")), "http://127.0.0.1:3130");
}

TEST_F(ProxyEnvironment, WebSocketUrlsTakeTheProxyOfTheirHttpScheme) {
  setenv("http_proxy", "127.0.0.1:3128", 1);
  setenv("https_proxy", "127.0.0.1:3130", 1);
  setenv("no_proxy", "direct.test", 1);
  ProxySettings p = ProxySettings::from_environment();
  EXPECT_EQ(p.for_url(url("ws://a.test/chat")), "http://127.0.0.1:3128");
  EXPECT_EQ(p.for_url(url("wss://a.test/chat")), "http://127.0.0.1:3130");
  EXPECT_EQ(p.for_url(url("wss://direct.test/chat")), "");
}

TEST_F(ProxyEnvironment, UpperCaseHttpProxyIsIgnoredAsCurlDoesAndAllProxyFillsIn) {
  setenv("HTTP_PROXY", "http://127.0.0.1:1", 1);
  setenv("ALL_PROXY", "http://127.0.0.1:2", 1);
  ProxySettings p = ProxySettings::from_environment();
  EXPECT_EQ(p.for_url(url("http://a.test/")), "http://127.0.0.1:2");
  EXPECT_EQ(p.for_url(url("https://a.test/")), "http://127.0.0.1:2");
}

TEST_F(ProxyEnvironment, ABadProxyIsAClearError) {
  setenv("http_proxy", "socks5://127.0.0.1:1080", 1);
  EXPECT_THROW(ProxySettings::from_environment(), InvalidArgumentError);
}

// Settings with one proxy for both schemes and `no_proxy`.
ProxySettings proxy_except(std::string no_proxy) {
  ProxySettings p;
  p.use_for_all("http://127.0.0.1:3128");
  p.no_proxy = std::move(no_proxy);
  return p;
}

TEST(ProxySettings, NoProxyListsHostsDomainsAndAddresses) {
  ProxySettings p = proxy_except(" localhost, .example.com,10.0.0.1 ,[::1]");
  EXPECT_EQ(p.for_url(url("http://localhost:8080/")), "");
  EXPECT_EQ(p.for_url(url("http://example.com/")), "");
  EXPECT_EQ(p.for_url(url("https://www.Example.com/")), "");
  EXPECT_EQ(p.for_url(url("http://notexample.com/")), "http://127.0.0.1:3128");
  EXPECT_EQ(p.for_url(url("http://10.0.0.1/")), "");
  EXPECT_EQ(p.for_url(url("http://10.0.0.10/")), "http://127.0.0.1:3128");
  EXPECT_EQ(p.for_url(url("http://[::1]:81/")), "");
  EXPECT_EQ(proxy_except("*").for_url(url("http://anything.test/")), "");
  EXPECT_EQ(proxy_except("").for_url(url("http://anything.test/")), "http://127.0.0.1:3128");
}

TEST(ProxySettings, NormalizeTakesHostPortAndRefusesOtherSchemes) {
  EXPECT_EQ(normalize_proxy("127.0.0.1:3128"), "http://127.0.0.1:3128");
  EXPECT_EQ(normalize_proxy("http://u:p@proxy.test:8080"), "http://u:p@proxy.test:8080");
  EXPECT_THROW(normalize_proxy("https://proxy.test"), InvalidArgumentError);
  EXPECT_THROW(normalize_proxy(""), InvalidArgumentError);
}

}  // namespace
}  // namespace squall::http
