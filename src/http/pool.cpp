// ConnectionPool: per-key counts, idle lists, FIFO waiters and one sweeping timer.
#include "squall/http/pool.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"

namespace squall::http {

namespace detail {

using squall::detail::IntrusiveList;
using squall::detail::Waiter;

// A checkout waiting for its key to drop below the limit.
class SlotWait final : public Waiter {
 public:
  SlotWait(IntrusiveList<Waiter>& list, TimePoint deadline) noexcept
      : list_(list), deadline_(deadline) {}
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) { return suspend_in(list_, h, deadline_); }
  // True when the deadline passed.
  bool await_resume() { return finish(); }

 private:
  IntrusiveList<Waiter>& list_;
  TimePoint deadline_;
};

struct KeyEntry {
  size_t connections = 0;  // busy + idle
  // Idle connections, oldest first: reuse takes the back, the sweep and the cap the front.
  std::vector<std::unique_ptr<PooledConnection>> idle;
  IntrusiveList<Waiter> waiters;
};

struct PoolCore {
  PoolCore(PoolOptions o, Loop& l) : options(o), loop(l) {}

  PoolOptions options;
  Loop& loop;
  // Looked up by string_view without making a string (is_transparent).
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view key) const noexcept {
      return std::hash<std::string_view>{}(key);
    }
  };
  std::unordered_map<std::string, KeyEntry, KeyHash, std::equal_to<>> keys;
  size_t idle = 0;
  bool closed = false;
  TimerHandle sweep_timer;

  KeyEntry* find(std::string_view key) noexcept {
    auto it = keys.find(key);
    return it == keys.end() ? nullptr : &it->second;
  }

  bool at_limit(const KeyEntry& e) const noexcept {
    return options.max_per_key != 0 && e.connections >= options.max_per_key;
  }

  // One connection of `e` went away: a waiter may now open one.
  void release_slot(const std::string& key, KeyEntry& e) noexcept {
    --e.connections;
    if (Waiter* w = e.waiters.pop_front()) w->wake();
    drop_if_unused(key, e);
  }

  void drop_if_unused(const std::string& key, KeyEntry& e) noexcept {
    if (e.connections == 0 && e.idle.empty() && e.waiters.empty()) keys.erase(key);
  }

  // Closes the oldest idle connection of all (O(keys); the cap is rarely reached).
  void close_oldest() noexcept {
    const std::string* oldest_key = nullptr;
    TimePoint oldest = TimePoint::max();
    for (auto& [k, e] : keys) {
      if (!e.idle.empty() && e.idle.front()->idle_since < oldest) {
        oldest = e.idle.front()->idle_since;
        oldest_key = &k;
      }
    }
    if (!oldest_key) return;
    std::string key = *oldest_key;
    KeyEntry& e = keys[key];
    e.idle.erase(e.idle.begin());
    --idle;
    release_slot(key, e);
  }

  void arm_sweep() {
    if (sweep_timer.active() || idle == 0 || closed) return;
    TimePoint earliest = TimePoint::max();
    for (auto& [k, e] : keys) {
      if (!e.idle.empty()) earliest = std::min(earliest, e.idle.front()->idle_since);
    }
    if (earliest == TimePoint::max()) return;
    sweep_timer = loop.call_at(earliest + options.idle_timeout, [this] { sweep(); });
  }

  void sweep() noexcept {
    TimePoint now = Loop::time();
    std::vector<std::string> emptied;
    for (auto& [k, e] : keys) {
      size_t expired = 0;
      while (expired < e.idle.size() && e.idle[expired]->idle_since + options.idle_timeout <= now)
        ++expired;
      if (expired == 0) continue;
      e.idle.erase(e.idle.begin(), e.idle.begin() + static_cast<ptrdiff_t>(expired));
      idle -= expired;
      e.connections -= expired;
      for (size_t i = 0; i < expired; ++i) {
        if (Waiter* w = e.waiters.pop_front()) w->wake();
      }
      if (e.connections == 0 && e.idle.empty() && e.waiters.empty()) emptied.push_back(k);
    }
    for (auto& k : emptied) keys.erase(k);
    arm_sweep();
  }
};

}  // namespace detail

ConnectionPool::ConnectionPool(PoolOptions options, Loop& loop)
    : core_(std::make_unique<detail::PoolCore>(options, loop)) {}

ConnectionPool::~ConnectionPool() {
  close();
}

Task<ConnectionPool::Lease> ConnectionPool::checkout(std::string key, TimePoint deadline,
                                                     bool fresh) {
  detail::PoolCore& c = *core_;
  for (;;) {
    if (c.closed) throw InvalidStateError("connection pool: checkout on a closed pool");
    detail::KeyEntry& e = c.keys[key];
    if (fresh && !e.idle.empty() && c.at_limit(e)) {
      e.idle.erase(e.idle.begin());
      --c.idle;
      --e.connections;
    }
    // The newest idle connection the server has not closed meanwhile; the closed ones go.
    while (!fresh && !e.idle.empty()) {
      std::unique_ptr<PooledConnection> conn = std::move(e.idle.back());
      e.idle.pop_back();
      --c.idle;
      if (conn->stream.check_idle()) co_return Lease{std::move(key), std::move(conn), true};
      --e.connections;
      if (auto* w = e.waiters.pop_front()) w->wake();
    }
    // Waiters queued before us go first, so a steady stream of newcomers cannot starve them.
    if (!c.at_limit(e) && e.waiters.empty()) {
      ++e.connections;
      co_return Lease{std::move(key), nullptr, false};
    }
    bool timed_out = false;
    try {
      timed_out = co_await detail::SlotWait(e.waiters, deadline);
    } catch (...) {
      // A kill: the slot this waiter may have been handed goes to the next one.
      if (auto* entry = c.find(key)) {
        if (!c.at_limit(*entry))
          if (auto* w = entry->waiters.pop_front()) w->wake();
        c.drop_if_unused(key, *entry);
      }
      throw;
    }
    if (timed_out) {
      if (auto* entry = c.find(key)) c.drop_if_unused(key, *entry);
      throw TimeoutError("connection pool: no connection to " + key +
                         " became free in time (the per-host limit is reached)");
    }
    // Woken: a slot freed up or an idle connection came back. A newcomer may have taken it
    // before this task ran; then it waits again, at the back.
    detail::KeyEntry& again = c.keys[key];
    if (!again.idle.empty()) continue;
    if (!c.at_limit(again)) {
      ++again.connections;
      co_return Lease{std::move(key), nullptr, false};
    }
  }
}

void ConnectionPool::checkin(Lease lease, bool reusable) noexcept {
  detail::PoolCore& c = *core_;
  auto it = c.keys.find(lease.key);
  if (it == c.keys.end()) return;  // a lease from before a close() that cleared the key
  detail::KeyEntry& e = it->second;
  auto& conn = lease.connection;
  if (!conn) {
    c.release_slot(it->first, e);
    return;
  }
  bool keep = reusable && !c.closed && c.options.max_idle > 0 && !conn->stream.closed() &&
              conn->stream.buffered().empty() && !conn->stream.at_eof();
  if (!keep) {
    conn.reset();
    c.release_slot(it->first, e);
    return;
  }
  ++conn->exchanges;
  conn->idle_since = Loop::time();
  e.idle.push_back(std::move(conn));
  ++c.idle;
  // A waiter of this key takes the connection just returned.
  if (auto* w = e.waiters.pop_front()) w->wake();
  while (c.idle > c.options.max_idle) c.close_oldest();
  c.arm_sweep();
}

void ConnectionPool::close() noexcept {
  detail::PoolCore& c = *core_;
  if (c.closed) return;
  c.closed = true;
  c.sweep_timer.cancel();
  for (auto& [k, e] : c.keys) {
    c.idle -= e.idle.size();
    e.connections -= e.idle.size();
    e.idle.clear();
    while (auto* w = e.waiters.pop_front()) w->wake();
  }
  std::erase_if(c.keys, [](const auto& kv) { return kv.second.connections == 0; });
}

bool ConnectionPool::closed() const noexcept {
  return core_->closed;
}

size_t ConnectionPool::idle_count() const noexcept {
  return core_->idle;
}

size_t ConnectionPool::idle_count(std::string_view key) const noexcept {
  auto* e = core_->find(key);
  return e ? e->idle.size() : 0;
}

size_t ConnectionPool::connection_count(std::string_view key) const noexcept {
  auto* e = core_->find(key);
  return e ? e->connections : 0;
}

}  // namespace squall::http
