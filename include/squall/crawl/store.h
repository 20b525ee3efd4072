// CrawlStore: a crawl's frontier, seen URLs and results in one SQLite file, so that a crawl
// stopped by Ctrl-C, SIGTERM or SIGKILL resumes where it was.
//
//   CrawlStore store = CrawlStore::open("crawl.db");
//   int64_t id = store.add("http://127.0.0.1:8000/", 0, "");     // 0 if already known
//   for (const CrawlUrl& u : store.queued(0, 1000)) { ... }
//   store.finish(id, UrlState::Done, result);
//   store.commit();                                              // durable from here on
//
// Every URL the crawl has taken in is a row of `urls` (state queued, done, failed or skipped);
// fetched pages add a row of `results`. Changes collect in one open transaction and become
// durable at commit() (the crawler commits a few times a second and at exit): a crash loses at
// most the uncommitted batch, whose URLs are still queued in the file and are fetched again on
// resume, so nothing stored is fetched twice and nothing is lost. WAL mode: readers such as the
// sqlite3 shell can look inside while a crawl runs. Errors are squall::Error (kind System)
// quoting SQLite's message and the file.
//
// One process per state file: open() takes an exclusive advisory lock (flock) on the file and
// keeps it until the store is destroyed, so a second crawl on the same file refuses at once
// instead of interleaving its outputs with the first one's. SQLite's own locks cover only the
// database, not the JSON lines and WARC files a crawl appends to beside it. flock and SQLite's
// POSIX record locks are independent on Linux, and the lock's descriptor is closed only after
// SQLite has closed the file, so it never drops SQLite's locks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace squall {

enum class UrlState : int { Queued = 0, Done = 1, Failed = 2, Skipped = 3 };

// A URL waiting to be fetched.
struct CrawlUrl {
  int64_t id = 0;
  std::string url;
  int depth = 0;
  std::string parent;  // the page it was found on; empty for a start URL
  int attempts = 0;    // failed tries so far
};

// What fetching a URL gave.
struct PageResult {
  std::string final_url;  // after redirects
  int status = 0;         // HTTP status; 0 when no response came
  std::string content_type;
  uint64_t length = 0;     // body bytes
  int64_t fetched_at = 0;  // Unix time in milliseconds
  double elapsed_ms = 0;   // the fetch's total time
  int links = 0;           // links taken from the page
  std::string error;       // why it failed; empty on success
};

// A stored result with the URL it belongs to, as reports and tests read them.
struct StoredResult {
  std::string url;
  int depth = 0;
  std::string parent;
  UrlState state = UrlState::Done;
  PageResult page;
};

struct StoreCounts {
  int64_t queued = 0, done = 0, failed = 0, skipped = 0;
  int64_t total() const { return queued + done + failed + skipped; }
};

class CrawlStore {
 public:
  // Opens or creates the state file and locks it. With `start_over`, whatever the file held is
  // dropped first (under the lock), as if it had not existed. Throws squall::Error naming the
  // file when it cannot be opened (kind System) or another process holds its lock (kind
  // InvalidState).
  static CrawlStore open(const std::filesystem::path& path, bool start_over = false);
  CrawlStore(CrawlStore&&) noexcept;
  CrawlStore& operator=(CrawlStore&&) noexcept;
  ~CrawlStore();  // commits what is pending

  // True when the file held no URL when opened: a new crawl rather than a resumed one.
  bool fresh() const noexcept { return fresh_; }

  // Adds a URL as queued; its row id, or 0 when the URL was already known.
  int64_t add(std::string_view url, int depth, std::string_view parent);
  // Up to `limit` queued URLs with row ids above `after`, in id order (the order found).
  std::vector<CrawlUrl> queued(int64_t after, size_t limit);
  // Calls `fn` with every URL the crawl knows (to rebuild the seen set on resume).
  void for_each_url(const std::function<void(std::string_view)>& fn);

  // Records the outcome for URL `id` (state Done, Failed or Skipped) and its result.
  void finish(int64_t id, UrlState state, const PageResult& result);
  // Counts a failed try of a URL that stays queued for a retry.
  void count_attempt(int64_t id, int attempts);

  // Small named values kept with the crawl (start URLs, output offsets).
  std::optional<std::string> meta(std::string_view key);
  void set_meta(std::string_view key, std::string_view value);

  // Makes every change so far durable, and starts the next batch.
  void commit();
  StoreCounts counts();
  // Every result, in the order they were stored.
  std::vector<StoredResult> results();

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  struct Db;
  CrawlStore(std::unique_ptr<Db> db, std::filesystem::path path, bool fresh);
  std::unique_ptr<Db> db_;
  std::filesystem::path path_;
  bool fresh_ = true;
};

}  // namespace squall
