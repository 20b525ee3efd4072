// The engine's task store at scale: N active tasks in one project, inserted through the
// scheduler in batches, dispatched to a fetcher that answers at once, and a restart's time to
// its first dispatch. Run by bench/engine_bench.py; prints one JSON object on stdout.
//
//   engine_scale --store /tmp/x.db --tasks 10000000 --dispatch 1000000
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "squall/core.h"
#include "squall/engine/scheduler.h"
#include "squall/engine/sqlite_store.h"

using namespace squall;

namespace {

// CPU seconds this process has used (user and system): what a phase cost on a shared machine.
double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A line of /proc/self/status in MiB: "VmRSS:" the resident set now, "VmHWM:" its peak.
double status_mib(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with(field)) return std::atof(line.c_str() + std::strlen(field)) / 1024.0;
  return 0;
}
double rss_mib() {
  return status_mib("VmRSS:");
}

ProjectInfo bench_project() {
  ProjectInfo p;
  p.name = "bench";
  p.status = ProjectStatus::Running;
  p.rate = p.burst = TokenBucket::kUnlimited;
  return p;
}

Task<int> run(const std::string& path, long tasks, long batch, long dispatch, size_t cache_mib) {
  double insert_s = 0, dispatch_s = 0, restart_s = 0, rss_inserted = 0, rss_dispatched = 0;
  double insert_cpu = 0, dispatch_cpu = 0;
  {
    auto store = SqliteStore::open(path, true, "engine store", cache_mib);
    Scheduler scheduler(*store);
    co_await scheduler.add_project(bench_project());
    auto t = std::chrono::steady_clock::now();
    double c = cpu_seconds();
    for (long done = 0; done < tasks;) {
      std::vector<CrawlTask> chunk;
      chunk.reserve(static_cast<size_t>(batch));
      for (long i = 0; i < batch && done < tasks; ++i, ++done)
        chunk.push_back(CrawlTask::for_url("bench", "http://h" + std::to_string(done % 1000) +
                                                        ".example/page/" + std::to_string(done)));
      co_await scheduler.request(std::move(chunk));
      co_await scheduler.commit();
    }
    insert_s = since(t);
    insert_cpu = cpu_seconds() - c;
    rss_inserted = rss_mib();
    t = std::chrono::steady_clock::now();
    c = cpu_seconds();
    long answered = 0;
    while (answered < dispatch) {
      std::vector<Dispatch> ds = co_await scheduler.select(1000);
      if (ds.empty()) break;
      for (const Dispatch& d : ds) {
        co_await scheduler.outcome(StatusPack::of(d, true, JsonText()));
        ++answered;
      }
      if (answered % 10000 < 1000) co_await scheduler.commit();
    }
    co_await scheduler.commit();
    dispatch_s = since(t);
    dispatch_cpu = cpu_seconds() - c;
    dispatch = answered;
    rss_dispatched = rss_mib();
  }
  {
    auto t = std::chrono::steady_clock::now();
    auto store = SqliteStore::open(path, false, "engine store", cache_mib);
    Scheduler scheduler(*store);
    co_await scheduler.add_project(bench_project());
    std::vector<Dispatch> first = co_await scheduler.select(1);
    restart_s = since(t);
    if (first.empty()) {
      std::fprintf(stderr, "engine_scale: nothing to dispatch after the restart\n");
      co_return 1;
    }
  }
  std::printf(
      "{\"tasks\": %ld, \"insert_per_s\": %.0f, \"dispatch_per_s\": %.0f, \"insert_per_cpu_s\": "
      "%.0f, \"dispatch_per_cpu_s\": %.0f, \"rss_mib_inserted\": %.1f, \"rss_mib_dispatched\": "
      "%.1f, \"rss_mib_peak\": %.1f, \"first_dispatch_s\": %.3f}\n",
      tasks, tasks / insert_s, dispatch / dispatch_s, tasks / insert_cpu, dispatch / dispatch_cpu,
      rss_inserted, rss_dispatched, status_mib("VmHWM:"), restart_s);
  co_return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string store = "/tmp/squall-engine-scale.db";
  long tasks = 1'000'000, batch = 10'000, dispatch = 200'000;
  size_t cache_mib = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--store")
      store = argv[i + 1];
    else if (flag == "--tasks")
      tasks = std::atol(argv[i + 1]);
    else if (flag == "--batch")
      batch = std::atol(argv[i + 1]);
    else if (flag == "--dispatch")
      dispatch = std::atol(argv[i + 1]);
    else if (flag == "--cache-mib")
      cache_mib = static_cast<size_t>(std::atol(argv[i + 1]));
    else {
      std::fprintf(stderr,
                   "usage: engine_scale [--store FILE] [--tasks N] [--batch N] [--dispatch N] "
                   "[--cache-mib N]\n");
      return 2;
    }
  }
  Loop loop;
  int status = run_sync(run(store, tasks, batch, dispatch, cache_mib));
  for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((store + suffix).c_str());
  return status;
}
