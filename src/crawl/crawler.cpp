// Crawler: workers taking URLs from the host-aware frontier, fetching them with the shared
// HTTP client, extracting links, and committing state and outputs in batches.
#include "squall/crawl/crawler.h"

#include <libpsl.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <unordered_map>
#include <unordered_set>
// GCC 12 warns about std::function inside <regex>'s matcher at -O1 with sanitizers
// (-Wmaybe-uninitialized, a false positive).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop

#include "squall/core/error.h"
#include "squall/core/event.h"
#include "squall/core/log.h"
#include "squall/core/periodic.h"
#include "squall/core/spawn.h"
#include "squall/core/wait.h"
#include "squall/crawl/frontier.h"
#include "squall/crawl/jsonl.h"
#include "squall/crawl/links.h"
#include "squall/crawl/politeness.h"
#include "squall/crawl/robots.h"
#include "squall/crawl/seen.h"
#include "squall/crawl/sitemap.h"
#include "squall/crawl/sniff.h"
#include "squall/crawl/store.h"
#include "squall/crawl/warc.h"
#include "squall/http/client.h"
#include "squall/http/decode.h"
#include "squall/http/http_date.h"
#include "squall/http/message.h"

namespace squall {

using namespace std::chrono_literals;

std::string registrable_domain(std::string_view host) {
  std::string h(host);
  // IP addresses have no registrable domain: the address is its own scope.
  bool ipv4 = !h.empty() && h.find_first_not_of("0123456789.") == std::string::npos;
  if (ipv4 || h.find(':') != std::string::npos || h.starts_with('[')) return h;
  const char* d = psl_registrable_domain(psl_builtin(), h.c_str());
  return d ? std::string(d) : h;
}

namespace {

// How often the batch of results, outputs and frontier changes is made durable.
constexpr Duration kCommitPeriod = 500ms;
constexpr Duration kRetryAfterMax = 10min;
// How deep sitemap index files are followed: an index may list indexes this many levels down
// (the protocol allows none; some sites nest them anyway).
constexpr int kMaxSitemapIndexDepth = 2;
// What a WARC response record may hold beyond the body limit: the head and chunk framing.
constexpr size_t kWarcHeadRoom = size_t{1} << 20;

// A failure that may pass: no response (599), 429 or 5xx. Retried, and counted against the host.
bool is_transient(int code) noexcept {
  return code == 599 || code == 429 || code >= 500;
}

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double ms(Duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// Retry-After as a wait from now, capped at kRetryAfterMax; nullopt when absent or unreadable.
std::optional<Duration> retry_after(const http::Headers& headers) {
  auto field = headers.get("Retry-After");
  if (!field) return std::nullopt;
  auto wait = http::parse_retry_after(*field, http::HttpClock::now());
  if (!wait) return std::nullopt;
  return std::min<Duration>(*wait, kRetryAfterMax);
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
  const char* scopes[] = {"prefix", "host", "domain", "any"};
  out += std::string("--scope ") + scopes[static_cast<int>(o.scope)] + "\n";
  for (const std::string& p : o.include) out += "--include " + p + "\n";
  for (const std::string& p : o.exclude) out += "--exclude " + p + "\n";
  if (o.max_depth) out += "--max-depth " + std::to_string(*o.max_depth) + "\n";
  if (o.ignore_nofollow) out += "--ignore-nofollow\n";
  if (!o.obey_robots) out += "--ignore-robots\n";
  return out;
}

}  // namespace

struct Crawler::State {
  CrawlerOptions o;
  std::vector<Url> starts;
  std::vector<std::string> start_prefixes;  // the start URLs' directories
  std::string identity;  // what crawl this is, as the state file records it (crawl_identity)
  std::vector<std::string> start_hosts;
  std::vector<std::string> start_domains;
  std::vector<std::regex> include, exclude;

  std::optional<CrawlStore> store;
  SeenSet seen;
  Frontier frontier;
  Politeness politeness;
  std::unique_ptr<http::HttpClient> client;
  std::optional<JsonLinesWriter> jsonl;
  std::optional<WarcWriter> warc;

  int64_t loaded_upto = 0;     // the highest row id pulled from the store into the frontier
  bool backlog = false;        // queued URLs wait in the store beyond loaded_upto
  uint64_t done_before = 0;    // pages fetched by earlier runs
  uint64_t pages_started = 0;  // pages taken into work this run and not put back
  std::unordered_map<std::string, int> robots_tries;  // failed robots.txt tries per host
  bool stopping = false;                              // no new fetches
  bool stop_requested = false;                        // stop() was called
  std::deque<std::pair<Url, int>> sitemaps_todo;      // sitemaps to read, with their index level
  std::unordered_set<std::string> sitemaps_seen;
  bool sitemap_fetching = false;
  Event wake;
  Event all_done;
  size_t workers_running = 0;

  CrawlSummary summary;
  TimePoint started{};

  explicit State(CrawlerOptions options)
      : o(std::move(options)),
        frontier({.per_host = std::max<size_t>(1, o.per_host), .delay = o.delay}),
        politeness(frontier, {.obey_robots = o.obey_robots, .user_agent = o.user_agent}) {}

  // --- scope --------------------------------------------------------------------------------

  bool in_scope(const Url& u) const {
    std::string_view key = u.dedup_key();
    switch (o.scope) {
      case CrawlScope::Prefix:
        if (std::none_of(start_prefixes.begin(), start_prefixes.end(),
                         [&](const std::string& p) { return key.substr(0, p.size()) == p; }))
          return false;
        break;
      case CrawlScope::Host:
        if (std::find(start_hosts.begin(), start_hosts.end(), u.host_port()) == start_hosts.end())
          return false;
        break;
      case CrawlScope::Domain:
        if (std::find(start_domains.begin(), start_domains.end(), registrable_domain(u.host())) ==
            start_domains.end())
          return false;
        break;
      case CrawlScope::Any:
        break;
    }
    auto matches = [key](const std::regex& r) {
      return std::regex_search(key.data(), key.data() + key.size(), r);
    };
    if (!include.empty() && std::none_of(include.begin(), include.end(), matches)) return false;
    return std::none_of(exclude.begin(), exclude.end(), matches);
  }

  // --- the frontier -------------------------------------------------------------------------

  // Hands a stored URL (`u.url`, parsed as `parsed`) to the frontier, asking for the host's
  // robots.txt first if needed.
  void enqueue(CrawlUrl u, const Url& parsed) {
    std::string host = parsed.host_port();
    // A host whose robots.txt could not be fetched: the URL waits in the store for a later run.
    if (politeness.unavailable(host)) return;
    politeness.meet(host, parsed);
    frontier.push(host, std::move(u));
    wake.set();
  }

  // Takes in a newly found URL: stored, and queued in memory unless the memory share is full.
  void discover(const Url& u, int depth, std::string_view parent) {
    std::string_view key = u.dedup_key();
    if (!seen.insert(key)) return;
    int64_t id = store->add(key, depth, parent);
    if (id == 0) return;
    if (!backlog && frontier.queued() < o.frontier_memory) {
      loaded_upto = id;
      enqueue({id, std::string(key), depth, std::string(parent), 0}, u);
    } else {
      backlog = true;
    }
  }

  // Pulls more queued URLs from the store while the in-memory share is below half.
  void refill() {
    if (!backlog || frontier.queued() >= o.frontier_memory / 2) return;
    size_t want = o.frontier_memory - frontier.queued();
    auto batch = store->queued(loaded_upto, want);
    for (auto& u : batch) {
      loaded_upto = u.id;
      if (auto parsed = Url::parse(u.url)) enqueue(std::move(u), *parsed);
    }
    if (batch.size() < want) backlog = false;
  }

  // Counted when a page is taken into work, so that fetches in flight count too and the limit
  // is never passed; a page put back (retry, disallowed) gives its place back.
  bool page_limit_reached() const {
    return o.max_pages && done_before + pages_started >= *o.max_pages;
  }

  bool nothing_left() const {
    return frontier.queued() == 0 && frontier.in_flight() == 0 && !politeness.robots_pending() &&
           !backlog && sitemaps_todo.empty() && !sitemap_fetching;
  }

  // --- outputs and durability ---------------------------------------------------------------

  void open_outputs() {
    if (!o.jsonl.empty()) {
      if (o.jsonl != "-") claim_output(o.jsonl, "jsonl", "--jsonl");
      jsonl.emplace(JsonLinesWriter::open(o.jsonl, o.jsonl_links));
    }
    if (!o.warc.empty()) {
      claim_output(o.warc, "warc", "--warc");
      warc.emplace(WarcWriter::open(o.warc, {.software = "squall crawl"}));
    }
  }

  // Makes `path` this crawl's `key` output ("jsonl", "warc"), as the state file records it
  // (meta "<key>_path"). A file this crawl wrote before is cut back to the length its last
  // commit recorded ("<key>_offset"), so records of pages whose results were not committed (and
  // will be fetched again) do not repeat; a file with bytes of anything else is refused, unless
  // the crawl starts over, which empties it.
  void claim_output(const std::filesystem::path& path, const std::string& key, const char* flag) {
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    absolute = std::filesystem::weakly_canonical(absolute, ec);
    uint64_t size = std::filesystem::exists(path, ec) ? std::filesystem::file_size(path, ec) : 0;
    if (size > 0 && o.fresh) {
      std::filesystem::resize_file(path, 0, ec);
    } else if (size > 0) {
      auto owner = store->meta(key + "_path");
      if (!owner || *owner != absolute.string())
        throw InvalidArgumentError(path.string() + " holds records that are not this crawl's (" +
                                   o.state.string() + " did not write them): give another " + flag +
                                   " path, or --fresh to start the crawl over and overwrite it");
      if (auto offset = store->meta(key + "_offset")) {
        uint64_t keep = std::stoull(*offset);
        if (size > keep) std::filesystem::resize_file(path, keep, ec);
      }
    }
    store->set_meta(key + "_path", absolute.string());
  }

  // A resumed crawl must be the crawl the state file holds; a new one records itself.
  void check_identity() {
    auto stored = store->meta("crawl");
    if (!summary.resumed) {
      store->set_meta("crawl", identity);
      return;
    }
    if (stored && *stored == identity) return;
    std::string state = o.state.string();
    std::string advice = ": pass --state FILE to keep this crawl apart, or --fresh to start over";
    if (!stored)
      throw InvalidArgumentError(state + " holds a crawl that does not say what it is" + advice);
    // Which line differs: the start URLs first (shown without their "start "), then each option.
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
      std::string was = lines_of(*stored, what), now = lines_of(identity, what);
      if (was == now) continue;
      if (what == "start ")
        throw InvalidArgumentError(state + " belongs to another crawl (start URLs " + was +
                                   ", not " + now + ")" + advice);
      auto said = [what](const std::string& line) {
        return line.empty() ? "no " + std::string(what) : line;
      };
      throw InvalidArgumentError(state + " belongs to this crawl with " + said(was) + ", not " +
                                 said(now) +
                                 ": pass the same options to resume it, --state FILE to keep "
                                 "this crawl apart, or --fresh to start over");
    }
    throw InvalidArgumentError(state + " belongs to another crawl" + advice);
  }

  void commit() {
    if (jsonl) {
      jsonl->flush();
      if (auto offset = jsonl->offset()) store->set_meta("jsonl_offset", std::to_string(*offset));
    }
    if (warc) {
      warc->flush();
      store->set_meta("warc_offset", std::to_string(warc->offset()));
    }
    store->commit();
  }

  // --- requests -----------------------------------------------------------------------------

  // A request for `url` as every fetch of the crawl makes it: its proxy and its cookies (the
  // client's defaults carry the fields, user agent, time limits and TLS trust).
  http::HttpRequest request_for(const Url& url) const {
    http::HttpRequest req;
    req.parsed_url = url;
    req.raise_error = false;
    req.proxy = std::string(o.proxies.for_url(url));
    std::string cookie = o.cookie_jar.header_for(url, std::chrono::system_clock::now());
    if (!o.cookie.empty()) cookie.append(cookie.empty() ? "" : "; ").append(o.cookie);
    if (!cookie.empty()) req.headers.add("Cookie", cookie);
    return req;
  }

  // Every exchange of a fetch into the WARC: each redirect hop, each try.
  void archive(const std::optional<WarcRecorder>& recorder) {
    if (recorder)
      for (const WarcExchange& x : recorder->exchanges()) warc->write_exchange(x);
  }

  // --- robots.txt ---------------------------------------------------------------------------

  Task<void> fetch_robots(std::string host) {
    const Url* url = politeness.robots_fetch_started(host);
    http::HttpRequest req;
    // Without a URL (its origin did not parse again) the fetch fails: unreachable.
    if (url)
      req = request_for(*url);
    else
      req.raise_error = false;
    req.max_body_size = kRobotsParseLimit + 64 * 1024;
    req.max_redirects = RobotsPolicy::kMaxRedirects;
    std::optional<WarcRecorder> recorder;
    if (warc) req.capture = &recorder.emplace(*req.max_body_size + kWarcHeadRoom);
    http::HttpResponse r = co_await client->fetch(std::move(req));
    archive(recorder);
    TimePoint now = Loop::time();
    if (r.code == 599 || r.code == 429 || r.code >= 500) {
      robots_unreachable(host, r, now);
    } else {
      robots_tries.erase(host);
      politeness.robots_fetched(host, RobotsPolicy::from_response(r.code, r.body), now);
      find_sitemaps(host, r);
    }
    wake.set();
  }

  // RFC 9309 section 2.3.1.3: no answer, 429 or 5xx means the site is unreachable, not that it
  // disallows. Tried again with the pages' backoff (a TLS failure would fail the same way
  // again, so it is not); after the last try the host is unavailable for this run, and its URLs
  // stay queued in the state file, so that a later run with the site up crawls it.
  void robots_unreachable(const std::string& host, const http::HttpResponse& r, TimePoint now) {
    auto [kind, message] = r.code == 599
                               ? failure(r)
                               : std::pair{"HTTP " + std::to_string(r.code),
                                           "HTTP " + std::to_string(r.code) + " " + r.reason};
    int& tries = robots_tries[host];
    if (kind != "tls" && tries < o.retries && !stopping) {
      Duration wait = o.retry_backoff * (1 << std::min(tries, 16));
      if (auto after = retry_after(r.headers)) wait = std::max(wait, *after);
      ++tries;
      ++summary.retried;
      politeness.robots_unreachable(host, now + wait, now);
      return;
    }
    politeness.robots_unreachable(host, std::nullopt, now);
    if (!politeness.unavailable(host)) return;  // its earlier rules stay in force
    if (tries > 0) message += " (gave up after " + std::to_string(tries + 1) + " tries)";
    frontier.drop(host);
    summary.unavailable.push_back({host, kind, "robots.txt: " + message});
  }

  // --- sitemaps -----------------------------------------------------------------------------

  // A sitemap to read, at `level` (0 for those robots.txt names and /sitemap.xml, one more for
  // each index it came through): only on a start host, each once per crawl.
  void want_sitemap(const Url& url, int level) {
    if (!url.is_http() || level > kMaxSitemapIndexDepth) return;
    if (std::none_of(starts.begin(), starts.end(),
                     [&](const Url& s) { return s.host() == url.host(); }))
      return;
    std::string key(url.dedup_key());
    if (!sitemaps_seen.insert(key).second || store->meta("sitemap " + key)) return;
    sitemaps_todo.emplace_back(url, level);
    wake.set();
  }

  // The sitemaps of a start host, once its robots.txt answered `r`.
  void find_sitemaps(const std::string& host, const http::HttpResponse& r) {
    if (!o.sitemaps) return;
    const Url* start = nullptr;
    for (const Url& s : starts)
      if (s.host_port() == host) start = &s;
    if (!start) return;
    UrlResult robots = Url::parse("/robots.txt", start);
    if (r.code >= 200 && r.code < 300 && robots) {
      const RobotsTxt file = RobotsTxt::parse(r.body);
      for (const std::string& listed : file.sitemaps())
        if (UrlResult u = Url::parse(listed, &*robots)) want_sitemap(*u, 0);
    }
    if (UrlResult guess = Url::parse("/sitemap.xml", start)) want_sitemap(*guess, 0);
  }

  Task<void> fetch_sitemap(Url url, int level) {
    std::string host = url.host_port();
    std::string key(url.dedup_key());
    if (!politeness.allows(host, url).allowed) co_return;
    bool ok = false;
    SitemapParser parser([&](std::string_view loc) {
      UrlResult u = Url::parse(loc);
      if (!u || !u->is_http()) return;
      if (parser.kind() == SitemapKind::Index) {
        want_sitemap(*u, level + 1);
      } else if ((!o.max_depth || *o.max_depth >= 1) && in_scope(*u)) {
        discover(*u, 1, key);
      }
    });
    http::HttpRequest req = request_for(url);
    req.max_body_size = SitemapLimits{}.max_bytes;
    req.header_callback = [&ok](std::string_view line) {
      if (line.starts_with("HTTP/") && line.size() > 9) ok = line[9] == '2';
    };
    req.streaming_callback = [&](std::string_view bytes) {
      if (ok) parser.feed(bytes);
    };
    std::optional<WarcRecorder> recorder;
    if (warc) req.capture = &recorder.emplace(*req.max_body_size + kWarcHeadRoom);
    http::HttpResponse r = co_await client->fetch(std::move(req));
    archive(recorder);
    if (ok && r.code != 599) parser.finish();
    if (!parser.error().empty())
      log(LogLevel::Warning, "crawl: sitemap " + key + ": " + parser.error());
    store->set_meta("sitemap " + key, std::to_string(parser.urls()));
  }

  // --- pages --------------------------------------------------------------------------------

  Task<void> fetch_page(FrontierLease lease) {
    CrawlUrl& u = lease.url;
    auto parsed = Url::parse(u.url);
    if (parsed) {
      RobotsMatch m = politeness.allows(lease.host, *parsed);
      if (!m.allowed) {
        PageResult r;
        r.final_url = u.url;
        r.fetched_at = unix_ms();
        r.error = "disallowed by robots.txt" + (m.rule ? " (" + m.rule->text + ")" : std::string());
        store->finish(u.id, UrlState::Skipped, r);
        ++summary.skipped;
        --pages_started;
        co_return;
      }
    }

    // The client takes the URL parsed: parsed once here, the robots.txt check above included.
    // A URL that does not parse goes as text, for the client to fail it the way it reports.
    http::HttpRequest req;
    if (parsed) {
      req = request_for(*parsed);
    } else {
      req.url = u.url;
      req.raise_error = false;
    }
    req.max_body_size = o.max_page_size;
    req.max_decode_ratio = o.max_decode_ratio;
    std::optional<WarcRecorder> recorder;
    if (warc) req.capture = &recorder.emplace(o.max_page_size + kWarcHeadRoom);
    int64_t fetched_at = unix_ms();
    http::HttpResponse r = co_await client->fetch(std::move(req));
    archive(recorder);

    CrawledPage page;
    page.url = u.url;
    page.final_url = r.effective_url.empty() ? u.url : r.effective_url;
    page.depth = u.depth;
    page.parent = u.parent;
    page.elapsed_ms = ms(r.times.total);
    bool transient = is_transient(r.code);
    politeness.fetched(lease.host, transient, page.elapsed_ms, Loop::time());

    if (transient && u.attempts < o.retries && !stopping) {
      // Try again later; the host waits too when it asked to (429, 503 with Retry-After).
      Duration wait = o.retry_backoff * (1 << std::min(u.attempts, 16));
      if (auto after = retry_after(r.headers)) wait = std::max(wait, *after);
      ++u.attempts;
      store->count_attempt(u.id, u.attempts);
      ++summary.retried;
      --pages_started;
      frontier.back_off(lease.host, Loop::time() + wait);
      frontier.push(lease.host, std::move(u));
      co_return;
    }
    // After the last try, a transient failure is final: the URL is given up, with the reason.
    std::string tries = u.attempts > 0
                            ? " (gave up after " + std::to_string(u.attempts + 1) + " tries)"
                            : std::string();

    PageResult result;
    result.final_url = page.final_url;
    result.fetched_at = fetched_at;
    result.elapsed_ms = page.elapsed_ms;
    page.redirects = r.redirect_chain;
    if (r.code == 599) {
      auto [kind, message] = failure(r);
      page.status = 599;
      page.error_kind = kind;
      page.error = std::move(message) + tries;
      result.error = page.error;
      summary.errors[kind]++;
      ++summary.failed;
      store->finish(u.id, UrlState::Failed, result);
    } else {
      page.status = r.code;
      auto ct = r.headers.get("Content-Type");
      page.content_type = ct ? std::string(*ct) : std::string();
      page.length = r.body.size();
      take_fields(r.headers, page);
      if (r.code >= 400) page.error = "HTTP " + std::to_string(r.code) + " " + r.reason;
      summary.statuses[r.code]++;
      summary.bytes += r.body.size();
      if (transient) {
        page.error += tries;
        summary.errors["HTTP " + std::to_string(r.code)]++;
        ++summary.failed;
      } else {
        ++summary.fetched;
        if (r.code >= 200 && r.code < 300) ++summary.succeeded;
      }
      // The URL that answered: the one asked for, unless a redirect led elsewhere.
      std::optional<Url> redirected;
      const Url* answered = parsed ? &*parsed : nullptr;
      if (!answered || answered->dedup_key() != page.final_url) {
        UrlResult target = Url::parse(page.final_url);
        answered = target ? &redirected.emplace(*std::move(target)) : nullptr;
      }
      // A redirect's target is the same page: never fetch it again on its own.
      if (answered) seen.insert(answered->dedup_key());
      if (r.code >= 200 && r.code < 300)
        page.links =
            take_links(r, page, ct ? std::optional<std::string_view>(*ct) : std::nullopt, answered);
      result.status = page.status;
      result.content_type = page.content_type;
      result.length = page.length;
      result.links = page.links;
      result.error = page.error;
      store->finish(u.id, transient ? UrlState::Failed : UrlState::Done, result);
    }
    if (jsonl) jsonl->write(page, fetched_at);
    if (o.on_page) o.on_page(page);
  }

  // The links of `page`, an HTML page from `base` (its final URL; nullptr if that did not
  // parse), taken into the crawl; how many http(s) links it had.
  int take_links(const http::HttpResponse& r, CrawledPage& page,
                 std::optional<std::string_view> content_type, const Url* base) {
    std::string_view head(r.body.data(), std::min<size_t>(r.body.size(), 1445));
    page.html = is_html(content_type, head);
    if (!page.html || !base) return 0;
    std::unordered_set<std::string_view> listed;
    LinkOptions lo;
    lo.page_url = *base;
    if (auto cs = declared_charset(content_type, head)) lo.charset = *cs;
    LinkExtractor ex(std::move(lo));
    ex.feed(r.body);
    ex.finish();
    int count = 0;
    bool may_go_deeper = !o.max_depth || page.depth + 1 <= *o.max_depth;
    page.title = ex.title();
    for (const Link& link : ex.links()) {
      if (!link.url || !link.url->is_http()) continue;
      ++count;
      if (o.jsonl_links && listed.insert(link.url->dedup_key()).second)
        page.outlinks.emplace_back(link.url->dedup_key());
      if (link.nofollow && !o.ignore_nofollow) continue;
      if (!may_go_deeper || !in_scope(*link.url)) continue;
      if (o.link_filter && !o.link_filter(*link.url, page)) continue;
      discover(*link.url, page.depth + 1, page.url);
    }
    return count;
  }

  // The response fields a JSON line carries beside the content type.
  static void take_fields(const http::Headers& headers, CrawledPage& page) {
    if (auto length = headers.get("Content-Length")) {
      uint64_t n = 0;
      auto [end, ec] = std::from_chars(length->data(), length->data() + length->size(), n);
      if (ec == std::errc() && end == length->data() + length->size()) page.content_length = n;
    }
    if (auto modified = headers.get("Last-Modified")) page.last_modified = *modified;
    if (auto etag = headers.get("ETag")) page.etag = *etag;
  }

  // The kind ("timeout", "connect", ...) and message of a fetch that got no response.
  static std::pair<std::string, std::string> failure(const http::HttpResponse& r) {
    try {
      r.rethrow();
    } catch (const std::exception& e) {
      return {r.failure_kind(), e.what()};
    }
    return {"other", "no response"};
  }

  // --- workers ------------------------------------------------------------------------------

  Task<void> worker() {
    ++workers_running;
    try {
      while (!stopping) {
        if (page_limit_reached()) break;
        refill();
        TimePoint now = Loop::time();
        if (auto host = politeness.next_robots(now)) {
          co_await fetch_robots(std::move(*host));
          continue;
        }
        if (!sitemaps_todo.empty() && !sitemap_fetching) {
          auto [url, level] = std::move(sitemaps_todo.front());
          sitemaps_todo.pop_front();
          sitemap_fetching = true;
          try {
            co_await fetch_sitemap(std::move(url), level);
          } catch (...) {
            sitemap_fetching = false;
            throw;
          }
          sitemap_fetching = false;
          wake.set();
          continue;
        }
        if (auto lease = frontier.take(now)) {
          std::string host = lease->host;
          ++pages_started;
          if (politeness.robots_expired(host, now)) {
            // The cached robots.txt is too old (RFC 9309 section 2.4): fetch it again first.
            co_await fetch_robots(host);
          }
          co_await fetch_page(std::move(*lease));
          frontier.release(host, Loop::time());
          wake.set();
          continue;
        }
        if (nothing_left()) break;
        wake.clear();
        // Until the first host or robots.txt retry is due; a second when none is.
        std::optional<Duration> limit;
        for (auto at : {frontier.next_ready(), politeness.next_robots_retry()}) {
          if (!at) continue;
          Duration d = std::max<Duration>(*at - now, Duration{});
          limit = limit ? std::min(*limit, d) : d;
        }
        try {
          co_await wake.wait(limit.value_or(1s));
        } catch (const TimeoutError&) {
        }
      }
    } catch (...) {
      --workers_running;
      wake.set();
      if (workers_running == 0) all_done.set();
      throw;
    }
    --workers_running;
    // Whoever ends last tells run(); the others may be waiting for work that will not come.
    wake.set();
    if (workers_running == 0) all_done.set();
  }

  void fill_summary() {
    summary.seconds = std::chrono::duration<double>(Loop::time() - started).count();
    StoreCounts c = store->counts();
    summary.queued_left = static_cast<uint64_t>(c.queued);
    summary.seen = static_cast<uint64_t>(c.total());
    summary.slowest_hosts = politeness.slowest_hosts(5);
  }
};

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
    Url n = u->normalized();
    // The start URL's directory, as wget -np takes it: the key up to the path's last '/'.
    std::string_view key = n.dedup_key();
    std::string_view path = n.path();
    size_t path_start = key.size() - n.request_target().size();
    s.start_prefixes.emplace_back(key.substr(0, path_start + path.rfind('/') + 1));
    s.start_hosts.push_back(n.host_port());
    s.start_domains.push_back(registrable_domain(n.host()));
    s.starts.push_back(std::move(n));
  }
  auto compile = [](const std::vector<std::string>& patterns, std::vector<std::regex>& out,
                    const char* flag) {
    for (const std::string& p : patterns) {
      try {
        out.emplace_back(p, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error& e) {
        throw InvalidArgumentError(std::string("crawl: ") + flag + " pattern '" + p +
                                   "' is not a valid regular expression: " + e.what());
      }
    }
  };
  compile(s.o.include, s.include, "--include");
  compile(s.o.exclude, s.exclude, "--exclude");
  if (s.o.max_depth && *s.o.max_depth < 0)
    throw InvalidArgumentError("crawl: --max-depth must be 0 or more (0: the start URLs only)");
  s.identity = crawl_identity(s.o, s.starts);
}

Crawler::~Crawler() = default;

void Crawler::stop() noexcept {
  state_->stop_requested = true;
  state_->stopping = true;
  state_->wake.set();
  state_->all_done.set();  // run() takes over: fetches in flight end now and stay queued
}

CrawlProgress Crawler::progress() const noexcept {
  const State& s = *state_;
  CrawlProgress p;
  p.fetched = s.summary.fetched;
  p.failed = s.summary.failed;
  p.queued = s.frontier.queued();
  p.in_flight = s.frontier.in_flight();
  if (s.started != TimePoint{})
    p.seconds = std::chrono::duration<double>(Loop::time() - s.started).count();
  return p;
}

Task<CrawlSummary> Crawler::run() {
  State& s = *state_;
  s.started = Loop::time();
  s.store.emplace(CrawlStore::open(s.o.state, s.o.fresh));
  s.summary.resumed = !s.store->fresh();
  s.check_identity();
  if (s.summary.resumed) {
    s.store->for_each_url([&](std::string_view u) { s.seen.insert(u); });
    StoreCounts counts = s.store->counts();
    s.done_before = static_cast<uint64_t>(counts.done + counts.failed);
  }
  for (const Url& u : s.starts)
    if (s.seen.insert(u.dedup_key())) s.store->add(u.dedup_key(), 0, "");
  s.backlog = true;  // everything queued is in the store: pull it in
  s.refill();
  s.open_outputs();
  s.commit();
  if (s.o.sitemaps && !s.o.obey_robots) {
    // Without robots.txt there is no answer to wait for: each start host's /sitemap.xml now.
    for (const Url& start : s.starts)
      if (UrlResult guess = Url::parse("/sitemap.xml", &start)) s.want_sitemap(*guess, 0);
  }

  http::ClientOptions co;
  co.max_clients = s.o.concurrency;
  co.max_connections_per_host = std::max<size_t>(1, s.o.per_host);
  co.hostname_mapping = s.o.hostname_mapping;
  co.defaults.user_agent = s.o.user_agent;
  co.defaults.request_timeout = s.o.request_timeout;
  co.defaults.connect_timeout = std::min(s.o.connect_timeout, s.o.request_timeout);
  co.defaults.headers = s.o.headers;
  co.defaults.validate_cert = s.o.validate_cert;
  co.defaults.ca_certs = s.o.ca_certs;
  s.client = std::make_unique<http::HttpClient>(co);

  PeriodicCallback committer([&s] { s.commit(); }, kCommitPeriod);
  committer.start();

  std::vector<TaskHandle<void>> workers;
  for (size_t i = 0; i < s.o.concurrency; ++i) workers.push_back(spawn(s.worker()));
  try {
    co_await s.all_done.wait(s.o.timeout);
  } catch (const TimeoutError&) {
    s.summary.timed_out = true;
  }
  s.stopping = true;
  for (auto& w : workers) w.kill();
  co_await joinall(workers);
  for (auto& w : workers)
    if (auto e = w.exception()) {
      try {
        std::rethrow_exception(e);
      } catch (const CancelledError&) {
      } catch (const std::exception& ex) {
        log(LogLevel::Error, std::string("crawl: a worker failed: ") + ex.what());
      }
    }
  committer.stop();
  s.summary.stopped = s.stop_requested && !s.summary.timed_out;
  s.client->close();
  s.commit();
  s.fill_summary();
  s.store.reset();  // unlocks the state file
  co_return s.summary;
}

}  // namespace squall
