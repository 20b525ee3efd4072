// pyspider's tutorial project in C++: start from an index, follow the detail pages, return a
// result for each. It runs on squall's engine (scheduler → fetcher → processor → result
// worker), so the results land in an SQLite store and a JSON lines file, and a second run
// resumes instead of starting over.
//
// Run: build/release/examples/spider      serves a small film site itself and crawls it
//
// The pyspider script it mirrors:
//   class Handler(BaseHandler):
//       def on_start(self):
//           self.crawl('http://127.0.0.1:PORT/', callback=self.index_page)
//       @config(age=10 * 24 * 60 * 60)
//       def index_page(self, response):
//           for each in response.doc('a.film').items():
//               self.crawl(each.attr.href, callback=self.detail_page)
//           self.crawl(response.doc('a.next').attr.href, callback=self.index_page)
//       def detail_page(self, response):
//           return {"url": response.url, "title": response.doc('h1').text(), ...}
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "squall/core.h"
#include "squall/engine/engine.h"
#include "squall/http/server.h"

using namespace squall;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

constexpr int kFilms = 24;
constexpr int kPerPage = 10;

class FilmSpider : public Handler {
 public:
  explicit FilmSpider(std::string start) : Handler("films"), start_(std::move(start)) {
    callback("index_page", [this](Response& r) -> std::optional<json> {
      for (const std::string& href : r.css("a.film::attr(href)").getall())
        crawl(href, {{"callback", "detail_page"}});
      if (std::optional<std::string> next = r.css("a.next").attr("href"))
        crawl(*next, {{"callback", "index_page"}, {"age", 10 * 24 * 60 * 60}});
      return std::nullopt;
    });
    callback("detail_page", [](Response& r) -> std::optional<json> {
      return json{{"url", r.url},
                  {"title", r.css("h1::text").get()},
                  {"year", r.xpath("string(//span[@class='year'])").values().at(0)}};
    });
  }

  void on_start() override {
    crawl(start_, {{"callback", "index_page"}, {"age", 10 * 24 * 60 * 60}});
  }

 private:
  std::string start_;
};

// The site: /?page=N lists films N*10.., linking the next page; /film/K is a detail page.
Task<void> site(http::ServerRequest& request, http::ServerResponse& response) {
  std::string path(request.path());
  response.headers().set("Content-Type", "text/html; charset=utf-8");
  if (path.starts_with("/film/")) {
    int k = std::atoi(path.c_str() + 6);
    co_await response.write("<html><body><h1>Film " + std::to_string(k) + "</h1><span class=year>" +
                            std::to_string(1950 + k) +
                            "</span><a href=\"/\">home</a></body></html>");
    co_return;
  }
  if (path != "/") {
    response.set_status(404);
    co_return;
  }
  std::string query(request.query());
  int page = query.starts_with("page=") ? std::atoi(query.c_str() + 5) : 0;
  std::string body = "<html><body><ul>";
  for (int k = page * kPerPage; k < std::min(kFilms, (page + 1) * kPerPage); ++k)
    body += "<li><a class=film href=\"/film/" + std::to_string(k) + "\">film</a></li>";
  body += "</ul>";
  if ((page + 1) * kPerPage < kFilms)
    body += "<a class=next href=\"/?page=" + std::to_string(page + 1) + "\">next</a>";
  co_await response.write(body + "</body></html>");
}

Task<int> crawl_own_site(std::filesystem::path dir) {
  http::HttpServer server(site);
  server.listen(Address::parse("127.0.0.1:0"));
  FilmSpider spider("http://127.0.0.1:" + std::to_string(server.port()) + "/");
  EngineOptions options;
  options.store = dir / "films.db";
  options.jsonl = dir / "films.jsonl";
  Engine engine(options);
  engine.add_project(spider);
  EngineSummary summary = co_await engine.run();
  std::printf("%llu tasks, %llu results in %.2f s (store %s, results %s)\n",
              static_cast<unsigned long long>(summary.dispatched),
              static_cast<unsigned long long>(summary.results), summary.seconds,
              options.store.c_str(), options.jsonl.c_str());
  co_await server.stop(1s);
  co_return summary.results == kFilms ? 0 : 1;
}

}  // namespace

int main() {
  std::string pattern = (std::filesystem::temp_directory_path() / "squall-spider-XXXXXX").string();
  if (!mkdtemp(pattern.data())) return 2;
  Loop loop;
  int status = run_sync(crawl_own_site(pattern));
  std::filesystem::remove_all(pattern);
  return status;
}
