// HttpWorkers: one loop and one HttpServer per thread on a shared port; the shutdown signals.
#include <pthread.h>
#include <signal.h>

#include <future>
#include <optional>

#include "squall/core/error.h"
#include "squall/core/log.h"
#include "squall/core/spawn.h"
#include "squall/http/server.h"
#include "squall/net/port_claim.h"

namespace squall::http {

namespace {

void block_shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace

namespace detail {

struct WorkerState {
  // Set by the worker thread before it reports ready, read by the controlling thread after.
  Loop* loop = nullptr;
  HttpServer* server = nullptr;
  std::atomic<bool> running{false};
  std::atomic<uint64_t> served{0};  // the final count, once the server is gone
};

}  // namespace detail

namespace {

Task<void> stop_worker(HttpServer& server, Loop& loop, Timeout grace) {
  co_await server.stop(grace);
  loop.stop();
}

void run_worker(detail::WorkerState* w, Address address, std::function<Handler()> make_handler,
                HttpServerOptions options, std::promise<Address> ready) {
  block_shutdown_signals();
  bool reported = false;
  try {
    Loop loop;
    HttpServer server(make_handler(), std::move(options), loop);
    server.listen(address);
    w->loop = &loop;
    w->server = &server;
    w->running = true;
    reported = true;
    ready.set_value(server.address());
    loop.run_forever();
    w->served = server.requests_served();
    w->running = false;
  } catch (const std::exception& e) {
    if (!reported) {
      ready.set_exception(std::current_exception());
    } else {
      std::string line = "HTTP worker stopped on an error: ";
      line.append(e.what());
      log(LogLevel::Error, line);
    }
  }
}

}  // namespace

HttpWorkers::HttpWorkers(size_t workers, const Address& address,
                         std::function<Handler()> make_handler, HttpServerOptions options)
    : address_(address) {
  if (workers == 0) throw InvalidArgumentError("HttpWorkers: at least one worker");
  // SO_REUSEPORT only among these workers: one worker binds alone (exclusive, as any server),
  // several on a given port first claim it (port_claim.h), so no other process's listeners
  // are joined. With port 0 the first worker's ephemeral port is one nobody else holds.
  options.tcp.reuse_port = workers > 1;
  std::optional<PortClaim> claim;
  if (workers > 1 && address.port() != 0) claim.emplace(address);
  try {
    for (size_t i = 0; i < workers; ++i) {
      workers_.push_back(std::make_unique<detail::WorkerState>());
      std::promise<Address> ready;
      auto bound = ready.get_future();
      threads_.emplace_back(run_worker, workers_.back().get(), address_, make_handler, options,
                            std::move(ready));
      // The first worker picks the port (port 0: an ephemeral one); the others join it.
      address_ = bound.get();
    }
  } catch (...) {
    stop(std::chrono::seconds(0));
    throw;
  }
}

HttpWorkers::~HttpWorkers() {
  stop(std::chrono::seconds(0));
}

void HttpWorkers::stop(Timeout grace) {
  if (stopped_) return;
  stopped_ = true;
  for (auto& w : workers_) {
    if (!w->running) continue;
    detail::WorkerState* worker = w.get();
    worker->loop->call_soon_threadsafe([worker, grace] {
      spawn(stop_worker(*worker->server, *worker->loop, grace), *worker->loop);
    });
  }
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

std::vector<uint64_t> HttpWorkers::requests_served() const {
  std::vector<uint64_t> counts;
  for (const auto& w : workers_)
    counts.push_back(w->running ? w->server->requests_served() : w->served.load());
  return counts;
}

int wait_for_shutdown_signal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  int signal_number = 0;
  while (sigwait(&set, &signal_number) != 0) {
  }
  return signal_number;
}

}  // namespace squall::http
