// Crawler: `squall crawl`, a built-in project run by the engine (engine.h), as a class a
// program can drive.
//
//   CrawlerOptions options;
//   options.start_urls = {"http://127.0.0.1:8000/"};
//   options.concurrency = 10;
//   Crawler crawler(options);
//   CrawlSummary summary = co_await crawler.run();
//
// The crawl is one project ("crawl") of the engine: its pages are tasks in the engine's store,
// fetched by the engine's fetch stage (its per-host limit, delay and robots.txt) and handled by
// the project's callback, which extracts links with the streaming LinkExtractor and asks for
// those in scope as new tasks. What Tornado's demo crawler did is kept: everything beneath the
// start URL's directory (scope Prefix, as wget -np: "http://h/a/index.html" covers
// "http://h/a/"), fragments removed, each URL fetched once, N fetches at a time, a total time
// limit, and at the end of a finished crawl every URL taken into work finished. Beyond it:
// - URLs resolved and normalised by the WHATWG parser (with <base href>); only HTML (by
//   Content-Type, then sniffing) is parsed; rel=nofollow and <meta name=robots> nofollow
//   respected unless told otherwise.
// - Scope (prefix, host, registrable domain, any), include/exclude patterns (scope.h), depth
//   and page limits, a per-page size limit.
// - Sitemaps (sitemap.h): those a start host's robots.txt names and its /sitemap.xml, read once
//   its robots.txt answered, by its rules (index files up to kMaxSitemapIndexDepth deep); the
//   URLs they list in scope come in at depth 1. Each is a task, so a resumed crawl does not read
//   them again.
// - Politeness: the fetch stage's (fetch_stage.h): robots.txt read once per host before its
//   pages and again when its policy expires, Crawl-delay honoured; a robots.txt that cannot be
//   fetched (no answer, 429, 5xx) means the site is unavailable, not that it disallows: it is
//   tried again with the retry backoff, and a host given up on keeps its URLs queued in the
//   state for a later run; per-host concurrency and delay; a host that keeps failing is backed
//   off, and so is one that answers 429 or 503 with Retry-After.
// - Failures: 599, 429 and 5xx retried (the task's retries) after retry_backoff, doubled each
//   try; a URL still failing after the last try is recorded as failed with its reason. Other
//   statuses (404 too) are final answers. The engine's failure pause is off: a crawl does not
//   stop for a failing site.
// - State in the engine's store: stopped in any way and started again with the same state
//   file, the crawl resumes; nothing stored is fetched again, nothing is lost. The JSON lines
//   and WARC outputs are cut back to what the state file had committed, so no record repeats.
//   One state per crawl: the store records the crawl's identity (start URLs and the options that
//   shape it) and the outputs it writes, and a run that does not match is refused (unless
//   `fresh`); one process per state file (the store's lock).
// - Bounded memory: the scheduler holds a window of the queued URLs (the rest wait in the store),
//   the fetch stage a bounded number of tasks.
//
// Over Redis (`redis` set: `squall crawl URL --redis R`), the same project runs on the split
// engine (cluster.h): run() runs its scheduler, a fetcher, a processor and a result worker in
// this process (cluster_node.h), so that `squall fetcher` and `squall processor --crawl` on other
// machines share the crawl. What changes:
// - The crawl's options are saved in Redis under the namespace (squall:NS:crawl, JSON), where
//   the components given --crawl read them (shared_options()); a namespace that holds another
//   crawl's is refused, as a state file of another crawl is, unless `fresh`, which also empties
//   the namespace's streams.
// - A page's JSON line is its task's result, written by the result worker (result_worker.h) in
//   the --jsonl format (crawl_export_line()): committed with the result store, cut back after a
//   kill, each page's line once. A page given up after its last try has its line too, though
//   its task fails. `jsonl` "-" is refused: standard output cannot be cut back.
// - What a request carries (headers, the Cookie field, the proxy for its URL, the user agent,
//   time limits, certificate checks) goes in each task's fetch options, so that any fetcher
//   sends it; the size and decoding limits, a CA bundle and hostname_mapping hold only for
//   this process' fetcher, as do per_host, delay, obey_robots and the user agent robots.txt is
//   read for (every other fetcher takes its own flags for them). A start host's sitemaps are
//   read from a task for its robots.txt (fetched by a fetcher of the crawl), not from the fetch
//   stage's copy.
// - The summary counts the results the crawl stored during this run, whichever machine fetched
//   them (read from the store at the end: one pass over the crawl's results); retries and pages
//   robots.txt disallowed are those this process' processor saw; `seen` counts the robots.txt
//   and sitemap tasks too.
// - Refused by the constructor (InvalidArgumentError): `warc` (the exchanges cross the wire in
//   whichever fetcher took the page, so this process would archive only its own, and a WARC
//   offset cannot be committed with a store the scheduler commits), `max_pages` (counted as
//   pages leave the scheduler, which the split scheduler does not ask), `render` (`squall
//   fetcher` starts no browsers), `attach`/`ended`.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/crawl/crawled_page.h"
#include "squall/crawl/scope.h"
#include "squall/http/cookie_jar.h"
#include "squall/http/message.h"
#include "squall/http/proxy.h"
#include "squall/url/url.h"

namespace squall {

class Engine;
struct CrawlSummary;

struct CrawlerOptions {
  std::vector<std::string> start_urls;
  CrawlScope scope = CrawlScope::Prefix;
  std::vector<std::string> include;  // ECMAScript regexes; a URL must match one (if any given)
  std::vector<std::string> exclude;  // a URL matching one is not crawled
  std::optional<int> max_depth;      // start URLs are depth 0
  // Pages fetched (done or given up) in the whole crawl, resumes included; exactly this many
  // when the site has them.
  std::optional<uint64_t> max_pages;
  size_t max_page_size = size_t{10} << 20;  // body bytes; a larger page fails (too large)
  // The decompression-bomb guard's ratio (HttpRequest::max_decode_ratio; unset: the client's
  // default, 0: off). A page it stops fails with the error kind "decompression bomb".
  std::optional<uint32_t> max_decode_ratio;

  // Render every page in headless Chromium (the js fetch type, see fetcher.h) with `browsers`
  // browsers, waiting for the network to be idle, so that links only JavaScript creates (after a
  // timer, a request, in a shadow DOM) are found; robots.txt and sitemaps are still
  // fetched over HTTP. A browser that crashes fails its page, which is retried as any page is.
  // With scope Prefix or Host and no proxy, the browsers resolve no host name but the start
  // URLs' (a page's resources elsewhere are not loaded).
  bool render = false;
  size_t browsers = 2;

  size_t concurrency = 10;  // fetches in flight (workers)
  size_t per_host = 2;      // fetches in flight per host
  Duration delay{};         // between fetch starts on one host
  bool obey_robots = true;
  bool ignore_nofollow = false;
  std::string user_agent = "squall-crawler/1.0";
  int retries = 2;                                   // tries after the first, for 599/429/5xx
  Duration retry_backoff = std::chrono::seconds(1);  // doubled each try
  Duration timeout = std::chrono::seconds(300);      // the whole crawl
  Duration request_timeout = std::chrono::seconds(20);
  Duration connect_timeout = std::chrono::seconds(10);

  // What every request carries, robots.txt included: extra fields, a Cookie value, cookies
  // from a cookie file (where they match), the proxy for its URL, and the TLS trust.
  http::Headers headers;
  std::string cookie;
  http::CookieJar cookie_jar;
  http::ProxySettings proxies;
  bool validate_cert = true;
  std::string ca_certs;  // a CA bundle (PEM) instead of the system's store

  // The engine's store: a file, sqlite:///PATH or postgresql://... (engine_store.h).
  std::string state = "crawl.db";
  // Start over: whatever the state file and the outputs held is dropped.
  bool fresh = false;
  std::string jsonl;         // a file, "-" for stdout, empty for none
  bool jsonl_links = false;  // keep each page's links (CrawledPage::outlinks)
  // Read the start hosts' sitemaps (their robots.txt Sitemap: lines and /sitemap.xml) and take
  // the URLs they list that are in scope, at depth 1. Off in the library (a program asks for
  // it); `squall crawl` turns it on unless --no-sitemaps, as wget2's --follow-sitemaps is.
  bool sitemaps = false;
  std::filesystem::path warc;  // empty for none

  // Host names answered before DNS (the HTTP client's hostname_mapping).
  std::map<std::string, std::string, std::less<>> hostname_mapping;

  // Hooks for programs that drive the crawler: called for every page stored, and for every
  // link before it is taken in (false: skip it). Links are taken as the page is read, so the
  // page link_filter sees has its title and link count only after its last link.
  std::function<void(const CrawledPage&)> on_page;
  std::function<bool(const Url& link, const CrawledPage& from)> link_filter;

  // For a program that watches the crawl (squall crawl --port): `attach` is called with the
  // engine once it is made, before it runs; `ended` is awaited once the crawl has ended and its
  // summary is known, before the engine, its HTTP client and its store close, so that what
  // attached may go on serving them until it returns. Neither is called when the run fails.
  std::function<void(Engine&)> attach;
  std::function<Task<void>(const CrawlSummary&)> ended;

  // The split engine (above): its Redis (redis://host[:port][/db]; empty: the embedded engine),
  // the namespace of the crawl's keys, and how long a component holds what it took.
  std::string redis;
  std::string ns = "squall";
  Duration lease = std::chrono::seconds(30);
};

struct CrawlSummary {
  // A host whose robots.txt could not be fetched: its URLs stay queued for a later run.
  struct Unavailable {
    std::string host;     // host:port
    std::string kind;     // "connect", "tls", "HTTP 503", ...
    std::string message;  // what the last try got
  };

  uint64_t fetched = 0;    // pages with a final response this run (404s too; 429 and 5xx fail)
  uint64_t succeeded = 0;  // of them, 2xx (after redirects)
  uint64_t failed = 0;     // URLs given up this run: no response, or 429/5xx after the last try
  uint64_t skipped = 0;    // disallowed by robots.txt this run
  uint64_t retried = 0;
  uint64_t bytes = 0;
  uint64_t queued_left = 0;                // URLs still waiting (after a timeout or stop)
  uint64_t seen = 0;                       // URLs the crawl knows, all runs
  std::map<int, uint64_t> statuses;        // final responses by status, failed ones too
  std::map<std::string, uint64_t> errors;  // by kind ("timeout", "connect", "HTTP 503", ...)
  std::vector<Unavailable> unavailable;    // the first hosts given up on (FetchStageOptions)
  uint64_t unavailable_more = 0;           // hosts given up on beyond those listed
  std::vector<std::pair<std::string, double>> slowest_hosts;  // host, mean ms per fetch
  double seconds = 0;
  bool timed_out = false;  // the time limit ended it
  bool stopped = false;    // stop() ended it
  bool resumed = false;    // the state file had a crawl in it
};

// What the progress line shows, read while the crawl runs.
struct CrawlProgress {
  uint64_t fetched = 0, failed = 0, queued = 0, in_flight = 0;
  double seconds = 0;
};

class ProjectRuntime;
struct TaskResult;

// The JSON line --jsonl writes for a page, from the result a crawl over Redis stored for it
// (the result worker's ExportLine, result_worker.h); nothing for a result that is not a page's,
// nor for a page whose result the store held already (`stored`): its line was committed with
// it, and a page fetched again after a kill (its outcome lost, its result not) keeps its first
// line, as the embedded crawl keeps one line per page. `links`: with its outlinks.
void crawl_export_line(std::string& line, const TaskResult& result, const TaskResult* stored,
                       bool links);

class Crawler {
 public:
  // Checks the options (start URLs parse and are http(s), patterns compile); throws
  // InvalidArgumentError saying which one is wrong.
  explicit Crawler(CrawlerOptions options);
  ~Crawler();
  Crawler(const Crawler&) = delete;
  Crawler& operator=(const Crawler&) = delete;

  // Runs the crawl to its end: everything in scope fetched, the page limit reached, the time
  // limit passed, or stop() called; the state file is closed (and unlocked) when it returns.
  // Throws InvalidArgumentError when the state file belongs to another crawl or an output file
  // holds another crawl's records (both name the file and say what to pass), and squall::Error
  // when the state or outputs cannot be opened or the state is in use by another process.
  [[nodiscard]] Task<CrawlSummary> run();
  // Ends the crawl soon: no new fetches; those in flight are abandoned and stay queued in the
  // state file for the next run. Safe to call from a signal-handling callback on the loop.
  void stop() noexcept;
  CrawlProgress progress() const noexcept;
  const CrawlerOptions& options() const noexcept;

  // The crawl's project for a component of the split engine (squall scheduler or processor
  // --crawl): its callbacks as a crawl over Redis runs them. Lives as long as the Crawler.
  ProjectRuntime& runtime();

  // The options a crawl over Redis saved under namespace `ns` (above), with `redis` and `ns`
  // set. Throws InvalidArgumentError when Redis holds none there (saying to start the crawl
  // first), and what Redis throws when it cannot be reached.
  [[nodiscard]] static Task<CrawlerOptions> shared_options(std::string redis, std::string ns);

 private:
  friend class CrawlProject;
  struct State;
  Task<CrawlSummary> run_over_redis();
  std::unique_ptr<State> state_;
};

}  // namespace squall
