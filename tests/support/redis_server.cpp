// redis-server as a test peer: started on a free loopback port and waited for.
#include "support/redis_server.h"

#include <chrono>
#include <stdexcept>
#include <thread>

namespace squall::test {

using namespace std::chrono_literals;

RedisServer::RedisServer(std::vector<std::string> extra, std::string host)
    : extra_(std::move(extra)), host_(std::move(host)) {
  std::string failed;
  for (int attempt = 0; attempt < 10; ++attempt) {
    port_ = free_port();
    if (try_start()) return;
    failed = process_.output();
  }
  throw std::runtime_error("redis-server found no free port in 10 tries; the last said:\n" +
                           failed);
}

RedisServer::~RedisServer() {
  stop();
}

std::string RedisServer::url(int db, const std::string& password) const {
  std::string auth = password.empty() ? "" : ":" + password + "@";
  return "redis://" + auth + host_ + ":" + std::to_string(port_) + "/" + std::to_string(db);
}

void RedisServer::stop() {
  if (process_.running()) process_.stop();
}

void RedisServer::start() {
  if (!try_start()) {
    throw std::runtime_error("redis-server could not start again on port " + std::to_string(port_) +
                             ":\n" + process_.output());
  }
}

bool RedisServer::try_start() {
  std::vector<std::string> argv = {"/usr/bin/redis-server",
                                   "--port",
                                   std::to_string(port_),
                                   "--bind",
                                   host_,
                                   "--dir",
                                   dir_.path().string(),
                                   "--save",
                                   "",
                                   "--appendonly",
                                   "no",
                                   "--daemonize",
                                   "no",
                                   "--logfile",
                                   "",
                                   "--databases",
                                   "16"};
  argv.insert(argv.end(), extra_.begin(), extra_.end());
  process_ = Process::start(argv);
  auto deadline = std::chrono::steady_clock::now() + 15s;
  while (process_.running() &&
         process_.output().find("Ready to accept connections") == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) {
      throw std::runtime_error("redis-server did not start on port " + std::to_string(port_) +
                               ":\n" + process_.output());
    }
    std::this_thread::sleep_for(5ms);
  }
  if (process_.running()) {
    wait_for_port(port_, "redis-server", &process_, std::chrono::seconds(15), host_);
    return true;
  }
  std::string out = process_.output();
  if (out.find("Address already in use") == std::string::npos)
    throw std::runtime_error("redis-server exited before listening:\n" + out);
  return false;
}

}  // namespace squall::test
