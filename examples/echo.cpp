// An echo server and a client in one program: the net layer's streams, server and connect.
//
// The server listens on an ephemeral port on 127.0.0.1 and echoes every line back; the client
// sends a few lines, prints the echoes, and the server then stops gracefully.
//
// Run: build/release/examples/echo
#include <cstdio>
#include <string>

#include "squall/core.h"
#include "squall/net/net_error.h"
#include "squall/net/tcp_client.h"
#include "squall/net/tcp_server.h"

using namespace squall;
using namespace std::chrono_literals;

namespace {

// One connection: echo lines until the client ends its side.
Task<void> echo(Stream& stream) {
  for (;;) {
    std::string line;
    try {
      line = co_await stream.read_until("\n", 64 * 1024);
    } catch (const NetError& e) {
      if (e.kind() == ErrorKind::Closed) co_return;  // the client is done
      throw;
    }
    co_await stream.write(std::move(line));
  }
}

Task<int> demo() {
  TcpServer server(echo);
  server.listen(Address::parse("127.0.0.1:0"));
  std::printf("server: listening on %s\n", server.address().to_string().c_str());

  ConnectOptions options;
  options.timeout = 5s;
  Stream client = co_await tcp_connect("127.0.0.1", server.port(), options);
  for (const char* line : {"hello\n", "squall streams\n", "bye\n"}) {
    co_await client.write(line);
    std::string echoed = co_await client.read_until("\n");
    std::printf("client: sent %-16.*s echoed %s", static_cast<int>(echoed.size() - 1), line,
                echoed.c_str());
    if (echoed != line) co_return 1;
  }
  co_await client.shutdown_write();  // the server's handler sees end of stream and returns
  std::string rest = co_await client.read_until_close();

  co_await server.stop(2s);
  std::printf("server: stopped with %zu connections open\n", server.connection_count());
  co_return rest.empty() && server.connection_count() == 0 ? 0 : 1;
}

}  // namespace

int main() {
  try {
    return run_sync(demo(), 10s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "echo: %s\n", e.what());
    return 1;
  }
}
