// Frontier: per-host queues, a round-robin list of ready hosts, a heap of waiting ones.
#include "squall/crawl/frontier.h"

#include <algorithm>

namespace squall {

uint32_t Frontier::index_of(std::string_view host) {
  uint32_t next = free_.empty() ? static_cast<uint32_t>(table_.size()) : free_.back();
  auto [it, inserted] = hosts_.try_emplace(std::string(host), next);
  if (!inserted) return it->second;
  if (free_.empty()) {
    table_.emplace_back();
  } else {
    free_.pop_back();
    // The heap may still hold entries for the row's earlier host: its generation goes on, so
    // none of them matches the new one.
    uint64_t generation = table_[next].timer_generation;
    table_[next] = Host{};
    table_[next].timer_generation = generation + 1;
  }
  table_[next].name = it->first;
  table_[next].delay = options_.delay;
  return next;
}

Frontier::Host* Frontier::find(std::string_view host) {
  auto it = hosts_.find(std::string(host));
  return it == hosts_.end() ? nullptr : &table_[it->second];
}

std::optional<Frontier::HostState> Frontier::host(std::string_view host) const {
  auto it = hosts_.find(std::string(host));
  if (it == hosts_.end()) return std::nullopt;
  const Host& h = table_[it->second];
  return HostState{h.urls.size(), h.in_flight, h.delay, h.held};
}

void Frontier::schedule(uint32_t index, TimePoint now) {
  Host& h = table_[index];
  if (h.in_ready || h.held || h.urls.empty() || h.in_flight >= options_.per_host) return;
  if (h.not_before > now) {
    // One live heap entry per host: a newer generation makes earlier entries stale.
    waiting_.push({h.not_before, index, ++h.timer_generation});
    return;
  }
  h.in_ready = true;
  ready_.push_back(index);
}

void Frontier::wake_due(TimePoint now) {
  while (!waiting_.empty() && waiting_.top().at <= now) {
    Waiting w = waiting_.top();
    waiting_.pop();
    if (w.generation == table_[w.host].timer_generation) schedule(w.host, now);
  }
}

void Frontier::push(std::string_view host, CrawlUrl url) {
  uint32_t i = index_of(host);
  table_[i].urls.push_back(std::move(url));
  ++queued_;
  // A push has no clock: TimePoint::min() sends a host still inside its delay to the heap,
  // where take() finds it when the delay is over.
  if (table_[i].urls.size() == 1) schedule(i, TimePoint::min());
}

std::optional<FrontierLease> Frontier::take(TimePoint now) {
  wake_due(now);
  while (!ready_.empty()) {
    uint32_t i = ready_.front();
    ready_.pop_front();
    Host& h = table_[i];
    h.in_ready = false;
    if (h.held || h.urls.empty() || h.in_flight >= options_.per_host) continue;
    if (h.not_before > now) {
      schedule(i, now);
      continue;
    }
    FrontierLease lease{h.name, std::move(h.urls.front())};
    h.urls.pop_front();
    --queued_;
    ++h.in_flight;
    ++in_flight_;
    h.not_before = now + h.delay;
    schedule(i, now);  // to the back of the ready list, or to wait out its delay
    return lease;
  }
  return std::nullopt;
}

void Frontier::release(std::string_view host, TimePoint now) {
  Host* h = find(host);
  if (!h || h->in_flight == 0) return;
  --h->in_flight;
  --in_flight_;
  schedule(static_cast<uint32_t>(h - table_.data()), now);
}

void Frontier::hold(std::string_view host) {
  table_[index_of(host)].held = true;
}

void Frontier::unhold(std::string_view host, TimePoint now) {
  uint32_t i = index_of(host);
  table_[i].held = false;
  schedule(i, now);
}

void Frontier::set_delay(std::string_view host, Duration delay, TimePoint now) {
  uint32_t i = index_of(host);
  Host& h = table_[i];
  h.delay = std::max(delay, options_.delay);
  schedule(i, now);
}

void Frontier::back_off(std::string_view host, TimePoint until) {
  uint32_t i = index_of(host);
  Host& h = table_[i];
  h.not_before = std::max(h.not_before, until);
  // If it sits in the ready list, take() sees the new time and moves it to the heap.
  if (!h.in_ready) schedule(i, TimePoint::min());
}

std::vector<CrawlUrl> Frontier::drop(std::string_view host) {
  Host* h = find(host);
  if (!h) return {};
  std::vector<CrawlUrl> out(std::make_move_iterator(h->urls.begin()),
                            std::make_move_iterator(h->urls.end()));
  queued_ -= h->urls.size();
  h->urls.clear();
  return out;
}

bool Frontier::forget(std::string_view host, TimePoint now) {
  auto it = hosts_.find(std::string(host));
  if (it == hosts_.end()) return false;
  Host& h = table_[it->second];
  // A host in the ready list is found there by its row: it stays until take() passes it.
  if (!h.urls.empty() || h.in_flight > 0 || h.in_ready || h.not_before > now) return false;
  ++h.timer_generation;  // its entries in the heap are stale now
  h.name.clear();
  free_.push_back(it->second);
  hosts_.erase(it);
  return true;
}

std::optional<TimePoint> Frontier::next_ready() const {
  // Stale entries may be early; an early wake-up only costs a take() that finds nothing.
  if (waiting_.empty()) return std::nullopt;
  return waiting_.top().at;
}

}  // namespace squall
