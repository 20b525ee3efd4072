// WebSocket peers we did not write, for the WebSocket tests: Python's websockets, Tornado and
// npm's ws, each as a server (an echo server with commands) and as a client (a fixed exchange
// whose transcript it prints). The scripts are tests/http/websocket_peer{.py,_tornado.py,.mjs};
// websocket_peer.py's docstring says what they do. Blocking helpers, used outside the loop.
#pragma once

#include <unistd.h>

#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall::test {

struct WsPeerKind {
  const char* name;
  std::vector<std::string> program;  // the command line before "server PORT" / "client URL"
  bool sends_fragments;              // its client sends a message in fragments (Tornado cannot)
};

inline const std::vector<WsPeerKind>& ws_peer_kinds() {
  static const std::vector<WsPeerKind> kinds = {
      {"websockets",
       {"/usr/bin/python3", "-B", SQUALL_SOURCE_DIR "/tests/http/websocket_peer.py"},
       true},
      {"tornado",
       {"/usr/bin/python3", "-B", SQUALL_SOURCE_DIR "/tests/http/websocket_peer_tornado.py"},
       false},
      {"ws", {"/usr/bin/node", SQUALL_SOURCE_DIR "/tests/http/websocket_peer.mjs"}, true},
  };
  return kinds;
}

// Test parameters: which peer, and whether permessage-deflate is offered and accepted.
using WsPeerParam = std::tuple<size_t, bool>;
inline auto ws_peer_params() {
  return testing::Combine(testing::Range<size_t>(0, ws_peer_kinds().size()), testing::Bool());
}
inline std::string ws_peer_param_name(const testing::TestParamInfo<WsPeerParam>& info) {
  return std::string(ws_peer_kinds()[std::get<0>(info.param)].name) +
         (std::get<1>(info.param) ? "Deflate" : "Plain");
}

// A test run once per peer and compression setting.
class WsPeerTest : public LoopTest, public testing::WithParamInterface<WsPeerParam> {
 protected:
  const WsPeerKind& kind() const { return ws_peer_kinds()[std::get<0>(GetParam())]; }
  bool deflate() const { return std::get<1>(GetParam()); }
};

inline std::vector<std::string> ws_peer_argv(const WsPeerKind& kind, const std::string& mode,
                                             const std::string& where, bool compression) {
  std::vector<std::string> argv = kind.program;
  argv.push_back(mode);
  argv.push_back(where);
  if (compression) argv.push_back("--compression");
  return argv;
}

// A peer serving ws://127.0.0.1:port/ (any path).
struct WsPeerServer {
  WsPeerServer(const WsPeerKind& kind, bool compression)
      : port(free_port()),
        process(Process::start(ws_peer_argv(kind, "server", std::to_string(port), compression))) {
    wait_for_port(port, kind.name, &process);
  }
  // Waits until the peer has printed how `n` connections closed; its output up to its last
  // whole line. The output is a file the peer may be writing while it is read, so a line read
  // without its newline may still be missing its code or reason.
  std::string closes(size_t n) {
    for (int i = 0; i < 500; ++i) {
      std::string out = process.output();
      out.erase(out.rfind('\n') + 1);
      size_t count = 0;
      for (size_t at = out.find("closed "); at != std::string::npos;
           at = out.find("closed ", at + 1))
        ++count;
      if (count >= n) return out;
      usleep(20000);
    }
    return process.output();
  }
  uint16_t port;
  Process process;
};

// The peer's client, talking to the echo server at `url`.
inline Process start_ws_peer_client(const WsPeerKind& kind, const std::string& url,
                                    bool compression) {
  return Process::start(ws_peer_argv(kind, "client", url, compression));
}

// The peer's client in its "wait" mode: connected to `url`, it prints "open", reads until the
// server ends the connection, then prints "closed CODE" with the code of the server's close.
inline Process start_ws_peer_waiter(const WsPeerKind& kind, const std::string& url,
                                    bool compression) {
  return Process::start(ws_peer_argv(kind, "wait", url, compression));
}

// What the peer's client printed after a whole exchange with an echo server that agrees the
// subprotocol echo.v2.
inline void expect_ws_client_transcript(const WsPeerKind& kind, const std::string& out) {
  std::vector<std::string> lines = {"text hello\n", "binary 0001ff\n",       "big True\n",
                                    "pong hi\n",    "subprotocol echo.v2\n", "closed 1000\n"};
  if (kind.sends_fragments) lines.push_back("fragments fragmented\n");
  for (const std::string& line : lines) EXPECT_NE(out.find(line), std::string::npos) << line << out;
}

}  // namespace squall::test
