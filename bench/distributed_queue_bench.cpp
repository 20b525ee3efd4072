// The distributed suite's queue part: StreamQueue beside the plain Redis list pyspider and
// scrapy-redis queue through, on one redis-server this program starts.
//
// One round of a case pushes a batch of 100 entries of 200 bytes, takes them and (for the
// stream) acknowledges them: what a stage of the split engine does per batch of pages. The
// list peer is RPUSH and LPOP with a count, two commands a batch; it keeps no lease, so an
// entry its consumer popped and then lost is gone, which is what the stream's leases, delivery
// counts and trimming are paid for. "wall" cases time the round on one client; "Redis CPU"
// cases report what the server spent (INFO's used_cpu_user plus used_cpu_sys) per entry.
//
// Benchmarks are named "<case>/<implementation>"; scripts/bench.py pairs them into ratios.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "squall/core.h"
#include "squall/engine/stream_queue.h"
#include "squall/net/redis.h"
#include "support/redis_server.h"

namespace {

using namespace squall;

constexpr int kBatch = 100;

test::RedisServer& server() {
  static test::RedisServer redis;
  return redis;
}

std::vector<std::string> batch() {
  return std::vector<std::string>(kBatch, std::string(200, 'x'));
}

// Seconds of CPU the server has used, from INFO cpu.
double redis_cpu(RedisClient& redis) {
  RedisReply info = run_sync(redis.command("INFO", "cpu"));
  double total = 0;
  for (std::string_view field : {"used_cpu_sys:", "used_cpu_user:"}) {
    size_t at = info.str.find(field);
    if (at != std::string::npos)
      total += std::strtod(info.str.c_str() + at + field.size(), nullptr);
  }
  return total;
}

Task<void> stream_round(StreamQueue& queue, const std::vector<std::string>& payloads) {
  co_await queue.push(payloads);
  std::vector<StreamDelivery> got = co_await queue.take(kBatch);
  std::vector<std::string> ids;
  ids.reserve(got.size());
  for (auto& d : got) ids.push_back(std::move(d.id));
  co_await queue.ack(ids);
  if (ids.size() != kBatch) throw std::runtime_error("the stream lost entries");
}

Task<void> list_round(RedisClient& redis, const std::vector<std::string>& payloads) {
  std::vector<std::string_view> argv = {"RPUSH", "bench:list"};
  for (const auto& p : payloads) argv.push_back(p);
  co_await redis.command(std::span<const std::string_view>(argv));
  RedisReply got = co_await redis.command("LPOP", "bench:list", kBatch);
  if (got.elements.size() != kBatch) throw std::runtime_error("the list lost entries");
}

// Runs `round` per iteration; `cpu` reports Redis' CPU per iteration as the time instead.
template <class Round>
void run_rounds(benchmark::State& state, RedisClient& redis, Round round, bool cpu) {
  for (auto _ : state) {
    double before = cpu ? redis_cpu(redis) : 0;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 10; ++i) run_sync(round());
    auto wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(cpu ? redis_cpu(redis) - before : wall);
  }
  state.SetItemsProcessed(state.iterations() * 10 * kBatch);
}

void stream_case(benchmark::State& state, bool cpu) {
  RedisClient redis(server().url());
  StreamQueueOptions o;
  o.group = "bench";
  o.consumer = "bench";
  StreamQueue queue(redis, "bench:stream", o);
  std::vector<std::string> payloads = batch();
  run_sync(stream_round(queue, payloads));
  run_rounds(
      state, redis, [&] { return stream_round(queue, payloads); }, cpu);
  run_sync(redis.command("DEL", "bench:stream"));
  redis.close();
}

void list_case(benchmark::State& state, bool cpu) {
  RedisClient redis(server().url());
  std::vector<std::string> payloads = batch();
  run_rounds(
      state, redis, [&] { return list_round(redis, payloads); }, cpu);
  redis.close();
}

void BM_StreamWall(benchmark::State& state) {
  stream_case(state, false);
}
void BM_ListWall(benchmark::State& state) {
  list_case(state, false);
}
void BM_StreamCpu(benchmark::State& state) {
  stream_case(state, true);
}
void BM_ListCpu(benchmark::State& state) {
  list_case(state, true);
}

BENCHMARK(BM_StreamWall)
    ->Name("queue: push, take, ack, batches of 100 (wall)/squall")
    ->UseManualTime();
BENCHMARK(BM_ListWall)
    ->Name("queue: push, take, ack, batches of 100 (wall)/redis-list")
    ->UseManualTime();
BENCHMARK(BM_StreamCpu)->Name("queue: Redis CPU per entry/squall")->UseManualTime();
BENCHMARK(BM_ListCpu)->Name("queue: Redis CPU per entry/redis-list")->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
