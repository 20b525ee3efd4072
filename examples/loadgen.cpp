// A load generator over HttpClient: a fixed number of GETs with a fixed number in flight.
//
// `concurrency` worker tasks share one HttpClient whose max_clients is the concurrency, so each
// worker always has one request on the wire and keep-alive connections are reused from the pool.
// At the end it prints one line of JSON: requests, errors, seconds and requests per second
// (the client benchmark, bench/client_bench.py, reads it).
//
// Run: build/release/examples/loadgen http://127.0.0.1:8080/1k.bin 200000 64
// With no arguments it loads a server of its own (an HttpServer on an ephemeral port) with a few
// thousand requests and checks every answer, so it runs as a quick test too.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "squall/core.h"
#include "squall/http/client.h"
#include "squall/http/server.h"

using namespace squall;
using namespace squall::http;
using namespace std::chrono_literals;

namespace {

struct Load {
  std::string url;
  long requests = 0;
  size_t concurrency = 1;
  size_t expected_size = 0;  // body size every answer must have; 0: any
};

struct Tally {
  long started = 0;
  long done = 0;
  long errors = 0;
  std::string first_error;
};

// One worker: takes the next request number until none are left, one request at a time.
Task<void> worker(HttpClient& client, const Load& load, Tally& tally) {
  while (tally.started < load.requests) {
    ++tally.started;
    HttpRequest request;
    request.url = load.url;
    request.raise_error = false;
    HttpResponse response = co_await client.fetch(std::move(request));
    ++tally.done;
    bool ok = response.code == 200 &&
              (load.expected_size == 0 || response.body.size() == load.expected_size);
    if (!ok) {
      if (tally.errors++ == 0) {
        tally.first_error = "HTTP " + std::to_string(response.code);
        if (response.error) {
          try {
            response.rethrow();
          } catch (const std::exception& e) {
            tally.first_error = e.what();
          }
        }
      }
    }
  }
}

Task<Tally> run_load(const Load& load) {
  ClientOptions options;
  options.max_clients = load.concurrency;
  options.max_idle_connections = load.concurrency;
  HttpClient client(options);
  Tally tally;
  std::vector<TaskHandle<void>> workers;
  for (size_t i = 0; i < load.concurrency; ++i)
    workers.push_back(spawn(worker(client, load, tally)));
  for (auto& w : workers) co_await w;
  client.close();
  co_return tally;
}

void report(const Load& load, const Tally& tally, double seconds) {
  std::printf(
      "{\"requests\": %ld, \"errors\": %ld, \"concurrency\": %zu, \"seconds\": %.6f, "
      "\"requests_per_second\": %.1f}\n",
      tally.done, tally.errors, load.concurrency, seconds, tally.done / seconds);
  if (tally.errors) std::fprintf(stderr, "loadgen: first error: %s\n", tally.first_error.c_str());
}

Tally timed(const Load& load, double& seconds) {
  auto start = std::chrono::steady_clock::now();
  Tally tally = run_sync(run_load(load));
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return tally;
}

// The no-argument run: our own server answers 1 KiB bodies, and every answer is checked.
Task<int> self_test() {
  std::string kib(1024, 's');
  HttpServer server([&kib](ServerRequest&, ServerResponse& response) -> Task<void> {
    response.headers().set("Content-Type", "application/octet-stream");
    co_await response.write(kib);
  });
  server.listen(Address::parse("127.0.0.1:0"));
  Load load{"http://127.0.0.1:" + std::to_string(server.port()) + "/1k", 4000, 16, kib.size()};
  auto start = std::chrono::steady_clock::now();
  Tally tally = co_await run_load(load);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report(load, tally, seconds);
  co_await server.stop(1s);
  co_return tally.errors == 0 && tally.done == load.requests ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 1) return run_sync(self_test(), 60s);
    if (argc != 4) {
      std::fprintf(stderr, "usage: loadgen [URL REQUESTS CONCURRENCY]\n");
      return 2;
    }
    Load load{argv[1], std::atol(argv[2]), static_cast<size_t>(std::atol(argv[3])), 0};
    if (load.requests <= 0 || load.concurrency == 0) {
      std::fprintf(stderr, "loadgen: REQUESTS and CONCURRENCY must be positive\n");
      return 2;
    }
    double seconds = 0;
    Tally tally = timed(load, seconds);
    report(load, tally, seconds);
    return tally.errors == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loadgen: %s\n", e.what());
    return 1;
  }
}
