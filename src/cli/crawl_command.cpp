// `squall crawl`: a loop, the crawler, a progress line on a terminal, signals, the summary.
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "squall/browser/chromium.h"
#include "squall/cli/crawl_command.h"
#include "squall/cli/request_options.h"
#include "squall/cli/signal_watch.h"
#include "squall/control/control_server.h"
#include "squall/core.h"
#include "squall/core/seconds.h"

namespace squall::cli {

namespace {

std::string human_bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char out[32];
  std::snprintf(out, sizeof out, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return out;
}

// The statuses wget gives for the same causes (its manual's "Exit Status").
enum Status : int {
  kFinished = 0,
  kCouldNotRun = 1,
  kUsage = 2,
  kTimedOut = 3,
  kNetworkFailure = 4,
  kTlsFailure = 5,
  kServerError = 8,
};

// The cause of a failure by its kind in CrawlSummary::errors ("HTTP 503", "tls", "connect"...).
int failure_status(std::string_view kind) {
  if (kind.starts_with("HTTP ")) return kServerError;
  if (kind == "tls") return kTlsFailure;
  return kNetworkFailure;
}

std::string_view signal_name(int signal) {
  return signal == SIGINT ? "Ctrl-C" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace

int crawl_exit_status(const CrawlSummary& s, int signal) {
  if (signal) return 128 + signal;
  if (s.timed_out) return kTimedOut;
  if (s.succeeded > 0) return kFinished;
  // A crawl run again after it finished has nothing left to do, which is no failure.
  if (s.fetched + s.failed + s.skipped == 0 && s.unavailable.empty()) return kFinished;
  // Nothing fetched successfully: the cause, the lower number winning when there are several.
  int status = kServerError + 1;
  for (const auto& [kind, n] : s.errors) status = std::min(status, failure_status(kind));
  for (const auto& u : s.unavailable) status = std::min(status, failure_status(u.kind));
  for (const auto& [code, n] : s.statuses)
    if (code >= 400) status = std::min<int>(status, kServerError);
  return status > kServerError ? kCouldNotRun : status;
}

void print_summary(const CrawlSummary& s, int signal, std::ostream& err) {
  long long seconds = std::llround(s.seconds);
  if (signal)
    err << "Stopped after " << seconds << " seconds (" << signal_name(signal) << "), fetched "
        << s.fetched << " URLs.\n";
  else if (s.timed_out)
    err << "Timed out after " << seconds << " seconds (--timeout), fetched " << s.fetched
        << " URLs.\n";
  else if (crawl_exit_status(s, 0) != kFinished)
    err << "Failed after " << seconds << " seconds: nothing was fetched successfully.\n";
  else
    err << "Done in " << seconds << " seconds, fetched " << s.fetched << " URLs.\n";
  for (const auto& u : s.unavailable)
    err << "  " << u.host << " is unavailable: " << u.message
        << "; its URLs stay queued for the next run\n";
  if (s.unavailable_more > 0)
    err << "  and " << s.unavailable_more << " more host"
        << (s.unavailable_more == 1 ? " is" : "s are")
        << " unavailable; their URLs stay queued for the next run\n";
  if (s.resumed) err << "  resumed an earlier crawl; " << s.seen << " URLs known in all\n";
  if (!s.statuses.empty()) {
    err << "  status:";
    for (const auto& [code, n] : s.statuses) err << " " << code << "×" << n;
    err << "\n";
  }
  err << "  bytes: " << human_bytes(s.bytes);
  if (s.seconds > 0)
    err << ", " << static_cast<long long>(std::llround(static_cast<double>(s.fetched) / s.seconds))
        << " pages/s";
  err << "\n";
  if (s.failed || s.skipped || s.retried)
    err << "  failed: " << s.failed << ", disallowed by robots.txt: " << s.skipped
        << ", retries: " << s.retried << "\n";
  if (!s.errors.empty()) {
    err << "  errors:";
    for (const auto& [kind, n] : s.errors) err << " " << kind << "×" << n;
    err << "\n";
    if (s.errors.contains("decompression bomb"))
      err << "  a decompression bomb decodes at a ratio no real page has (its error says "
             "which); --max-ratio N raises the guard's ratio, --max-ratio 0 turns it off\n";
  }
  bool tls = s.errors.contains("tls") || std::any_of(s.unavailable.begin(), s.unavailable.end(),
                                                     [](const auto& u) { return u.kind == "tls"; });
  if (tls)
    err << "  TLS failed: pass --cacert FILE to trust the server's certificate authority, or "
           "--insecure (-k) not to verify certificates\n";
  if (!s.slowest_hosts.empty()) {
    err << "  slowest hosts:";
    for (const auto& [host, mean] : s.slowest_hosts)
      err << " " << host << " (" << static_cast<long long>(std::llround(mean)) << " ms)";
    err << "\n";
  }
  if (s.queued_left > 0)
    err << "  " << s.queued_left << " URLs still queued: run the same command again to resume\n";
}

CrawlerOptions crawler_options(const CrawlCommand& c) {
  CrawlerOptions o;
  o.start_urls = c.urls;
  if (c.scope == "prefix")
    o.scope = CrawlScope::Prefix;
  else if (c.scope == "host")
    o.scope = CrawlScope::Host;
  else if (c.scope == "domain")
    o.scope = CrawlScope::Domain;
  else if (c.scope == "any")
    o.scope = CrawlScope::Any;
  else
    throw InvalidArgumentError("crawl: --scope must be prefix, host, domain or any, not '" +
                               c.scope + "'");
  auto seconds = [](double s, const char* flag, bool positive) {
    if (!(s >= 0) || s > 1e9 || (positive && s == 0))
      throw InvalidArgumentError(std::string("crawl: ") + flag + " must be a " +
                                 (positive ? "positive " : "") + "number of seconds");
    return from_seconds(s);
  };
  o.timeout = seconds(c.timeout, "--timeout", true);
  o.render = c.render;
  o.browsers = c.browsers;
  o.delay = seconds(c.delay, "--delay", false);
  o.request_timeout = seconds(c.timeout_per_fetch, "--timeout-per-fetch", true);
  for (const std::string& line : c.headers)
    if (std::string bad = add_header_flag(line, o.headers); !bad.empty())
      throw InvalidArgumentError("crawl: " + bad);
  for (const std::string& arg : c.cookies) add_cookie_flag(arg, o.cookie, o.cookie_jar);
  o.proxies = proxy_settings(c.proxy);
  TlsTrust trust = tls_trust(c.insecure, c.cacert);
  o.validate_cert = trust.verify;
  o.ca_certs = std::move(trust.ca_file);
  if (c.concurrency == 0) throw InvalidArgumentError("crawl: --concurrency must be at least 1");
  if (c.per_host == 0) throw InvalidArgumentError("crawl: --per-host must be at least 1");
  if (c.retries < 0) throw InvalidArgumentError("crawl: --retries must not be negative");
  o.concurrency = c.concurrency;
  o.per_host = c.per_host;
  o.include = c.include;
  o.exclude = c.exclude;
  o.max_depth = c.max_depth;
  o.max_pages = c.max_pages;
  o.max_page_size = c.max_page_size;
  o.max_decode_ratio = c.max_ratio;
  o.obey_robots = !c.ignore_robots;
  o.ignore_nofollow = c.ignore_nofollow;
  o.user_agent = c.user_agent;
  o.retries = c.retries;
  o.state = c.state;
  o.fresh = c.fresh;
  o.jsonl = c.jsonl;
  o.jsonl_links = c.jsonl_links;
  o.sitemaps = !c.no_sitemaps;
  o.warc = c.warc;
  if (!c.redis.empty()) {
    if (!(c.lease >= 0.01 && c.lease < 1e6))
      throw InvalidArgumentError("crawl: --lease must be 0.01 s or more");
    o.redis = c.redis;
    o.ns = c.ns;
    o.lease = seconds(c.lease, "--lease", true);
  }
  return o;
}

int run_crawl(const CrawlCommand& command, std::ostream& err, bool err_is_tty) {
  if (command.render && browser::find_chromium().empty()) {
    err << "squall crawl: --render: " << browser::no_chromium_message() << "\n";
    return kCouldNotRun;
  }
  Loop loop;
  std::optional<Crawler> crawler;
  std::optional<ControlServer> control;
  Event leave;  // Ctrl-C while serving after the crawl
  bool crawl_ended = false;
  bool summary_printed = false;
  PeriodicCallback* progress_line = nullptr;
  bool tty = err_is_tty && !command.quiet;
  bool drawn = false;
  try {
    CrawlerOptions options = crawler_options(command);
    if (command.port) {
      ControlOptions co{.port = *command.port, .bind = command.bind, .auth = command.auth};
      if (co.auth.empty() && co.bind != "127.0.0.1" && co.bind != "::1" && co.bind != "localhost")
        throw InvalidArgumentError("crawl: --bind " + co.bind +
                                   " serves beyond this machine: it needs --auth user:password");
      if (!co.auth.empty() && co.auth.find(':') == std::string::npos)
        throw InvalidArgumentError("crawl: --auth must be user:password");
      options.attach = [&, co](Engine& engine) {
        control.emplace(engine, co);
        control->start();
        err << (drawn ? "\r\033[K" : "") << "Dashboard: " << control->url() << "\n" << std::flush;
      };
      options.ended = [&](const CrawlSummary& summary) -> Task<void> {
        crawl_ended = true;
        if (!command.exit_when_done && !leave.is_set()) {
          if (progress_line) progress_line->stop();
          if (drawn) err << "\r\033[K";
          drawn = false;
          if (!command.quiet) print_summary(summary, 0, err);
          summary_printed = true;
          err << "Serving " << control->url() << " until Ctrl-C\n" << std::flush;
          co_await leave.wait();
        }
        co_await control->stop();
      };
    }
    crawler.emplace(std::move(options));
  } catch (const Error& e) {
    err << "squall crawl: " << e.what() << "\n";
    return kUsage;
  }
  int signal_seen = 0;
  SignalWatch signals(loop, [&](int sig) {
    if (crawl_ended) {
      leave.set();  // the crawl is over: only the serving ends
      return;
    }
    if (signal_seen) {
      // A second signal while stopping: leave at once (the state file is consistent).
      err << "\nsquall crawl: stopped\n";
      std::_Exit(128 + sig);
    }
    signal_seen = sig;
    leave.set();
    crawler->stop();
  });

  // At most ten redraws a second, only on a terminal.
  PeriodicCallback progress(
      [&] {
        CrawlProgress p = crawler->progress();
        char line[200];
        std::snprintf(line, sizeof line,
                      "\r\033[K%.0f pages/s  fetched %llu  queued %llu  in flight %llu  "
                      "errors %llu  %.0fs",
                      p.seconds > 0 ? static_cast<double>(p.fetched) / p.seconds : 0.0,
                      static_cast<unsigned long long>(p.fetched),
                      static_cast<unsigned long long>(p.queued),
                      static_cast<unsigned long long>(p.in_flight),
                      static_cast<unsigned long long>(p.failed), p.seconds);
        err << line << std::flush;
        drawn = true;
      },
      std::chrono::milliseconds(100));
  progress_line = &progress;
  if (tty) progress.start();

  CrawlSummary summary;
  try {
    summary = run_sync(crawler->run());
  } catch (const std::exception& e) {
    progress.stop();
    if (drawn) err << "\r\033[K";
    err << "squall crawl: " << e.what() << "\n";
    // A state file or output of another crawl is the flags' fault; anything else stopped it.
    auto* error = dynamic_cast<const Error*>(&e);
    return error && error->kind() == ErrorKind::InvalidArgument ? kUsage : kCouldNotRun;
  }
  progress.stop();
  if (drawn) err << "\r\033[K";
  if (!command.quiet && !summary_printed) print_summary(summary, signal_seen, err);
  return crawl_exit_status(summary, signal_seen);
}

}  // namespace squall::cli
