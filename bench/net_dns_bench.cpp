// The net suite's DNS part: squall's DnsResolver beside a plain c-ares loop of its own.
//
// Both ask one dnsmasq on loopback that this program starts (authoritative for *.bench, with
// 1,000 names from a hosts file). glibc's getaddrinfo cannot be pointed at a server on another
// port, so the peer is c-ares 1.18 itself driven by poll() the way its documentation shows:
// the cases measure what running c-ares on squall's loop costs or saves, not a different
// resolver. c-ares 1.18 has no cache, so in the repeat case the peer asks the server every
// time while squall answers from its cache: that case shows what the cache is worth.
// The peer looks up as c-ares does by default ("fb"), reading /etc/hosts again for every lookup;
// squall keeps the file parsed and asks c-ares for DNS only. Under callgrind the peer takes 17.7k
// instructions per lookup of the concurrent uncached case, 11.8k with "b" (DNS only).
//
// Benchmarks are named "<case>/<implementation>"; scripts/bench.py pairs them into ratios.
// `bench_net_dns --batches=squall|c-ares N` instead runs exactly N batches of the concurrent
// uncached case and prints the CPU time it took, so that two runs under callgrind (or time)
// with different N give the cost of one lookup without the start-up.
#include <ares.h>
#include <benchmark/benchmark.h>
#include <poll.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "squall/core.h"
#include "squall/net/dns.h"
#include "support/process.h"

namespace {

constexpr int kNames = 1000;
constexpr int kConcurrent = 100;

std::string name(int i) {
  return "name" + std::to_string(i) + ".bench";
}

// dnsmasq on 127.0.0.1 for the life of the program, serving the names from a hosts file.
class Dnsmasq {
 public:
  Dnsmasq() {
    std::string hosts;
    for (int i = 0; i < kNames; ++i) {
      hosts += "127.0." + std::to_string(i / 250) + '.' + std::to_string(i % 250 + 1) + ' ' +
               name(i) + '\n';
    }
    std::filesystem::path file = dir_.write("hosts", hosts);
    process_ = squall::test::start_dnsmasq(
        {"--local=/bench/", "--local-ttl=600", "--addn-hosts=" + file.string()}, port_);
  }
  std::string server() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  squall::test::TempDir dir_;
  uint16_t port_ = 0;
  squall::test::Process process_;
};

Dnsmasq& dnsmasq() {
  static Dnsmasq server;
  return server;
}

// --- squall -------------------------------------------------------------------------------

squall::DnsOptions squall_options(size_t cache_size) {
  squall::DnsOptions options;
  options.servers = {dnsmasq().server()};
  options.cache_size = cache_size;
  return options;
}

squall::Task<void> lookup_squall(squall::DnsResolver& resolver, std::string host, long& found) {
  auto addresses = co_await resolver.resolve(std::move(host), 80);
  found += static_cast<long>(addresses.size());
}

// kConcurrent lookups of distinct names at once.
squall::Task<void> batch_squall(squall::DnsResolver& resolver, int& next, long& found) {
  std::vector<squall::TaskHandle<void>> handles;
  for (int i = 0; i < kConcurrent; ++i)
    handles.push_back(squall::spawn(lookup_squall(resolver, name(next++ % kNames), found)));
  for (auto& h : handles) co_await h;
}

// kConcurrent lookups of distinct names at once, the cache off: every one a DNS round trip.
void concurrent_uncached_squall(benchmark::State& state) {
  squall::Loop loop;
  squall::DnsResolver resolver(squall_options(0));
  long found = 0;
  int next = 0;
  for (auto _ : state) squall::run_sync(batch_squall(resolver, next, found));
  if (found != static_cast<long>(state.iterations()) * kConcurrent) state.SkipWithError("lost");
  state.SetItemsProcessed(state.iterations() * kConcurrent);
}

// One name looked up again and again, one lookup at a time, the cache on.
void repeat_squall(benchmark::State& state) {
  squall::Loop loop;
  squall::DnsResolver resolver(squall_options(10000));
  long found = 0;
  for (auto _ : state) {
    auto batch = [&]() -> squall::Task<void> {
      for (int i = 0; i < kConcurrent; ++i) co_await lookup_squall(resolver, name(7), found);
    };
    squall::run_sync(batch());
  }
  state.SetItemsProcessed(state.iterations() * kConcurrent);
}

// --- plain c-ares with poll() ------------------------------------------------------------

class AresLoop {
 public:
  AresLoop() {
    ares_library_init(ARES_LIB_INIT_ALL);
    ares_options options{};
    options.sock_state_cb = &AresLoop::on_sock_state;
    options.sock_state_cb_data = this;
    options.domains = nullptr;
    options.ndomains = 0;
    char lookups[] = "fb";
    options.lookups = lookups;
    ares_init_options(&channel_, &options,
                      ARES_OPT_SOCK_STATE_CB | ARES_OPT_DOMAINS | ARES_OPT_LOOKUPS);
    ares_set_servers_ports_csv(channel_, dnsmasq().server().c_str());
  }
  ~AresLoop() { ares_destroy(channel_); }

  void lookup(const std::string& host) {
    ares_addrinfo_hints hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    ++pending_;
    ares_getaddrinfo(channel_, host.c_str(), nullptr, &hints, &AresLoop::on_answer, this);
  }

  // Until every lookup started has its answer.
  void run() {
    std::vector<pollfd> fds;
    while (pending_ > 0) {
      fds.clear();
      for (const Watched& w : watched_)
        fds.push_back(
            {w.fd, static_cast<short>((w.read ? POLLIN : 0) | (w.write ? POLLOUT : 0)), 0});
      timeval max{1, 0}, tv{};
      timeval* t = ares_timeout(channel_, &max, &tv);
      int ms = static_cast<int>(t->tv_sec * 1000 + (t->tv_usec + 999) / 1000);
      int n = poll(fds.data(), fds.size(), ms);
      if (n <= 0) {
        ares_process_fd(channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
        continue;
      }
      for (const pollfd& p : fds) {
        if (!p.revents) continue;
        bool r = p.revents & (POLLIN | POLLERR | POLLHUP);
        bool w = p.revents & POLLOUT;
        ares_process_fd(channel_, r ? p.fd : ARES_SOCKET_BAD, w ? p.fd : ARES_SOCKET_BAD);
      }
    }
  }
  long found() const { return found_; }

 private:
  struct Watched {
    int fd;
    bool read, write;
  };
  static void on_sock_state(void* data, ares_socket_t fd, int readable, int writable) {
    auto* self = static_cast<AresLoop*>(data);
    auto& w = self->watched_;
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i].fd != fd) continue;
      if (!readable && !writable) {
        w.erase(w.begin() + static_cast<long>(i));
      } else {
        w[i] = {fd, readable != 0, writable != 0};
      }
      return;
    }
    if (readable || writable) w.push_back({fd, readable != 0, writable != 0});
  }
  static void on_answer(void* arg, int status, int, ares_addrinfo* result) {
    auto* self = static_cast<AresLoop*>(arg);
    --self->pending_;
    if (status == ARES_SUCCESS && result) {
      for (ares_addrinfo_node* n = result->nodes; n; n = n->ai_next) ++self->found_;
    }
    if (result) ares_freeaddrinfo(result);
  }

  ares_channel channel_ = nullptr;
  std::vector<Watched> watched_;
  int pending_ = 0;
  long found_ = 0;
};

void concurrent_uncached_cares(benchmark::State& state) {
  AresLoop ares;
  int next = 0;
  for (auto _ : state) {
    for (int i = 0; i < kConcurrent; ++i) ares.lookup(name(next++ % kNames));
    ares.run();
  }
  if (ares.found() != static_cast<long>(state.iterations()) * kConcurrent)
    state.SkipWithError("lost");
  state.SetItemsProcessed(state.iterations() * kConcurrent);
}

void repeat_cares(benchmark::State& state) {
  AresLoop ares;
  for (auto _ : state) {
    for (int i = 0; i < kConcurrent; ++i) {
      ares.lookup(name(7));
      ares.run();
    }
  }
  state.SetItemsProcessed(state.iterations() * kConcurrent);
}

// The concurrent uncached case, `batches` times, outside Google Benchmark: 0 if every lookup
// was answered.
int fixed_batches(const std::string& impl, int batches) {
  long found = 0;
  int next = 0;
  if (impl == "squall") {
    squall::Loop loop;
    squall::DnsResolver resolver(squall_options(0));
    for (int b = 0; b < batches; ++b) squall::run_sync(batch_squall(resolver, next, found));
  } else if (impl == "c-ares") {
    AresLoop ares;
    for (int b = 0; b < batches; ++b) {
      for (int i = 0; i < kConcurrent; ++i) ares.lookup(name(next++ % kNames));
      ares.run();
    }
    found = ares.found();
  } else {
    std::fprintf(stderr, "bench_net_dns: --batches takes squall or c-ares\n");
    return 2;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
               static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  std::printf("%s: %ld addresses in %d lookups, %.3f s CPU\n", impl.c_str(), found,
              batches * kConcurrent, cpu);
  return found == static_cast<long>(batches) * kConcurrent ? 0 : 1;
}

}  // namespace

BENCHMARK(concurrent_uncached_squall)
    ->Name("dns: 100 concurrent lookups, no cache/squall")
    ->UseRealTime();
BENCHMARK(concurrent_uncached_cares)
    ->Name("dns: 100 concurrent lookups, no cache/c-ares")
    ->UseRealTime();
BENCHMARK(repeat_squall)->Name("dns: one name again and again/squall")->UseRealTime();
BENCHMARK(repeat_cares)->Name("dns: one name again and again/c-ares")->UseRealTime();

int main(int argc, char** argv) {
  if (argc == 3 && std::strncmp(argv[1], "--batches=", 10) == 0)
    return fixed_batches(argv[1] + 10, std::atoi(argv[2]));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
