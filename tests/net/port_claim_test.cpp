// PortClaim against real listeners on loopback: what it refuses, and what it lets bind after it.
#include "squall/net/port_claim.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <optional>

#include "squall/net/net_error.h"
#include "squall/net/socket.h"

namespace squall {
namespace {

// A socket listening on `address` (port 0: an ephemeral one), with or without SO_REUSEPORT.
Socket listener(const Address& address, bool reuse_port) {
  Socket s = Socket::tcp(address.family());
  EXPECT_EQ(s.set_reuse_address(true), 0);
  if (reuse_port) {
    EXPECT_EQ(s.set_reuse_port(true), 0);
  }
  if (address.is_v6()) {
    EXPECT_EQ(s.set_v6_only(true), 0);
  }
  EXPECT_EQ(s.bind(address), 0);
  EXPECT_EQ(s.listen(16), 0);
  return s;
}

Address bound(const Socket& s) {
  return s.local_address().value();
}

// The errno of a claim's NetError, or 0 when the claim was granted.
int claim_error(const Address& address) {
  try {
    PortClaim claim(address);
    return 0;
  } catch (const NetError& e) {
    EXPECT_EQ(e.phase(), NetPhase::Listen);
    EXPECT_EQ(e.peer(), address.to_string());
    return e.error_number();
  }
}

TEST(PortClaim, RefusesAPortAListenerHoldsWithOrWithoutReusePort) {
  for (bool reuse_port : {false, true}) {
    Socket other = listener(Address::ipv4_loopback(0), reuse_port);
    EXPECT_EQ(claim_error(bound(other)), EADDRINUSE) << "reuse_port " << reuse_port;
  }
}

TEST(PortClaim, RefusesAnAddressUnderAWildcardListener) {
  Socket any = listener(Address::ipv4_any(0), true);
  EXPECT_EQ(claim_error(Address::ipv4_loopback(bound(any).port())), EADDRINUSE);
}

TEST(PortClaim, RefusesAnIpv6PortHeldAndLeavesTheOtherFamilyAlone) {
  Socket v6 = listener(Address::ipv6_loopback(0), true);
  uint16_t port = bound(v6).port();
  EXPECT_EQ(claim_error(Address::ipv6_loopback(port)), EADDRINUSE);
  // 127.0.0.1 and ::1 (v6-only) are different addresses: holding one does not take the other.
  Socket v4_probe = Socket::tcp(AF_INET);
  v4_probe.set_reuse_address(true);
  if (v4_probe.bind(Address::ipv4_loopback(port)) == 0) {
    v4_probe.close();
    EXPECT_EQ(claim_error(Address::ipv4_loopback(port)), 0);
  }
}

TEST(PortClaim, AGrantedClaimLetsReusePortListenersBindThenTheirPortIsRefused) {
  Socket first = listener(Address::ipv4_loopback(0), false);
  Address address = bound(first);
  first.close();  // a port known to be free now
  std::optional<Socket> a, b;
  {
    PortClaim claim(address);
    a = listener(address, true);
    b = listener(address, true);
  }
  EXPECT_EQ(claim_error(address), EADDRINUSE);
  // The lock went with the claim: once the listeners are gone, the port is free to claim again.
  a->close();
  b->close();
  EXPECT_EQ(claim_error(address), 0);
}

TEST(PortClaim, AnAddressThisMachineDoesNotHaveIsItsOwnError) {
  // 192.0.2.0/24 is TEST-NET-1: never an address of this machine; nothing is sent to it.
  EXPECT_EQ(claim_error(Address::parse("192.0.2.1:8000")), EADDRNOTAVAIL);
}

}  // namespace
}  // namespace squall
