// FetchStage: the Frontier and Politeness of the crawl toolkit around the engine's Fetcher.
#include "squall/engine/fetch_stage.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>

#include "fetch_field.h"
#include "squall/core/error.h"
#include "squall/core/log.h"
#include "squall/core/loop.h"
#include "squall/core/seconds.h"
#include "squall/core/sleep.h"
#include "squall/core/spawn.h"
#include "squall/http/http_date.h"

namespace squall {

namespace {

using namespace std::chrono_literals;

// The longest a Retry-After keeps a host waiting.
constexpr Duration kRetryAfterMax = 10min;
// How long a host waits when Redis could not be asked for its lease.
constexpr Duration kSharedRetry = 1s;

// The wait before robots.txt's next try after `tries` failed ones: the backoff, doubled each try.
Duration robots_wait(const FetchStageOptions& o, int tries) {
  return from_seconds(std::max(0.0, o.robots_backoff)) * (1 << std::min(tries, 16));
}

bool transient(int status) {
  return status == 599 || status == 429 || status >= 500;
}

std::optional<Duration> retry_after(const http::Headers& headers) {
  auto field = headers.get("Retry-After");
  if (!field) return std::nullopt;
  auto wait = http::parse_retry_after(*field, http::HttpClock::now());
  if (!wait) return std::nullopt;
  return std::min<Duration>(*wait, kRetryAfterMax);
}

}  // namespace

FetchStage::FetchStage(Fetcher& fetcher, FetchStageOptions options, Deliver deliver, Park park)
    : fetcher_(fetcher),
      options_(std::move(options)),
      deliver_(std::move(deliver)),
      park_(std::move(park)),
      frontier_(
          {.per_host = options_.per_host ? options_.per_host : std::numeric_limits<size_t>::max(),
           .delay = from_seconds(std::max(0.0, options_.delay))}),
      politeness_(frontier_, {.obey_robots = true,
                              .user_agent = options_.user_agent,
                              .max_hosts = options_.max_hosts}) {
  if (options_.capacity == 0) options_.capacity = 1;
}

FetchStage::~FetchStage() {
  if (renewer_) renewer_->kill();
}

size_t FetchStage::room() const noexcept {
  return held_.size() < options_.capacity ? options_.capacity - held_.size() : 0;
}

size_t FetchStage::queued() const noexcept {
  return held_.size() - in_flight_;
}

bool FetchStage::idle() const noexcept {
  return held_.empty() && !politeness_.robots_pending();
}

std::optional<FetchStage::HostState> FetchStage::host(const std::string& host) const {
  std::optional<Frontier::HostState> f = frontier_.host(host);
  if (!f) return std::nullopt;
  return HostState{f->queued, f->in_flight, to_seconds(f->delay),
                   std::string(politeness_.robots_state(host))};
}

// A task's (project, taskid) as by_task_'s key, built in a buffer kept for it: a hash of one
// string a few times per task, where a tree of string pairs compared both at every level.
const std::string& FetchStage::task_key(const CrawlTask& t) {
  key_.assign(t.project).push_back('\0');
  key_.append(t.taskid);
  return key_;
}

void FetchStage::push(Dispatch d) {
  if (d.token != 0) {
    auto known = by_task_.find(task_key(d.task));
    if (known != by_task_.end()) {
      // Dispatched again while held: the newer token is the one the outcome must carry.
      held_.at(known->second).dispatch.token = d.token;
      return;
    }
  }
  Held h;
  h.robots = detail::fetch_switch(d.task.fetch, "robots_txt", options_.obey_robots);
  if (d.task.url.starts_with("http:") || d.task.url.starts_with("https:")) {
    if (UrlResult u = Url::parse(d.task.url); u && u->is_http()) {
      h.host = u->host_port();
      h.url = *std::move(u);
    }
  }
  if (!h.host.empty() && politeness_.unavailable(h.host)) {
    // A host past the listed ones is parked with no more than that: its reason was not kept.
    auto why = std::find_if(unavailable_.begin(), unavailable_.end(),
                            [&](const UnavailableHost& u) { return u.host == h.host; });
    park_(std::move(d),
          why != unavailable_.end()
              ? *why
              : UnavailableHost{h.host, "other",
                                "robots.txt could not be fetched earlier in this run"});
    return;
  }
  int64_t id = ++next_id_;
  if (d.token != 0) by_task_[task_key(d.task)] = id;
  std::string host = h.host;
  bool robots = h.robots && h.url;
  if (robots && !robots_like_.count(host)) {
    // What robots.txt is fetched with: the options of the host's first task that needs it.
    CrawlTask like;
    for (const char* key : {"user_agent", "proxy", "validate_cert", "timeout", "connect_timeout"})
      if (auto v = d.task.fetch.find(key); v != d.task.fetch.end()) like.fetch[key] = *v;
    robots_like_.emplace(host, std::move(like));
  }
  h.dispatch = std::move(d);
  if (robots) politeness_.meet(host, *h.url);
  held_.emplace(id, std::move(h));
  if (host.empty())
    hostless_.push_back(id);
  else
    frontier_.push(host, CrawlUrl{.id = id});
  wake_.set();
}

void FetchStage::left() {
  if (on_room) on_room();
}

Task<void> FetchStage::worker() {
  for (;;) {
    TimePoint now = Loop::time();
    if (std::optional<std::string> host = politeness_.next_robots(now)) {
      co_await fetch_robots(std::move(*host));
      continue;
    }
    if (!hostless_.empty()) {
      int64_t id = hostless_.front();
      hostless_.pop_front();
      co_await fetch_task(id, "");
      continue;
    }
    if (std::optional<FrontierLease> lease = frontier_.take(now)) {
      if (politeness_.robots_expired(lease->host, now)) {
        // Its robots.txt outlived its policy (RFC 9309 section 2.4): fetched again first.
        co_await fetch_robots(lease->host);
      }
      std::optional<HostLease> shared;
      if (options_.host_leases) {
        LeaseGrant grant;
        std::exception_ptr killed;
        try {
          grant = co_await options_.host_leases->acquire(lease->host);
        } catch (const CancelledError&) {
          killed = std::current_exception();
        } catch (const Error& e) {
          log(LogLevel::Warning, "fetch stage: no lease on " + lease->host + ": " + e.what());
          grant.wait = kSharedRetry;
        }
        if (killed || !grant.lease) {
          // Back to the frontier: the worker takes another host while this one waits.
          TimePoint t = Loop::time();
          frontier_.release(lease->host, t);
          frontier_.back_off(lease->host, t + grant.wait);
          frontier_.push(lease->host, std::move(lease->url));
          if (killed) std::rethrow_exception(killed);
          continue;
        }
        shared = std::move(grant.lease);
      }
      co_await fetch_task(lease->url.id, lease->host, std::move(shared));
      continue;
    }
    wake_.clear();
    std::optional<Duration> limit;
    for (std::optional<TimePoint> at : {frontier_.next_ready(), politeness_.next_robots_retry()}) {
      if (!at) continue;
      Duration d = std::max<Duration>(*at - now, Duration{});
      limit = limit ? std::min(*limit, d) : d;
    }
    try {
      if (limit)
        co_await wake_.wait(*limit);
      else
        co_await wake_.wait();
    } catch (const TimeoutError&) {
    }
  }
}

Task<void> FetchStage::fetch_task(int64_t id, std::string host, std::optional<HostLease> shared) {
  auto it = held_.find(id);
  bool withdrawn = it != held_.end() && withdraw && withdraw(it->second.dispatch);
  if (it == held_.end() || withdrawn) {
    if (withdrawn) {
      if (it->second.dispatch.token != 0) by_task_.erase(task_key(it->second.dispatch.task));
      held_.erase(it);
    }
    if (!host.empty()) frontier_.release(host, Loop::time());
    if (withdrawn) {
      wake_.set();
      left();
    }
    if (shared) co_await release_shared(*options_.host_leases, std::move(*shared), {});
    co_return;
  }
  ++in_flight_;
  FetchResult r;
  bool disallowed = false;
  if (it->second.robots && it->second.url) {
    RobotsMatch m = politeness_.allows(host, *it->second.url);
    ++robots_hits_;
    if (!m.allowed) {
      disallowed = true;
      const CrawlTask& t = it->second.dispatch.task;
      r.status_code = 403;
      r.orig_url = r.url = t.url;
      r.error = "disallowed by robots.txt" + (m.rule ? " (" + m.rule->text + ")" : std::string());
      r.save = t.fetch.value("save", nlohmann::json());
    }
  }
  if (!disallowed) {
    if (shared) keep_lease(id, *shared);
    try {
      const std::optional<Url>& url = it->second.url;
      r = co_await fetcher_.fetch(it->second.dispatch.task, url ? &*url : nullptr);
    } catch (...) {
      kept_leases_.erase(id);
      --in_flight_;
      if (!host.empty()) frontier_.release(host, Loop::time());
      // Not awaited here (a killed task awaits nothing more): a task of its own releases it.
      if (shared) spawn(options_.host_leases->release(std::move(*shared)));
      throw;
    }
    kept_leases_.erase(id);
  }
  --in_flight_;
  it = held_.find(id);  // the map may have rehashed while the fetch ran
  Dispatch d = std::move(it->second.dispatch);
  held_.erase(it);
  if (d.token != 0) by_task_.erase(task_key(d.task));
  Duration pause{};
  if (!host.empty()) {
    TimePoint now = Loop::time();
    if (!disallowed) {
      if (std::optional<TimePoint> until =
              politeness_.fetched(host, transient(r.status_code), r.time * 1000, now))
        pause = *until - now;
      if (r.status_code == 429 || r.status_code == 503)
        if (std::optional<Duration> wait = retry_after(r.headers)) {
          frontier_.back_off(host, now + *wait);
          pause = std::max(pause, *wait);
        }
    }
    frontier_.release(host, now);
    // What was kept of hosts long idle goes once many are remembered (Politeness::max_hosts).
    for (const std::string& gone : politeness_.forget_idle(now)) {
      robots_like_.erase(gone);
      robots_tries_.erase(gone);
    }
  }
  // Released beside the page going on: the worker waits for neither round trip to Redis.
  if (shared) spawn(release_shared(*options_.host_leases, std::move(*shared), pause, true));
  wake_.set();
  left();
  co_await deliver_(std::move(d), std::move(r));
}

Task<void> FetchStage::fetch_robots(std::string host) {
  const Url* url = politeness_.robots_fetch_started(host);
  ++robots_fetches_;
  FetchResult r;
  auto like = robots_like_.find(host);
  std::optional<std::chrono::seconds> max_age;
  if (url && like != robots_like_.end()) {
    try {
      if (options_.shared_robots)
        r = co_await fetch_shared_robots(host, *url, like->second, max_age);
      else
        r = co_await fetcher_.fetch_robots(*url, like->second);
    } catch (...) {
      politeness_.robots_unreachable(host, std::nullopt, Loop::time());
      throw;
    }
  } else {
    r.error = "no robots.txt URL for " + host;
    r.error_kind = "other";
  }
  TimePoint now = Loop::time();
  if (transient(r.status_code)) {
    std::string kind =
        r.status_code == 599 ? r.error_kind : "HTTP " + std::to_string(r.status_code);
    std::string message = r.error;
    int& tries = robots_tries_[host];
    if (kind != "tls" && tries < options_.robots_retries) {
      Duration wait = robots_wait(options_, tries);
      if (std::optional<Duration> after = retry_after(r.headers)) wait = std::max(wait, *after);
      ++tries;
      ++robots_retried_;
      politeness_.robots_unreachable(host, now + wait, now);
      wake_.set();
      co_return;
    }
    politeness_.robots_unreachable(host, std::nullopt, now);
    if (politeness_.unavailable(host)) {
      if (tries > 0) message += " (gave up after " + std::to_string(tries + 1) + " tries)";
      give_up(host, UnavailableHost{host, kind, "robots.txt: " + message});
    }
  } else {
    robots_tries_.erase(host);
    RobotsPolicy policy = RobotsPolicy::from_response(r.status_code, r.content, max_age);
    politeness_.robots_fetched(host, policy, now);
    if (on_robots) on_robots(host, r);
    if (options_.host_leases) {
      if (auto delay = policy.rules_for(options_.user_agent).crawl_delay()) {
        try {
          co_await options_.host_leases->set_delay(host, *delay, policy.refresh_after());
        } catch (const CancelledError&) {
          throw;
        } catch (const Error& e) {
          log(LogLevel::Warning,
              "fetch stage: the Crawl-delay of " + host + " is kept here only: " + e.what());
        }
      }
    }
  }
  wake_.set();
}

Task<FetchResult> FetchStage::fetch_shared_robots(std::string host, Url url, CrawlTask like,
                                                  std::optional<std::chrono::seconds>& max_age) {
  auto tries = robots_tries_.find(host);
  int tried = tries == robots_tries_.end() ? 0 : tries->second;
  // An unreachable answer is kept as long as this stage would wait before its next try.
  Duration retry_wait = robots_wait(options_, tried);
  std::optional<FetchResult> own;
  FetchResult r;
  try {
    SharedRobotsEntry e = co_await options_.shared_robots->get(
        host, [this, &host, &url, &like, &own, retry_wait]() -> Task<SharedRobotsEntry> {
          std::optional<HostLease> lease;
          if (options_.host_leases) lease = co_await shared_lease(host);
          own = co_await fetcher_.fetch_robots(url, like);
          if (lease) co_await release_shared(*options_.host_leases, std::move(*lease), {});
          SharedRobotsEntry out{.status = own->status_code,
                                .body = own->content,
                                .error_kind = own->error_kind,
                                .error = own->error};
          if (transient(own->status_code)) out.ttl = retry_wait;
          co_return out;
        });
    max_age = e.max_age();
    if (e.fetched_here && own) co_return *std::move(own);
    r.orig_url = r.url = std::string(url.href());
    r.status_code = e.status;
    r.content = std::move(e.body);
    r.error_kind = std::move(e.error_kind);
    r.error = std::move(e.error);
  } catch (const CancelledError&) {
    throw;
  } catch (const Error& e) {
    r.status_code = 599;
    r.error_kind = "redis";
    r.error = std::string("robots.txt could not be shared through redis: ") + e.what();
  }
  co_return r;
}

Task<HostLease> FetchStage::shared_lease(std::string host) {
  for (;;) {
    LeaseGrant grant = co_await options_.host_leases->acquire(host);
    if (grant.lease) co_return *std::move(grant.lease);
    co_await sleep(grant.wait);
  }
}

void FetchStage::keep_lease(int64_t id, const HostLease& lease) {
  kept_leases_.insert_or_assign(id, KeptLease{lease, Loop::time()});
  if (!renewer_ || renewer_->done()) renewer_ = spawn(renew_leases());
}

Task<void> FetchStage::renew_leases() {
  Duration every = std::max<Duration>(options_.host_leases->options().lease_ttl / 4, 1ms);
  while (!kept_leases_.empty()) {
    co_await sleep(every);
    TimePoint due = Loop::time() - every;
    std::vector<std::pair<int64_t, HostLease>> renewing;
    for (const auto& [id, kept] : kept_leases_)
      if (kept.renewed <= due) renewing.emplace_back(id, kept.lease);
    for (auto& [id, lease] : renewing) {
      TimePoint sent = Loop::time();
      bool held = true;
      try {
        held = co_await options_.host_leases->renew(lease);
      } catch (const CancelledError&) {
        throw;
      } catch (const Error& e) {
        log(LogLevel::Warning,
            "fetch stage: the lease on " + lease.host + " was not renewed: " + e.what());
      }
      auto it = kept_leases_.find(id);
      if (it == kept_leases_.end() || it->second.lease.id != lease.id) continue;  // it ended
      if (held) {
        it->second.renewed = sent;
        continue;
      }
      log(LogLevel::Warning, "fetch stage: the lease on " + lease.host +
                                 " expired during its fetch; another may have started beside it");
      kept_leases_.erase(it);
    }
  }
}

Task<void> FetchStage::release_shared(HostLeases& leases, HostLease lease, Duration pause,
                                      bool detached) {
  std::string host = lease.host;
  Task<void> released = leases.release(std::move(lease));
  return settle_release(leases, std::move(released), std::move(host), pause, detached);
}

Task<void> FetchStage::settle_release(HostLeases& leases, Task<void> released, std::string host,
                                      Duration pause, bool detached) {
  try {
    co_await std::move(released);
    if (pause > Duration{}) co_await leases.back_off(host, pause);
  } catch (const CancelledError&) {
    // A detached release ends quietly when its HostLeases goes: the lease expires by itself.
    if (!detached) throw;
  } catch (const Error& e) {
    // The lease expires by itself; only this process keeps the pause.
    log(LogLevel::Warning, "fetch stage: the lease on " + host + " was not released: " + e.what());
  }
}

void FetchStage::give_up(const std::string& host, const UnavailableHost& why) {
  ++unavailable_count_;
  if (unavailable_.size() < options_.unavailable_listed) unavailable_.push_back(why);
  robots_like_.erase(host);
  for (const CrawlUrl& queued : frontier_.drop(host)) {
    auto it = held_.find(queued.id);
    if (it == held_.end()) continue;
    Dispatch d = std::move(it->second.dispatch);
    held_.erase(it);
    if (d.token != 0) by_task_.erase(task_key(d.task));
    park_(std::move(d), why);
  }
  left();
}

}  // namespace squall
