// Addresses: parsing and formatting IPv4 and IPv6 text forms.
#include "squall/net/address.h"

#include <gtest/gtest.h>

#include "squall/core/error.h"
#include "squall/net/resolver.h"

namespace squall {
namespace {

TEST(AddressTest, AnIpv4AddressRoundTripsThroughText) {
  Address a = Address::parse("127.0.0.1:8080");
  EXPECT_EQ(a.family(), AF_INET);
  EXPECT_EQ(a.port(), 8080);
  EXPECT_EQ(a.host(), "127.0.0.1");
  EXPECT_EQ(a.to_string(), "127.0.0.1:8080");
}

TEST(AddressTest, AnIpv6AddressIsWrittenInBrackets) {
  Address a = Address::parse("[::1]:80");
  EXPECT_TRUE(a.is_v6());
  EXPECT_EQ(a.port(), 80);
  EXPECT_EQ(a.host(), "::1");
  EXPECT_EQ(a.to_string(), "[::1]:80");
  EXPECT_EQ(Address::parse("[2001:db8::1]:443").to_string(), "[2001:db8::1]:443");
}

TEST(AddressTest, MalformedTextIsAnInvalidArgumentSayingWhatIsExpected) {
  for (const char* bad : {"127.0.0.1", "::1:80", "[::1]", "1.2.3.4:99999", "1.2.3.4:x",
                          "localhost:80", "[1.2.3.4]:80", "1.2.3.4:", ":80"}) {
    try {
      Address::parse(bad);
      ADD_FAILURE() << bad << " parsed";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("[::1]:80"), std::string::npos) << e.what();
    }
  }
}

TEST(AddressTest, FromIpAcceptsLiteralsAndDeclinesNames) {
  EXPECT_EQ(Address::from_ip("::1", 5)->to_string(), "[::1]:5");
  EXPECT_EQ(Address::from_ip("[::1]", 5)->to_string(), "[::1]:5");
  EXPECT_EQ(Address::from_ip("10.1.2.3", 5)->to_string(), "10.1.2.3:5");
  EXPECT_FALSE(Address::from_ip("example.com", 5));
  EXPECT_FALSE(Address::from_ip("", 5));
}

TEST(AddressTest, LoopbackAndAnyAddressesAreWhatTheySay) {
  EXPECT_EQ(Address::ipv4_loopback(1).to_string(), "127.0.0.1:1");
  EXPECT_EQ(Address::ipv6_loopback(1).to_string(), "[::1]:1");
  EXPECT_EQ(Address::ipv4_any(2).to_string(), "0.0.0.0:2");
  EXPECT_EQ(Address::ipv6_any(2).to_string(), "[::]:2");
  EXPECT_EQ(Address::parse("127.0.0.1:1"), Address::ipv4_loopback(1));
  EXPECT_FALSE(Address::ipv4_loopback(1) == Address::ipv4_loopback(2));
}

TEST(AddressTest, InterleavingAlternatesFamiliesStartingWithTheFirst) {
  std::vector<Address> in{Address::parse("[::1]:1"), Address::parse("[::2]:1"),
                          Address::parse("[::3]:1"), Address::parse("10.0.0.1:1"),
                          Address::parse("10.0.0.2:1")};
  std::vector<std::string> out;
  for (const Address& a : interleave_families(in)) out.push_back(a.to_string());
  EXPECT_EQ(
      out, (std::vector<std::string>{"[::1]:1", "10.0.0.1:1", "[::2]:1", "10.0.0.2:1", "[::3]:1"}));
}

}  // namespace
}  // namespace squall
