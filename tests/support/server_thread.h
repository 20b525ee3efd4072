// A TcpServer on a loop of its own thread, for a handler written in the test that must serve
// a client the test does not run on its loop (the built squall command, in another process).
//
//   test::ServerThread server([](Stream& s) -> Task<void> { ... });
//   Process::start({squall, "fetch", server.url("/x")});
//   // ~ServerThread stops the server (its handlers are killed) and joins the thread
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "squall/core/loop.h"
#include "squall/net/tcp_server.h"

namespace squall::test {

class ServerThread {
 public:
  // Listens on 127.0.0.1 on a free port; returns once it accepts connections.
  explicit ServerThread(TcpServer::Handler handler);
  ~ServerThread();
  ServerThread(const ServerThread&) = delete;
  ServerThread& operator=(const ServerThread&) = delete;

  uint16_t port() const { return port_; }
  // "http://127.0.0.1:<port><path>".
  std::string url(std::string_view path) const;

 private:
  std::thread thread_;
  Loop* loop_ = nullptr;
  uint16_t port_ = 0;
};

}  // namespace squall::test
