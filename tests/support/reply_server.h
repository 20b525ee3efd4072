// A peer that answers each connection with fixed bytes, whatever the request, and closes it:
// the misbehaviours (and the scripted sequences) nginx and httpbin will not produce.
//
//   ReplyServer server({"HTTP/1.1 503 ...\r\n\r\n", "HTTP/1.1 200 OK\r\n...\r\nok"});
//   ... connect to 127.0.0.1:server.port() twice ...
//   server.request(1)   // the second request head it read
#pragma once

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace squall::test {

class ReplyServer {
 public:
  // Answers the nth connection with replies[n] (an empty reply closes without a byte), then
  // stops accepting. Throws std::runtime_error if it cannot listen on 127.0.0.1.
  explicit ReplyServer(std::vector<std::string> replies);
  explicit ReplyServer(std::string reply)
      : ReplyServer(std::vector<std::string>{std::move(reply)}) {}
  ~ReplyServer();
  ReplyServer(const ReplyServer&) = delete;
  ReplyServer& operator=(const ReplyServer&) = delete;

  uint16_t port() const { return port_; }
  // The request head of the nth connection ("" if none came), once every reply was sent or the
  // listener was shut down.
  const std::string& request(size_t n = 0);

 private:
  void serve();
  void stop();

  std::vector<std::string> replies_;
  std::vector<std::string> requests_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace squall::test
