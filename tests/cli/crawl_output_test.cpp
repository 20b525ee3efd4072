// What `squall crawl` writes, as users read it: the built command against small sites served by
// nginx, its JSON lines parsed back field by field.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/process.h"

namespace squall {
namespace {

using test::Process;
using test::TempDir;
using namespace std::chrono_literals;

const std::string kSquall = SQUALL_BINARY_DIR "/squall";

// A site of files written into a fresh directory, served by nginx on a free port.
struct Site {
  TempDir dir;
  uint16_t port = test::free_port();
  std::string origin = "http://127.0.0.1:" + std::to_string(port);
  Process nginx;

  void file(const std::string& path, std::string_view contents) const {
    dir.write("site" + path, contents);
  }
  // Starts nginx with the site's files at its root and `locations` inside its server block.
  void serve(const std::string& locations = "", const std::string& extra_http = "") {
    nginx = test::start_nginx(
        dir, "location / { root " + (dir.path() / "site").string() + "; }\n" + locations, port, "",
        extra_http);
  }
};

// Runs squall crawl with `args` in `work` and returns its output; the exit status must be 0.
std::string crawl(const TempDir& work, std::vector<std::string> args) {
  args.insert(args.begin(), {kSquall, "crawl"});
  Process p = Process::start(args, work.path());
  int status = p.wait(120s);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << p.output();
  return p.output();
}

// The JSON lines of a file, by their "url".
std::map<std::string, nlohmann::json> lines_by_url(const std::filesystem::path& path) {
  std::map<std::string, nlohmann::json> out;
  std::istringstream lines(test::read_file(path));
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line);
    out[j["url"].get<std::string>()] = j;
  }
  return out;
}

TEST(CrawlOutput, JsonLinesCarryTitleRedirectsHeadersAndTheFailuresKind) {
  Site site;
  site.file("/index.html",
            "<html><head><title>  The\n start </title></head><body>"
            "<a href=old>moved</a> <a href=gone.html>gone</a> <a href=drop>dropped</a>"
            "<a href='http://elsewhere.test/x#frag'>off site</a></body></html>");
  site.file("/new.html", "<title>New &amp; improved</title><a href=index.html>home</a>");
  site.serve(
      "location = /old { return 301 /older; }\n"
      "location = /older { return 302 /new.html; }\n"
      "location = /drop { return 444; }\n");
  TempDir work;
  crawl(work, {site.origin + "/index.html", "--scope", "host", "--jsonl", "out.jsonl",
               "--jsonl-links", "--retries", "0", "--quiet"});
  auto lines = lines_by_url(work.path() / "out.jsonl");

  const auto& start = lines.at(site.origin + "/index.html");
  EXPECT_EQ(start["status"], 200);
  EXPECT_EQ(start["title"], "The start");
  EXPECT_EQ(start["content_type"], "text/html");
  EXPECT_EQ(start["content_length"], start["length"]);
  EXPECT_TRUE(start["last_modified"].is_string()) << start;
  EXPECT_TRUE(start["etag"].get<std::string>().starts_with("\"")) << start;
  EXPECT_EQ(start["redirects"], nlohmann::json::array());
  EXPECT_EQ(start["error_kind"], nullptr);
  EXPECT_EQ(start["outlinks"],
            nlohmann::json::array({site.origin + "/old", site.origin + "/gone.html",
                                   site.origin + "/drop", "http://elsewhere.test/x"}));

  const auto& moved = lines.at(site.origin + "/old");
  EXPECT_EQ(moved["status"], 200);
  EXPECT_EQ(moved["final_url"], site.origin + "/new.html");
  EXPECT_EQ(moved["redirects"],
            nlohmann::json::array({site.origin + "/old", site.origin + "/older"}));
  EXPECT_EQ(moved["title"], "New & improved");

  const auto& gone = lines.at(site.origin + "/gone.html");
  EXPECT_EQ(gone["status"], 404);
  EXPECT_EQ(gone["title"], nullptr) << "only pages that came (2xx) have a title";
  EXPECT_EQ(gone["error_kind"], nullptr);

  const auto& dropped = lines.at(site.origin + "/drop");
  EXPECT_EQ(dropped["status"], 599) << dropped;
  EXPECT_EQ(dropped["error_kind"], "closed") << dropped;
  EXPECT_TRUE(dropped["error"].is_string());
  EXPECT_EQ(dropped["content_type"], "");
}

TEST(CrawlOutput, OutlinksAreWrittenOnlyWhenAskedFor) {
  Site site;
  site.file("/index.html", "<a href=a.html>a</a>");
  site.file("/a.html", "a");
  site.serve();
  TempDir work;
  crawl(work, {site.origin + "/index.html", "--scope", "host", "--jsonl", "out.jsonl", "--quiet"});
  auto lines = lines_by_url(work.path() / "out.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  for (const auto& [url, j] : lines) EXPECT_FALSE(j.contains("outlinks")) << j;
}

TEST(CrawlOutput, HelpNamesTheJsonFields) {
  Process help = Process::start({kSquall, "crawl", "--help"});
  EXPECT_EQ(help.wait(30s), 0);
  for (const char* field : {"final_url", "599", "error_kind", "title", "redirects",
                            "content_length", "last_modified", "etag", "--jsonl-links", "outlinks"})
    EXPECT_NE(help.output().find(field), std::string::npos) << field << "\n" << help.output();
}

}  // namespace
}  // namespace squall
