// ConnectionPool: keep-alive HTTP connections kept per origin, with a per-origin limit and an
// idle timeout.
//
//   auto lease = co_await pool.checkout(key, deadline);
//   if (!lease.connection) lease.connection = make_connection(co_await tcp_connect(...));
//   ... one exchange on lease.connection->stream ...
//   pool.checkin(std::move(lease), /*reusable=*/true);
//
// A key names an origin as the client sees it: "http://host:port" plus the proxy when one is
// used, so connections through different proxies never mix. Each key counts its connections,
// busy and idle; with max_per_key set, checkout() waits (FIFO, within the deadline) while the
// key is at its limit. Idle connections are reused newest first (the one most likely still
// open on the server), closed after idle_timeout by one timer for the whole pool, and at most
// max_idle are kept in all (the oldest are closed first).
//
// checkout() looks at an idle connection before handing it out (Stream::check_idle: a read
// only when the loop saw the socket readable since), so one the server closed while it sat
// idle is closed and the next one, or a new one, is given instead. A server may still close
// a connection after that look, its FIN on the way: the client resends an idempotent request
// once when that happens, and never puts a request it cannot resend on an idle connection
// (see client.h).
//
// Threads: a pool belongs to the loop it was made on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "squall/core/loop.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/core/timeout.h"
#include "squall/net/stream.h"

namespace squall::http {

struct PoolOptions {
  // Connections (busy + idle) per key; 0 for no limit.
  size_t max_per_key = 0;
  // Idle connections kept in all; 0 disables keeping any.
  size_t max_idle = 64;
  Duration idle_timeout = std::chrono::seconds(30);
};

// A connection the pool hands out: its stream and how many exchanges it served.
struct PooledConnection {
  explicit PooledConnection(Stream s) : stream(std::move(s)) {}
  Stream stream;
  uint64_t exchanges = 0;  // finished exchanges before this one
  TimePoint idle_since{};
  // The time limit of the exchange in progress, re-armed for each one (the timer heap is only
  // touched when a deadline comes earlier than the last).
  squall::detail::RollingTimeout exchange_limit;
};

namespace detail {
struct PoolCore;
}

class ConnectionPool {
 public:
  // What checkout() gives: an idle connection to reuse, or none and the right to open one
  // (counted against the key's limit until checkin() or forget()).
  struct Lease {
    std::string key;
    std::unique_ptr<PooledConnection> connection;
    bool reused = false;  // `connection` came from the idle list
  };

  explicit ConnectionPool(PoolOptions options = {}, Loop& loop = Loop::current());
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;
  // close().
  ~ConnectionPool();

  // `co_await pool.checkout(key, deadline)`: a lease for `key`, waiting while the key is at
  // max_per_key. TimeoutError when `deadline` passes first; InvalidStateError once closed. A
  // kill interrupts the wait and takes nothing. With `fresh`, never an idle connection: the
  // right to open a new one (closing the key's oldest idle one if that makes room).
  [[nodiscard]] Task<Lease> checkout(std::string key, TimePoint deadline = TimePoint::max(),
                                     bool fresh = false);
  // Ends a lease. A reusable connection (its last exchange complete and keep-alive) goes to the
  // idle list; otherwise, or when the pool is closed or keeps no idle connections, it is
  // closed. A lease without a connection just gives back its slot. Wakes a waiter of the key.
  void checkin(Lease lease, bool reusable) noexcept;

  // Closes every idle connection, fails waiting checkouts (InvalidStateError) and refuses new
  // ones. Busy connections are closed as they come back. Idempotent.
  void close() noexcept;
  bool closed() const noexcept;

  // Idle connections now, in all and for one key; busy + idle for a key.
  size_t idle_count() const noexcept;
  size_t idle_count(std::string_view key) const noexcept;
  size_t connection_count(std::string_view key) const noexcept;

 private:
  std::unique_ptr<detail::PoolCore> core_;
};

}  // namespace squall::http
