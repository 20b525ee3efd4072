// Crawler: the crawl project (its page and sitemap callbacks), the engine that runs it (or the
// split engine's components over Redis), and the crawl's own outputs committed with the store.
#include "squall/engine/crawler.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <span>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "crawl_shared.h"
#include "prefetched_links.h"
#include "squall/core/error.h"
#include "squall/core/log.h"
#include "squall/core/seconds.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/crawl/jsonl.h"
#include "squall/crawl/links.h"
#include "squall/crawl/robots.h"
#include "squall/crawl/seen.h"
#include "squall/crawl/sitemap.h"
#include "squall/crawl/sniff.h"
#include "squall/crawl/warc.h"
#include "squall/engine/cluster_keys.h"
#include "squall/engine/cluster_node.h"
#include "squall/engine/engine.h"
#include "squall/engine/engine_store.h"
#include "squall/engine/processor.h"
#include "squall/http/client.h"
#include "squall/net/redis.h"

namespace squall {

using nlohmann::json;
using namespace std::chrono_literals;
using detail::options_json;
using detail::options_of;
using detail::page_of;
using detail::page_result;
using detail::shared_options_key;

namespace {

constexpr const char* kProject = "crawl";
// How deep sitemap index files are followed: an index may list indexes this many levels down
// (the protocol allows none; some sites nest them anyway).
constexpr int kMaxSitemapIndexDepth = 2;
// The store's meta keys: what crawl the store holds, and how many of its pages ended.
constexpr const char* kIdentityKey = "crawl";
constexpr const char* kPagesKey = "crawl pages";
constexpr const char* kSitemapsKey = "crawl sitemaps";
// The engine's own tasks in a project's counts: on_start and on_finished.
constexpr int64_t kEngineTasks = 2;

// A failure that may pass: no response (599), 429 or 5xx. Retried, and counted against the host.
bool is_transient(int code) noexcept {
  return code == 599 || code == 429 || code >= 500;
}

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What crawl `o` is, as its state file records it: a line per start URL (normalized, sorted)
// and per option that shapes the frontier, written as its flag. Limits that only say when to
// stop (pages, time) and how to fetch are left out: they may change between runs of a crawl.
std::string crawl_identity(const CrawlerOptions& o, const std::vector<Url>& starts) {
  std::vector<std::string> urls;
  for (const Url& u : starts) urls.emplace_back(u.dedup_key());
  std::sort(urls.begin(), urls.end());
  urls.erase(std::unique(urls.begin(), urls.end()), urls.end());
  std::string out;
  for (const std::string& u : urls) out += "start " + u + "\n";
  out += "--scope " + std::string(crawl_scope_name(o.scope)) + "\n";
  for (const std::string& p : o.include) out += "--include " + p + "\n";
  for (const std::string& p : o.exclude) out += "--exclude " + p + "\n";
  if (o.max_depth) out += "--max-depth " + std::to_string(*o.max_depth) + "\n";
  if (o.ignore_nofollow) out += "--ignore-nofollow\n";
  if (!o.obey_robots) out += "--ignore-robots\n";
  return out;
}

// Which line of two identities differs, as the refusal says it.
std::string identity_mismatch(const std::string& stored, const std::string& identity,
                              const std::string& state, const std::string& apart = "--state FILE") {
  std::string advice = ": pass " + apart + " to keep this crawl apart, or --fresh to start over";
  auto lines_of = [](const std::string& text, std::string_view what) {
    std::string out;
    std::string_view rest = text;
    while (!rest.empty()) {
      size_t end = rest.find('\n');
      std::string_view line = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
      if (!line.starts_with(what)) continue;
      if (what == "start ") line.remove_prefix(what.size());
      out.append(out.empty() ? "" : " ").append(line);
    }
    return out;
  };
  for (std::string_view what : {"start ", "--scope", "--include", "--exclude", "--max-depth",
                                "--ignore-nofollow", "--ignore-robots"}) {
    std::string was = lines_of(stored, what), now = lines_of(identity, what);
    if (was == now) continue;
    if (what == "start ")
      return state + " belongs to another crawl (start URLs " + was + ", not " + now + ")" + advice;
    auto said = [what](const std::string& line) {
      return line.empty() ? "no " + std::string(what) : line;
    };
    return state + " belongs to this crawl with " + said(was) + ", not " + said(now) +
           ": pass the same options to resume it, " + apart +
           " to keep this crawl apart, or --fresh to start over";
  }
  return state + " belongs to another crawl" + advice;
}

// The response fields a JSON line carries beside the content type.
void take_fields(const http::Headers& headers, CrawledPage& page) {
  if (auto length = headers.get("Content-Length")) {
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(length->data(), length->data() + length->size(), n);
    if (ec == std::errc() && end == length->data() + length->size()) page.content_length = n;
  }
  if (auto modified = headers.get("Last-Modified")) page.last_modified = *modified;
  if (auto etag = headers.get("ETag")) page.etag = *etag;
}

// Whether `task` goes to callback `name`; asked for every task, so without the temporary json a
// comparison with a string literal builds.
bool has_callback(const CrawlTask& task, std::string_view name) {
  auto callback = task.process.find("callback");
  return callback != task.process.end() && callback->is_string() &&
         callback->get_ref<const std::string&>() == name;
}

// What the save of a crawl task holds: the page's depth and the page it was found on (a
// sitemap's: its index level).
int saved_int(const json& save, const char* key) {
  auto it = save.find(key);
  return it != save.end() && it->is_number_integer() ? it->get<int>() : 0;
}
std::string saved_string(const json& save, const char* key) {
  auto it = save.find(key);
  return it != save.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

// --- the project ------------------------------------------------------------------------------

class CrawlProject final : public Handler {
 public:
  explicit CrawlProject(Crawler::State& s);

  void on_start() override;

  // A page task: `url` (a dedup key) at `depth`, found on `parent`.
  CrawlTask page_task(std::string url, int depth, const std::string& parent) const;
  CrawlTask sitemap_task(const Url& url, int level) const;
  // A sitemap a start host's robots.txt named (or its /sitemap.xml), asked for at the next
  // callback: the robots.txt hook runs outside of one.
  void want_sitemap(const Url& url, int level);
  // Over Redis: the line of the page whose last try just failed (its task fails, so the
  // processor sends no result): CrawlRuntime sends it as the result all the same.
  std::optional<json> take_failed_page() { return std::exchange(failed_page_, std::nullopt); }

 private:
  bool over_redis() const;
  // Over Redis, a start host's robots.txt as a task of the crawl: the fetch stage's copy is in
  // whichever fetcher read it, so the processor reads its Sitemap: lines from a fetch of its own.
  CrawlTask robots_task(const Url& start) const;
  std::optional<json> page(Response& r);
  std::optional<json> sitemap(Response& r);
  std::optional<json> robots(Response& r);
  void ask_for_wanted_sitemaps();
  bool on_start_host(const Url& url) const;
  // The links of an HTML page, taken into the crawl; how many http(s) links it had.
  int take_links(const Response& r, CrawledPage& page, const Url& base);

  Crawler::State& s_;
  std::vector<std::pair<Url, int>> wanted_sitemaps_;
  std::optional<json> failed_page_;
  // The URLs this run asked for (8 bytes each), so that a link to a page the crawl has costs a
  // hash instead of a task; one it has not seen goes to the scheduler, which knows the rest.
  SeenSet seen_;
  detail::PrefetchedLinks new_links_;  // take_links' links on their way into seen_
};

// The crawl's project for the split engine's processor: the Handler run in place, as Processor
// runs it, and a page given up after its last try sent as a result too, so that the result
// worker writes its line as the embedded crawl does.
class CrawlRuntime final : public Processor {
 public:
  explicit CrawlRuntime(CrawlProject& project) : Processor(project), project_(project) {}

  using Processor::process;
  [[nodiscard]] Task<ProcessOutput> process(const Dispatch& dispatch, FetchResult fetched,
                                            FollowSink* follows) override {
    ProcessOutput out = co_await Processor::process(dispatch, std::move(fetched), follows);
    std::optional<json> failed = project_.take_failed_page();
    if (failed && !out.result) out.result = result_of(dispatch.task, std::move(*failed));
    co_return out;
  }

 private:
  static TaskResult result_of(const CrawlTask& task, json page) {
    TaskResult r;
    r.taskid = task.taskid;
    r.url = task.url;
    r.result = std::move(page);
    return r;
  }

  CrawlProject& project_;
};

struct Crawler::State {
  CrawlerOptions o;
  std::vector<Url> starts;
  std::string identity;
  std::optional<CrawlScopeRules> scope;
  std::unique_ptr<CrawlProject> project;
  std::unique_ptr<browser::BrowserPool> browsers;  // with render; outlives the engine's fetcher
  std::unique_ptr<http::HttpClient> client;
  std::unique_ptr<Engine> engine;
  std::optional<JsonLinesWriter> jsonl;
  std::optional<WarcWriter> warc;
  // Over Redis: the project as the components run it; the scheduler while it runs (for the
  // progress line); what stops the components.
  std::unique_ptr<CrawlRuntime> runtime;
  const Scheduler* live = nullptr;
  CounterValues last_counts{};  // the scheduler's, as it ended
  Event halt;

  uint64_t pages_before = 0;   // pages that ended (fetched or given up) in earlier runs
  uint64_t pages_done = 0;     // pages that ended in this run
  uint64_t pages_started = 0;  // pages taken into work this run and not given back
  uint64_t sitemaps_read = 0;  // sitemap tasks that ended, all runs
  bool stop_requested = false;
  CrawlSummary summary;
  TimePoint started{};

  explicit State(CrawlerOptions options) : o(std::move(options)) {}

  // --- the store's side: identity, outputs, page count --------------------------------------

  // The store is this crawl's (or empty, and made this crawl's); InvalidArgumentError if not.
  Task<void> check_identity(EngineStore& store) {
    std::optional<std::string> stored = co_await store.meta(kIdentityKey);
    summary.resumed = stored.has_value();
    if (!stored) {
      co_await store.set_meta(kIdentityKey, identity);
    } else if (*stored != identity) {
      throw InvalidArgumentError(identity_mismatch(*stored, identity, o.state));
    }
  }

  Task<void> opened(EngineStore& store) {
    co_await check_identity(store);
    if (std::optional<std::string> pages = co_await store.meta(kPagesKey))
      std::from_chars(pages->data(), pages->data() + pages->size(), pages_before);
    if (std::optional<std::string> maps = co_await store.meta(kSitemapsKey))
      std::from_chars(maps->data(), maps->data() + maps->size(), sitemaps_read);
    if (!o.jsonl.empty()) {
      if (o.jsonl != "-") co_await claim_output(store, o.jsonl, "jsonl", "--jsonl");
      jsonl.emplace(JsonLinesWriter::open(o.jsonl, o.jsonl_links));
    }
    if (!o.warc.empty()) {
      co_await claim_output(store, o.warc, "warc", "--warc");
      warc.emplace(WarcWriter::open(o.warc, {.software = "squall crawl"}));
    }
  }

  // Makes `path` this crawl's `key` output ("jsonl", "warc"), as the store records it (meta
  // "<key>_path"). A file this crawl wrote before is cut back to the length its last commit
  // recorded ("<key>_offset"), so records of pages whose outcome was not committed (and that
  // will be fetched again) do not repeat; a file with bytes of anything else is refused, unless
  // the crawl starts over, which empties it.
  Task<void> claim_output(EngineStore& store, const std::filesystem::path& path,
                          const std::string& key, const char* flag) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    absolute = std::filesystem::weakly_canonical(absolute, ec);
    uint64_t size = std::filesystem::exists(path, ec) ? std::filesystem::file_size(path, ec) : 0;
    if (size > 0 && o.fresh) {
      std::filesystem::resize_file(path, 0, ec);
    } else if (size > 0) {
      std::optional<std::string> owner = co_await store.meta(key + "_path");
      if (!owner || *owner != absolute.string())
        throw InvalidArgumentError(path.string() + " holds records that are not this crawl's (" +
                                   o.state + " did not write them): give another " + flag +
                                   " path, or --fresh to start the crawl over and overwrite it");
      if (std::optional<std::string> offset = co_await store.meta(key + "_offset")) {
        uint64_t keep = std::stoull(*offset);
        if (size > keep) std::filesystem::resize_file(path, keep, ec);
      }
    }
    co_await store.set_meta(key + "_path", absolute.string());
  }

  Task<void> committing(EngineStore& store) {
    if (jsonl) {
      jsonl->flush();
      if (std::optional<uint64_t> offset = jsonl->offset())
        co_await store.set_meta("jsonl_offset", std::to_string(*offset));
    }
    if (warc) {
      warc->flush();
      co_await store.set_meta("warc_offset", std::to_string(warc->offset()));
    }
    co_await store.set_meta(kPagesKey, std::to_string(pages_before + pages_done));
    co_await store.set_meta(kSitemapsKey, std::to_string(sitemaps_read));
  }

  static bool is_page(const CrawlTask& task) { return has_callback(task, "page"); }

  // Counted when a page is taken into work, so that fetches in flight count too and the limit
  // is never passed; a page given back (a retry, disallowed, its host unavailable) gives its
  // place back.
  bool may_dispatch(const CrawlTask& task) {
    if (!is_page(task)) return true;
    if (o.max_pages && pages_before + pages_started >= *o.max_pages) return false;
    ++pages_started;
    return true;
  }
  void parked(const CrawlTask& task) {
    if (is_page(task)) --pages_started;
  }

  // A start host's robots.txt answered: the sitemaps it names, and the /sitemap.xml guess.
  void robots_answered(const std::string& host, const FetchResult& r) {
    if (!o.sitemaps) return;
    const Url* start = nullptr;
    for (const Url& s : starts)
      if (s.host_port() == host) start = &s;
    if (!start) return;
    UrlResult robots = Url::parse("/robots.txt", start);
    if (r.status_code >= 200 && r.status_code < 300 && robots) {
      const RobotsTxt file = RobotsTxt::parse(r.content);
      for (const std::string& listed : file.sitemaps())
        if (UrlResult u = Url::parse(listed, &*robots)) project->want_sitemap(*u, 0);
    }
    if (UrlResult guess = Url::parse("/sitemap.xml", start)) project->want_sitemap(*guess, 0);
  }

  // Every request the crawl makes, robots.txt's included: its proxy and cookies (the client's
  // defaults carry the fields, user agent, time limits and TLS trust), the decoding guard, and
  // a sitemap's own size limit.
  void prepare(const CrawlTask* task, http::HttpRequest& req) const {
    // Over Redis a task carries its Cookie field in its fetch options (request_options).
    if (req.parsed_url) {
      if (req.proxy.empty()) req.proxy = std::string(o.proxies.for_url(*req.parsed_url));
      if (!task || o.redis.empty()) {
        std::string cookie = cookie_for(*req.parsed_url);
        if (!cookie.empty()) req.headers.add("Cookie", cookie);
      }
    }
    if (!task) return;
    req.max_decode_ratio = o.max_decode_ratio;
    if (has_callback(*task, "sitemap")) req.max_body_size = SitemapLimits{}.max_bytes;
  }

  // The Cookie field for `url`: the cookie file's cookies that match it, then -b's.
  std::string cookie_for(const Url& url) const {
    std::string cookie = o.cookie_jar.header_for(url, std::chrono::system_clock::now());
    if (!o.cookie.empty()) cookie.append(cookie.empty() ? "" : "; ").append(o.cookie);
    return cookie;
  }

  // Over Redis, what a request for `url` carries, in its task's fetch options (fetcher.h), so
  // that any fetcher of the crawl sends it: the fields, the Cookie field, the user agent, the
  // time limits, the proxy and whether certificates are checked.
  void request_options(const std::string& url, json& fetch) const {
    json headers = json::object();
    for (const http::Header& h : o.headers) headers[h.name] = h.value;
    if (UrlResult u = Url::parse(url)) {
      if (std::string cookie = cookie_for(*u); !cookie.empty()) headers["Cookie"] = cookie;
      if (std::string_view proxy = o.proxies.for_url(*u); !proxy.empty())
        fetch["proxy"] = std::string(proxy);
    }
    if (!headers.empty()) fetch["headers"] = std::move(headers);
    fetch["user_agent"] = o.user_agent;
    fetch["timeout"] = to_seconds(o.request_timeout);
    fetch["connect_timeout"] = to_seconds(std::min(o.connect_timeout, o.request_timeout));
    if (!o.validate_cert) fetch["validate_cert"] = false;
  }

  // The fetcher and its hosts as both engines run them (the split one: this process' fetcher).
  FetcherOptions fetcher_options() {
    FetcherOptions f;
    f.user_agent = o.user_agent;
    f.max_body_size = o.max_page_size;
    f.timeout = to_seconds(o.request_timeout);
    f.connect_timeout = to_seconds(std::min(o.connect_timeout, o.request_timeout));
    f.client = client.get();
    f.validate_cert = o.validate_cert;
    f.prepare = [this](const CrawlTask* task, http::HttpRequest& req) { prepare(task, req); };
    return f;
  }
  FetchStageOptions host_options() const {
    FetchStageOptions h;
    h.per_host = std::max<size_t>(1, o.per_host);
    h.delay = to_seconds(o.delay);
    h.obey_robots = o.obey_robots;
    h.robots_retries = o.retries;
    h.robots_backoff = to_seconds(o.retry_backoff);
    return h;
  }

  // --- over Redis ---------------------------------------------------------------------------

  // The state store made this crawl's (started over with `fresh`, the export emptied with it),
  // then closed: the node opens it again, as an SQLite file is one connection's at a time.
  Task<void> claim_state() {
    EngineStoreOptions opening;
    opening.start_over = o.fresh;
    opening.label = "crawl state";
    opening.cache_mib = 8;
    std::unique_ptr<EngineStore> store = co_await open_engine_store(o.state, opening);
    co_await check_identity(*store);
    co_await store->commit();
    if (o.fresh && !o.jsonl.empty()) {
      std::error_code ec;
      if (std::filesystem::exists(o.jsonl, ec)) std::filesystem::resize_file(o.jsonl, 0, ec);
    }
  }

  // This crawl's options under its namespace, for the components given --crawl. A namespace
  // that holds another crawl's is refused unless `fresh`, which also empties its streams and
  // its done mark, so that nothing of an earlier crawl is fetched or stored into this one.
  Task<void> share_options(RedisClient& redis) {
    std::string key = shared_options_key(o.ns);
    if (o.fresh) {
      std::vector<std::string> del = {"DEL", key, cluster_key(o.ns, "done")};
      for (const EngineStream& stream : engine_streams) {
        del.push_back(cluster_key(o.ns, stream.name));
        del.push_back(cluster_key(o.ns, stream.name) + ":dead");
      }
      co_await redis.command(std::span<const std::string>(del));
    } else {
      RedisReply held = co_await redis.command("GET", key);
      if (!held.is_nil()) {
        json shared = json::parse(held.str, nullptr, false);
        std::string was = shared.is_object() ? shared.value("identity", "") : "";
        if (was != identity)
          throw InvalidArgumentError(identity_mismatch(
              was, identity, "namespace \"" + o.ns + "\" of Redis " + redis.peer(),
              "--namespace NAME"));
      }
    }
    std::string text = options_json(o, identity).dump();
    co_await redis.command("SET", key, text);
  }

  // The four components in this process until the crawl is done or `halt` is set.
  Task<ClusterNodeSummary> run_node() {
    // Redis first: a namespace of another crawl is refused before the store is touched.
    RedisClient redis(o.redis);
    co_await share_options(redis);
    redis.close();
    co_await claim_state();
    ClusterOptions c;
    c.redis = o.redis;
    c.ns = o.ns;
    c.taskdb = o.state;
    c.jsonl = o.jsonl;
    c.export_line = [links = o.jsonl_links](std::string& line, const std::string&,
                                            const TaskResult& r, const TaskResult* stored) {
      crawl_export_line(line, r, stored, links);
    };
    c.concurrency = o.concurrency;
    c.lease = o.lease;
    c.scheduler.pause.failures = 0;  // as in the embedded crawl
    c.scheduler.processing_timeout = processing_timeout_for(o.lease);
    c.fetcher = fetcher_options();
    c.hosts = host_options();
    c.on_scheduler = [this](const Scheduler* scheduler) {
      if (!scheduler && live)
        if (const TaskCounters* counters = live->project_counters(kProject))
          last_counts = counters->totals();
      live = scheduler;
    };
    std::vector<ProjectRuntime*> projects(1, runtime.get());
    co_return co_await run_cluster_node(std::move(c), std::move(projects), halt);
  }

  // The summary of a crawl over Redis: the pages whose results were stored since `since` (wall
  // clock seconds), whichever machine fetched them; retries and pages disallowed are those this
  // process' processor counted. It reads every result of the crawl once, at the end of a run.
  Task<void> count_results(double since) {
    uint64_t skipped = summary.skipped, retried = summary.retried;
    CrawlSummary counted;
    counted.skipped = skipped;
    counted.retried = retried;
    counted.resumed = summary.resumed;
    counted.timed_out = summary.timed_out;
    counted.stopped = summary.stopped;
    counted.seconds = summary.seconds;
    EngineStoreOptions opening;
    opening.label = "crawl state";
    opening.cache_mib = 8;
    std::unique_ptr<EngineStore> store = co_await open_engine_store(o.state, opening);
    std::map<std::string, std::pair<double, uint64_t>> hosts;  // elapsed ms in all, pages
    // By the store's cursor, a page of results at a time: one pass over the crawl's results,
    // its memory one page's.
    std::string after;
    do {
      EngineStore::ResultPage page = co_await store->browse_results(kProject, "", after, 500);
      for (const TaskResult& r : page.results)
        if (r.updatetime >= since) tally(r, counted, hosts);
      after = std::move(page.next);
    } while (!after.empty());
    std::vector<std::pair<std::string, double>> slowest;
    for (const auto& [host, time] : hosts)
      slowest.emplace_back(host, time.first / static_cast<double>(time.second));
    std::sort(slowest.begin(), slowest.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    if (slowest.size() > 5) slowest.resize(5);
    counted.slowest_hosts = std::move(slowest);
    CounterValues totals = co_await store->recount(kProject);
    int64_t pending = totals[static_cast<size_t>(CounterKind::Pending)];
    counted.queued_left = static_cast<uint64_t>(std::max<int64_t>(0, pending));
    int64_t tasks = pending + totals[static_cast<size_t>(CounterKind::Success)] +
                    totals[static_cast<size_t>(CounterKind::Failed)];
    counted.seen = static_cast<uint64_t>(std::max<int64_t>(0, tasks - kEngineTasks));
    summary = std::move(counted);
  }

  // One page's result in the summary, as page() counts it in the embedded crawl.
  static void tally(const TaskResult& r, CrawlSummary& out,
                    std::map<std::string, std::pair<double, uint64_t>>& hosts) {
    int64_t fetched_at = 0;
    std::optional<CrawledPage> page = page_of(r.result, fetched_at);
    if (!page) return;
    if (page->status == 599) {
      out.errors[page->error_kind.empty() ? "other" : page->error_kind]++;
      ++out.failed;
      return;
    }
    out.statuses[page->status]++;
    out.bytes += page->length;
    if (is_transient(page->status)) {
      out.errors["HTTP " + std::to_string(page->status)]++;
      ++out.failed;
    } else {
      ++out.fetched;
      if (page->status >= 200 && page->status < 300) ++out.succeeded;
    }
    if (UrlResult u = Url::parse(page->url)) {
      auto& [total, pages] = hosts[u->host_port()];
      total += page->elapsed_ms;
      ++pages;
    }
  }

  void fill_summary() {
    summary.seconds = to_seconds(Loop::time() - started);
    if (const TaskCounters* c = engine->scheduler()->project_counters(kProject)) {
      const CounterValues& totals = c->totals();
      summary.queued_left =
          static_cast<uint64_t>(totals[static_cast<size_t>(CounterKind::Pending)]);
      // The pages it knows: its tasks but the engine's own and the sitemaps.
      int64_t tasks = totals[static_cast<size_t>(CounterKind::Pending)] +
                      totals[static_cast<size_t>(CounterKind::Success)] +
                      totals[static_cast<size_t>(CounterKind::Failed)];
      summary.seen = static_cast<uint64_t>(
          std::max<int64_t>(0, tasks - kEngineTasks - static_cast<int64_t>(sitemaps_read)));
    }
    if (const FetchStage* stage = engine->fetch_stage()) {
      summary.slowest_hosts = stage->slowest_hosts(5);
      summary.retried += stage->robots_retried();
      for (const UnavailableHost& u : stage->unavailable())
        summary.unavailable.push_back({u.host, u.kind, u.message});
      summary.unavailable_more = stage->unavailable_count() - stage->unavailable().size();
    }
  }
};

CrawlProject::CrawlProject(Crawler::State& s) : Handler(kProject), s_(s) {
  // The backoff, doubled each try.
  std::map<int, double> delays;
  double wait = to_seconds(s_.o.retry_backoff);
  for (int i = 0; i <= std::min(s_.o.retries, 30); ++i, wait *= 2) delays[i] = wait;
  retry_delay = RetryDelays(std::move(delays), wait);
  callback("page", [this](Response& r) { return page(r); },
           {.catch_status_code_error = true, .time_limit = 1e9});
  callback("sitemap", [this](Response& r) { return sitemap(r); },
           {.catch_status_code_error = true, .time_limit = 1e9});
  callback("robots", [this](Response& r) { return robots(r); },
           {.catch_status_code_error = true, .time_limit = 1e9});
}

bool CrawlProject::over_redis() const {
  return !s_.o.redis.empty();
}

CrawlTask CrawlProject::page_task(std::string url, int depth, const std::string& parent) const {
  CrawlTask t;
  t.project = kProject;
  t.taskid = default_taskid(url);
  t.url = std::move(url);
  t.schedule.retries = s_.o.retries;
  // Written as the text a store keeps, in the order append_json writes an object's members:
  // most of a crawl's tasks are stored and read back before anything reads their dicts.
  static const TaskDict kPage = TaskDict::of_text(R"({"callback":"page"})");
  t.process = kPage;
  std::string fetch;
  fetch.reserve(48 + parent.size());
  {
    JsonObjectWriter dict(fetch);
    if (s_.o.render) {
      dict.string("fetch_type", "js");
      // Links a timer or a request adds after the load event are in by then.
      dict.string("js_wait_until", "networkidle");
    }
    JsonObjectWriter save(dict.member("save"));
    save.integer("depth", depth);
    if (!parent.empty()) save.string("parent", parent);
    save.end();
    dict.end();
  }
  t.fetch = TaskDict::of_text(std::move(fetch));
  if (over_redis()) s_.request_options(t.url, t.fetch.edit());
  return t;
}

CrawlTask CrawlProject::sitemap_task(const Url& url, int level) const {
  CrawlTask t = CrawlTask::for_url(kProject, url.dedup_key());
  t.schedule.retries = 0;
  t.process["callback"] = "sitemap";
  t.fetch["save"] = {{"level", level}};
  if (over_redis()) s_.request_options(t.url, t.fetch.edit());
  return t;
}

CrawlTask CrawlProject::robots_task(const Url& start) const {
  UrlResult robots = Url::parse("/robots.txt", &start);
  CrawlTask t = CrawlTask::for_url(kProject, robots ? robots->dedup_key() : start.dedup_key());
  t.schedule.retries = 0;
  t.process["callback"] = "robots";
  s_.request_options(t.url, t.fetch.edit());
  return t;
}

bool CrawlProject::on_start_host(const Url& url) const {
  return std::any_of(s_.starts.begin(), s_.starts.end(),
                     [&](const Url& s) { return s.host() == url.host(); });
}

void CrawlProject::want_sitemap(const Url& url, int level) {
  if (url.is_http() && level <= kMaxSitemapIndexDepth && on_start_host(url))
    wanted_sitemaps_.emplace_back(url, level);
}

void CrawlProject::ask_for_wanted_sitemaps() {
  for (const auto& [url, level] : wanted_sitemaps_) crawl(sitemap_task(url, level));
  wanted_sitemaps_.clear();
}

void CrawlProject::on_start() {
  for (const Url& u : s_.starts) crawl(page_task(std::string(u.dedup_key()), 0, ""));
  if (s_.o.sitemaps && s_.o.obey_robots && over_redis()) {
    std::unordered_set<std::string> hosts;
    for (const Url& start : s_.starts)
      if (hosts.insert(start.host_port()).second) crawl(robots_task(start));
  }
  if (s_.o.sitemaps && !s_.o.obey_robots) {
    // Without robots.txt there is no answer to wait for: each start host's /sitemap.xml now.
    for (const Url& start : s_.starts)
      if (UrlResult guess = Url::parse("/sitemap.xml", &start)) want_sitemap(*guess, 0);
  }
  ask_for_wanted_sitemaps();
}

std::optional<json> CrawlProject::page(Response& r) {
  ask_for_wanted_sitemaps();
  const CrawlTask& t = task();
  CrawlSummary& summary = s_.summary;
  if (r.status_code == 403 && r.error.starts_with("disallowed by robots.txt")) {
    ++summary.skipped;
    --s_.pages_started;
    return std::nullopt;
  }
  bool transient = is_transient(r.status_code);
  int retried = t.schedule.retried;
  if (transient && retried < t.schedule.retries) {
    // Tried again by the scheduler after the backoff; its place in the page limit is given back.
    ++summary.retried;
    --s_.pages_started;
    throw std::runtime_error(r.error.empty() ? "HTTP " + std::to_string(r.status_code) : r.error);
  }
  // After the last try, a transient failure is final: the URL is given up, with the reason.
  std::string tries =
      retried > 0 ? " (gave up after " + std::to_string(retried + 1) + " tries)" : std::string();

  CrawledPage page;
  page.url = t.url;
  page.final_url = r.url.empty() ? t.url : r.url;
  page.depth = saved_int(r.save, "depth");
  page.parent = saved_string(r.save, "parent");
  page.elapsed_ms = r.time * 1000;
  page.redirects = r.redirects;
  int64_t fetched_at = unix_ms() - static_cast<int64_t>(std::llround(page.elapsed_ms));
  bool failed = false;
  if (r.status_code == 599) {
    std::string kind = r.error_kind.empty() ? "other" : r.error_kind;
    page.status = 599;
    page.error_kind = kind;
    page.error = r.error + tries;
    summary.errors[kind]++;
    ++summary.failed;
    failed = true;
  } else {
    page.status = r.status_code;
    auto ct = r.headers.get("Content-Type");
    page.content_type = ct ? std::string(*ct) : std::string();
    page.length = r.content.size();
    take_fields(r.headers, page);
    if (r.status_code >= 400) page.error = r.error;
    summary.statuses[r.status_code]++;
    summary.bytes += r.content.size();
    if (transient) {
      page.error += tries;
      summary.errors["HTTP " + std::to_string(r.status_code)]++;
      ++summary.failed;
      failed = true;
    } else {
      ++summary.fetched;
      if (r.status_code >= 200 && r.status_code < 300) ++summary.succeeded;
    }
    // The URL that answered: the one asked for, unless a redirect led elsewhere (the handler
    // parsed the response's already; a response without one answered at the task's URL).
    UrlResult answered = response_url() ? UrlResult(*response_url()) : Url::parse(page.final_url);
    if (answered && answered->dedup_key() != t.url && seen_.insert(answered->dedup_key())) {
      // A redirect's target is the same page: never fetched again on its own.
      CrawlTask done = page_task(std::string(answered->dedup_key()), page.depth, page.parent);
      done.status = TaskStatus::Success;
      crawl(std::move(done));
    }
    if (r.status_code >= 200 && r.status_code < 300 && answered)
      page.links = take_links(r, page, *answered);
  }
  ++s_.pages_done;
  if (s_.jsonl) s_.jsonl->write(page, fetched_at);
  if (s_.o.on_page) s_.o.on_page(page);
  if (over_redis()) {
    // The page's line is its result, written by the result worker.
    json line = page_result(page, fetched_at);
    if (!failed) return line;
    failed_page_ = std::move(line);
  }
  if (failed) throw std::runtime_error(page.error);
  return std::nullopt;
}

int CrawlProject::take_links(const Response& r, CrawledPage& page, const Url& base) {
  std::optional<std::string_view> content_type;
  if (auto ct = r.headers.get("Content-Type")) content_type = *ct;
  std::string_view head(r.content.data(), std::min<size_t>(r.content.size(), 1445));
  page.html = is_html(content_type, head);
  if (!page.html) return 0;
  const CrawlerOptions& o = s_.o;
  std::unordered_set<std::string> listed;
  int count = 0;
  bool may_go_deeper = !o.max_depth || page.depth + 1 <= *o.max_depth;
  // Each link is taken as the extractor resolves it: a page's links are never all held.
  auto follow = [&](const std::string& url) { crawl(page_task(url, page.depth + 1, page.url)); };
  new_links_.clear();
  LinkOptions lo;
  lo.page_url = base;
  if (auto cs = declared_charset(content_type, head)) lo.charset = *cs;
  lo.on_link = [&](Link&& link) {
    if (!link.url || !link.url->is_http()) return;
    ++count;
    if (o.jsonl_links && listed.insert(std::string(link.url->dedup_key())).second)
      page.outlinks.emplace_back(link.url->dedup_key());
    if (link.nofollow && !o.ignore_nofollow) return;
    if (!may_go_deeper || !s_.scope->allows(*link.url)) return;
    if (o.link_filter && !o.link_filter(*link.url, page)) return;
    new_links_.push(seen_, link.url->dedup_key(), follow);
  };
  LinkExtractor ex(std::move(lo));
  ex.feed(r.content);
  ex.finish();
  new_links_.drain(seen_, follow);
  page.title = ex.title();
  return count;
}

std::optional<json> CrawlProject::robots(Response& r) {
  ask_for_wanted_sitemaps();
  UrlResult robots_url = Url::parse(task().url);
  if (!robots_url) return std::nullopt;
  if (r.status_code >= 200 && r.status_code < 300) {
    const RobotsTxt file = RobotsTxt::parse(r.content);
    for (const std::string& listed : file.sitemaps())
      if (UrlResult u = Url::parse(listed, &*robots_url)) want_sitemap(*u, 0);
  }
  if (UrlResult guess = Url::parse("/sitemap.xml", &*robots_url)) want_sitemap(*guess, 0);
  ask_for_wanted_sitemaps();
  return std::nullopt;
}

std::optional<json> CrawlProject::sitemap(Response& r) {
  ask_for_wanted_sitemaps();
  const CrawlTask& t = task();
  int level = saved_int(r.save, "level");
  ++s_.sitemaps_read;
  if (r.status_code < 200 || r.status_code >= 300) return std::nullopt;
  const CrawlerOptions& o = s_.o;
  SitemapParser* current = nullptr;
  SitemapParser parser([&](std::string_view loc) {
    UrlResult u = Url::parse(loc);
    if (!u || !u->is_http()) return;
    if (current->kind() == SitemapKind::Index) {
      if (level + 1 <= kMaxSitemapIndexDepth && on_start_host(*u))
        crawl(sitemap_task(*u, level + 1));
    } else if ((!o.max_depth || *o.max_depth >= 1) && s_.scope->allows(*u)) {
      crawl(page_task(std::string(u->dedup_key()), 1, t.url));
    }
  });
  current = &parser;
  parser.feed(r.content);
  parser.finish();
  if (!parser.error().empty())
    log(LogLevel::Warning, "crawl: sitemap " + t.url + ": " + parser.error());
  return std::nullopt;
}

// --- the crawler ------------------------------------------------------------------------------

Crawler::Crawler(CrawlerOptions options) : state_(std::make_unique<State>(std::move(options))) {
  State& s = *state_;
  if (s.o.start_urls.empty()) throw InvalidArgumentError("crawl: give at least one start URL");
  if (s.o.concurrency == 0) throw InvalidArgumentError("crawl: concurrency must be at least 1");
  for (const std::string& in : s.o.start_urls) {
    auto u = Url::parse(in);
    if (!u)
      throw InvalidArgumentError("crawl: start URL '" + in +
                                 "' does not parse: " + std::string(url_error_message(u.error())));
    if (!u->is_http())
      throw InvalidArgumentError("crawl: start URL '" + in + "' is not http or https");
    s.starts.push_back(u->normalized());
  }
  s.scope.emplace(s.starts, s.o.scope, s.o.include, s.o.exclude);
  if (s.o.max_depth && *s.o.max_depth < 0)
    throw InvalidArgumentError("crawl: --max-depth must be 0 or more (0: the start URLs only)");
  s.identity = crawl_identity(s.o, s.starts);
  s.project = std::make_unique<CrawlProject>(s);
  if (!s.o.redis.empty()) {
    auto refuse = [](const std::string& what, const std::string& why) {
      throw InvalidArgumentError("crawl: " + what + " does not run over Redis: " + why);
    };
    if (!s.o.warc.empty())
      refuse("--warc",
             "the exchanges cross the wire in whichever fetcher of the crawl took the "
             "page, so this process would archive only its own (crawl without --redis "
             "for a WARC)");
    if (s.o.max_pages)
      refuse("--max-pages", "the split scheduler does not count pages as they leave it");
    if (s.o.render)
      refuse("--render",
             "`squall fetcher` starts no browsers, so pages other fetchers take "
             "would not be rendered");
    if (s.o.jsonl == "-")
      refuse("--jsonl -",
             "the result worker cuts its export back to what the store committed "
             "after a kill, which standard output cannot be; give a file");
    if (s.o.attach || s.o.ended)
      refuse("--port", "`squall status --redis " + s.o.redis + "` shows the components");
    if (!(s.o.lease >= std::chrono::milliseconds(10)))
      throw InvalidArgumentError("crawl: --lease must be 0.01 s or more");
    s.runtime = std::make_unique<CrawlRuntime>(*s.project);
  }
}

Crawler::~Crawler() = default;

void Crawler::stop() noexcept {
  state_->stop_requested = true;
  state_->halt.set();
  if (state_->engine) state_->engine->stop();
}

const CrawlerOptions& Crawler::options() const noexcept {
  return state_->o;
}

ProjectRuntime& Crawler::runtime() {
  if (!state_->runtime)
    throw InvalidStateError("crawl: the crawl's runtime is for a crawl over Redis (its `redis`)");
  return *state_->runtime;
}

Task<CrawlerOptions> Crawler::shared_options(std::string redis_url, std::string ns) {
  RedisClient redis(redis_url);
  std::string key = shared_options_key(ns);
  RedisReply held = co_await redis.command("GET", key);
  std::string where = "Redis " + redis.peer() + " (" + key + ")";
  redis.close();
  if (held.is_nil())
    throw InvalidArgumentError("no crawl in namespace \"" + ns + "\" of " + where +
                               ": start it first with `squall crawl URL --redis " + redis_url +
                               (ns == "squall" ? std::string() : " --namespace " + ns) +
                               "`, which saves its options there");
  json shared = json::parse(held.str, nullptr, false);
  if (!shared.is_object()) throw InvalidArgumentError(where + " does not hold a crawl's options");
  CrawlerOptions o = options_of(shared, where);
  o.redis = std::move(redis_url);
  o.ns = std::move(ns);
  co_return o;
}

CrawlProgress Crawler::progress() const noexcept {
  const State& s = *state_;
  CrawlProgress p;
  p.fetched = s.summary.fetched;
  p.failed = s.summary.failed;
  if (!s.o.redis.empty()) {
    // The scheduler's counts, which every machine's work moves (on_start is one of its done).
    const TaskCounters* counters = s.live ? s.live->project_counters(kProject) : nullptr;
    CounterValues totals = counters ? counters->totals() : s.last_counts;
    auto count = [&totals](CounterKind k) {
      return static_cast<uint64_t>(std::max<int64_t>(0, totals[static_cast<size_t>(k)]));
    };
    p.fetched = count(CounterKind::Success) > 0 ? count(CounterKind::Success) - 1 : 0;
    p.failed = count(CounterKind::Failed);
    p.in_flight = s.live ? s.live->held(kProject).in_work : 0;
    p.queued =
        count(CounterKind::Pending) > p.in_flight ? count(CounterKind::Pending) - p.in_flight : 0;
  } else if (s.engine) {
    p.in_flight = s.engine->in_flight();
    if (const Scheduler* scheduler = s.engine->scheduler())
      if (const TaskCounters* c = scheduler->project_counters(kProject)) {
        int64_t pending = c->totals()[static_cast<size_t>(CounterKind::Pending)];
        p.queued = static_cast<uint64_t>(
            std::max<int64_t>(0, pending - static_cast<int64_t>(p.in_flight)));
      }
  }
  if (s.started != TimePoint{}) p.seconds = to_seconds(Loop::time() - s.started);
  return p;
}

Task<CrawlSummary> Crawler::run() {
  State& s = *state_;
  s.started = Loop::time();
  const CrawlerOptions& o = s.o;

  http::ClientOptions co;
  co.max_clients = o.concurrency;
  co.max_connections_per_host = std::max<size_t>(1, o.per_host);
  co.hostname_mapping = o.hostname_mapping;
  co.defaults.user_agent = o.user_agent;
  co.defaults.request_timeout = o.request_timeout;
  co.defaults.connect_timeout = std::min(o.connect_timeout, o.request_timeout);
  co.defaults.headers = o.headers;
  co.defaults.validate_cert = o.validate_cert;
  co.defaults.ca_certs = o.ca_certs;
  s.client = std::make_unique<http::HttpClient>(co);
  if (!o.redis.empty()) co_return co_await run_over_redis();

  EngineOptions e;
  e.store = o.state;
  e.store_label = "crawl state";
  // A crawl reads its tasks in order (new ones come last in the ready index) and looks few up at
  // random (its SeenSet answers for the links it has seen), so a small page cache serves it: the
  // keys of its newest tasks, which it would look up by, are held beside it (the store's recent
  // level, about 20 bytes a task).
  e.store_cache_mib = 5;
  e.fresh = o.fresh;
  e.concurrency = o.concurrency;
  e.queue_size = 1000;
  e.commit_interval = 0.5;
  e.scheduler.pause.failures = 0;  // a failing site is retried per URL, never paused
  e.fetcher = s.fetcher_options();
  if (o.render) {
    browser::BrowserPoolOptions b;
    b.browsers = std::max<size_t>(1, std::min(o.browsers, o.concurrency));
    // A crawl of its start hosts resolves no other name: nothing else is looked up or reached
    // by the browser itself (a proxy resolves names on its side, so none is then kept out).
    bool by_proxy = !o.proxies.http.empty() || !o.proxies.https.empty();
    if ((o.scope == CrawlScope::Prefix || o.scope == CrawlScope::Host) && !by_proxy)
      for (const Url& start : s.starts) b.chromium.allowed_hosts.emplace_back(start.host());
    s.browsers = std::make_unique<browser::BrowserPool>(std::move(b));
    e.fetcher.browser = s.browsers.get();
  }
  if (!o.warc.empty())
    e.fetcher.archive = [&s](const std::vector<WarcExchange>& exchanges) {
      if (s.warc)
        for (const WarcExchange& x : exchanges) s.warc->write_exchange(x);
    };
  e.hosts = s.host_options();
  e.hooks.opened = [&s](EngineStore& store) { return s.opened(store); };
  e.hooks.committing = [&s](EngineStore& store) { return s.committing(store); };
  e.hooks.may_dispatch = [&s](const CrawlTask& task) { return s.may_dispatch(task); };
  e.hooks.parked = [&s](const CrawlTask& task) { s.parked(task); };
  e.hooks.robots = [&s](const std::string& host, const FetchResult& r) {
    s.robots_answered(host, r);
  };
  s.engine = std::make_unique<Engine>(std::move(e));
  s.engine->add_project(*s.project);
  if (o.attach) o.attach(*s.engine);

  // The time limit: the engine stops, as with stop(), and the crawl says it timed out.
  TaskHandle<void> timer = spawn([](State& st) -> Task<void> {
    co_await sleep(st.o.timeout);
    st.summary.timed_out = true;
    st.engine->stop();
  }(s));
  std::exception_ptr failure;
  try {
    co_await s.engine->run();
  } catch (...) {
    failure = std::current_exception();
  }
  timer.kill();
  co_await timer.join();
  if (failure) {
    s.client->close();
    s.engine.reset();
    std::rethrow_exception(failure);
  }
  s.summary.stopped = s.stop_requested && !s.summary.timed_out;
  s.fill_summary();
  if (o.ended) co_await o.ended(s.summary);
  s.client->close();
  s.engine.reset();  // closes the store: unlocks the state file
  co_return s.summary;
}

// Over Redis: the same crawl by the split engine's components in this process (crawler.h).
Task<CrawlSummary> Crawler::run_over_redis() {
  State& s = *state_;
  const double since = wall_clock_seconds();
  TaskHandle<void> timer = spawn([](State& st) -> Task<void> {
    co_await sleep(st.o.timeout);
    st.summary.timed_out = true;
    st.halt.set();
  }(s));
  std::exception_ptr failure;
  try {
    co_await s.run_node();
  } catch (...) {
    failure = std::current_exception();
  }
  timer.kill();
  co_await timer.join();
  s.client->close();
  if (failure) std::rethrow_exception(failure);
  s.summary.stopped = s.stop_requested && !s.summary.timed_out;
  s.summary.seconds = to_seconds(Loop::time() - s.started);
  co_await s.count_results(since);
  co_return s.summary;
}

}  // namespace squall
