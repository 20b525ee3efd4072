// The test CONNECT proxy: one task per client, one more per tunnel direction.
#include "support/tunnel_proxy.h"

#include <string>

#include "squall/core/spawn.h"
#include "squall/net/address.h"
#include "squall/net/net_error.h"
#include "squall/net/tcp_client.h"

namespace squall::test {

namespace {

Task<void> pump(Stream& from, Stream& to) {
  try {
    for (;;) co_await to.write(co_await from.read_bytes(64 * 1024, true));
  } catch (const NetError&) {
  }
  to.close();
}

}  // namespace

TunnelProxy::TunnelProxy() : server([this](Stream& s) -> Task<void> { return handle(s); }) {
  server.listen(Address::parse("127.0.0.1:0"));
}

Task<void> TunnelProxy::handle(Stream& s) {
  std::string head = co_await s.read_until("\r\n\r\n", 8192);
  if (head.rfind("CONNECT ", 0) != 0) {
    co_await s.write("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
    co_return;
  }
  std::string authority = head.substr(8, head.find(' ', 8) - 8);
  size_t colon = authority.rfind(':');
  Stream up = co_await tcp_connect(authority.substr(0, colon),
                                   static_cast<uint16_t>(std::stoi(authority.substr(colon + 1))));
  ++tunnels;
  co_await s.write("HTTP/1.1 200 Connection established\r\n\r\n");
  auto back = spawn(pump(up, s));
  co_await pump(s, up);
  co_await back.join();
}

}  // namespace squall::test
