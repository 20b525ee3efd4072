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
  // With `wait_for_close`, each connection is kept open after its reply until the client closes
  // it (or 10 s pass), and closed_by_client() says whether it did.
  explicit ReplyServer(std::vector<std::string> replies, bool wait_for_close = false);
  explicit ReplyServer(std::string reply, bool wait_for_close = false)
      : ReplyServer(std::vector<std::string>{std::move(reply)}, wait_for_close) {}
  ~ReplyServer();
  ReplyServer(const ReplyServer&) = delete;
  ReplyServer& operator=(const ReplyServer&) = delete;

  uint16_t port() const { return port_; }
  // The request head of the nth connection ("" if none came), once every reply was sent or the
  // listener was shut down.
  const std::string& request(size_t n = 0);
  // Whether the client closed the nth connection first (with wait_for_close), once every reply
  // was sent or the listener was shut down.
  bool closed_by_client(size_t n = 0);

 private:
  void serve();
  void stop();

  std::vector<std::string> replies_;
  std::vector<std::string> requests_;
  bool wait_for_close_ = false;
  std::vector<bool> closed_by_client_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace squall::test
