// `squall fetch -d x` and `squall crawl`, the built command, against a server that answers 307
// or 308 and then closes the kept-alive connection: the redirected request goes on a new one.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "support/process.h"
#include "support/squall_command.h"

namespace squall {
namespace {

using test::Process;
using test::TempDir;
using namespace std::chrono_literals;

const std::string& kSquall = test::squall_binary();

// /307/<path> and /308/<path> redirect to /<path>; the response's last segment carries the
// FIN (TCP_CORK holds the response until shutdown), then the server reads on and answers no
// request on that connection: each one that comes is a request sent on a closed connection,
// and is printed ("request after close"). / links to two redirects and a page; /robots.txt is
// 404; every other path answers "<method> <path> <body>".
constexpr const char* kServer = R"PY(
import socket, sys, threading
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", int(sys.argv[1])))
listener.listen(64)

def answer(c, status, body, extra=b""):
    c.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Length: %d\r\n" % len(body) + extra +
              b"\r\n" + body)

def serve(c):
    buf, closed = b"", False
    while True:
        while b"\r\n\r\n" not in buf:
            data = c.recv(65536)
            if not data:
                c.close()
                return
            buf += data
        head, buf = buf.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        method, target = lines[0].split(b" ")[:2]
        length = 0
        for line in lines[1:]:
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        while len(buf) < length:
            buf += c.recv(65536)
        body, buf = buf[:length], buf[length:]
        if closed:
            print("request after close:", method.decode(), target.decode(), flush=True)
            c.close()
            return
        if target[:5] in (b"/307/", b"/308/"):
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
            answer(c, target[1:4] + b" Moved", b"", b"Location: " + target[4:] + b"\r\n")
            c.shutdown(socket.SHUT_WR)
            closed = True
        elif target == b"/robots.txt":
            answer(c, b"404 Not Found", b"")
        elif target == b"/":
            answer(c, b"200 OK", b"<a href=/307/a.html>a</a> <a href=/308/b.html>b</a> "
                   b"<a href=/c.html>c</a>", b"Content-Type: text/html\r\n")
        else:
            answer(c, b"200 OK", method + b" " + target + b" " + body, b"Content-Type: text/plain\r\n")

while True:
    c, _ = listener.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
)PY";

struct RedirectServer {
  TempDir dir;
  uint16_t port = test::free_port();
  Process process;
  RedirectServer() {
    auto script = dir.write("server.py", kServer);
    process = Process::start({"/usr/bin/python3", script.string(), std::to_string(port)});
    test::wait_for_port(port, "the redirecting server", &process);
  }
  std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port) + std::string(path);
  }
};

// Runs the built squall with `args` in `dir`; its exit status (-1 if it did not exit).
int squall(const std::vector<std::string>& args, const TempDir& dir, std::string& output) {
  std::vector<std::string> argv = {kSquall};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p = Process::start(argv, dir.path());
  int status = p.wait(60s);
  output = p.output();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(RedirectClose, FetchWithDataFollows307And308OnANewConnection) {
  RedirectServer server;
  TempDir work;
  for (std::string code : {"307", "308"}) {
    std::string out;
    EXPECT_EQ(squall({"fetch", "-d", "x", server.url("/" + code + "/end")}, work, out), 0) << out;
    EXPECT_EQ(out, "POST /end x");
  }
  EXPECT_EQ(server.process.output().find("request after close"), std::string::npos)
      << server.process.output();
}

TEST(RedirectClose, ACrawlFollowsTheRedirectsWithoutSendingOnTheClosedConnection) {
  RedirectServer server;
  TempDir work;
  std::string err;
  ASSERT_EQ(squall({"crawl", server.url("/"), "--per-host", "1", "--concurrency", "1", "--jsonl",
                    "pages.jsonl"},
                   work, err),
            0)
      << err;
  std::map<std::string, int> status;
  std::istringstream lines(test::read_file(work.path() / "pages.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    auto page = nlohmann::json::parse(line);
    status[page["final_url"].get<std::string>()] = page["status"].get<int>();
  }
  EXPECT_EQ(status[server.url("/a.html")], 200);
  EXPECT_EQ(status[server.url("/b.html")], 200);
  EXPECT_EQ(status[server.url("/c.html")], 200);
  // The connections the server closed after each redirect were seen closed, not tried.
  EXPECT_EQ(server.process.output().find("request after close"), std::string::npos)
      << server.process.output();
}

}  // namespace
}  // namespace squall
