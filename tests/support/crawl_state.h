// What a crawl's state file (the engine's store) holds of its pages, read as the tests check it:
// straight from the SQLite file, so it can be read while another process holds the store.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace squall::test {

struct CrawlStatePage {
  enum class State { Queued, Done, Failed, Skipped } state = State::Queued;
  std::string url;
  int status = 0;     // the last fetch's status code (0 when it has not been fetched)
  std::string error;  // what the last try ended with: the fetch's error, or the failure's reason
};

struct CrawlStateCounts {
  int64_t queued = 0, done = 0, failed = 0, skipped = 0;
  int64_t total() const { return queued + done + failed + skipped; }
};

// The crawl's page tasks (not its sitemaps, the engine's own tasks, nor the targets of redirects,
// which are stored done so that they are not fetched on their own).
std::vector<CrawlStatePage> crawl_state_pages(const std::filesystem::path& state);
CrawlStateCounts crawl_state_counts(const std::filesystem::path& state);

}  // namespace squall::test
