// The seed's /api/noblock in squall: an async handler answers "abc" without blocking the loop.
//
// Tornado's version has a coroutine `service_method` whose result a RequestHandler awaits and
// writes, in an Application listening on 2345; here it is the same, with squall's Application
// and RequestHandler.
//
// Run: build/release/examples/noblock              listens on an ephemeral port, fetches its
//                                                   own /api/noblock, prints it and exits
//      build/release/examples/noblock --port 2345   serves until Ctrl-C (SIGINT or SIGTERM)
//        [--bind 127.0.0.1] [--workers N] [--static FILE]   (FILE served at /static)
#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "squall/core.h"
#include "squall/http/server.h"
#include "squall/http/web.h"
#include "squall/net/tcp_client.h"

using namespace squall;
using namespace squall::http;
using namespace std::chrono_literals;

namespace {

// A service the handler depends on: a coroutine, so it could await I/O of its own.
Task<std::string> service_method() {
  co_return "abc";
}

struct StaticFile {
  int fd = -1;
  size_t size = 0;
};
StaticFile static_file;

// Tornado's NoBlockHandler: get() awaits the service and writes what it gives.
struct NoBlockHandler : RequestHandler {
  Task<void> get() override { co_await write(co_await service_method()); }
};

// The Application: /api/noblock, and /static for the benchmark's file (--static FILE).
Application make_app() {
  Application app({{"/api/noblock", handler<NoBlockHandler>()}});
  app.add("GET", "/static", [](Request&, Response& response) -> Task<void> {
    if (static_file.fd < 0) throw StatusError(404, "no --static file given");
    response.set_header("Content-Type", "application/octet-stream");
    co_await response.send_file(static_file.fd, 0, static_file.size);
  });
  return app;
}

// No arguments: serve on an ephemeral port, fetch /api/noblock over a raw socket, print it.
Task<int> self_test() {
  Application app = make_app();
  HttpServer& server = app.listen(0);
  std::printf("listening on http://%s/api/noblock\n", server.address().to_string().c_str());

  Stream client = co_await tcp_connect("127.0.0.1", server.port());
  co_await client.write(
      "GET /api/noblock HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  std::string reply = co_await client.read_until_close();
  std::printf("%s\n", reply.c_str());

  co_await app.stop(2s);
  bool ok = reply.starts_with("HTTP/1.1 200 OK\r\n") && reply.ends_with("\r\n\r\nabc");
  co_return ok ? 0 : 1;
}

int serve(const std::string& bind, int port, size_t workers) {
  Address address = Address::parse(std::string(bind).append(":").append(std::to_string(port)));
  Application app = make_app();
  HttpWorkers servers(workers, address, [&app] { return app.handler(); });
  std::printf("listening on http://%s/api/noblock with %zu worker(s); Ctrl-C stops\n",
              servers.address().to_string().c_str(), servers.size());
  std::fflush(stdout);
  int signal_number = wait_for_shutdown_signal();
  std::printf("signal %d: stopping\n", signal_number);
  servers.stop(5s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int port = -1;
  size_t workers = 1;
  std::string bind = "127.0.0.1";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--port") == 0) {
      port = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--bind") == 0) {
      bind = argv[i + 1];
    } else if (std::strcmp(argv[i], "--workers") == 0) {
      workers = static_cast<size_t>(std::atoi(argv[i + 1]));
    } else if (std::strcmp(argv[i], "--static") == 0) {
      static_file.fd = ::open(argv[i + 1], O_RDONLY | O_CLOEXEC);
      struct stat st;
      if (static_file.fd < 0 || ::fstat(static_file.fd, &st) != 0) {
        std::fprintf(stderr, "noblock: cannot open %s: %s\n", argv[i + 1], std::strerror(errno));
        return 2;
      }
      static_file.size = static_cast<size_t>(st.st_size);
    } else {
      std::fprintf(stderr, "usage: noblock [--port P] [--bind ADDR] [--workers N] [--static F]\n");
      return 2;
    }
  }
  try {
    if (port >= 0) return serve(bind, port, workers);
    return run_sync(self_test(), 10s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "noblock: %s\n", e.what());
    return 1;
  }
}
