// The crawlkit suite, URLs: parse + resolve + normalise a million realistic hrefs, squall's
// WHATWG parser beside libcurl's URL API doing the same work.
#include <benchmark/benchmark.h>
#include <curl/curl.h>

#include <random>
#include <string>
#include <vector>

#include "squall/url/url.h"

namespace {

constexpr const char* kBase = "https://www.example.com/docs/guide/index.html?lang=en";

// A fixed mix of the hrefs pages really carry: relative paths, dot segments, queries, fragments,
// scheme-relative and absolute links, mixed-case hosts, percent-escapes, a few odd schemes.
std::vector<std::string> make_hrefs(size_t n) {
  static const char* kShapes[] = {
      "../reference/api.html",
      "img/logo.png",
      "/search?q=async+io&page=2",
      "#section-3",
      "?sort=desc",
      "//cdn.example.net/lib/v2/app.js",
      "https://Other.Example.ORG/a/b/../c.html?x=1#top",
      "tutorial/./part%201.html",
      "../../../index.html",
      "http://example.com:80/plain",
      "mailto:team@example.com",
      "./more/deeper/page.html#frag",
      "https://www.example.com/docs/guide/page.html",
      "news/2024/06/story-title-with-many-words.html",
  };
  std::mt19937 rng(42);
  std::vector<std::string> hrefs;
  hrefs.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string h = kShapes[rng() % std::size(kShapes)];
    if (rng() % 4 == 0)
      h += (h.find('?') == std::string::npos ? "?id=" : "&id=") + std::to_string(i);
    hrefs.push_back(std::move(h));
  }
  return hrefs;
}

const std::vector<std::string>& hrefs() {
  static const auto all = make_hrefs(1'000'000);
  return all;
}

void url_resolve_squall(benchmark::State& state) {
  const auto& all = hrefs();  // generated before timing starts
  auto base = squall::Url::parse(kBase);
  size_t bytes = 0;
  for (auto _ : state) {
    for (const auto& h : all) {
      auto url = squall::Url::parse(h, &*base);
      if (url) bytes += url->dedup_key().size();  // the normalised form: fragment dropped
    }
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(state.iterations() * all.size());
}

void url_resolve_curl(benchmark::State& state) {
  const auto& all = hrefs();
  CURLU* base = curl_url();
  curl_url_set(base, CURLUPART_URL, kBase, 0);
  size_t bytes = 0;
  for (auto _ : state) {
    for (const auto& h : all) {
      CURLU* u = curl_url_dup(base);
      if (curl_url_set(u, CURLUPART_URL, h.c_str(), CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK) {
        curl_url_set(u, CURLUPART_FRAGMENT, nullptr, 0);
        char* out = nullptr;
        if (curl_url_get(u, CURLUPART_URL, &out, 0) == CURLUE_OK) {
          bytes += std::char_traits<char>::length(out);
          curl_free(out);
        }
      }
      curl_url_cleanup(u);
    }
  }
  curl_url_cleanup(base);
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(state.iterations() * all.size());
}

}  // namespace

BENCHMARK(url_resolve_squall)
    ->Name("URL parse+resolve+normalise/squall")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(url_resolve_curl)
    ->Name("URL parse+resolve+normalise/libcurl")
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
