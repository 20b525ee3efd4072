// `squall crawl`: the crawler from the command line.
//
// Exit status: 0 the crawl finished; 3 --timeout ended it; 130 (or 143) Ctrl-C (or SIGTERM)
// stopped it — in these two cases the state file keeps everything and the same command
// resumes; 2 a usage error (a bad URL, scope or pattern); 1 the crawl could not run (the state
// or an output file cannot be opened). A second Ctrl-C leaves at once (the state file stays
// consistent: the last half second of results is fetched again on resume).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "squall/crawl/crawler.h"

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
  int retries = 2;
  std::string state = "crawl.db";
  std::string jsonl;  // a file, or - for standard output
  std::string warc;
  bool quiet = false;
};

// The crawler's options for a command line; InvalidArgumentError for a bad scope or value.
CrawlerOptions crawler_options(const CrawlCommand& command);

// Runs the crawl on a loop of its own, with a progress line on `err` when `err_is_tty`.
int run_crawl(const CrawlCommand& command, std::ostream& err, bool err_is_tty);

// The summary printed at the end: the demo's "Done in N seconds, fetched N URLs." line, then
// counts per status, bytes, error kinds and the slowest hosts.
void print_summary(const CrawlSummary& summary, std::ostream& err);

}  // namespace squall::cli
