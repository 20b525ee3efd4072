// Politeness: a record per host (robots.txt state and rules, failures in a row, fetch times)
// whose decisions go to the frontier as holds, delays and back-offs.
#include "squall/crawl/politeness.h"

#include <algorithm>

namespace squall {

Politeness::Politeness(Frontier& frontier, PolitenessOptions options)
    : frontier_(frontier), options_(std::move(options)) {}

const Politeness::Host* Politeness::find(const std::string& host) const {
  auto it = hosts_.find(host);
  return it == hosts_.end() ? nullptr : &it->second;
}

std::string_view Politeness::robots_state(const std::string& host) const {
  const Host* h = find(host);
  switch (h ? h->robots : Robots::Unknown) {
    case Robots::Unknown:
      return "unknown";
    case Robots::Pending:
      return "pending";
    case Robots::Known:
      return "known";
    case Robots::Unavailable:
      return "unavailable";
  }
  return "unknown";
}

void Politeness::meet(const std::string& host, const Url& url) {
  if (!options_.obey_robots) return;
  Host& h = hosts_[host];
  if (h.robots != Robots::Unknown) return;
  h.robots = Robots::Pending;
  // The origin leaves out userinfo, path and query: robots.txt belongs to scheme, host and port.
  if (UrlResult robots = Url::parse(url.origin() + "/robots.txt")) h.robots_url = *robots;
  frontier_.hold(host);
  robots_todo_.push_back(host);
}

std::optional<std::string> Politeness::next_robots(TimePoint now) {
  if (robots_todo_.empty()) {
    auto due = std::find_if(robots_retries_.begin(), robots_retries_.end(),
                            [now](const auto& r) { return r.first <= now; });
    if (due == robots_retries_.end()) return std::nullopt;
    std::string host = std::move(due->second);
    robots_retries_.erase(due);
    return host;
  }
  std::string host = std::move(robots_todo_.front());
  robots_todo_.pop_front();
  return host;
}

std::optional<TimePoint> Politeness::next_robots_retry() const {
  std::optional<TimePoint> first;
  for (const auto& [due, host] : robots_retries_)
    if (!first || due < *first) first = due;
  return first;
}

void Politeness::robots_unreachable(const std::string& host, std::optional<TimePoint> retry_at,
                                    TimePoint now) {
  Host& h = hosts_[host];
  --robots_fetching_;
  if (h.robots == Robots::Known) {
    h.robots_expires = now + RobotsPolicy::kUnreachableRetry;
    return;
  }
  if (retry_at) {
    robots_retries_.emplace_back(*retry_at, host);
    return;
  }
  h.robots = Robots::Unavailable;
  given_up_.push_back(host);
  ++unavailable_count_;
}

bool Politeness::unavailable(const std::string& host) const {
  const Host* h = find(host);
  return h && h->robots == Robots::Unavailable;
}

bool Politeness::robots_expired(const std::string& host, TimePoint now) const {
  if (!options_.obey_robots) return false;
  const Host* h = find(host);
  return h && h->robots == Robots::Known && now >= h->robots_expires;
}

const Url* Politeness::robots_fetch_started(const std::string& host) {
  ++robots_fetching_;
  const Host* h = find(host);
  return h && h->robots_url ? &*h->robots_url : nullptr;
}

void Politeness::robots_fetched(const std::string& host, const RobotsPolicy& policy,
                                TimePoint now) {
  Host& h = hosts_[host];
  h.rules = policy.rules_for(options_.user_agent);
  h.robots = Robots::Known;
  h.robots_expires = now + policy.refresh_after();
  if (auto delay = h.rules.crawl_delay()) frontier_.set_delay(host, *delay, now);
  frontier_.unhold(host, now);
  --robots_fetching_;
}

RobotsMatch Politeness::allows(const std::string& host, const Url& url) const {
  if (!options_.obey_robots) return {};
  const Host* h = find(host);
  return h ? h->rules.match(url.request_target()) : RobotsMatch{};
}

// The pause comes on top of each URL's own retry wait, so that a host that is down or
// overloaded is not asked again and again for its other URLs.
std::optional<TimePoint> Politeness::fetched(const std::string& host, bool transient_failure,
                                             double elapsed_ms, TimePoint now) {
  Host& h = hosts_[host];
  h.fetches++;
  h.total_ms += elapsed_ms;
  if (!transient_failure) {
    h.failures_in_a_row = 0;
    return std::nullopt;
  }
  if (++h.failures_in_a_row < kFailureThreshold) return std::nullopt;
  int over = std::min(h.failures_in_a_row - kFailureThreshold, 6);
  Duration pause = std::min<Duration>(std::chrono::seconds(int64_t{1} << over), kBackoffMax);
  frontier_.back_off(host, now + pause);
  return now + pause;
}

namespace {

void slowest_first(std::vector<std::pair<std::string, double>>& hosts, size_t n) {
  std::sort(hosts.begin(), hosts.end(),
            [](const auto& a, const auto& b) { return a.second > b.second; });
  if (hosts.size() > n) hosts.resize(n);
}

}  // namespace

std::vector<std::pair<std::string, double>> Politeness::slowest_hosts(size_t n) const {
  std::vector<std::pair<std::string, double>> slow = slowest_forgotten_;
  for (const auto& [name, h] : hosts_)
    if (h.fetches > 0) slow.emplace_back(name, h.total_ms / static_cast<double>(h.fetches));
  slowest_first(slow, n);
  return slow;
}

void Politeness::forget_unavailable(TimePoint now, std::vector<std::string>& forgotten) {
  // Each host past the bound is looked at once: one the frontier will not forget yet goes to
  // the back, for a later call.
  for (size_t over = given_up_.size() - std::min(given_up_.size(), options_.max_unavailable);
       over > 0; --over) {
    std::string host = std::move(given_up_.front());
    given_up_.pop_front();
    auto it = hosts_.find(host);
    if (it == hosts_.end() || it->second.robots != Robots::Unavailable) continue;
    if (!frontier_.forget(host, now) && frontier_.host(host)) {
      given_up_.push_back(std::move(host));
      continue;
    }
    hosts_.erase(it);
    forgotten.push_back(std::move(host));
  }
}

std::vector<std::string> Politeness::forget_idle(TimePoint now) {
  std::vector<std::string> forgotten;
  forget_unavailable(now, forgotten);
  if (hosts_.size() <= options_.max_hosts) return forgotten;
  if (hosts_.size() < next_sweep_ && now < next_sweep_at_) return forgotten;
  for (auto it = hosts_.begin(); it != hosts_.end();) {
    const Host& h = it->second;
    // A host given up on stays so until forget_unavailable() forgets it, the longest first.
    bool waits = h.robots == Robots::Pending || h.robots == Robots::Unavailable;
    if (waits || !(frontier_.forget(it->first, now) || !frontier_.host(it->first))) {
      ++it;
      continue;
    }
    if (h.fetches > 0)
      slowest_forgotten_.emplace_back(it->first, h.total_ms / static_cast<double>(h.fetches));
    forgotten.push_back(it->first);
    it = hosts_.erase(it);
  }
  slowest_first(slowest_forgotten_, kSlowestKept);
  next_sweep_ = hosts_.size() + std::max<size_t>(1, options_.max_hosts / 4);
  next_sweep_at_ = now + kSweepEvery;
  return forgotten;
}

}  // namespace squall
