// The crawlkit suite, links: squall's link extractor beside gumbo and libxml2's HTML parser on the
// same bytes.
//
// Cases are "<case>/<implementation>"; each counts one item per page and reports bytes per second.
// The corpus is every HTML file of Debian's python3.11-doc (falling back to python-tornado-doc,
// then to any HTML under /usr/share/doc), read once before timing. Peers only parse (and free their
// tree): that is the least they must do to find links, so the ratios flatter them.
#include <benchmark/benchmark.h>
#include <gumbo.h>
#include <libxml/HTMLparser.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "squall/crawl/links.h"

namespace {

std::vector<std::string> load_pages(const std::string& root) {
  std::vector<std::string> pages;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (!it->is_regular_file(ec) || it->path().extension() != ".html") continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    pages.push_back(s.str());
  }
  std::sort(pages.begin(), pages.end());
  return pages;
}

const std::vector<std::string>& corpus() {
  static const std::vector<std::string> pages = [] {
    for (const char* root : {"/usr/share/doc/python3.11/html",
                             "/usr/share/doc/python-tornado-doc/html", "/usr/share/doc"}) {
      auto pages = load_pages(root);
      if (!pages.empty()) return pages;
    }
    return std::vector<std::string>{};
  }();
  return pages;
}

// One page of about 100 KB: the corpus pages closest to that size, concatenated.
const std::vector<std::string>& page_100kb() {
  static const std::vector<std::string> page = [] {
    std::string out;
    for (const std::string& p : corpus()) {
      if (out.size() >= 100 * 1024) break;
      out += p;
    }
    out.resize(std::min<size_t>(out.size(), 100 * 1024));
    return std::vector<std::string>{out};
  }();
  return page;
}

size_t total_bytes(const std::vector<std::string>& pages) {
  size_t n = 0;
  for (const auto& p : pages) n += p.size();
  return n;
}

void run_squall(benchmark::State& state, const std::vector<std::string>& pages) {
  squall::LinkOptions options;
  options.page_url = *squall::Url::parse("https://www.tornadoweb.org/en/stable/");
  size_t links = 0;
  for (auto _ : state) {
    for (const std::string& page : pages) {
      squall::LinkExtractor extractor(options);
      extractor.feed(page);
      extractor.finish();
      links += extractor.links().size();
    }
  }
  benchmark::DoNotOptimize(links);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * pages.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * total_bytes(pages)));
}

void run_gumbo(benchmark::State& state, const std::vector<std::string>& pages) {
  for (auto _ : state) {
    for (const std::string& page : pages) {
      GumboOutput* out = gumbo_parse_with_options(&kGumboDefaultOptions, page.data(), page.size());
      benchmark::DoNotOptimize(out->root);
      gumbo_destroy_output(&kGumboDefaultOptions, out);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * pages.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * total_bytes(pages)));
}

void run_libxml2(benchmark::State& state, const std::vector<std::string>& pages) {
  xmlInitParser();
  for (auto _ : state) {
    for (const std::string& page : pages) {
      htmlDocPtr doc = htmlReadMemory(
          page.data(), static_cast<int>(page.size()), nullptr, "utf-8",
          HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
      benchmark::DoNotOptimize(doc);
      xmlFreeDoc(doc);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * pages.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * total_bytes(pages)));
}

void page_squall(benchmark::State& s) {
  run_squall(s, page_100kb());
}
void page_gumbo(benchmark::State& s) {
  run_gumbo(s, page_100kb());
}
void page_libxml2(benchmark::State& s) {
  run_libxml2(s, page_100kb());
}
void corpus_squall(benchmark::State& s) {
  run_squall(s, corpus());
}
void corpus_gumbo(benchmark::State& s) {
  run_gumbo(s, corpus());
}
void corpus_libxml2(benchmark::State& s) {
  run_libxml2(s, corpus());
}

}  // namespace

BENCHMARK(page_squall)->Name("extract links 100KB page/squall")->UseRealTime();
BENCHMARK(page_gumbo)->Name("extract links 100KB page/gumbo")->UseRealTime();
BENCHMARK(page_libxml2)->Name("extract links 100KB page/libxml2")->UseRealTime();
BENCHMARK(corpus_squall)->Name("extract links python docs/squall")->UseRealTime();
BENCHMARK(corpus_gumbo)->Name("extract links python docs/gumbo")->UseRealTime();
BENCHMARK(corpus_libxml2)->Name("extract links python docs/libxml2")->UseRealTime();

BENCHMARK_MAIN();
