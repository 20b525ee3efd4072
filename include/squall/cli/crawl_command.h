// `squall crawl`: the crawler from the command line.
//
// Exit status (wget's numbers where it has one for the cause): 0 the crawl finished and fetched
// something (or had nothing left to do); 3 --timeout ended it; 130 (or 143) Ctrl-C (or SIGTERM)
// stopped it — in these two cases the state file keeps everything and the same command
// resumes; 2 a usage error (a bad URL, scope, pattern or flag; a state file or output that
// belongs to another crawl); 1 the crawl could not run (the state or an output file cannot be
// opened, or another process is crawling with the same state file), or nothing could be fetched
// for another reason (robots.txt disallows it all). When nothing was fetched successfully the
// cause decides, the lower number winning as in wget: 4 a network failure (no connection, no
// answer, DNS), 5 a TLS failure, 8 the server answered with errors (4xx, 5xx). A second Ctrl-C
// leaves at once (the state file stays consistent: the last half second of results is fetched
// again on resume).
//
// With --redis the crawl runs on the split engine (engine/crawler.h, "Over Redis"): its
// scheduler, a fetcher, a processor and a result worker in this process, joined by Redis
// streams under --namespace, so that `squall fetcher --redis R` and `squall processor --crawl
// --redis R` on other machines share it. The flags, the state store (--state or --taskdb, a
// file or postgresql://), the progress line, the summary, the exit statuses and resuming are
// those above; the summary counts the pages every machine stored in this run. --warc,
// --max-pages, --render, --port and --jsonl - are refused (status 2, saying why).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "squall/engine/crawler.h"

namespace squall::cli {

struct CrawlCommand {
  std::vector<std::string> urls;
  size_t concurrency = 10;
  double timeout = 300;          // seconds, the whole crawl
  std::string scope = "prefix";  // prefix | host | domain | any
  std::vector<std::string> include, exclude;
  std::optional<int> max_depth;
  std::optional<uint64_t> max_pages;
  uint64_t max_page_size = uint64_t{10} << 20;
  std::optional<uint32_t> max_ratio;  // the decompression-bomb guard's (0: off)
  bool ignore_robots = false;
  bool ignore_nofollow = false;
  size_t per_host = 2;
  double delay = 0;  // seconds between fetch starts on one host
  std::string user_agent = "squall-crawler/1.0";
  std::vector<std::string> headers;  // -H "Name: value", repeatable
  std::vector<std::string> cookies;  // -b "a=1; b=2" or a cookie file, repeatable
  std::optional<std::string> proxy;  // -x; else http_proxy, https_proxy... from the environment
  bool insecure = false;             // -k: do not verify certificates
  std::string cacert;                // --cacert: a CA bundle instead of the system's
  double timeout_per_fetch = 20;     // seconds, one fetch (each redirect hop)
  int retries = 2;
  std::string state = "crawl.db";  // a file or a store location (engine_store.h)
  bool fresh = false;              // drop the state file's and the outputs' earlier contents
  std::string jsonl;               // a file, or - for standard output
  bool jsonl_links = false;
  bool no_sitemaps = false;
  std::string warc;
  bool quiet = false;
  bool render = false;  // every page rendered in headless Chromium
  size_t browsers = 2;  // with render
  // The control plane (control/control_server.h): with a port, the API and the dashboard are
  // served while the crawl runs and, unless exit_when_done, after it until Ctrl-C.
  std::optional<uint16_t> port;
  std::string bind = "127.0.0.1";
  std::string auth;  // user:password
  bool exit_when_done = false;
  // The split engine over this Redis (empty: the embedded engine), the crawl's keys there
  // (squall:NS:...), and seconds a component holds what it took.
  std::string redis;
  std::string ns = "squall";
  double lease = 30;
};

// The crawler's options for a command line (proxies from the environment unless --proxy);
// InvalidArgumentError for a bad scope, value, header, cookie file or proxy.
CrawlerOptions crawler_options(const CrawlCommand& command);

// The exit status for a crawl that ran to `summary`, stopped by `signal` (0 if none), as the
// table above gives it.
int crawl_exit_status(const CrawlSummary& summary, int signal);

// Runs the crawl on a loop of its own, with a progress line on `err` when `err_is_tty`. With a
// port it prints "Dashboard: URL" at the start; once the crawl has ended it prints the summary
// and serves on until Ctrl-C (or SIGTERM), when the exit status is the crawl's.
int run_crawl(const CrawlCommand& command, std::ostream& err, bool err_is_tty);

// The summary printed at the end. Its first line says how the crawl ended: "Done in N seconds,
// fetched N URLs." (status 0), "Stopped after ..." (a signal), "Timed out after ..." or "Failed
// after N seconds: nothing was fetched successfully."; then the hosts found unavailable, counts
// per status, bytes, error kinds (with what to pass for a TLS failure), the slowest hosts, and
// what is left queued.
void print_summary(const CrawlSummary& summary, int signal, std::ostream& err);

}  // namespace squall::cli
