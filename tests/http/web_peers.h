// Clients for the web framework's tests: curl (a real client) and raw sockets (for requests
// curl would normalise), both blocking, used from the test thread while the server runs on
// its own worker thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/http/message.h"
#include "support/process.h"

namespace squall::test {

// The parts joined, without `"literal" + std::string` (GCC 12 at -O3 gives a false -Wrestrict).
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(std::string_view(parts)), ...);
  return s;
}

// One HTTP response as a client saw it.
struct Reply {
  int status = 0;
  http::Headers headers;
  std::string body;
  std::string header(std::string_view name) const {
    return std::string(headers.get(name).value_or(""));
  }
};

// Splits "HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody" (interim 1xx heads skipped).
inline Reply parse_reply(std::string_view raw) {
  Reply r;
  while (true) {
    size_t end = raw.find("\r\n\r\n");
    if (raw.substr(0, 5) != "HTTP/" || end == std::string_view::npos) {
      r.body = std::string(raw);
      return r;
    }
    std::string_view head = raw.substr(0, end);
    raw.remove_prefix(end + 4);
    size_t sp = head.find(' ');
    r.status = std::stoi(std::string(head.substr(sp + 1, 3)));
    if (r.status >= 100 && r.status < 200) continue;
    r.headers.clear();
    size_t eol = head.find("\r\n");
    while (eol != std::string_view::npos) {
      head.remove_prefix(eol + 2);
      eol = head.find("\r\n");
      std::string_view line = head.substr(0, eol);
      size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      r.headers.add(line.substr(0, colon), value);
    }
    r.body = std::string(raw);
    return r;
  }
}

// curl's whole output (stdout and stderr) for these arguments; fails loudly if it hangs.
inline std::string run_curl(std::vector<std::string> args) {
  args.insert(args.begin(), {"curl", "-sS", "--max-time", "20"});
  Process p = Process::start(args);
  if (p.wait(std::chrono::seconds(30)) == -1) p.stop(9);
  return p.output();
}

// `curl -i` with these arguments, parsed.
inline Reply curl(std::vector<std::string> args) {
  args.insert(args.begin(), "-i");
  return parse_reply(run_curl(std::move(args)));
}

// Sends `bytes` on a fresh connection to 127.0.0.1:port and returns everything the server
// sends until it closes (or 20 s pass).
inline std::string raw_exchange(uint16_t port, std::string_view bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{20, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
    char buf[16384];
    while (true) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return out;
}

// One GET with Connection: close for a raw target, parsed.
inline Reply raw_get(uint16_t port, std::string_view target) {
  std::string req = "GET ";
  req.append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  return parse_reply(raw_exchange(port, req));
}

}  // namespace squall::test
