// Frontier: the URLs waiting to be fetched, grouped by host and handed out by host readiness.
//
//   Frontier frontier({.per_host = 2, .delay = 500ms});
//   frontier.push("example.com", url);
//   if (auto lease = frontier.take(now)) { ... fetch lease->url ...; frontier.release(lease->host,
//   now); } else wait until frontier.next_ready() or until something is pushed or released.
//
// A host is ready when it has URLs, fewer than per_host fetches in flight, its delay since the
// last fetch started has passed, and it is not held (waiting for its robots.txt) or backed off
// (failing). take() only ever looks at ready hosts, round-robin, so a host waiting out its
// delay or its connection limit never holds a worker while another host has work ready: the
// lesson of Scrapy's domain-aware scheduling. Within a host, URLs leave in the order they came
// (breadth first). Pure bookkeeping, no I/O and no clock of its own: callers pass the time.
// When a host is held, given a longer delay or backed off is decided by Politeness
// (politeness.h), the other half of the crawl's per-host rules.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "squall/core/time.h"

namespace squall {

// An entry of the frontier: the id its owner knows it by, and the URL when the owner keeps it
// here.
struct CrawlUrl {
  int64_t id = 0;
  std::string url;
};

struct FrontierOptions {
  size_t per_host = 2;  // fetches in flight per host
  Duration delay{};     // between the starts of two fetches from one host
};

struct FrontierLease {
  std::string host;
  CrawlUrl url;
};

class Frontier {
 public:
  explicit Frontier(FrontierOptions options = {}) : options_(options) {}

  // Queues a URL under its host key (host:port as the crawler shards politeness).
  void push(std::string_view host, CrawlUrl url);
  // A URL of a ready host, or nothing when no host is ready at `now`.
  std::optional<FrontierLease> take(TimePoint now);
  // A fetch from `host` finished: its slot is free again.
  void release(std::string_view host, TimePoint now);

  // The host waits (its robots.txt is being fetched) until unhold().
  void hold(std::string_view host);
  void unhold(std::string_view host, TimePoint now);
  // A host-specific delay (robots.txt Crawl-delay), used when longer than the default.
  void set_delay(std::string_view host, Duration delay, TimePoint now);
  // The host is not fetched from before `until` (it keeps failing, or said Retry-After).
  void back_off(std::string_view host, TimePoint until);
  // Drops every queued URL of the host (it cannot be reached at all); returns them.
  std::vector<CrawlUrl> drop(std::string_view host);
  // Forgets a host that nothing waits on at `now`: no URL queued, none in flight, and its delay
  // and back-off over, so that a URL pushed for it later finds it as new and loses no spacing.
  // Whatever else it had (held, a longer delay) is its owner's to set again. False, changing
  // nothing, for a host that is not idle or not known.
  bool forget(std::string_view host, TimePoint now);

  // The earliest time a host that has URLs but waits for its delay or back-off becomes ready.
  std::optional<TimePoint> next_ready() const;
  // Whether a host is ready now (take() would succeed).
  bool ready() const noexcept { return !ready_.empty(); }

  size_t queued() const noexcept { return queued_; }  // URLs waiting
  size_t in_flight() const noexcept { return in_flight_; }
  size_t hosts() const noexcept { return hosts_.size(); }

  // One host as it stands, for a status page; nothing for a host never pushed.
  struct HostState {
    size_t queued = 0, in_flight = 0;
    Duration delay{};   // between the starts of its fetches
    bool held = false;  // waiting for its robots.txt
  };
  std::optional<HostState> host(std::string_view host) const;

 private:
  struct Host {
    std::string name;
    std::deque<CrawlUrl> urls;
    size_t in_flight = 0;
    TimePoint not_before = TimePoint::min();  // delay after the last start, or a back-off
    Duration delay{};
    bool held = false;
    bool in_ready = false;
    uint64_t timer_generation = 0;  // entries of waiting_ with an older generation are stale
  };
  struct Waiting {
    TimePoint at;
    uint32_t host;
    uint64_t generation;
    bool operator>(const Waiting& o) const { return at > o.at; }
  };

  uint32_t index_of(std::string_view host);
  Host* find(std::string_view host);
  // Puts the host where its state says: the ready list, the waiting heap, or nowhere.
  void schedule(uint32_t index, TimePoint now);
  void wake_due(TimePoint now);

  FrontierOptions options_;
  std::vector<Host> table_;
  std::vector<uint32_t> free_;  // rows of table_ whose host was forgotten, for the next new one
  std::unordered_map<std::string, uint32_t> hosts_;
  std::deque<uint32_t> ready_;
  std::priority_queue<Waiting, std::vector<Waiting>, std::greater<Waiting>> waiting_;
  size_t queued_ = 0;
  size_t in_flight_ = 0;
};

}  // namespace squall
