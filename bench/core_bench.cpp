// The core suite: squall's runtime beside the nearest equivalents in standalone Asio.
//
// Benchmarks are named "<case>/<implementation>"; scripts/bench.py pairs them into ratios.
// `bench_core --sleepers=squall|asio N` instead reports the peak RSS of N tasks asleep at once,
// in a process of its own so earlier cases do not inflate it.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <asio.hpp>
#include <asio/experimental/channel.hpp>
#include <cstdio>
#include <cstring>
#include <string>

#include "squall/core.h"

using namespace std::chrono_literals;

namespace {

constexpr int kBatch = 1000;

// --- call_soon + run ----------------------------------------------------------------------

void call_soon_run_squall(benchmark::State& state) {
  squall::Loop loop;
  long count = 0;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) loop.call_soon([&count] { ++count; });
    while (loop.ready_count() > 0) loop.run_once(squall::TimePoint::min());
  }
  benchmark::DoNotOptimize(count);
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void call_soon_run_asio(benchmark::State& state) {
  asio::io_context io(1);
  long count = 0;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) asio::post(io, [&count] { ++count; });
    io.restart();
    io.run();
  }
  benchmark::DoNotOptimize(count);
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// --- spawn + join of a trivial task -------------------------------------------------------

squall::Task<int> trivial_squall() {
  co_return 1;
}

void spawn_join_squall(benchmark::State& state) {
  squall::Loop loop;
  for (auto _ : state) {
    auto body = []() -> squall::Task<long> {
      long sum = 0;
      for (int i = 0; i < kBatch; ++i) {
        auto h = squall::spawn(trivial_squall());
        co_await h.join();
        sum += h.value();
      }
      co_return sum;
    };
    benchmark::DoNotOptimize(squall::run_sync(body()));
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

asio::awaitable<int> trivial_asio() {
  co_return 1;
}

void spawn_join_asio(benchmark::State& state) {
  asio::io_context io(1);
  for (auto _ : state) {
    long sum = 0;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          auto ex = co_await asio::this_coro::executor;
          for (int i = 0; i < kBatch; ++i)
            sum += co_await asio::co_spawn(ex, trivial_asio(), asio::use_awaitable);
        },
        asio::detached);
    io.restart();
    io.run();
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// --- sleep(0) ping-pong: two tasks yielding to each other ---------------------------------

void yield_switch_squall(benchmark::State& state) {
  squall::Loop loop;
  for (auto _ : state) {
    auto yielder = []() -> squall::Task<void> {
      for (int i = 0; i < kBatch / 2; ++i) co_await squall::sleep(0s);
    };
    auto body = [&]() -> squall::Task<void> {
      auto a = squall::spawn(yielder());
      auto b = squall::spawn(yielder());
      co_await a.join();
      co_await b.join();
    };
    squall::run_sync(body());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void yield_switch_asio(benchmark::State& state) {
  asio::io_context io(1);
  for (auto _ : state) {
    auto yielder = []() -> asio::awaitable<void> {
      auto ex = co_await asio::this_coro::executor;
      for (int i = 0; i < kBatch / 2; ++i) co_await asio::post(ex, asio::use_awaitable);
    };
    asio::co_spawn(io, yielder(), asio::detached);
    asio::co_spawn(io, yielder(), asio::detached);
    io.restart();
    io.run();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// --- timer add + cancel -------------------------------------------------------------------

void timer_add_cancel_squall(benchmark::State& state) {
  squall::Loop loop;
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      squall::TimerHandle h = loop.call_later(1s, [] {});
      h.cancel();
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void timer_add_cancel_asio(benchmark::State& state) {
  asio::io_context io(1);
  asio::steady_timer timer(io);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      timer.expires_after(1s);
      timer.async_wait([](const asio::error_code&) {});
      timer.cancel();
    }
    io.restart();
    io.poll();  // the cancelled waits complete with operation_aborted
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// --- queue put/get ping-pong --------------------------------------------------------------

void queue_ping_pong_squall(benchmark::State& state) {
  squall::Loop loop;
  for (auto _ : state) {
    squall::Queue<int> ping(1), pong(1);
    auto server = [&]() -> squall::Task<void> {
      for (int i = 0; i < kBatch / 2; ++i) co_await pong.put(co_await ping.get() + 1);
    };
    auto client = [&]() -> squall::Task<void> {
      for (int i = 0; i < kBatch / 2; ++i) {
        co_await ping.put(i);
        benchmark::DoNotOptimize(co_await pong.get());
      }
    };
    auto body = [&]() -> squall::Task<void> {
      auto s = squall::spawn(server());
      co_await client();
      co_await s.join();
    };
    squall::run_sync(body());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

using Channel = asio::experimental::channel<void(asio::error_code, int)>;

void queue_ping_pong_asio(benchmark::State& state) {
  asio::io_context io(1);
  for (auto _ : state) {
    Channel ping(io, 1), pong(io, 1);
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          for (int i = 0; i < kBatch / 2; ++i) {
            int v = co_await ping.async_receive(asio::use_awaitable);
            co_await pong.async_send(asio::error_code{}, v + 1, asio::use_awaitable);
          }
        },
        asio::detached);
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          for (int i = 0; i < kBatch / 2; ++i) {
            co_await ping.async_send(asio::error_code{}, i, asio::use_awaitable);
            benchmark::DoNotOptimize(co_await pong.async_receive(asio::use_awaitable));
          }
        },
        asio::detached);
    io.restart();
    io.run();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// --- lock hand-off between two tasks ------------------------------------------------------
// Asio has no coroutine mutex; its nearest equivalent is a strand hand-off: two coroutines
// alternately dispatching onto a shared strand.

void lock_handoff_squall(benchmark::State& state) {
  squall::Loop loop;
  for (auto _ : state) {
    squall::Lock lock;
    long shared = 0;
    auto worker = [&]() -> squall::Task<void> {
      for (int i = 0; i < kBatch / 2; ++i) {
        co_await lock.acquire();
        ++shared;
        co_await squall::sleep(0s);  // hold it across a switch, so the other must wait
        lock.release();
      }
    };
    auto body = [&]() -> squall::Task<void> {
      auto a = squall::spawn(worker());
      auto b = squall::spawn(worker());
      co_await a.join();
      co_await b.join();
    };
    squall::run_sync(body());
    benchmark::DoNotOptimize(shared);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void lock_handoff_asio(benchmark::State& state) {
  asio::io_context io(1);
  for (auto _ : state) {
    auto strand = asio::make_strand(io);
    long shared = 0;
    auto worker = [&]() -> asio::awaitable<void> {
      for (int i = 0; i < kBatch / 2; ++i) {
        co_await asio::dispatch(strand, asio::use_awaitable);
        ++shared;
        co_await asio::post(strand, asio::use_awaitable);
      }
    };
    asio::co_spawn(io, worker(), asio::detached);
    asio::co_spawn(io, worker(), asio::detached);
    io.restart();
    io.run();
    benchmark::DoNotOptimize(shared);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

// --- many tasks asleep at once: peak RSS ----------------------------------------------------

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

int sleepers(const std::string& impl, int n) {
  long before = peak_rss_kib();
  if (impl == "squall") {
    auto body = [n]() -> squall::Task<void> {
      auto sleeper = []() -> squall::Task<void> { co_await squall::sleep(50ms); };
      std::vector<squall::TaskHandle<void>> handles;
      handles.reserve(n);
      for (int i = 0; i < n; ++i) handles.push_back(squall::spawn(sleeper()));
      for (auto& h : handles) co_await h.join();
    };
    squall::run_sync(body());
  } else if (impl == "asio") {
    asio::io_context io(1);
    for (int i = 0; i < n; ++i) {
      asio::co_spawn(
          io,
          []() -> asio::awaitable<void> {
            asio::steady_timer t(co_await asio::this_coro::executor, 50ms);
            co_await t.async_wait(asio::use_awaitable);
          },
          asio::detached);
    }
    io.run();
  } else {
    std::fprintf(stderr, "bench_core: --sleepers takes squall or asio\n");
    return 2;
  }
  std::printf("%.1f\n", (peak_rss_kib() - before) / 1024.0);
  return 0;
}

}  // namespace

BENCHMARK(call_soon_run_squall)->Name("call_soon+run/squall")->UseRealTime();
BENCHMARK(call_soon_run_asio)->Name("call_soon+run/asio")->UseRealTime();
BENCHMARK(spawn_join_squall)->Name("spawn+join/squall")->UseRealTime();
BENCHMARK(spawn_join_asio)->Name("spawn+join/asio")->UseRealTime();
BENCHMARK(yield_switch_squall)->Name("sleep(0) switch/squall")->UseRealTime();
BENCHMARK(yield_switch_asio)->Name("sleep(0) switch/asio")->UseRealTime();
BENCHMARK(timer_add_cancel_squall)->Name("timer add+cancel/squall")->UseRealTime();
BENCHMARK(timer_add_cancel_asio)->Name("timer add+cancel/asio")->UseRealTime();
BENCHMARK(queue_ping_pong_squall)->Name("queue put/get ping-pong/squall")->UseRealTime();
BENCHMARK(queue_ping_pong_asio)->Name("queue put/get ping-pong/asio")->UseRealTime();
BENCHMARK(lock_handoff_squall)->Name("lock hand-off/squall")->UseRealTime();
BENCHMARK(lock_handoff_asio)->Name("lock hand-off/asio")->UseRealTime();

int main(int argc, char** argv) {
  if (argc == 3 && std::strncmp(argv[1], "--sleepers=", 11) == 0)
    return sleepers(argv[1] + 11, std::atoi(argv[2]));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
