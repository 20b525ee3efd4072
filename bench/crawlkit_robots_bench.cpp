// The crawlkit suite, robots.txt: allow/disallow decisions per second against a 500-rule file.
// No peer: the figure is reported on its own.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "squall/crawl/robots.h"

namespace {

// 500 rules of the shapes large sites publish: directory prefixes, wildcards, end anchors,
// query patterns; and paths that hit, miss and nearly hit them.
std::string make_robots() {
  std::string body = "User-agent: *\n";
  for (int i = 0; i < 500; ++i) {
    switch (i % 5) {
      case 0:
        body += "Disallow: /section" + std::to_string(i) + "/private/\n";
        break;
      case 1:
        body += "Allow: /section" + std::to_string(i) + "/private/public-*.html\n";
        break;
      case 2:
        body += "Disallow: /*?sessionid=" + std::to_string(i) + "\n";
        break;
      case 3:
        body += "Disallow: /download/*.zip$\n";
        break;
      default:
        body += "Disallow: /tmp" + std::to_string(i) + "\n";
        break;
    }
  }
  return body;
}

std::vector<std::string> make_paths() {
  std::mt19937 rng(7);
  std::vector<std::string> paths;
  for (int i = 0; i < 4096; ++i) {
    int n = static_cast<int>(rng() % 500);
    switch (rng() % 5) {
      case 0:
        paths.push_back("/section" + std::to_string(n) + "/private/page.html");
        break;
      case 1:
        paths.push_back("/section" + std::to_string(n) + "/private/public-a.html");
        break;
      case 2:
        paths.push_back("/catalog/item?id=3&sessionid=" + std::to_string(n));
        break;
      case 3:
        paths.push_back("/download/file" + std::to_string(n) + ".zip");
        break;
      default:
        paths.push_back("/articles/2024/" + std::to_string(n) + "/index.html");
        break;
    }
  }
  return paths;
}

void robots_decisions_squall(benchmark::State& state) {
  squall::RobotsRules rules = squall::RobotsTxt::parse(make_robots()).rules_for("squall");
  auto paths = make_paths();
  size_t allowed = 0;
  for (auto _ : state) {
    for (const auto& p : paths) allowed += rules.allowed(p);
  }
  benchmark::DoNotOptimize(allowed);
  state.SetItemsProcessed(state.iterations() * paths.size());
}

}  // namespace

BENCHMARK(robots_decisions_squall)->Name("robots.txt decision, 500 rules/squall")->UseRealTime();

BENCHMARK_MAIN();
