// A WebSocket echo server: Tornado's WebSocketHandler in squall, and websocket_connect as its
// client.
//
// Run: build/release/examples/ws_echo            listens on a free port, sends itself a few
//                                                 messages over a WebSocket, prints the echoes
//                                                 and exits
//      build/release/examples/ws_echo --port P   prints "listening on ws://127.0.0.1:P/echo"
//                                                 and echoes every message until Ctrl-C
//                                                 (port 0 picks a free one)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "squall/core.h"
#include "squall/http/server.h"
#include "squall/http/web.h"
#include "squall/http/websocket_client.h"
#include "squall/http/websocket_handler.h"

using namespace squall;
using namespace squall::http;
using namespace std::chrono_literals;

namespace {

// Sends back every message as it came, text as text and binary as binary, compressed when the
// client offers permessage-deflate.
struct EchoSocket : WebSocketHandler {
  Task<void> on_message(WsMessage message) override {
    co_await write_message(message.data, message.binary);
  }
  std::optional<WsCompressionOptions> compression_options() const override {
    return WsCompressionOptions{};
  }
};

Application make_app() {
  return Application({{"/echo", handler<EchoSocket>()}});
}

Task<int> self_test() {
  Application app = make_app();
  HttpServer& server = app.listen(0);
  std::string url = "ws://127.0.0.1:" + std::to_string(server.port()) + "/echo";
  std::printf("listening on %s\n", url.c_str());

  WebSocketConnectOptions options;
  options.compression = true;
  WebSocket ws = co_await websocket_connect(url, options);
  bool ok = ws.compressed();
  for (const char* text : {"hello", "squall websockets", ""}) {
    co_await ws.write_message(text);
    std::optional<WsMessage> echo = co_await ws.read_message();
    std::string sent = '"' + std::string(text) + '"';
    std::string echoed = echo ? '"' + echo->data + '"' : "nothing (closed)";
    std::printf("sent %-20s echoed %s\n", sent.c_str(), echoed.c_str());
    ok = ok && echo && echo->data == text && !echo->binary;
  }
  co_await ws.close();
  std::printf("closed with %d\n", ws.close_code().value_or(0));
  ok = ok && ws.close_code() == ws_close::kNormal;
  co_await app.stop(2s);
  co_return ok ? 0 : 1;
}

// One worker thread with its own loop serves the application; this thread waits for Ctrl-C.
int serve(int port) {
  Application app = make_app();
  HttpWorkers servers(1, Address::parse("127.0.0.1:" + std::to_string(port)),
                      [&app] { return app.handler(); });
  std::printf("listening on ws://127.0.0.1:%u/echo\n", servers.address().port());
  std::fflush(stdout);
  int signal_number = wait_for_shutdown_signal();
  std::printf("signal %d: stopping\n", signal_number);
  servers.stop(2s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int port = -1;
  if (argc == 3 && std::strcmp(argv[1], "--port") == 0) {
    port = std::atoi(argv[2]);
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: ws_echo [--port P]\n");
    return 2;
  }
  try {
    if (port >= 0) return serve(port);
    return run_sync(self_test(), 10s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ws_echo: %s\n", e.what());
    return 1;
  }
}
