// PgConnection: a PostgreSQL client on the loop, over libpq's asynchronous API in pipeline mode.
//
//   PgConnection db("postgresql://user:pw@127.0.0.1:5432/app");
//   PgResult r = co_await db.query("SELECT id, name FROM users WHERE id = $1", 42);
//   for (PgRow row : r) use(row.get_int("id"), row.get_string("name"));
//
//   PgTransaction tx = co_await db.begin();
//   co_await tx.query("UPDATE accounts SET balance = balance - $1 WHERE id = $2", 10, 1);
//   co_await tx.commit();            // leaving the scope without commit() rolls back
//
//   PgRowStream rows = co_await db.stream("SELECT * FROM big");
//   for (;;) {
//     bool more = co_await rows.next();
//     if (!more) break;
//     use(rows.row());
//   }
//
// One connection carries many queries at once: each query() is sent as soon as it is called
// (with its own Sync, so each is its own implicit transaction and a failing one never aborts
// another) and its result comes back in order, so a thousand tasks share one connection without
// waiting for each other's round trips. Nothing blocks the loop: the socket is non-blocking,
// libpq's output is flushed when the socket is writable and its input read when readable.
// A single host name is resolved on the loop (the default resolver, resolver.h) and libpq is
// given its addresses to try in order; a list of hosts ("host=a,b") is left to libpq, whose
// getaddrinfo blocks, as does its reading of a password file.
//
// Memory: libpq builds a whole result in memory before query() returns it, so a SELECT's size
// is the server's to choose. For a result that may be large, stream() reads it row by row
// (libpq's single-row mode) and holds at most `stream_buffer_rows` rows: when the consumer
// falls behind, the connection stops reading and the server waits on TCP.
//
// Connecting: the first query (or connect()) connects; URLs and conninfo strings are libpq's
// (postgresql://user:password@host:port/db?param=value, percent-encoded; or "host=... dbname=...").
// When the connection is lost (the server restarted, a network failure), every query in flight
// fails with PgError of kind Closed (it may or may not have run), and the next query connects
// again. A transaction open at the time is gone: its queries fail, never run outside it.
//
// Timeouts: a query's limit (PgQueryOptions::timeout, else PgOptions::query_timeout) covers
// waiting for the connection, connecting and the server's answer; when it passes, the query
// fails with TimeoutError at once and, if the server is running it, a cancel request is sent
// (libpq's PQcancel, on a short-lived thread of its own: PQcancel opens a connection and waits
// for it, which must not happen on the loop; at most one per connection at a time). A killed
// query is cancelled the same way. A cancel stops whatever statement the server is running when
// it arrives: it is only sent while the abandoned query is the one running (and again every
// 250 ms while it still runs, since one that reaches the server before the statement starts is
// lost). Queries made after that wait until the cancelled statement has ended and the cancel
// request has been delivered (the server would run them after it anyway), so a cancel can
// only hit a statement sent before the
// timeout, in the time between the cancelled one's last row and the cancel's arrival. The
// cancelled statement's result, when it comes, is dropped.
//
// Not supported: COPY (the connection is closed if the server enters COPY), and receiving
// notifications (after a LISTEN they are dropped as they arrive).
//
// Lifetime: the connection must outlive the calls on it, and be destroyed before its loop. While
// connected it watches its socket (to notice the server going away), which the loop counts as
// pending work: close() or destroy it when done.
//
// Threads: a connection belongs to the loop that was current when it was made; use it, its
// transactions and its streams from tasks on that loop only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "squall/core/lock.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/postgres_result.h"

namespace squall {

struct PgOptions {
  // Limit on establishing a connection (TCP, TLS, authentication).
  Duration connect_timeout = std::chrono::seconds(10);
  // Default limit on each query; none unless set.
  Timeout query_timeout;
  // Rows a stream holds before the connection stops reading from the server (at least 1).
  size_t stream_buffer_rows = 1000;
};

struct PgQueryOptions {
  // This query's limit, instead of PgOptions::query_timeout. For a stream, the limit on each
  // wait for its next row.
  Timeout timeout;
};

namespace detail {
class PgSession;
struct PgOp;
struct PgStatement {
  std::string sql;
  std::vector<PgParam> params;
};
}  // namespace detail

class PgTransaction;
class PgRowStream;

class PgConnection {
 public:
  // Parses `url` (a postgresql:// URL or a conninfo string, as libpq accepts them) without
  // connecting; InvalidArgumentError, with libpq's reason, if it cannot be parsed (or the
  // options are out of range).
  explicit PgConnection(std::string_view url, PgOptions options = {});
  // Closes the connection: queries still in flight fail with PgError (Closed).
  ~PgConnection();
  PgConnection(PgConnection&& other) noexcept;
  PgConnection& operator=(PgConnection&& other) noexcept;

  // Connects now, if not connected. PgError (Connect) if the server cannot be reached or
  // refuses us; TimeoutError after connect_timeout.
  Task<void> connect();

  // Runs one statement ($1, $2... bound to `params`) and returns its result once complete.
  // PgError if the server refuses it or the connection is lost, TimeoutError past the limit.
  // While a transaction is open on this connection, queries from other tasks wait until it
  // ends (from the task holding it, use the transaction's query: this throws InvalidStateError).
  //   co_await db.query("SELECT $1::int + $2::int", 1, 2);
  //   co_await db.query({.timeout = 2s}, "SELECT slow($1)", x);
  //   co_await db.query("INSERT ...", params);   // a std::vector<PgParam>
  // (Parameters are arguments, not a braced list: GCC 12 cannot compile an initializer_list
  // inside a co_await expression.)
  template <class... Args>
  requires(std::is_constructible_v<PgParam, Args&&>&&...) Task<PgResult> query(std::string_view sql,
                                                                               Args&&... params) {
    return query(PgQueryOptions{}, sql, {PgParam(std::forward<Args>(params))...});
  }
  template <class... Args>
  requires(std::is_constructible_v<PgParam, Args&&>&&...) Task<PgResult> query(
      PgQueryOptions options, std::string_view sql, Args&&... params) {
    return query(options, sql, {PgParam(std::forward<Args>(params))...});
  }
  Task<PgResult> query(std::string_view sql, const std::vector<PgParam>& params) {
    return query(PgQueryOptions{}, sql, params);
  }
  Task<PgResult> query(PgQueryOptions options, std::string_view sql,
                       const std::vector<PgParam>& params);

  // Starts a statement whose rows are read one at a time (see PgRowStream). Results of queries
  // sent after it come after its last row: read the stream to its end (or destroy it, which
  // cancels it) before waiting for them.
  template <class... Args>
  requires(std::is_constructible_v<PgParam, Args&&>&&...) Task<PgRowStream> stream(
      std::string_view sql, Args&&... params) {
    return stream(PgQueryOptions{}, sql, {PgParam(std::forward<Args>(params))...});
  }
  template <class... Args>
  requires(std::is_constructible_v<PgParam, Args&&>&&...) Task<PgRowStream> stream(
      PgQueryOptions options, std::string_view sql, Args&&... params) {
    return stream(options, sql, {PgParam(std::forward<Args>(params))...});
  }
  Task<PgRowStream> stream(std::string_view sql, const std::vector<PgParam>& params) {
    return stream(PgQueryOptions{}, sql, params);
  }
  Task<PgRowStream> stream(PgQueryOptions options, std::string_view sql,
                           const std::vector<PgParam>& params);

  // Sends `statement` ("BEGIN", or "BEGIN ISOLATION LEVEL SERIALIZABLE"...) and returns the
  // open transaction, which has the connection to itself until it ends.
  Task<PgTransaction> begin(std::string_view statement = "BEGIN");

  // Closes the connection now (queries in flight fail with PgError, Closed); the next query
  // connects again.
  void close();

  bool connected() const noexcept;
  // Queries sent whose results have not all arrived.
  size_t in_flight() const noexcept;
  // The server process serving this connection (0 when not connected).
  int backend_pid() const noexcept;
  // "host:port/db", for messages; never the password.
  const std::string& where() const noexcept;

 private:
  std::unique_ptr<detail::PgSession> session_;
};

// An open transaction: the connection's queries go through it until commit() or rollback().
// Destroyed while open (an exception, a kill), it sends ROLLBACK without waiting for it; the
// connection is the next task's once the ROLLBACK is done (or, if the ROLLBACK fails, once the
// connection has been closed, which ends the transaction on the server).
class PgTransaction {
 public:
  PgTransaction(PgTransaction&& other) noexcept;
  PgTransaction& operator=(PgTransaction&&) = delete;
  PgTransaction& operator=(const PgTransaction&) = delete;
  PgTransaction(const PgTransaction&) = delete;
  ~PgTransaction();

  // A statement inside the transaction. A statement that fails leaves the transaction failed
  // (PostgreSQL's rule): later ones fail with SQLSTATE 25P02 until rollback(). PgError
  // (Closed) if the connection was lost since begin().
  template <class... Args>
  requires(std::is_constructible_v<PgParam, Args&&>&&...) Task<PgResult> query(std::string_view sql,
                                                                               Args&&... params) {
    return query(PgQueryOptions{}, sql, {PgParam(std::forward<Args>(params))...});
  }
  template <class... Args>
  requires(std::is_constructible_v<PgParam, Args&&>&&...) Task<PgResult> query(
      PgQueryOptions options, std::string_view sql, Args&&... params) {
    return query(options, sql, {PgParam(std::forward<Args>(params))...});
  }
  Task<PgResult> query(std::string_view sql, const std::vector<PgParam>& params) {
    return query(PgQueryOptions{}, sql, params);
  }
  Task<PgResult> query(PgQueryOptions options, std::string_view sql,
                       const std::vector<PgParam>& params);

  // COMMIT. PgError if it fails, or (kind InvalidState, SQLSTATE 25P02) if the server rolled
  // back instead because a statement had failed. The transaction is over either way.
  Task<void> commit();
  // ROLLBACK; the transaction is over.
  Task<void> rollback();

  bool active() const noexcept { return session_ != nullptr; }

 private:
  friend class detail::PgSession;
  PgTransaction(detail::PgSession& session, Lock::Guard guard, uint64_t generation) noexcept;
  Task<PgResult> run(detail::PgStatement statement, PgQueryOptions options);
  Task<void> finish(std::string statement);
  // Ends it: the session is free for others.
  void end() noexcept;

  detail::PgSession* session_;
  Lock::Guard guard_;
  uint64_t generation_;
};

// The rows of one statement, read as they arrive (libpq's single-row mode). next() moves to the
// next row; row() is that row, valid until the next call to next(). Destroying the stream
// before its end cancels the statement and drops the rest of its rows.
class PgRowStream {
 public:
  PgRowStream(PgRowStream&& other) noexcept;
  PgRowStream& operator=(PgRowStream&&) = delete;
  PgRowStream(const PgRowStream&) = delete;
  ~PgRowStream();

  // True with the next row in row(); false after the last. PgError if the statement fails
  // part-way (the rows before it were real), TimeoutError if no row comes within the limit.
  Task<bool> next();
  PgRow row() const;
  // The command tag once next() returned false ("SELECT 100000").
  std::string_view command() const;
  // Rows read so far.
  int64_t count() const noexcept { return count_; }

 private:
  friend class detail::PgSession;
  PgRowStream(std::shared_ptr<detail::PgOp> op, Timeout timeout) noexcept;

  std::shared_ptr<detail::PgOp> op_;
  Timeout timeout_;
  PgResult current_;
  int current_row_ = 0;
  int64_t count_ = 0;
};

}  // namespace squall
