// ServerThread: a loop, a TcpServer and a thread, stopped through the loop's thread-safe door.
#include "support/server_thread.h"

#include <future>
#include <memory>

#include "squall/core/spawn.h"

namespace squall::test {

ServerThread::ServerThread(TcpServer::Handler handler) {
  auto listening = std::make_shared<std::promise<void>>();
  std::future<void> ready = listening->get_future();
  thread_ = std::thread([this, listening, handler = std::move(handler)]() mutable {
    Loop loop;
    TcpServer server(std::move(handler), {}, loop);
    try {
      server.listen(Address::parse("127.0.0.1:0"));
    } catch (...) {
      listening->set_exception(std::current_exception());
      return;
    }
    loop_ = &loop;
    port_ = server.port();
    listening->set_value();
    loop.run_forever();
    loop.clear_stop();
    run_sync(server.stop(Duration::zero()));
  });
  try {
    ready.get();
  } catch (...) {
    thread_.join();
    throw;
  }
}

ServerThread::~ServerThread() {
  loop_->call_soon_threadsafe([loop = loop_] { loop->stop(); });
  thread_.join();
}

std::string ServerThread::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

}  // namespace squall::test
