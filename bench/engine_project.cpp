// The engine suite's project part: a C++ handler project that crawls a site beneath a base URL,
// extracting each page's title and links with selectors, as bench/engine_scrapy.py's spider does
// with response.css.
//
//   build/release/bench/engine_project http://127.0.0.1:8080/ --store s.db --jsonl r.jsonl
//       [--concurrency 64] [--max-pages N] [--extract selectors|links]
//
// The failure pause is off and every task gets no retries (pyspider's would retry a 404 after 30 s,
// 1 h, ...: Scrapy's spider gives up on one at once). Each page's callback returns {url, title}
// (title from "title::text") and follows every <a href> (resolved against the page's base URL,
// fragment removed) that starts with the base. Prints one JSON line: {"pages", "results",
// "seconds"}.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "squall/core.h"
#include "squall/engine/engine.h"

using namespace squall;
using nlohmann::json;

namespace {

class SiteProject : public Handler {
 public:
  SiteProject(std::string base, long max_pages, bool selectors)
      : Handler("site"), base_(std::move(base)), max_pages_(max_pages) {
    crawl_config = {{"retries", 0}};  // a 404 is final here, as it is to Scrapy
    callback("page", [this, selectors](Response& r) -> std::optional<json> {
      if (!selectors) {
        for (const std::string& href : r.links())
          if (admit(href)) crawl(href, page_);
        return json{{"url", r.url}};
      }
      for (const Url& link : r.css("a").links()) {
        if (!admit(link.href())) continue;
        if (link.has_fragment())
          crawl(link.normalized(), page_);
        else
          crawl(link, page_);  // parsed already: crawl() takes it as it is
      }
      return json{{"url", r.url}, {"title", r.css("title::text").get()}};
    });
  }
  void on_start() override { crawl(base_, page_); }

 private:
  // Whether to follow `href`: beneath the base, within --max-pages.
  bool admit(std::string_view href) {
    if (!href.starts_with(base_)) return false;
    if (max_pages_ > 0 && followed_ >= max_pages_) return false;
    ++followed_;
    return true;
  }

  // A follow's keywords, built once: a JSON object is a tree of allocations.
  const json page_ = {{"callback", "page"}};
  std::string base_;
  long max_pages_;
  long followed_ = 1;  // the start page
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr,
                 "usage: engine_project BASE_URL [--store FILE] [--jsonl FILE] "
                 "[--concurrency N] [--max-pages N] [--extract selectors|links]\n");
    return 2;
  }
  EngineOptions options;
  options.store = "engine_project.db";
  options.fresh = true;
  options.concurrency = 64;
  long max_pages = 0;
  bool selectors = true;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--extract")
      selectors = std::string(argv[i + 1]) != "links";
    else if (flag == "--store")
      options.store = argv[i + 1];
    else if (flag == "--jsonl")
      options.jsonl = argv[i + 1];
    else if (flag == "--concurrency")
      options.concurrency = static_cast<size_t>(std::atol(argv[i + 1]));
    else if (flag == "--max-pages")
      max_pages = std::atol(argv[i + 1]);
    else {
      std::fprintf(stderr, "engine_project: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  options.queue_size = options.concurrency * 2;
  options.hosts.obey_robots = false;
  options.scheduler.pause.failures = 0;  // the site's runs of broken links are no outage
  SiteProject project(argv[1], max_pages, selectors);
  Loop loop;
  Engine engine(options);
  engine.add_project(project);
  EngineSummary summary = run_sync(engine.run());
  // The on_start and on_finished tasks are dispatched too; pages are the rest.
  std::printf("{\"pages\": %llu, \"results\": %llu, \"seconds\": %.3f}\n",
              static_cast<unsigned long long>(summary.dispatched - 2),
              static_cast<unsigned long long>(summary.results), summary.seconds);
  return 0;
}
