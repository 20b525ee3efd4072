// A real redis-server for tests and benchmarks: a scratch directory, a free loopback port, no
// persistence unless asked, stopped at the end. Blocking helpers, used outside the loop.
//
//   RedisServer redis;                       // Debian's /usr/bin/redis-server on 127.0.0.1
//   RedisClient client(redis.url(3));        // "redis://127.0.0.1:PORT/3"
//   redis.stop(); redis.start();             // a restart on the same port
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/process.h"

namespace squall::test {

class RedisServer {
 public:
  // Starts redis-server on `host` (an address of this machine's, or of the network namespace the
  // calling thread is in) with `extra` arguments appended ("--requirepass", "pw"). Throws
  // std::runtime_error with its output if it does not come up.
  explicit RedisServer(std::vector<std::string> extra = {}, std::string host = "127.0.0.1");
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  uint16_t port() const { return port_; }
  // redis://HOST:PORT/db, with ":password@" when given.
  std::string url(int db = 0, const std::string& password = "") const;
  // SIGTERM and a wait (redis-server exits once its clients are closed).
  void stop();
  // Starts it again on the same port (after stop()).
  void start();
  bool running() { return process_.running(); }
  std::string output() const { return process_.output(); }

 private:
  // One start on port_; false when the port was taken.
  bool try_start();

  TempDir dir_;
  std::vector<std::string> extra_;
  std::string host_;
  uint16_t port_ = 0;
  Process process_;
};

}  // namespace squall::test
