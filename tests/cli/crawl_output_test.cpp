// What `squall crawl` writes, as users read it: the built command against small sites served by
// nginx, its JSON lines parsed back field by field.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "squall/crawl/warc.h"
#include "squall/http/decode.h"
#include "squall/http/h1_connection.h"
#include "support/process.h"
#include "support/squall_command.h"
#include "support/warc_records.h"

namespace squall {
namespace {

using test::Process;
using test::TempDir;
using namespace std::chrono_literals;

const std::string& kSquall = test::squall_binary();
// webrecorder's warcio.js, which scripts/bootstrap installs.
const std::string kWarcio = SQUALL_SOURCE_DIR "/.cache/warcio/node_modules/.bin/warcio";

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

// The body of an HTTP message `head_and_body` with its chunked framing undone.
std::string dechunk(std::string_view body) {
  http::BodyReader reader(http::MessageKind::Response);
  EXPECT_EQ(reader.start({.kind = http::BodyKind::Chunked}, 1 << 30), http::ParseStatus::Ok);
  std::string out;
  while (!body.empty() && !reader.done()) {
    auto step = reader.decode(body);
    EXPECT_FALSE(http::is_error(step.status));
    if (http::is_error(step.status)) break;
    out.append(step.data);
    body.remove_prefix(step.consumed);
  }
  EXPECT_TRUE(reader.done()) << "the chunked body did not end";
  EXPECT_TRUE(body.empty()) << "bytes after the chunked body";
  return out;
}

std::string gunzip(std::string_view bytes) {
  http::ContentDecoder decoder("gzip");
  std::string out;
  decoder.feed(bytes, out);
  decoder.finish();
  return out;
}

TEST(CrawlOutput, TheWarcHoldsEveryExchangeAsItCrossedTheWire) {
  Site site;
  const std::string index = "<html><head><title>start</title></head><body>" +
                            std::string(2000, ' ') + "<a href=old>moved</a></body></html>";
  const std::string page =
      "<html><title>new</title><body>" + std::string(3000, 'n') + "</body></html>";
  site.file("/index.html", index);
  site.file("/new.html", page);
  site.file("/robots.txt", "User-agent: *\nDisallow: /private/\n");
  site.serve("location = /old { return 301 /new.html; }\n",
             "gzip on; gzip_min_length 1; gzip_types text/html;");
  TempDir work;
  crawl(work, {site.origin + "/index.html", "--scope", "host", "--warc", "out.warc.gz", "--quiet"});
  std::vector<test::WarcRecord> records = test::read_warc(work.path() / "out.warc.gz");
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records[0].fields["WARC-Type"], "warcinfo");

  // Responses by URL, each followed by its request.
  std::map<std::string, test::WarcRecord> responses, requests;
  std::map<std::string, std::string> response_ids;  // record ID -> URL
  for (size_t i = 1; i < records.size(); ++i) {
    test::WarcRecord& r = records[i];
    EXPECT_EQ(r.fields["WARC-Block-Digest"], warc_sha1(r.block));
    const std::string url = r.fields["WARC-Target-URI"];
    if (r.fields["WARC-Type"] == "response") {
      EXPECT_EQ(r.fields["Content-Type"], "application/http;msgtype=response");
      EXPECT_EQ(r.fields["WARC-IP-Address"], "127.0.0.1");
      EXPECT_TRUE(responses.emplace(url, r).second) << url << " archived twice";
      response_ids[r.fields["WARC-Record-ID"]] = url;
    } else {
      ASSERT_EQ(r.fields["WARC-Type"], "request") << url;
      EXPECT_EQ(r.fields["Content-Type"], "application/http;msgtype=request");
      EXPECT_EQ(response_ids[r.fields["WARC-Concurrent-To"]], url)
          << "a request record names its response";
      EXPECT_TRUE(requests.emplace(url, r).second) << url << " requested twice";
    }
  }
  // /sitemap.xml (a 404 here) is asked for as the crawl's sitemap guess.
  std::set<std::string> expected = {site.origin + "/robots.txt", site.origin + "/sitemap.xml",
                                    site.origin + "/index.html", site.origin + "/old",
                                    site.origin + "/new.html"};
  std::set<std::string> archived;
  for (const auto& [url, r] : responses) archived.insert(url);
  EXPECT_EQ(archived, expected)
      << "robots.txt, the sitemap and every redirect hop have their own records";
  EXPECT_EQ(requests.size(), responses.size());

  // The request as sent: the target, Host with the port, the codings the client accepts.
  const std::string authority = "127.0.0.1:" + std::to_string(site.port);
  EXPECT_TRUE(requests[site.origin + "/index.html"].block.starts_with(
      "GET /index.html HTTP/1.1\r\nHost: " + authority + "\r\n"))
      << requests[site.origin + "/index.html"].block;
  EXPECT_NE(requests[site.origin + "/index.html"].block.find("\r\nAccept-Encoding: "),
            std::string::npos);
  EXPECT_TRUE(requests[site.origin + "/new.html"].block.starts_with("GET /new.html HTTP/1.1\r\n"));
  EXPECT_TRUE(requests[site.origin + "/index.html"].block.ends_with("\r\n\r\n"));

  // The response as it came: nginx's gzip is chunked, and both codings stay in the record.
  for (const auto& [url, body] : {std::pair{site.origin + "/index.html", index},
                                  std::pair{site.origin + "/new.html", page}}) {
    test::WarcRecord& r = responses[url];
    size_t end = r.block.find("\r\n\r\n");
    ASSERT_NE(end, std::string::npos) << url;
    std::string head = r.block.substr(0, end + 4);
    EXPECT_TRUE(head.starts_with("HTTP/1.1 200 OK\r\n")) << head;
    EXPECT_NE(head.find("\r\nContent-Encoding: gzip\r\n"), std::string::npos) << head;
    EXPECT_NE(head.find("\r\nTransfer-Encoding: chunked\r\n"), std::string::npos) << head;
    std::string payload = dechunk(std::string_view(r.block).substr(end + 4));
    EXPECT_EQ(gunzip(payload), body) << url;
    EXPECT_EQ(r.fields["WARC-Payload-Digest"], warc_sha1(payload)) << url;
  }
  const std::string& hop = responses[site.origin + "/old"].block;
  EXPECT_TRUE(hop.starts_with("HTTP/1.1 301 Moved Permanently\r\n")) << hop;
  EXPECT_NE(hop.find("\r\nLocation: "), std::string::npos) << hop;
  EXPECT_TRUE(responses[site.origin + "/robots.txt"].block.ends_with("Disallow: /private/\n"));

  // A reader we did not write: webrecorder's warcio.js indexes the same records.
  Process warcio = Process::start(
      {kWarcio, "cdx-index", "--all", "--format", "json", "out.warc.gz"}, work.path());
  ASSERT_EQ(warcio.wait(60s), 0) << warcio.output();
  std::map<std::string, std::string> status_by_url;
  std::map<std::string, int> types;
  size_t indexed = 0;
  std::istringstream lines(warcio.output());
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    ++indexed;
    if (!j.contains("url")) continue;
    std::string url = j["url"];
    if (j.contains("status")) status_by_url[url] = j["status"].dump();
    if (j.contains("mime") && url == site.origin + "/new.html" && j["status"] == 200) {
      EXPECT_EQ(j["mime"], "text/html");
    }
    types[url]++;
  }
  EXPECT_EQ(status_by_url[site.origin + "/index.html"], "200") << warcio.output();
  EXPECT_EQ(status_by_url[site.origin + "/old"], "301") << warcio.output();
  EXPECT_EQ(status_by_url[site.origin + "/robots.txt"], "200") << warcio.output();
  for (const std::string& url : expected)
    EXPECT_EQ(types[url], 2) << url << "\n" << warcio.output();
  EXPECT_EQ(indexed, records.size()) << warcio.output();
}

// nginx's access log: how many requests asked for `path`.
int hits(const Site& site, const std::string& path) {
  std::string log = test::read_file(site.dir.path() / "access.log");
  int n = 0;
  for (size_t at = log.find("\"GET " + path + " "); at != std::string::npos;
       at = log.find("\"GET " + path + " ", at + 1))
    ++n;
  return n;
}

TEST(CrawlOutput, SitemapsFromRobotsTxtAndTheSitemapXmlGuessFindOrphanPagesInScope) {
  Site site;
  const std::string ns = "xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"";
  site.file("/index.html", "<a href=a.html>a</a>");
  site.file("/a.html", "a");
  for (int i = 1; i <= 4; ++i) site.file("/orphan" + std::to_string(i) + ".html", "orphan");
  site.file("/robots.txt",
            "User-agent: *\nDisallow: /private/\nSitemap: /maps/index.xml\n"
            "Sitemap: " +
                site.origin + "/maps/list.txt\n");
  // An index of a gzip'd urlset (served as a plain file, without Content-Encoding).
  site.file("/maps/index.xml", "<?xml version=\"1.0\"?><sitemapindex " + ns + "><sitemap><loc>" +
                                   site.origin +
                                   "/maps/pages.xml.gz</loc></sitemap></sitemapindex>");
  site.file("/maps/pages.xml", "<urlset " + ns + "><url><loc>" + site.origin +
                                   "/orphan1.html</loc><lastmod>2026-01-01</lastmod></url>"
                                   "<url><loc>http://elsewhere.test/out-of-scope</loc></url>"
                                   "<url><loc>" +
                                   site.origin +
                                   "/private/secret.html</loc></url>"
                                   "<url><loc>" +
                                   site.origin + "/a.html</loc></url></urlset>");
  Process gzip = Process::start({"gzip", "-n", (site.dir.path() / "site/maps/pages.xml").string()});
  ASSERT_EQ(gzip.wait(30s), 0) << gzip.output();
  site.file("/maps/list.txt", site.origin + "/orphan2.html\r\n\n" + site.origin + "/orphan3.html");
  site.file("/sitemap.xml",
            "<urlset " + ns + "><url><loc>" + site.origin + "/orphan4.html</loc></url></urlset>");
  site.serve();
  TempDir work;
  crawl(work, {site.origin + "/", "--jsonl", "out.jsonl", "--warc", "out.warc.gz", "--quiet"});
  auto lines = lines_by_url(work.path() / "out.jsonl");
  std::set<std::string> urls;
  for (const auto& [url, j] : lines) urls.insert(url);
  std::set<std::string> expected = {site.origin + "/",
                                    site.origin + "/a.html",
                                    site.origin + "/orphan1.html",
                                    site.origin + "/orphan2.html",
                                    site.origin + "/orphan3.html",
                                    site.origin + "/orphan4.html"};
  EXPECT_EQ(urls, expected) << "orphans listed only in sitemaps are found; nothing out of scope";
  EXPECT_EQ(lines[site.origin + "/orphan1.html"]["parent"], site.origin + "/maps/pages.xml.gz");
  EXPECT_EQ(lines[site.origin + "/orphan1.html"]["depth"], 1);
  EXPECT_EQ(lines[site.origin + "/orphan4.html"]["parent"], site.origin + "/sitemap.xml");
  EXPECT_EQ(hits(site, "/private/secret.html"), 0) << "robots.txt still rules sitemap URLs";
  for (const char* path :
       {"/maps/index.xml", "/maps/pages.xml.gz", "/maps/list.txt", "/sitemap.xml"})
    EXPECT_EQ(hits(site, path), 1) << path;
  // Each sitemap fetch is archived too.
  std::set<std::string> archived;
  for (const test::WarcRecord& r : test::read_warc(work.path() / "out.warc.gz"))
    if (r.fields.count("WARC-Type") && r.fields.at("WARC-Type") == "response")
      archived.insert(r.fields.at("WARC-Target-URI"));
  EXPECT_TRUE(archived.count(site.origin + "/maps/pages.xml.gz")) << "sitemaps in the WARC";

  // The same crawl resumed reads no sitemap again; without sitemaps a fresh one finds no orphan.
  crawl(work, {site.origin + "/", "--jsonl", "out.jsonl", "--quiet"});
  EXPECT_EQ(hits(site, "/sitemap.xml"), 1);
  TempDir plain;
  crawl(plain, {site.origin + "/", "--no-sitemaps", "--jsonl", "out.jsonl", "--quiet"});
  auto without = lines_by_url(plain.path() / "out.jsonl");
  EXPECT_EQ(without.size(), 2u);
  EXPECT_EQ(hits(site, "/sitemap.xml"), 1) << "--no-sitemaps fetches none";
  EXPECT_EQ(hits(site, "/maps/index.xml"), 1);
}

TEST(CrawlOutput, HelpNamesTheJsonFields) {
  Process help = Process::start({kSquall, "crawl", "--help"});
  EXPECT_EQ(help.wait(30s), 0);
  for (const char* field :
       {"final_url", "599", "error_kind", "title", "redirects", "content_length", "last_modified",
        "etag", "--jsonl-links", "outlinks", "--no-sitemaps"})
    EXPECT_NE(help.output().find(field), std::string::npos) << field << "\n" << help.output();
}

}  // namespace
}  // namespace squall
