// Crawler: workers taking URLs from the host-aware frontier, fetching them with the shared
// HTTP client, extracting links, and committing state and outputs in batches.
#include "squall/crawl/crawler.h"

#include <libpsl.h>

#include <algorithm>
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
#include "squall/crawl/sniff.h"
#include "squall/crawl/store.h"
#include "squall/crawl/warc.h"
#include "squall/http/client.h"
#include "squall/http/decode.h"
#include "squall/http/http_date.h"
#include "squall/http/message.h"
#include "squall/url/ascii.h"

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

// A failure that may pass: no response (599), 429 or 5xx. Retried, and counted against the host.
bool is_transient(int code) noexcept {
  return code == 599 || code == 429 || code >= 500;
}

// Whether a fetch failed because the decompression-bomb guard stopped its body.
bool is_bomb(const std::exception_ptr& cause) {
  try {
    if (cause) std::rethrow_exception(cause);
  } catch (const http::DecodeError& e) {
    return e.ratio_exceeded();
  } catch (...) {
  }
  return false;
}

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double ms(Duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// Retry-After (RFC 9110 section 10.2.3) as a wait from now: delay-seconds or an HTTP date (a
// date already past is no wait), capped at kRetryAfterMax; nullopt when absent or unreadable.
std::optional<Duration> retry_after(const http::Headers& headers) {
  auto field = headers.get("Retry-After");
  if (!field) return std::nullopt;
  std::string_view v = http::trim_ows(*field);
  if (v.empty()) return std::nullopt;
  if (std::all_of(v.begin(), v.end(), [](char c) { return is_ascii_digit(c); })) {
    if (v.size() > 7) return kRetryAfterMax;
    return std::min<Duration>(std::chrono::seconds(std::stol(std::string(v))), kRetryAfterMax);
  }
  auto date = http::parse_http_date(v);
  if (!date) return std::nullopt;
  auto wait = std::chrono::duration_cast<Duration>(*date - http::HttpClock::now());
  return std::clamp<Duration>(wait, Duration{}, kRetryAfterMax);
}

}  // namespace

struct Crawler::State {
  CrawlerOptions o;
  std::vector<Url> starts;
  std::vector<std::string> start_prefixes;
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

  int64_t loaded_upto = 0;      // the highest row id pulled from the store into the frontier
  bool backlog = false;         // queued URLs wait in the store beyond loaded_upto
  uint64_t done_before = 0;     // pages fetched by earlier runs
  bool stopping = false;        // no new fetches
  bool stop_requested = false;  // stop() was called
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

  bool page_limit_reached() const {
    return o.max_pages && done_before + summary.fetched >= *o.max_pages;
  }

  bool nothing_left() const {
    return frontier.queued() == 0 && frontier.in_flight() == 0 && !politeness.robots_pending() &&
           !backlog;
  }

  // --- outputs and durability ---------------------------------------------------------------

  void open_outputs() {
    if (!o.jsonl.empty()) {
      if (o.jsonl != "-") truncate_to_committed(o.jsonl, "jsonl_offset");
      jsonl.emplace(JsonLinesWriter::open(o.jsonl));
    }
    if (!o.warc.empty()) {
      truncate_to_committed(o.warc, "warc_offset");
      warc.emplace(WarcWriter::open(o.warc, {.software = "squall crawl"}));
    }
  }

  // A resumed crawl cuts an output back to the length its last commit recorded, so records
  // of pages whose results were not committed (and will be fetched again) do not repeat.
  void truncate_to_committed(const std::filesystem::path& path, std::string_view key) {
    auto offset = store->meta(key);
    std::error_code ec;
    if (!offset || !std::filesystem::exists(path, ec)) return;
    uint64_t keep = std::stoull(*offset);
    if (std::filesystem::file_size(path, ec) > keep) std::filesystem::resize_file(path, keep, ec);
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

  // --- robots.txt ---------------------------------------------------------------------------

  Task<void> fetch_robots(std::string host) {
    http::HttpRequest req;
    // Without a URL (its origin did not parse again) the fetch fails: unreachable, disallowed.
    if (const Url* url = politeness.robots_fetch_started(host)) req.parsed_url = *url;
    req.user_agent = o.user_agent;
    req.raise_error = false;
    req.request_timeout = o.request_timeout;
    req.connect_timeout = o.connect_timeout;
    req.max_body_size = kRobotsParseLimit + 64 * 1024;
    req.max_redirects = RobotsPolicy::kMaxRedirects;
    http::HttpResponse r = co_await client->fetch(std::move(req));
    politeness.robots_fetched(
        host,
        r.code == 599 ? RobotsPolicy::unreachable() : RobotsPolicy::from_response(r.code, r.body),
        Loop::time());
    wake.set();
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
        co_return;
      }
    }

    http::HttpRequest req;
    // The client takes the URL parsed: parsed once here, the robots.txt check above included.
    // A URL that does not parse goes as text, for the client to fail it the way it reports.
    if (parsed)
      req.parsed_url = *parsed;
    else
      req.url = u.url;
    req.user_agent = o.user_agent;
    req.raise_error = false;
    req.request_timeout = o.request_timeout;
    req.connect_timeout = o.connect_timeout;
    req.max_body_size = o.max_page_size;
    req.max_decode_ratio = o.max_decode_ratio;
    std::string head;
    if (warc) req.header_callback = [&head](std::string_view line) { head.append(line); };
    int64_t fetched_at = unix_ms();
    http::HttpResponse r = co_await client->fetch(std::move(req));

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
    if (r.code == 599) {
      auto [kind, message] = failure(r);
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
      if (r.code >= 400) page.error = "HTTP " + std::to_string(r.code) + " " + r.reason;
      summary.statuses[r.code]++;
      summary.bytes += r.body.size();
      if (transient) {
        page.error += tries;
        summary.errors["HTTP " + std::to_string(r.code)]++;
        ++summary.failed;
      } else {
        ++summary.fetched;
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
      if (warc) {
        std::string request = "GET " + std::string(parsed ? parsed->request_target() : "/") +
                              " HTTP/1.1\r\nHost: " + std::string(parsed ? parsed->host() : "") +
                              "\r\nUser-Agent: " + o.user_agent + "\r\n\r\n";
        auto date = std::chrono::system_clock::time_point(std::chrono::milliseconds(fetched_at));
        std::string id = warc->write_response(page.final_url, head, r.body, date);
        warc->write_request(page.final_url, request, date, id);
      }
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
    LinkOptions lo;
    lo.page_url = *base;
    if (auto cs = declared_charset(content_type, head)) lo.charset = *cs;
    LinkExtractor ex(std::move(lo));
    ex.feed(r.body);
    ex.finish();
    int count = 0;
    bool may_go_deeper = !o.max_depth || page.depth + 1 <= *o.max_depth;
    for (const Link& link : ex.links()) {
      if (!link.url || !link.url->is_http()) continue;
      ++count;
      if (link.nofollow && !o.ignore_nofollow) continue;
      if (!may_go_deeper || !in_scope(*link.url)) continue;
      if (o.link_filter && !o.link_filter(*link.url, page)) continue;
      discover(*link.url, page.depth + 1, page.url);
    }
    return count;
  }

  // The kind ("timeout", "connect", ...) and message of a fetch that got no response.
  static std::pair<std::string, std::string> failure(const http::HttpResponse& r) {
    try {
      r.rethrow();
    } catch (const http::HttpError& e) {
      if (is_bomb(e.cause())) return {"decompression bomb", e.what()};
      return {std::string(error_kind_name(e.kind())), e.what()};
    } catch (const Error& e) {
      return {std::string(error_kind_name(e.kind())), e.what()};
    } catch (const std::exception& e) {
      return {"other", e.what()};
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
        if (auto host = politeness.next_robots()) {
          co_await fetch_robots(std::move(*host));
          continue;
        }
        TimePoint now = Loop::time();
        if (auto lease = frontier.take(now)) {
          std::string host = lease->host;
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
        Timeout limit = 1s;
        if (auto at = frontier.next_ready()) limit = std::max<Duration>(*at - now, Duration{});
        try {
          co_await wake.wait(limit);
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
    s.start_prefixes.emplace_back(n.dedup_key());
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
  s.store.emplace(CrawlStore::open(s.o.state));
  s.summary.resumed = !s.store->fresh();
  if (s.summary.resumed) {
    s.store->for_each_url([&](std::string_view u) { s.seen.insert(u); });
    s.done_before = static_cast<uint64_t>(s.store->counts().done);
  }
  for (const Url& u : s.starts)
    if (s.seen.insert(u.dedup_key())) s.store->add(u.dedup_key(), 0, "");
  s.backlog = true;  // everything queued is in the store: pull it in
  s.refill();
  s.open_outputs();
  s.commit();

  http::ClientOptions co;
  co.max_clients = s.o.concurrency;
  co.max_connections_per_host = std::max<size_t>(1, s.o.per_host);
  co.hostname_mapping = s.o.hostname_mapping;
  co.defaults.user_agent = s.o.user_agent;
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
  co_return s.summary;
}

}  // namespace squall
