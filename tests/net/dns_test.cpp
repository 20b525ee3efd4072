// DnsResolver against a real DNS server (dnsmasq on loopback, started here): answers, errors,
// the cache, coalescing, the override map, the hosts file (its parse, re-checks and fallback),
// and kills mid-lookup.
#include "squall/net/dns.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "squall/net/net_error.h"
#include "squall/net/tcp_client.h"
#include "squall/net/tcp_server.h"
#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

// One dnsmasq for the whole suite: authoritative for *.test (anything else is REFUSED, since it
// forwards nowhere), every query logged so tests can count what reached the server.
class Dnsmasq {
 public:
  Dnsmasq() {
    process_ = test::start_dnsmasq(
        {
            "--log-queries",
            "--local=/test/",
            "--host-record=a.test,127.0.0.5,600",
            "--host-record=six.test,fd00::6,600",
            "--host-record=both.test,127.0.0.9,fd00::9,600",
            "--host-record=short.test,127.0.0.7,1",
            "--host-record=many.test,127.0.0.11,600",
            "--host-record=other.test,127.0.0.12,600",
            "--host-record=server.test,127.0.0.1,600",
        },
        port_);
  }
  std::string server() const { return "127.0.0.1:" + std::to_string(port_); }
  // Queries of `type` ("A", "AAAA") for `name` that dnsmasq has logged so far.
  size_t queries(const std::string& type, const std::string& name) const {
    std::string needle = "query[" + type + "] " + name + " from";
    std::string log = process_.output();
    size_t count = 0;
    for (size_t at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1))
      ++count;
    return count;
  }

 private:
  uint16_t port_ = 0;
  test::Process process_;
};

// A UDP socket on 127.0.0.1 that receives queries and never answers.
class SilentServer {
 public:
  SilentServer() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof sa;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &length) != 0)
      throw std::runtime_error("SilentServer: cannot bind a UDP socket");
    port_ = ntohs(sa.sin_port);
  }
  ~SilentServer() { ::close(fd_); }
  std::string server() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_;
  uint16_t port_ = 0;
};

class DnsTest : public test::LoopTest {
 protected:
  // Started by the first test, not in SetUpTestSuite: gtest skips every test of a suite whose
  // SetUpTestSuite throws (and ctest counts them Skipped), where a dnsmasq that cannot start
  // must fail them, with its output.
  void SetUp() override {
    if (!dnsmasq_) dnsmasq_ = new Dnsmasq();
  }
  static void TearDownTestSuite() {
    delete dnsmasq_;
    dnsmasq_ = nullptr;
  }
  static DnsOptions options() {
    DnsOptions o;
    o.servers = {dnsmasq_->server()};
    o.timeout = 1s;
    o.tries = 2;
    return o;
  }
  // The suite's options with `hosts` as the hosts file, checked before every lookup.
  static DnsOptions with_hosts(const std::filesystem::path& hosts) {
    DnsOptions o = options();
    o.hosts_file = hosts.string();
    o.hosts_recheck = Duration::zero();
    return o;
  }
  static Dnsmasq* dnsmasq_;
};
Dnsmasq* DnsTest::dnsmasq_ = nullptr;

std::vector<std::string> texts(const std::vector<Address>& addresses) {
  std::vector<std::string> out;
  for (const Address& a : addresses) out.push_back(a.to_string());
  return out;
}

// The NetError a lookup throws, or nullopt (with a test failure) if it succeeds.
Task<std::optional<NetError>> lookup_error(Resolver& resolver, std::string host) {
  try {
    std::vector<Address> got = co_await resolver.resolve(host, 80);
    ADD_FAILURE() << host << " resolved to " << testing::PrintToString(texts(got));
  } catch (const NetError& e) {
    co_return e;
  }
  co_return std::nullopt;
}

void expect_resolve_error(const std::optional<NetError>& e, const std::string& host,
                          const std::string& detail) {
  ASSERT_TRUE(e.has_value()) << host;
  EXPECT_EQ(e->kind(), ErrorKind::Resolve);
  EXPECT_EQ(e->phase(), NetPhase::Resolve);
  EXPECT_EQ(e->peer(), host);
  std::string message = e->what();
  EXPECT_NE(message.find(host), std::string::npos) << message;
  EXPECT_NE(message.find(detail), std::string::npos) << message;
}

// `co_await expect_error(resolver, host, detail)`: the lookup fails with a Resolve error
// naming the host whose message contains `detail`.
Task<void> expect_error(Resolver& resolver, std::string host, std::string detail) {
  std::optional<NetError> e = co_await lookup_error(resolver, host);
  expect_resolve_error(e, host, detail);
}

// "127.0.0.1:80 [::1]:80"
std::string joined(const std::vector<Address>& addresses) {
  std::string out;
  for (const Address& a : addresses) {
    if (!out.empty()) out += ' ';
    out += a.to_string();
  }
  return out;
}

// `co_await expect_addresses(resolver, host, port, want)`: the lookup gives `want` (addresses
// in order, separated by spaces).
Task<void> expect_addresses(Resolver& resolver, std::string host, uint16_t port, std::string want) {
  std::vector<Address> got = co_await resolver.resolve(host, port);
  EXPECT_EQ(joined(got), want) << host;
}

TEST_F(DnsTest, AnARecordResolvesToItsAddressWithThePortSet) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    co_await expect_addresses(resolver, "a.test", 8080, "127.0.0.5:8080");
    EXPECT_EQ(resolver.stats().queries, 1u);
  };
  run(body());
}

TEST_F(DnsTest, LookupsOverTcpGetTheSameAnswers) {
  size_t fds = test::open_fds();
  auto body = []() -> Task<void> {
    DnsOptions o = options();
    o.tcp = true;
    DnsResolver resolver(o);
    co_await expect_addresses(resolver, "a.test", 1, "127.0.0.5:1");
    co_await expect_error(resolver, "nowhere.test", "no such host");
  };
  run(body());
  EXPECT_EQ(test::open_fds(), fds);
}

TEST_F(DnsTest, OverTcpAServerPortWhereNothingListensIsRefused) {
  SilentServer silent;  // UDP only: nothing accepts TCP on its port
  auto body = [&silent]() -> Task<void> {
    DnsOptions o;
    o.servers = {silent.server()};
    o.tcp = true;
    o.tries = 1;
    DnsResolver resolver(o);
    co_await expect_error(resolver, "a.test", "could not reach a DNS server (connection refused)");
  };
  run(body());
}

TEST_F(DnsTest, AaaaRecordsResolveAndANameWithBothFamiliesGivesBoth) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    co_await expect_addresses(resolver, "six.test", 443, "[fd00::6]:443");
    std::vector<std::string> both = texts(co_await resolver.resolve("both.test", 1));
    std::sort(both.begin(), both.end());
    EXPECT_EQ(both, (std::vector<std::string>{"127.0.0.9:1", "[fd00::9]:1"}));
  };
  run(body());
}

TEST_F(DnsTest, TheFamilyOptionAsksForOneFamilyOnly) {
  auto body = []() -> Task<void> {
    DnsOptions o = options();
    o.family = AF_INET;
    DnsResolver v4(o);
    co_await expect_addresses(v4, "both.test", 1, "127.0.0.9:1");
    o.family = AF_INET6;
    DnsResolver v6(o);
    co_await expect_addresses(v6, "both.test", 1, "[fd00::9]:1");
    // a.test has no AAAA record: NODATA.
    co_await expect_error(v6, "a.test", "no address");
  };
  run(body());
}

TEST_F(DnsTest, AnUnknownNameIsNoSuchHost) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    co_await expect_error(resolver, "nowhere.test", "no such host (NXDOMAIN)");
  };
  run(body());
}

TEST_F(DnsTest, ANameTheServerWillNotServeIsRefused) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    co_await expect_error(resolver, "elsewhere.example", "refused");
  };
  run(body());
}

TEST_F(DnsTest, AServerThatNeverAnswersIsATimeoutError) {
  SilentServer silent;
  size_t fds = test::open_fds();
  auto body = [&silent]() -> Task<void> {
    DnsOptions o;
    o.servers = {silent.server()};
    o.timeout = 100ms;
    o.tries = 2;
    DnsResolver resolver(o);
    co_await expect_error(resolver, "a.test", "DNS server did not answer");
    // Timeouts are not cached: the next lookup asks again.
    co_await expect_error(resolver, "a.test", "did not answer");
    EXPECT_EQ(resolver.stats().queries, 2u);
  };
  run(body());
  EXPECT_EQ(test::open_fds(), fds);
}

TEST_F(DnsTest, AnAnswerLongerThanMaxAddressesIsCut) {
  auto body = []() -> Task<void> {
    DnsOptions o = options();
    o.max_addresses = 1;
    DnsResolver resolver(o);
    std::vector<Address> got = co_await resolver.resolve("both.test", 1);
    EXPECT_EQ(got.size(), 1u);
    got = co_await resolver.resolve("both.test", 2);  // and so is what the cache keeps
    EXPECT_EQ(got.size(), 1u);
    EXPECT_EQ(resolver.stats().cache_hits, 1u);
  };
  run(body());
}

TEST_F(DnsTest, ASecondServerAnswersWhenTheFirstDoesNot) {
  SilentServer silent;
  auto body = [&silent]() -> Task<void> {
    DnsOptions o = options();
    o.servers = {silent.server(), dnsmasq_->server()};
    o.timeout = 100ms;
    DnsResolver resolver(o);
    co_await expect_addresses(resolver, "a.test", 1, "127.0.0.5:1");
  };
  run(body());
}

TEST_F(DnsTest, AnAnswerIsCachedAndTheServerIsNotAskedAgain) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    size_t before = dnsmasq_->queries("A", "other.test");
    co_await expect_addresses(resolver, "other.test", 1, "127.0.0.12:1");
    co_await expect_addresses(resolver, "OTHER.test.", 2, "127.0.0.12:2");
    EXPECT_EQ(resolver.stats().queries, 1u);
    EXPECT_EQ(resolver.stats().cache_hits, 1u);
    EXPECT_EQ(resolver.cache_entries(), 1u);
    EXPECT_EQ(dnsmasq_->queries("A", "other.test"), before + 1);
    resolver.clear_cache();
    co_await resolver.resolve("other.test", 1);
    EXPECT_EQ(resolver.stats().queries, 2u);
  };
  run(body());
}

TEST_F(DnsTest, AnAnswerExpiresWithItsTtl) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    co_await resolver.resolve("short.test", 1);  // TTL 1 s
    co_await resolver.resolve("a.test", 1);      // TTL 600 s
    EXPECT_EQ(resolver.stats().queries, 2u);
    co_await sleep(1500ms);
    co_await expect_addresses(resolver, "short.test", 1, "127.0.0.7:1");
    EXPECT_EQ(resolver.stats().queries, 3u);  // asked again: its TTL has passed
    co_await resolver.resolve("a.test", 1);
    EXPECT_EQ(resolver.stats().queries, 3u);  // still cached
  };
  run(body());
}

TEST_F(DnsTest, NoSuchHostIsCachedForTheNegativeTtl) {
  auto body = []() -> Task<void> {
    DnsOptions o = options();
    o.negative_ttl = 300ms;
    DnsResolver resolver(o);
    co_await expect_error(resolver, "gone.test", "no such host");
    co_await expect_error(resolver, "gone.test", "no such host");
    EXPECT_EQ(resolver.stats().queries, 1u);
    EXPECT_EQ(resolver.stats().cache_hits, 1u);
    co_await sleep(400ms);
    co_await expect_error(resolver, "gone.test", "no such host");
    EXPECT_EQ(resolver.stats().queries, 2u);

    o.negative_ttl = Duration::zero();
    DnsResolver uncached(o);
    co_await lookup_error(uncached, "gone.test");
    co_await lookup_error(uncached, "gone.test");
    EXPECT_EQ(uncached.stats().queries, 2u);
  };
  run(body());
}

TEST_F(DnsTest, TheCacheHoldsAtMostCacheSizeNamesAndDropsTheLeastRecentlyUsed) {
  auto body = []() -> Task<void> {
    DnsOptions o = options();
    o.cache_size = 2;
    DnsResolver resolver(o);
    co_await resolver.resolve("a.test", 1);
    co_await resolver.resolve("six.test", 1);
    co_await resolver.resolve("a.test", 1);      // a hit: a.test is now the most recent
    co_await resolver.resolve("other.test", 1);  // evicts six.test
    EXPECT_EQ(resolver.cache_entries(), 2u);
    EXPECT_EQ(resolver.stats().queries, 3u);
    co_await resolver.resolve("a.test", 1);
    EXPECT_EQ(resolver.stats().queries, 3u);
    co_await resolver.resolve("six.test", 1);
    EXPECT_EQ(resolver.stats().queries, 4u);
    EXPECT_EQ(resolver.cache_entries(), 2u);
  };
  run(body());
}

TEST_F(DnsTest, ConcurrentLookupsOfOneNameShareOneQuery) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    size_t before = dnsmasq_->queries("A", "many.test");
    auto one = [&resolver](uint16_t port) -> Task<std::vector<Address>> {
      co_return co_await resolver.resolve("many.test", port);
    };
    std::vector<TaskHandle<std::vector<Address>>> handles;
    for (uint16_t port = 1; port <= 5; ++port) handles.push_back(spawn(one(port)));
    for (uint16_t port = 1; port <= 5; ++port) {
      std::vector<Address> got = co_await handles[port - 1];
      EXPECT_EQ(texts(got), std::vector<std::string>{"127.0.0.11:" + std::to_string(port)});
    }
    EXPECT_EQ(resolver.stats().queries, 1u);
    EXPECT_EQ(resolver.stats().coalesced, 4u);
    EXPECT_EQ(dnsmasq_->queries("A", "many.test"), before + 1);
  };
  run(body());
}

TEST_F(DnsTest, OverridesMapHostsAndHostPortsBeforeAnythingElse) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    resolver.add_override("Example.COM", "127.0.0.1");
    resolver.add_override("example.com", 443, "127.0.0.2", 8443);
    resolver.add_override("alias.test", "a.test");
    resolver.add_override("a.test", "127.0.0.99");  // overrides are not applied twice
    co_await expect_addresses(resolver, "example.com.", 80, "127.0.0.1:80");
    co_await expect_addresses(resolver, "example.com", 443, "127.0.0.2:8443");
    EXPECT_EQ(resolver.stats().queries, 0u);
    co_await expect_addresses(resolver, "alias.test", 7, "127.0.0.5:7");
    EXPECT_EQ(resolver.stats().queries, 1u);
    EXPECT_EQ(resolver.stats().overridden, 3u);

    resolver.remove_override("example.com", 443);
    co_await expect_addresses(resolver, "example.com", 443, "127.0.0.1:443");
    resolver.remove_override("example.com");
    resolver.remove_override("a.test");
    co_await expect_addresses(resolver, "a.test", 1, "127.0.0.5:1");
    resolver.clear_overrides();
    co_await expect_error(resolver, "alias.test", "no such host");
  };
  run(body());
}

TEST_F(DnsTest, LiteralsLocalhostAndInvalidNamesNeedNoQuery) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    co_await expect_addresses(resolver, "10.1.2.3", 5, "10.1.2.3:5");
    co_await expect_addresses(resolver, "[::1]", 5, "[::1]:5");
    co_await expect_addresses(resolver, "localhost", 5, "[::1]:5 127.0.0.1:5");
    co_await expect_addresses(resolver, "app.localhost", 5, "[::1]:5 127.0.0.1:5");
    co_await expect_error(resolver, "no-such-host.invalid", "no such host");
    co_await expect_error(resolver, "bad name", "not a valid host name");
    co_await expect_error(resolver, "a..test", "not a valid host name");
    co_await expect_error(resolver, std::string(64, 'x') + ".test", "not a valid host name");
    co_await expect_error(resolver, "", "not a valid host name");
    EXPECT_EQ(resolver.stats().queries, 0u);
  };
  run(body());
}

TEST_F(DnsTest, ANameInTheHostsFileIsAnsweredFromItWithoutAQuery) {
  test::TempDir dir;
  auto hosts = dir.write("hosts", "# test hosts\n127.0.0.42 filehost.test\n127.0.0.43 a.test\n");
  auto body = [&hosts]() -> Task<void> {
    DnsResolver resolver(with_hosts(hosts));
    size_t before = dnsmasq_->queries("A", "a.test");
    co_await expect_addresses(resolver, "filehost.test", 1, "127.0.0.42:1");
    co_await expect_addresses(resolver, "a.test", 2, "127.0.0.43:2");  // before DNS's 127.0.0.5
    co_await expect_addresses(resolver, "filehost.test", 3, "127.0.0.42:3");
    EXPECT_EQ(resolver.stats().hosts_file, 3u);
    EXPECT_EQ(resolver.stats().queries, 0u);
    EXPECT_EQ(resolver.cache_entries(), 0u);  // the file is its own cache
    EXPECT_EQ(dnsmasq_->queries("A", "a.test"), before);
  };
  run(body());
}

TEST_F(DnsTest, ANameTheHostsFileDoesNotListGoesToTheServer) {
  test::TempDir dir;
  auto hosts = dir.write("hosts", "127.0.0.42 filehost.test\n");
  auto body = [&hosts]() -> Task<void> {
    DnsResolver resolver(with_hosts(hosts));
    size_t before = dnsmasq_->queries("A", "other.test");
    co_await expect_addresses(resolver, "other.test", 1, "127.0.0.12:1");
    co_await expect_error(resolver, "nowhere.test", "no such host");
    EXPECT_EQ(resolver.stats().queries, 2u);
    EXPECT_EQ(resolver.stats().hosts_file, 0u);
    EXPECT_EQ(dnsmasq_->queries("A", "other.test"), before + 1);
  };
  run(body());
}

TEST_F(DnsTest, AliasesInTheHostsFileMatchWithoutRegardToCaseAndCommentsAreIgnored) {
  test::TempDir dir;
  auto hosts = dir.write("hosts",
                         "127.0.0.44 Main.Test alias.test\tOTHER-alias.test # gone.test\n"
                         "  127.0.0.45\tspaced.test#tight.test\n");
  auto body = [&hosts]() -> Task<void> {
    DnsResolver resolver(with_hosts(hosts));
    co_await expect_addresses(resolver, "main.test", 1, "127.0.0.44:1");
    co_await expect_addresses(resolver, "ALIAS.test.", 2, "127.0.0.44:2");
    co_await expect_addresses(resolver, "other-alias.TEST", 3, "127.0.0.44:3");
    co_await expect_addresses(resolver, "spaced.test", 4, "127.0.0.45:4");
    EXPECT_EQ(resolver.stats().queries, 0u);
    co_await expect_error(resolver, "gone.test", "no such host");  // a comment: DNS's answer
    co_await expect_error(resolver, "tight.test", "no such host");
    EXPECT_EQ(resolver.stats().queries, 2u);
  };
  run(body());
}

TEST_F(DnsTest, ANameOnSeveralHostsLinesGetsEveryAddressInTheFilesOrderOfItsFamily) {
  test::TempDir dir;
  auto hosts = dir.write("hosts",
                         "fd00::44 multi.test\n127.0.0.46 multi.test\n127.0.0.46 multi.test\n"
                         "fd00::47 a.test\n");
  auto body = [&hosts]() -> Task<void> {
    DnsResolver both(with_hosts(hosts));
    co_await expect_addresses(both, "multi.test", 1, "[fd00::44]:1 127.0.0.46:1");
    DnsOptions o = with_hosts(hosts);
    o.family = AF_INET;
    DnsResolver v4(o);
    co_await expect_addresses(v4, "multi.test", 1, "127.0.0.46:1");
    // The file has no IPv4 address for a.test: DNS has.
    co_await expect_addresses(v4, "a.test", 1, "127.0.0.5:1");
    EXPECT_EQ(v4.stats().queries, 1u);
  };
  run(body());
}

TEST_F(DnsTest, MalformedHostsLinesAreSkipped) {
  test::TempDir dir;
  auto hosts = dir.write("hosts",
                         "bogus broken.test\n999.0.0.1 broken.test\n127.1 broken.test\n"
                         "[::1] broken.test\n127.0.0.48\n\n   \n#\n"
                         "127.0.0.49 good.test");  // the last line has no newline
  auto body = [&hosts]() -> Task<void> {
    DnsResolver resolver(with_hosts(hosts));
    co_await expect_addresses(resolver, "good.test", 1, "127.0.0.49:1");
    co_await expect_error(resolver, "broken.test", "no such host");
    EXPECT_EQ(resolver.stats().hosts_file, 1u);
    EXPECT_EQ(resolver.stats().queries, 1u);
  };
  run(body());
}

TEST_F(DnsTest, AnEditToTheHostsFileIsSeenAtTheNextCheck) {
  test::TempDir dir;
  auto hosts = dir.write("hosts", "127.0.0.42 filehost.test\n");
  auto body = [&dir, &hosts]() -> Task<void> {
    DnsResolver resolver(with_hosts(hosts));  // checked before every lookup
    co_await expect_addresses(resolver, "filehost.test", 1, "127.0.0.42:1");
    dir.write("hosts", "127.0.0.43 filehost.test\n");  // the same size, written at once
    co_await expect_addresses(resolver, "filehost.test", 1, "127.0.0.43:1");
    dir.write("hosts", "127.0.0.43 filehost.test\n127.0.0.50 a.test\n");
    co_await expect_addresses(resolver, "a.test", 1, "127.0.0.50:1");
    dir.write("hosts", "127.0.0.43 filehost.test\n");
    co_await expect_addresses(resolver, "a.test", 1, "127.0.0.5:1");  // DNS again
    EXPECT_EQ(resolver.stats().queries, 1u);
  };
  run(body());
}

TEST_F(DnsTest, AnEditToTheHostsFileIsNotReadBeforeTheRecheckInterval) {
  test::TempDir dir;
  auto hosts = dir.write("hosts", "127.0.0.42 filehost.test\n");
  auto body = [&dir, &hosts]() -> Task<void> {
    DnsOptions o = with_hosts(hosts);
    o.hosts_recheck = std::chrono::hours(1);
    DnsResolver resolver(o);
    co_await expect_addresses(resolver, "filehost.test", 1, "127.0.0.42:1");
    dir.write("hosts", "127.0.0.43 filehost.test\n");
    co_await expect_addresses(resolver, "filehost.test", 1, "127.0.0.42:1");  // as parsed
  };
  run(body());
}

TEST_F(DnsTest, AHostsFileThatDisappearsListsNothingUntilItComesBack) {
  test::TempDir dir;
  auto hosts = dir.write("hosts", "127.0.0.42 filehost.test\n127.0.0.43 a.test\n");
  auto body = [&dir, &hosts]() -> Task<void> {
    DnsResolver resolver(with_hosts(hosts));
    co_await expect_addresses(resolver, "a.test", 1, "127.0.0.43:1");
    std::filesystem::remove(hosts);
    co_await expect_addresses(resolver, "a.test", 1, "127.0.0.5:1");
    co_await expect_error(resolver, "filehost.test", "no such host");
    dir.write("hosts", "127.0.0.42 filehost.test\n");
    co_await expect_addresses(resolver, "filehost.test", 1, "127.0.0.42:1");
    EXPECT_EQ(resolver.stats().queries, 2u);
  };
  run(body());
}

TEST_F(DnsTest, AHostsFileOverTheMemoryLimitIsReadLineByLineOnEveryLookup) {
  test::TempDir dir;
  auto hosts = dir.write("hosts", "127.0.0.42 filehost.test\n127.0.0.43 A.test alias.test\n");
  auto body = [&dir, &hosts]() -> Task<void> {
    DnsOptions o = with_hosts(hosts);
    o.hosts_memory_limit = 100;  // the file fits, its parse does not
    o.hosts_recheck = std::chrono::hours(1);
    DnsResolver resolver(o);
    co_await expect_addresses(resolver, "filehost.test", 1, "127.0.0.42:1");
    co_await expect_addresses(resolver, "alias.test", 1, "127.0.0.43:1");
    dir.write("hosts", "127.0.0.44 a.test\n");  // read again whatever the interval
    co_await expect_addresses(resolver, "a.test", 1, "127.0.0.44:1");
    co_await expect_error(resolver, "filehost.test", "no such host");
    o.hosts_memory_limit = 10;  // nor does the file itself
    DnsResolver tiny(o);
    co_await expect_addresses(tiny, "a.test", 1, "127.0.0.44:1");
    EXPECT_EQ(resolver.stats().queries, 1u);
    EXPECT_EQ(tiny.stats().queries, 0u);
  };
  run(body());
}

TEST_F(DnsTest, CaresHostsNamesTheHostsFileWhenTheOptionsNameNone) {
  test::TempDir dir;
  auto hosts = dir.write("hosts", "127.0.0.42 filehost.test\n");
  ASSERT_EQ(setenv("CARES_HOSTS", hosts.c_str(), 1), 0);
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    co_await expect_addresses(resolver, "filehost.test", 1, "127.0.0.42:1");
    EXPECT_EQ(resolver.stats().queries, 0u);
  };
  run(body());
  unsetenv("CARES_HOSTS");
}

TEST_F(DnsTest, ConcurrentLookupsOfAHostsFileNameEachGetItsAddress) {
  test::TempDir dir;
  auto hosts = dir.write("hosts", "127.0.0.42 filehost.test\n");
  auto body = [&hosts]() -> Task<void> {
    DnsResolver resolver(with_hosts(hosts));
    auto first = spawn(resolver.resolve("filehost.test", 1));
    auto second = spawn(resolver.resolve("filehost.test", 2));
    std::vector<Address> got_first = co_await first;
    std::vector<Address> got_second = co_await second;
    EXPECT_EQ(texts(got_first), std::vector<std::string>{"127.0.0.42:1"});
    EXPECT_EQ(texts(got_second), std::vector<std::string>{"127.0.0.42:2"});
    EXPECT_EQ(resolver.stats().hosts_file, 2u);
  };
  run(body());
}

TEST_F(DnsTest, KillingTheOnlyLookupCancelsItsQueryAndReleasesItsSocket) {
  SilentServer silent;
  size_t fds = test::open_fds();
  auto body = [&silent]() -> Task<void> {
    DnsOptions o;
    o.servers = {silent.server()};
    o.timeout = 10s;
    DnsResolver resolver(o);
    auto lookup = spawn(resolver.resolve("a.test", 1));
    co_await sleep(20ms);
    EXPECT_EQ(Loop::current().handler_count(), 1u);  // c-ares's UDP socket
    lookup.kill();
    EXPECT_TRUE(co_await lookup.join(1s));
    EXPECT_THROW(co_await lookup, CancelledError);
    EXPECT_EQ(Loop::current().handler_count(), 0u);
    EXPECT_EQ(Loop::current().timer_count(), 0u);
  };
  run(body());
  EXPECT_EQ(test::open_fds(), fds);
}

TEST_F(DnsTest, WithTimeoutAroundALookupReleasesEverything) {
  SilentServer silent;
  size_t fds = test::open_fds();
  auto body = [&silent]() -> Task<void> {
    DnsOptions o;
    o.servers = {silent.server()};
    o.timeout = 10s;
    DnsResolver resolver(o);
    EXPECT_THROW(co_await with_timeout(30ms, resolver.resolve("a.test", 1)), TimeoutError);
    EXPECT_EQ(Loop::current().handler_count(), 0u);
  };
  run(body());
  EXPECT_EQ(test::open_fds(), fds);
}

TEST_F(DnsTest, KillingOneOfTwoWaitersLeavesTheOtherItsAnswer) {
  SilentServer silent;
  auto body = [&silent]() -> Task<void> {
    DnsOptions o = options();
    // The silent server is asked first, so the query stays in flight for 300 ms at least.
    o.servers = {silent.server(), dnsmasq_->server()};
    o.timeout = 300ms;
    DnsResolver resolver(o);
    auto first = spawn(resolver.resolve("many.test", 1));
    auto second = spawn(resolver.resolve("many.test", 2));
    co_await sleep(20ms);
    first.kill();
    EXPECT_THROW(co_await first, CancelledError);
    std::vector<Address> got = co_await second;
    EXPECT_EQ(texts(got), std::vector<std::string>{"127.0.0.11:2"});
    EXPECT_EQ(resolver.stats().queries, 1u);
  };
  run(body());
}

TEST_F(DnsTest, KillingTheMiddleOfThreeWaitersLeavesTheOthersTheirAnswers) {
  SilentServer silent;
  auto body = [&silent]() -> Task<void> {
    DnsOptions o = options();
    o.servers = {silent.server(), dnsmasq_->server()};  // in flight for 300 ms at least
    o.timeout = 300ms;
    DnsResolver resolver(o);
    auto first = spawn(resolver.resolve("many.test", 1));
    auto middle = spawn(resolver.resolve("MANY.test.", 2));  // the same name
    auto last = spawn(resolver.resolve("many.test", 3));
    co_await sleep(20ms);
    middle.kill();
    EXPECT_THROW(co_await middle, CancelledError);
    std::vector<Address> got_first = co_await first;
    std::vector<Address> got_last = co_await last;
    EXPECT_EQ(texts(got_first), std::vector<std::string>{"127.0.0.11:1"});
    EXPECT_EQ(texts(got_last), std::vector<std::string>{"127.0.0.11:3"});
    EXPECT_EQ(resolver.stats().queries, 1u);
    EXPECT_EQ(resolver.stats().coalesced, 2u);
  };
  run(body());
}

TEST_F(DnsTest, EveryWaiterOfAQueryThatTimesOutGetsTheTimeoutError) {
  SilentServer silent;
  auto body = [&silent]() -> Task<void> {
    DnsOptions o;
    o.servers = {silent.server()};
    o.timeout = 50ms;
    o.tries = 1;
    DnsResolver resolver(o);
    auto first = spawn(lookup_error(resolver, "a.test"));
    auto second = spawn(lookup_error(resolver, "a.test"));
    expect_resolve_error(co_await first, "a.test", "DNS server did not answer (timeout)");
    expect_resolve_error(co_await second, "a.test", "DNS server did not answer (timeout)");
    EXPECT_EQ(resolver.stats().queries, 1u);
    EXPECT_EQ(resolver.stats().coalesced, 1u);
    EXPECT_EQ(Loop::current().handler_count(), 0u);
    EXPECT_EQ(Loop::current().timer_count(), 0u);
  };
  run(body());
}

TEST_F(DnsTest, ALookupAfterTheQueryForItsNameEndedAsksAgain) {
  auto body = []() -> Task<void> {
    DnsOptions o = options();
    o.cache_size = 0;
    DnsResolver resolver(o);
    size_t before = dnsmasq_->queries("A", "other.test");
    co_await expect_addresses(resolver, "other.test", 1, "127.0.0.12:1");
    EXPECT_EQ(Loop::current().handler_count(), 0u);  // the query ended: nothing held
    co_await expect_addresses(resolver, "other.test", 2, "127.0.0.12:2");
    co_await expect_error(resolver, "nowhere.test", "no such host");
    co_await expect_error(resolver, "nowhere.test", "no such host");
    EXPECT_EQ(resolver.stats().queries, 4u);
    EXPECT_EQ(resolver.stats().coalesced, 0u);
    EXPECT_EQ(dnsmasq_->queries("A", "other.test"), before + 2);
  };
  run(body());
}

TEST_F(DnsTest, ALookupKilledBeforeItWaitsStartsNoQuery) {
  auto body = []() -> Task<void> {
    DnsResolver resolver(options());
    std::optional<TaskHandle<std::vector<Address>>> self;
    auto killed = [&]() -> Task<std::vector<Address>> {
      self->kill();  // pending: delivered where the lookup would first wait
      co_return co_await resolver.resolve("a.test", 1);
    };
    self = spawn(killed());
    EXPECT_THROW(co_await *self, CancelledError);
    EXPECT_EQ(resolver.stats().queries, 0u);
    EXPECT_EQ(Loop::current().handler_count(), 0u);
    co_await expect_addresses(resolver, "a.test", 2, "127.0.0.5:2");  // nothing left in the way
    EXPECT_EQ(resolver.stats().queries, 1u);
  };
  run(body());
}

TEST_F(DnsTest, DestroyingTheResolverFailsTheLookupsStillWaiting) {
  SilentServer silent;
  auto body = [&silent]() -> Task<void> {
    DnsOptions o;
    o.servers = {silent.server()};
    o.timeout = 10s;
    auto resolver = std::make_unique<DnsResolver>(o);
    auto lookup = spawn(resolver->resolve("a.test", 1));
    co_await sleep(20ms);
    resolver.reset();
    EXPECT_EQ(Loop::current().handler_count(), 0u);
    try {
      co_await lookup;
      ADD_FAILURE() << "a lookup outlived its resolver";
    } catch (const NetError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Resolve);
      EXPECT_NE(std::string(e.what()).find("resolver destroyed"), std::string::npos) << e.what();
    }
  };
  run(body());
}

TEST_F(DnsTest, ALoopDestroyedMidLookupLeavesItsResolverIdleAndTheSocketClosed) {
  SilentServer silent;
  size_t fds = test::open_fds();
  DnsOptions o;
  o.servers = {silent.server()};
  o.timeout = 10s;
  std::optional<DnsResolver> resolver;
  {
    Loop inner;
    resolver.emplace(o);
    auto lookup = spawn(resolver->resolve("a.test", 1));
    for (int i = 0; i < 3 && inner.handler_count() == 0; ++i) inner.run_once(Loop::time() + 10ms);
    EXPECT_EQ(inner.handler_count(), 1u);
    EXPECT_EQ(inner.timer_count(), 1u);
  }  // ~Loop destroys the waiting frame: the resolver cancels its query on the way
  EXPECT_EQ(test::open_fds(), fds);
  EXPECT_EQ(resolver->stats().queries, 1u);
  resolver.reset();
}

TEST_F(DnsTest, TcpConnectReachesAServerByNameThroughTheResolver) {
  auto body = []() -> Task<void> {
    auto echo = [](Stream& s) -> Task<void> {
      std::string line = co_await s.read_until("\n");
      co_await s.write(std::move(line));
    };
    TcpServer server(echo);
    server.listen(Address::ipv4_loopback(0));
    DnsResolver resolver(options());
    ConnectOptions connect;
    connect.resolver = &resolver;
    Stream s = co_await tcp_connect("server.test", server.port(), connect);
    co_await s.write("by name\n");
    EXPECT_EQ(co_await s.read_until("\n"), "by name\n");
    s.close();
    co_await server.stop(1s);
  };
  run(body());
}

TEST_F(DnsTest, MalformedOptionsAreRejected) {
  DnsOptions o;
  o.servers = {"not an address"};
  EXPECT_THROW(DnsResolver{o}, InvalidArgumentError);
  o.servers = {};
  o.tries = 0;
  EXPECT_THROW(DnsResolver{o}, InvalidArgumentError);
}

TEST_F(DnsTest, TheDefaultResolverIsThisLoopsDnsResolver) {
  EXPECT_EQ(&default_resolver(), static_cast<Resolver*>(&default_dns_resolver()));
  auto body = []() -> Task<void> {
    co_await expect_addresses(default_resolver(), "127.0.0.1", 9, "127.0.0.1:9");
    default_dns_resolver().add_override("mapped.example", "127.0.0.3");
    co_await expect_addresses(default_resolver(), "mapped.example", 9, "127.0.0.3:9");
    default_dns_resolver().clear_overrides();
  };
  run(body());
}

}  // namespace
}  // namespace squall
