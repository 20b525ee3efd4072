// `squall crawl`: the crawler from the command line.
#pragma once

#include <iosfwd>

#include "squall/crawl/crawler.h"

namespace squall::cli {

struct CrawlCommand {
  CrawlerOptions options;
  bool quiet = false;    // no progress line and no summary
  bool progress = true;  // a progress line when stderr is a terminal
};

// Runs the crawl on a loop of its own; Ctrl-C or SIGTERM stops it with its state kept.
// Returns the exit status: 0 finished, 3 ended by --timeout, 130 interrupted (state kept
// for resuming in both), 1 could not run (the reason on `err`).
int run_crawl(const CrawlCommand& command, std::ostream& err);

// The summary printed at the end: the demo's "Done in N seconds, fetched N URLs." line, then
// counts per status, bytes, error kinds and the slowest hosts.
void print_summary(const CrawlSummary& summary, std::ostream& err);

}  // namespace squall::cli
