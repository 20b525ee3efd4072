// HttpWorkers and the port it listens on: its workers share it, no other process does.
#include <gtest/gtest.h>

#include <cerrno>

#include "squall/core/error.h"
#include "squall/http/server.h"
#include "squall/net/net_error.h"
#include "squall/net/socket.h"

namespace squall::http {
namespace {

Task<void> hello(ServerRequest&, ServerResponse& r) {
  co_await r.write("hello");
}

// A SO_REUSEPORT listener of this same user, as another squall or nginx's `reuseport` holds a
// port: the listener Linux would let SO_REUSEPORT workers join.
Socket reuse_port_listener() {
  Socket s = Socket::tcp(AF_INET);
  EXPECT_EQ(s.set_reuse_address(true), 0);
  EXPECT_EQ(s.set_reuse_port(true), 0);
  EXPECT_EQ(s.bind(Address::ipv4_loopback(0)), 0);
  EXPECT_EQ(s.listen(16), 0);
  return s;
}

int start_error(size_t workers, const Address& address) {
  try {
    HttpWorkers w(workers, address, [] { return Handler(hello); });
    return 0;
  } catch (const NetError& e) {
    return e.error_number();
  }
}

TEST(HttpWorkersPort, APortAnotherListenerHoldsIsAddressInUseForOneOrSeveralWorkers) {
  Socket other = reuse_port_listener();
  Address address = other.local_address().value();
  EXPECT_EQ(start_error(1, address), EADDRINUSE);
  EXPECT_EQ(start_error(3, address), EADDRINUSE);
}

TEST(HttpWorkersPort, WorkersOnAPortOtherWorkersHoldGetAddressInUse) {
  HttpWorkers first(2, Address::ipv4_loopback(0), [] { return Handler(hello); });
  EXPECT_EQ(start_error(2, first.address()), EADDRINUSE);
  EXPECT_EQ(start_error(1, first.address()), EADDRINUSE);
  first.stop(std::chrono::seconds(1));
  // Once it stopped, the port is free for the next one.
  EXPECT_EQ(start_error(2, first.address()), 0);
}

}  // namespace
}  // namespace squall::http
