// The WebSocket suite's load generator: the same client for every server bench/websocket_bench.py
// measures. Run by that script; prints one JSON object on stdout.
//
//   websocket_load --port P --server-pid PID --connections 64 --size 64 --seconds 5
//       each connection sends a binary message of --size bytes and waits for its echo, again
//       and again; after --warmup seconds it counts --seconds of echoes, and the server's CPU
//       time (utime + stime of /proc/PID/stat, and utime alone) and its own over the same
//       window
//   websocket_load --port P --server-pid PID --idle 10000
//       opens that many WebSockets (the handshake done, then silence) and reports the server's
//       VmRSS once they have all been answered
//
// The client is raw frames over squall's Stream on one loop, not WebSocket: one masked frame is
// built once and written as is (a fixed masking key, which RFC 6455 allows a benchmark to get
// away with), and the echoes are framed and counted without being copied, so the client costs
// less per message than any server it measures.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "squall/core.h"
#include "squall/http/websocket_handshake.h"
#include "squall/http/websocket_protocol.h"
#include "squall/net/tcp_client.h"

using namespace squall;
using namespace squall::http;

namespace {

struct Args {
  uint16_t port = 0;
  int server_pid = 0;
  size_t connections = 64;
  size_t size = 64;
  double seconds = 5;
  double warmup = 1;
  size_t idle = 0;
};

// CPU seconds (user and system, or user alone) of process `pid` from /proc, or of this
// process for 0.
double cpu_seconds(int pid, bool user_only = false) {
  if (pid == 0) {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  }
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command name, which is in parentheses and may hold spaces.
  size_t at = all.rfind(')');
  if (at == std::string::npos) throw InvalidStateError("no /proc/" + std::to_string(pid));
  std::vector<std::string> fields;
  for (size_t i = at + 2; i < all.size();) {
    size_t end = all.find(' ', i);
    if (end == std::string::npos) end = all.size();
    fields.push_back(all.substr(i, end - i));
    i = end + 1;
  }
  // utime and stime are the 14th and 15th fields, the 12th and 13th after the name.
  double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  long long user = std::stoll(fields.at(11)), system = std::stoll(fields.at(12));
  return static_cast<double>(user_only ? user : user + system) / ticks;
}

double rss_mib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with("VmRSS:")) return std::atof(line.c_str() + 6) / 1024.0;
  return 0;
}

// The opening handshake, without extensions or subprotocols.
Task<Stream> open_websocket(uint16_t port) {
  Stream stream = co_await tcp_connect("127.0.0.1", port);
  std::string request = "GET /echo HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n";
  for (const Header& h : ws_client_fields(ws_new_key(), {}, false))
    request += h.name + ": " + h.value + "\r\n";
  co_await stream.write(request + "\r\n");
  std::string head = co_await stream.read_until("\r\n\r\n", 16384);
  if (!head.starts_with("HTTP/1.1 101 "))
    throw Error(ErrorKind::Protocol, "the server refused the WebSocket: " + head.substr(0, 40));
  co_return stream;
}

struct Counts {
  uint64_t messages = 0;
  bool stopping = false;
};

// Reads one message (one or more data frames up to FIN) and drops it; its payload length.
// Control frames (a server's pings) are dropped too.
Task<uint64_t> read_echo(Stream& s) {
  uint64_t length = 0;
  for (;;) {
    while (s.buffered().size() < 2) {
      size_t n = co_await s.read_more();
      if (n == 0) throw Error(ErrorKind::Closed, "the server closed the connection");
    }
    auto byte = [&](size_t i) { return static_cast<uint8_t>(s.buffered()[i]); };
    bool fin = byte(0) & 0x80;
    uint8_t opcode = byte(0) & 0x0f;
    uint64_t payload = byte(1) & 0x7f;
    size_t header = 2 + (payload == 126 ? 2 : payload == 127 ? 8 : 0);
    while (s.buffered().size() < header) {
      size_t n = co_await s.read_more();
      if (n == 0) throw Error(ErrorKind::Closed, "the server closed the connection");
    }
    if (payload >= 126) {
      payload = 0;
      for (size_t i = 2; i < header; ++i) payload = payload << 8 | byte(i);
    }
    s.consume(header);
    for (uint64_t left = payload; left > 0;) {
      if (s.buffered().empty()) {
        size_t n = co_await s.read_more();
        if (n == 0) throw Error(ErrorKind::Closed, "the server closed mid-frame");
      }
      size_t take = static_cast<size_t>(std::min<uint64_t>(left, s.buffered().size()));
      s.consume(take);
      left -= take;
    }
    if (opcode == 0x8) throw Error(ErrorKind::Closed, "the server sent a close frame");
    if (opcode >= 0x8) continue;  // ping or pong
    length += payload;
    if (fin) co_return length;
  }
}

Task<void> echo_loop(uint16_t port, const std::string& frame, size_t size, Counts& counts) {
  Stream s = co_await open_websocket(port);
  while (!counts.stopping) {
    co_await s.write(std::string_view(frame));
    uint64_t got = co_await read_echo(s);
    if (got != size)
      throw Error(ErrorKind::Protocol,
                  "an echo of " + std::to_string(got) + " bytes, not " + std::to_string(size));
    ++counts.messages;
  }
  co_await s.write(
      ws_frame(WsOpcode::Close, ws_close_payload(ws_close::kNormal, ""), true, 0x37fa213d));
}

Task<int> echo(const Args& a) {
  const std::string payload(a.size, 'w');
  const std::string frame = ws_frame(WsOpcode::Binary, payload, true, 0x37fa213d);
  Counts counts;
  std::vector<TaskHandle<void>> loops;
  for (size_t i = 0; i < a.connections; ++i)
    loops.push_back(spawn(echo_loop(a.port, frame, a.size, counts)));
  co_await sleep(std::chrono::duration_cast<Duration>(std::chrono::duration<double>(a.warmup)));
  uint64_t m0 = counts.messages;
  double server0 = cpu_seconds(a.server_pid), self0 = cpu_seconds(0);
  double user0 = cpu_seconds(a.server_pid, true);
  auto t0 = std::chrono::steady_clock::now();
  co_await sleep(std::chrono::duration_cast<Duration>(std::chrono::duration<double>(a.seconds)));
  uint64_t m1 = counts.messages;
  double server1 = cpu_seconds(a.server_pid), self1 = cpu_seconds(0);
  double user1 = cpu_seconds(a.server_pid, true);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  counts.stopping = true;
  for (TaskHandle<void>& h : loops) co_await h;  // rethrows a connection's failure
  uint64_t messages = m1 - m0;
  std::printf(
      "{\"messages\": %llu, \"seconds\": %.4f, \"server_cpu_s\": %.4f, \"server_user_s\": "
      "%.4f, \"client_cpu_s\": %.4f}\n",
      static_cast<unsigned long long>(messages), wall, server1 - server0, user1 - user0,
      self1 - self0);
  co_return 0;
}

Task<int> idle(const Args& a) {
  std::vector<Stream> held;
  held.reserve(a.idle);
  // A few hundred handshakes at a time, so that no listener's backlog overflows.
  Semaphore slots(200);
  size_t failed = 0;
  auto one = [&]() -> Task<void> {
    co_await slots.acquire();
    try {
      held.push_back(co_await open_websocket(a.port));
    } catch (const Error& e) {
      if (failed++ == 0) std::fprintf(stderr, "websocket_load: %s\n", e.what());
    }
    slots.release();
  };
  std::vector<TaskHandle<void>> opening;
  for (size_t i = 0; i < a.idle; ++i) opening.push_back(spawn(one()));
  for (TaskHandle<void>& h : opening) co_await h;
  co_await sleep(std::chrono::seconds(1));  // what the server does after a handshake settles
  double rss = rss_mib(a.server_pid);
  std::printf("{\"connections\": %zu, \"rss_mib\": %.2f}\n", held.size(), rss);
  co_return failed == 0 ? 0 : 1;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    const char* value = argv[i + 1];
    if (flag == "--port") {
      a.port = static_cast<uint16_t>(std::atoi(value));
    } else if (flag == "--server-pid") {
      a.server_pid = std::atoi(value);
    } else if (flag == "--connections") {
      a.connections = std::strtoull(value, nullptr, 10);
    } else if (flag == "--size") {
      a.size = std::strtoull(value, nullptr, 10);
    } else if (flag == "--seconds") {
      a.seconds = std::atof(value);
    } else if (flag == "--warmup") {
      a.warmup = std::atof(value);
    } else if (flag == "--idle") {
      a.idle = std::strtoull(value, nullptr, 10);
    } else {
      std::fprintf(stderr, "websocket_load: unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  if (a.port == 0 || a.server_pid == 0) {
    std::fprintf(stderr,
                 "usage: websocket_load --port P --server-pid PID [--connections N "
                 "--size BYTES --seconds S --warmup S | --idle N]\n");
    std::exit(2);
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  // 10,000 connections need more descriptors than the usual soft limit of 1024.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  try {
    Loop loop;
    return run_sync(a.idle > 0 ? idle(a) : echo(a));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "websocket_load: %s\n", e.what());
    return 1;
  }
}
