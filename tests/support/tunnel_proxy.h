// A CONNECT proxy for tests, on the loop of the test: opens the tunnel it is asked for and copies
// bytes both ways; anything but CONNECT is answered 405.
#pragma once

#include "squall/core/task.h"
#include "squall/net/stream.h"
#include "squall/net/tcp_server.h"

namespace squall::test {

struct TunnelProxy {
  // Listens on 127.0.0.1, an ephemeral port (server.port()).
  TunnelProxy();
  // Tunnels opened so far.
  int tunnels = 0;
  TcpServer server;

 private:
  Task<void> handle(Stream& s);
};

}  // namespace squall::test
