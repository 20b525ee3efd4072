// Tornado's demo crawler, line for line in squall: a queue of URLs, ten workers, the fetching
// and fetched sets, and a join on the queue with a time limit. (`squall crawl` is the real
// tool built from it: robots.txt, politeness, retries, resume, WARC.)
//
// Run: build/release/examples/crawler                  crawls a small site it serves itself
//      build/release/examples/crawler http://127.0.0.1:8000/docs/   everything beneath a URL
#include <cstdio>
#include <set>
#include <string>

#include "squall/core.h"
#include "squall/crawl/links.h"
#include "squall/http/client.h"
#include "squall/http/server.h"
#include "squall/url/url.h"

using namespace squall;
using namespace std::chrono_literals;

namespace {

std::string base_url;
constexpr int kConcurrency = 10;

// The page's links, resolved against its URL, fragments removed (urljoin + urldefrag).
Task<std::vector<std::string>> get_links_from_url(std::string url) {
  std::vector<std::string> urls;
  try {
    http::HttpResponse response = co_await http::HttpClient::shared().fetch(url);
    std::printf("fetched %s\n", url.c_str());
    LinkOptions options;
    options.page_url = *Url::parse(url);
    for (const Link& link : extract_links(response.body, options))
      if (link.element == LinkElement::A && link.url) urls.emplace_back(link.url->dedup_key());
  } catch (const std::exception& e) {
    std::printf("Exception: %s %s\n", e.what(), url.c_str());
  }
  co_return urls;
}

Task<int> crawl() {
  Queue<std::string> q;
  TimePoint start = Loop::time();
  std::set<std::string> fetching, fetched;

  auto fetch_url = [&]() -> Task<void> {
    std::string current_url = co_await q.get();
    if (!fetching.contains(current_url)) {
      std::printf("fetching %s\n", current_url.c_str());
      fetching.insert(current_url);
      std::vector<std::string> urls = co_await get_links_from_url(current_url);
      fetched.insert(current_url);
      for (const std::string& new_url : urls)
        if (new_url.starts_with(base_url)) co_await q.put(new_url);  // beneath the base only
    }
    q.task_done();
  };
  auto worker = [&]() -> Task<void> {
    while (true) co_await fetch_url();
  };

  co_await q.put(base_url);
  std::vector<TaskHandle<void>> workers;
  for (int i = 0; i < kConcurrency; ++i) workers.push_back(spawn(worker()));
  co_await q.join(300s);
  for (auto& w : workers) w.kill();
  co_await joinall(workers);
  bool complete = fetching == fetched;
  std::printf("Done in %d seconds, fetched %zu URLs.\n",
              static_cast<int>(std::chrono::duration<double>(Loop::time() - start).count()),
              fetched.size());
  co_return complete ? 0 : 1;
}

// A site to crawl when no URL is given: /site/ and /site/<n> for n < 30, each linking to three
// others, plus a link outside /site/ that the crawler must not follow.
Task<void> site(http::ServerRequest& request, http::ServerResponse& response) {
  std::string path(request.path());
  if (!path.starts_with("/site/")) {
    response.set_status(404);
    co_return;
  }
  int n = std::atoi(path.c_str() + 6) % 30;
  response.headers().set("Content-Type", "text/html");
  co_await response.write("<html><body><a href=\"/elsewhere\">out</a>");
  for (int k : {n + 1, 2 * n + 1, n * n + 2})
    co_await response.write("<a href=\"" + std::to_string(k % 30) + "#top\">page</a>");
  co_await response.write("</body></html>");
}

Task<int> crawl_own_site() {
  http::HttpServer server(site);
  server.listen(Address::parse("127.0.0.1:0"));
  base_url = "http://127.0.0.1:" + std::to_string(server.port()) + "/site/";
  int status = co_await crawl();
  http::HttpClient::shared().close();
  co_await server.stop(1s);
  co_return status;
}

}  // namespace

int main(int argc, char** argv) {
  Loop loop;
  if (argc > 1) {
    base_url = argv[1];
    int status = run_sync(crawl());
    http::HttpClient::shared().close();
    return status;
  }
  return run_sync(crawl_own_site());
}
