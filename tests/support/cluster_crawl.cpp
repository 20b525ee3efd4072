// What the cluster's tests share (cluster_crawl.h).
#include "support/cluster_crawl.h"

#include <fstream>
#include <thread>

#include "squall/engine/engine_store.h"
#include "support/squall_command.h"

namespace squall::test {

const char* const index_project = R"(
from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/page/index?links=a,b,c,d,e,f", callback=self.index_page)

    def index_page(self, response):
        for each in response.doc('a[href^="http"]').items():
            self.crawl(each.attr.href, callback=self.detail_page)

    def detail_page(self, response):
        return {"url": response.url, "title": response.doc("title").text()}
)";

const char* const chain_project = R"(
from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/chain/0?to=400&hold=300", callback=self.chain_page)

    def chain_page(self, response):
        for each in response.doc('a[href^="http"]').items():
            self.crawl(each.attr.href, callback=self.chain_page)
        return {"url": response.url, "title": response.doc("title").text()}
)";

std::vector<std::string> ClusterProcesses::argv(std::vector<std::string> args) const {
  args.insert(args.begin(), squall_binary());
  args.insert(args.end(), common.begin(), common.end());
  return args;
}

Process ClusterProcesses::start(std::vector<std::string> args) const {
  return Process::start(argv(std::move(args)), workdir);
}

Task<StoredCrawl> stored_crawl(std::string store, std::string project) {
  EngineStoreOptions keep;
  std::unique_ptr<EngineStore> opened = co_await open_engine_store(store, keep);
  StoredCrawl out;
  out.results = co_await opened->count(project);
  out.tasks = co_await opened->recount(project);
  co_return out;
}

std::map<std::string, int> export_lines(const std::filesystem::path& path) {
  std::map<std::string, int> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) ++lines[nlohmann::json::parse(line).at("taskid").get<std::string>()];
  return lines;
}

std::map<std::string, int> fetches_of(const std::vector<nlohmann::json>& requests,
                                      std::string_view prefix) {
  std::map<std::string, int> out;
  for (const nlohmann::json& r : requests)
    if (std::string path = r.at("path"); path.starts_with(prefix)) ++out[path];
  return out;
}

bool wait_until(const std::function<bool()>& ready, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (ready()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace squall::test
