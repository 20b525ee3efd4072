// The PostgreSQL client: libpq's asynchronous API in pipeline mode, driven by the loop.
#include "squall/net/postgres.h"

#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <thread>
#include <utility>

#include "squall/core/detail/task_state.h"
#include "squall/core/event.h"
#include "squall/core/io.h"
#include "squall/core/log.h"
#include "squall/core/loop.h"
#include "squall/core/sleep.h"
#include "squall/core/timeout.h"
#include "squall/net/address.h"
#include "squall/net/net_error.h"
#include "squall/net/resolver.h"

namespace squall {

namespace detail {

// One statement sent to the server, from the moment it is sent until its Sync comes back. The
// queue of the session and the task waiting for it share it: either may finish first.
struct PgOp {
  enum class Kind { Query, Stream };

  Kind kind = Kind::Query;
  std::string where;             // the connection, for messages
  std::string label;             // the start of the statement, for messages
  PgSession* session = nullptr;  // while the op is in the session's queue
  Event ready;                   // set when results_done, and for a stream each time rows arrive
  bool results_done = false;     // every result of the statement has arrived (or it failed)
  bool abandoned = false;        // nobody will read the result: drop it
  bool cancel = false;           // abandoned by a timeout or a kill: cancel it while it runs
  bool single_row = false;       // libpq's single-row mode is on for it
  bool cancelling = false;       // counted in the session's cancelling_
  bool close_on_error = false;   // a transaction's ROLLBACK: if it fails, close the connection
  Lock::Guard gate;              // the end of a transaction holds the connection until done
  PgResult result;               // a query's result
  std::exception_ptr error;
  std::deque<PgResult> rows;  // a stream's results holding rows not yet read, oldest first
  size_t buffered = 0;        // rows in `rows`
  std::string command;        // a stream's command tag
};

class PgSession {
 public:
  PgSession(std::string conninfo, PgOptions options, std::string where)
      : loop_(&Loop::current()),
        conninfo_(std::move(conninfo)),
        options_(options),
        where_(std::move(where)),
        cancel_busy_(std::make_shared<std::atomic<bool>>(false)) {
    settled_.set();
  }
  ~PgSession() {
    drain_timer_.cancel();
    cancel_retry_.cancel();
    lose(closed("the connection was closed"));
  }
  PgSession(const PgSession&) = delete;
  PgSession& operator=(const PgSession&) = delete;

  Task<void> connect_now();
  Task<PgResult> run_query(PgStatement statement, PgQueryOptions options);
  Task<PgRowStream> run_stream(PgStatement statement, PgQueryOptions options);
  Task<PgTransaction> begin(std::string statement);

  // Sends one statement and its Sync; the op is in the queue on return. The connection must be
  // up. PgError (and the connection closed) if libpq cannot queue it.
  std::shared_ptr<PgOp> send(const PgStatement& statement, PgOp::Kind kind);
  // Sends the ROLLBACK of a transaction that ends unwinding; nobody waits for its result, and
  // the connection stays the transaction's (`gate`) until it is done.
  void send_rollback(Lock::Guard gate) noexcept;
  // Waits for a query's result (or its error) until `deadline`.
  static Task<PgResult> wait_result(std::shared_ptr<PgOp> op, TimePoint deadline, Timeout limit);

  // Nobody will read `op` any more: drop what comes, cancel it if asked and it is running.
  void on_abandoned(PgOp& op);
  // Reads every result libpq can give without blocking, in order.
  void drain();
  // Fails every op in flight with `error` and closes the connection.
  void lose(std::exception_ptr error) noexcept;
  // Waits until no cancelled statement is still in flight: a statement sent behind one could
  // be hit by the cancel meant for it.
  Task<void> settle(TimePoint deadline, Timeout limit, std::string label);

  bool paused() const noexcept { return paused_; }
  bool alive(uint64_t generation) const noexcept { return conn_ && generation_ == generation; }
  // InvalidStateError when the calling task holds this connection's transaction.
  void check_not_in_transaction() const;
  Timeout query_limit(const PgQueryOptions& o) const {
    return o.timeout ? o.timeout : options_.query_timeout;
  }

  std::exception_ptr closed(std::string_view why) const {
    return std::make_exception_ptr(PgError(ErrorKind::Closed, where_, "", std::string(why)));
  }

  Loop* loop_;
  std::string conninfo_;
  std::string host_name_;  // a single host name to resolve on the loop (else libpq's to use)
  PgOptions options_;
  std::string where_;
  PGconn* conn_ = nullptr;
  int fd_ = -1;
  uint64_t generation_ = 0;  // counts connections made and lost
  Lock lock_;                // held while sending, and for a whole transaction
  TaskState* transaction_owner_ = nullptr;
  std::deque<std::shared_ptr<PgOp>> ops_;

 private:
  Task<void> ensure_connected(TimePoint deadline);
  Task<Lock::Guard> acquire(TimePoint deadline, Timeout limit, std::string label);
  void on_io(IoEvents events);
  // Handles one result for the op at the head; false if the connection was lost meanwhile.
  bool take(PGresult* raw);
  // The head of the queue changed: set it up (single-row mode, a cancel owed to it).
  void on_new_head();
  bool flush();
  void update_interest();
  void request_cancel();
  void schedule_drain();

  bool paused_ = false;      // a stream's buffer is full: not reading
  size_t cancelling_ = 0;    // ops in flight being cancelled
  Event settled_;            // set while cancelling_ is 0
  bool want_write_ = false;  // libpq has output it could not send yet
  IoEvents watching_ = IoEvents::None;
  TimerHandle drain_timer_;
  TimerHandle cancel_retry_;
  std::shared_ptr<std::atomic<bool>> cancel_busy_;  // a cancel thread is running
};

namespace {

std::string label_of(std::string_view sql) {
  std::string s(sql.substr(0, 60));
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (sql.size() > 60) s += "...";
  return s;
}

std::string describe(Duration d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return std::to_string(ms) + " ms";
}

// Time left until `deadline`, for the waits that take a Timeout.
Timeout remaining(TimePoint deadline) {
  if (deadline == TimePoint::max()) return std::nullopt;
  return std::max(Duration::zero(), deadline - Clock::now());
}

// libpq's messages end with a newline and may hold several lines.
std::string tidy(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s;
}

std::string field(const PGresult* r, int code) {
  const char* v = PQresultErrorField(r, code);
  return v ? v : "";
}

std::exception_ptr server_error(const std::string& where, const PGresult* r) {
  std::string sqlstate = field(r, PG_DIAG_SQLSTATE);
  std::string message = field(r, PG_DIAG_MESSAGE_PRIMARY);
  if (message.empty()) message = tidy(PQresultErrorMessage(r));
  std::string severity = field(r, PG_DIAG_SEVERITY_NONLOCALIZED);
  // Class 57P (the server shutting down or crashing) and 08 (connection exceptions) end the
  // session, as does any FATAL error.
  bool ends_session = sqlstate.starts_with("57P") || sqlstate.starts_with("08") ||
                      severity == "FATAL" || severity == "PANIC";
  return std::make_exception_ptr(PgError(
      ends_session ? ErrorKind::Closed : ErrorKind::InvalidArgument, where, std::move(sqlstate),
      std::move(message), field(r, PG_DIAG_MESSAGE_DETAIL), field(r, PG_DIAG_MESSAGE_HINT)));
}

PgError connect_error(const std::string& where, PGconn* c) {
  std::string message = c ? tidy(PQerrorMessage(c)) : "out of memory";
  return PgError(ErrorKind::Connect, where, "", "cannot connect: " + message);
}

void on_notice(void* arg, const PGresult* r) {
  const auto* where = static_cast<const std::string*>(arg);
  std::string severity = field(r, PG_DIAG_SEVERITY_NONLOCALIZED);
  LogLevel level = severity == "WARNING" ? LogLevel::Warning : LogLevel::Debug;
  log(level, "postgres " + *where + ": " + tidy(PQresultErrorMessage(r)));
}

// Marks an op abandoned when the waiting coroutine leaves before it completed (a timeout, a
// kill, a destroyed frame).
class AbandonGuard {
 public:
  explicit AbandonGuard(PgOp& op) noexcept : op_(&op) {}
  ~AbandonGuard() {
    if (op_ && !op_->results_done) {
      op_->abandoned = true;
      op_->cancel = true;
      if (op_->session) op_->session->on_abandoned(*op_);
    }
  }
  AbandonGuard(const AbandonGuard&) = delete;
  AbandonGuard& operator=(const AbandonGuard&) = delete;

 private:
  PgOp* op_;
};

}  // namespace

Task<Lock::Guard> PgSession::acquire(TimePoint deadline, Timeout limit, std::string label) {
  bool timed_out = false;
  try {
    co_return co_await lock_.guard(remaining(deadline));
  } catch (const TimeoutError&) {
    if (Clock::now() < deadline) throw;  // someone else's limit (with_timeout) or a kill
    timed_out = true;
  }
  if (timed_out)
    throw TimeoutError("postgres " + where_ + ": query timed out after " + describe(*limit) +
                       " waiting for the connection (a transaction held it): " + label);
  co_return Lock::Guard();
}

void PgSession::check_not_in_transaction() const {
  if (transaction_owner_ && transaction_owner_ == current_task())
    throw InvalidStateError("postgres " + where_ +
                            ": a query on the connection from the task holding its open "
                            "transaction would wait for itself; use the transaction's query()");
}

Task<void> PgSession::settle(TimePoint deadline, Timeout limit, std::string label) {
  for (;;) {
    bool timed_out = false;
    if (cancelling_ > 0) {
      try {
        co_await settled_.wait(remaining(deadline));
      } catch (const TimeoutError&) {
        if (Clock::now() < deadline) throw;
        timed_out = true;
      }
    } else if (cancel_busy_->load()) {
      // A cancel still on its way could reach the server after the cancelled statement ended:
      // the thread finishes once the server has it, which takes a round trip on loopback.
      if (Clock::now() >= deadline) {
        timed_out = true;
      } else {
        co_await sleep_until(std::min(deadline, Clock::now() + std::chrono::milliseconds(2)));
      }
    } else {
      co_return;
    }
    if (timed_out)
      throw TimeoutError("postgres " + where_ + ": query timed out after " + describe(*limit) +
                         " waiting for a cancelled statement to end: " + label);
  }
}

Task<void> PgSession::connect_now() {
  Lock::Guard guard = co_await acquire(TimePoint::max(), std::nullopt, "connect");
  co_await ensure_connected(TimePoint::max());
}

Task<void> PgSession::ensure_connected(TimePoint deadline) {
  if (conn_) co_return;
  TimePoint start = Clock::now();
  TimePoint limit = std::min(deadline, start + options_.connect_timeout);
  // libpq resolves host names with getaddrinfo, which blocks: resolve on the loop instead and
  // hand libpq the addresses (hostaddr), one host entry per address so that it tries each.
  std::string hosts, addresses;
  if (!host_name_.empty()) {
    std::vector<Address> found;
    bool timed_out = false;
    try {
      found = co_await with_deadline(limit, default_resolver().resolve(host_name_, 0));
    } catch (const TimeoutError&) {
      if (Clock::now() < limit) throw;
      timed_out = true;
    } catch (const NetError& e) {
      throw PgError(ErrorKind::Resolve, where_, "", e.what());
    }
    if (timed_out)
      throw TimeoutError("postgres " + where_ + ": resolving " + host_name_ + " took longer than " +
                         describe(limit - start));
    for (const Address& a : found) {
      hosts += (hosts.empty() ? "" : ",") + host_name_;
      addresses += (addresses.empty() ? "" : ",") + a.host();
    }
  }
  const char* keywords[] = {"dbname", "host", "hostaddr", nullptr};
  const char* values[] = {conninfo_.c_str(), hosts.c_str(), addresses.c_str(), nullptr};
  if (hosts.empty()) keywords[1] = nullptr;
  std::unique_ptr<PGconn, decltype(&PQfinish)> c(PQconnectStartParams(keywords, values, 1),
                                                 &PQfinish);
  if (!c || PQstatus(c.get()) == CONNECTION_BAD) throw connect_error(where_, c.get());
  PostgresPollingStatusType status = PGRES_POLLING_WRITING;
  while (status != PGRES_POLLING_OK) {
    if (status == PGRES_POLLING_FAILED) throw connect_error(where_, c.get());
    // The socket may change between polls (another address of the host, a retry without SSL).
    int fd = PQsocket(c.get());
    if (fd < 0) throw connect_error(where_, c.get());
    bool timed_out = false;
    try {
      if (status == PGRES_POLLING_READING) {
        co_await wait_readable(fd, remaining(limit));
      } else {
        co_await wait_writable(fd, remaining(limit));
      }
    } catch (const TimeoutError&) {
      if (Clock::now() < limit) throw;
      timed_out = true;
    }
    if (timed_out)
      throw TimeoutError("postgres " + where_ + ": connecting took longer than " +
                         describe(limit - start));
    status = PQconnectPoll(c.get());
  }
  if (PQsetnonblocking(c.get(), 1) != 0 || PQenterPipelineMode(c.get()) != 1)
    throw connect_error(where_, c.get());
  PQsetNoticeReceiver(c.get(), on_notice, &where_);
  conn_ = c.release();
  fd_ = PQsocket(conn_);
  ++generation_;
  update_interest();
}

std::shared_ptr<PgOp> PgSession::send(const PgStatement& statement, PgOp::Kind kind) {
  if (statement.sql.find('\0') != std::string::npos)
    throw InvalidArgumentError("postgres: the statement contains a NUL byte");
  if (statement.params.size() > 65535)
    throw InvalidArgumentError("postgres: at most 65535 parameters, not " +
                               std::to_string(statement.params.size()));
  size_t n = statement.params.size();
  std::vector<const char*> values(n);
  std::vector<int> lengths(n);
  std::vector<int> formats(n);
  for (size_t i = 0; i < n; ++i) {
    const PgParam& p = statement.params[i];
    if (p.is_null()) continue;
    if (!p.binary() && p.value().find('\0') != std::string_view::npos)
      throw InvalidArgumentError("postgres: parameter $" + std::to_string(i + 1) +
                                 " contains a NUL byte, which text cannot hold (for bytes, "
                                 "use PgParam::bytes)");
    values[i] = p.value().data();
    lengths[i] = static_cast<int>(p.value().size());
    formats[i] = p.binary() ? 1 : 0;
  }
  if (!conn_) throw PgError(ErrorKind::Closed, where_, "", "not connected");
  bool head = ops_.empty();
  if (!PQsendQueryParams(conn_, statement.sql.c_str(), static_cast<int>(n), nullptr, values.data(),
                         lengths.data(), formats.data(), 0)) {
    std::string why = tidy(PQerrorMessage(conn_));
    lose(closed("cannot send a query: " + why));
    throw PgError(ErrorKind::Closed, where_, "", "cannot send a query: " + why);
  }
  auto op = std::make_shared<PgOp>();
  op->kind = kind;
  op->where = where_;
  op->label = label_of(statement.sql);
  op->session = this;
  // Single-row mode can only be set on the statement libpq is reading now: here if nothing is
  // ahead of it, else when it reaches the head (on_new_head).
  if (kind == PgOp::Kind::Stream && head) op->single_row = PQsetSingleRowMode(conn_) == 1;
  // Each statement gets its own Sync: its own implicit transaction (as outside a pipeline),
  // and an error aborts nothing after it. PQpipelineSync also flushes what it can.
  if (!PQpipelineSync(conn_)) {
    std::string why = tidy(PQerrorMessage(conn_));
    lose(closed("cannot send a query: " + why));
    throw PgError(ErrorKind::Closed, where_, "", "cannot send a query: " + why);
  }
  ops_.push_back(op);
  if (flush()) update_interest();
  if (!op->session) std::rethrow_exception(op->error);  // lost while flushing
  return op;
}

void PgSession::send_rollback(Lock::Guard gate) noexcept {
  try {
    auto op = send(PgStatement{"ROLLBACK", {}}, PgOp::Kind::Query);
    op->abandoned = true;
    op->close_on_error = true;
    op->gate = std::move(gate);
  } catch (...) {
    // The connection is gone, and the transaction with it.
  }
}

Task<PgResult> PgSession::wait_result(std::shared_ptr<PgOp> op, TimePoint deadline, Timeout limit) {
  AbandonGuard guard(*op);
  bool timed_out = false;
  if (!op->results_done) {
    try {
      co_await op->ready.wait(remaining(deadline));
    } catch (const TimeoutError&) {
      if (Clock::now() < deadline) throw;
      timed_out = true;
    }
  }
  if (timed_out) {
    // `guard` abandons and cancels it on the way out.
    throw TimeoutError("postgres " + op->where + ": query timed out after " +
                       describe(limit.value_or(Duration::zero())) + " (cancelled): " + op->label);
  }
  if (op->error) std::rethrow_exception(op->error);
  co_return std::move(op->result);
}

Task<PgResult> PgSession::run_query(PgStatement statement, PgQueryOptions options) {
  check_not_in_transaction();
  Timeout limit = query_limit(options);
  TimePoint deadline = deadline_after(limit);
  std::shared_ptr<PgOp> op;
  {
    Lock::Guard guard = co_await acquire(deadline, limit, label_of(statement.sql));
    co_await settle(deadline, limit, label_of(statement.sql));
    co_await ensure_connected(deadline);
    op = send(statement, PgOp::Kind::Query);
  }
  co_return co_await wait_result(std::move(op), deadline, limit);
}

Task<PgRowStream> PgSession::run_stream(PgStatement statement, PgQueryOptions options) {
  check_not_in_transaction();
  Timeout limit = query_limit(options);
  TimePoint deadline = deadline_after(limit);
  Lock::Guard guard = co_await acquire(deadline, limit, label_of(statement.sql));
  co_await settle(deadline, limit, label_of(statement.sql));
  co_await ensure_connected(deadline);
  co_return PgRowStream(send(statement, PgOp::Kind::Stream), limit);
}

Task<PgTransaction> PgSession::begin(std::string statement) {
  check_not_in_transaction();
  Timeout limit = options_.query_timeout;
  TimePoint deadline = deadline_after(limit);
  Lock::Guard guard = co_await acquire(deadline, limit, statement);
  co_await settle(deadline, limit, statement);
  co_await ensure_connected(deadline);
  std::shared_ptr<PgOp> op = send(PgStatement{statement, {}}, PgOp::Kind::Query);
  transaction_owner_ = current_task();
  PgTransaction tx(*this, std::move(guard), generation_);
  std::exception_ptr failed;
  try {
    co_await wait_result(op, deadline, limit);
  } catch (...) {
    failed = std::current_exception();
  }
  if (failed) {
    // A BEGIN the server refused opened nothing. One that timed out or was killed may still
    // run: then `tx` sends ROLLBACK as it goes.
    if (op->results_done) tx.end();
    std::rethrow_exception(failed);
  }
  co_return tx;
}

void PgSession::on_abandoned(PgOp& op) {
  if (op.kind == PgOp::Kind::Stream) {
    op.rows.clear();
    op.buffered = 0;
  }
  if (op.cancel && !op.results_done && !op.cancelling) {
    op.cancelling = true;
    ++cancelling_;
    settled_.clear();
  }
  if (ops_.empty() || ops_.front().get() != &op) return;  // on_new_head sees to it
  if (op.cancel) request_cancel();
  if (paused_) schedule_drain();
}

void PgSession::schedule_drain() {
  if (!drain_timer_.active())
    drain_timer_ = loop_->call_later(Duration::zero(), [this] { drain(); });
}

void PgSession::request_cancel() {
  if (!conn_) return;
  // A cancel that reaches the server before it starts the statement (or while the previous
  // cancel is still on its way) does nothing: ask again while the abandoned statement runs.
  if (!cancel_retry_.active())
    cancel_retry_ = loop_->call_later(std::chrono::milliseconds(250), [this] {
      if (!ops_.empty() && ops_.front()->cancel && !ops_.front()->results_done) request_cancel();
    });
  if (cancel_busy_->exchange(true)) return;
  PGcancel* cancel = PQgetCancel(conn_);
  if (!cancel) {
    cancel_busy_->store(false);
    return;
  }
  // PQcancel connects to the server and waits for it to close that connection: blocking work
  // that must stay off the loop. The thread owns the PGcancel and touches nothing else.
  try {
    std::thread([cancel, busy = cancel_busy_] {
      char error[256];
      PQcancel(cancel, error, sizeof error);
      PQfreeCancel(cancel);
      busy->store(false);
    }).detach();
  } catch (const std::system_error&) {
    PQfreeCancel(cancel);
    cancel_busy_->store(false);
  }
}

void PgSession::on_io(IoEvents events) {
  if (!conn_) return;
  if (any(events & IoEvents::Write) && !flush()) return;
  if (any(events & (IoEvents::Read | IoEvents::Error | IoEvents::Hangup))) {
    if (!PQconsumeInput(conn_)) {
      lose(closed("the connection was lost: " + tidy(PQerrorMessage(conn_))));
      return;
    }
  }
  drain();
}

void PgSession::drain() {
  paused_ = false;
  while (conn_ && !ops_.empty()) {
    PgOp& head = *ops_.front();
    if (head.kind == PgOp::Kind::Stream && !head.abandoned && !head.results_done &&
        head.buffered >= options_.stream_buffer_rows) {
      paused_ = true;
      break;
    }
    if (PQstatus(conn_) == CONNECTION_BAD || PQisBusy(conn_)) break;
    if (!take(PQgetResult(conn_))) return;
  }
  // With nothing in flight, parse what came anyway (notices, parameter changes, the server's
  // goodbye), so that it does not pile up in libpq's buffer.
  if (conn_ && ops_.empty()) PQisBusy(conn_);
  // NOTIFY messages (after a LISTEN) have no reader here: drop them rather than let libpq
  // keep a list that only grows.
  if (conn_ && !paused_) {
    while (PGnotify* n = PQnotifies(conn_)) PQfreemem(n);
  }
  if (conn_ && PQstatus(conn_) == CONNECTION_BAD) {
    lose(closed("the connection was lost: " + tidy(PQerrorMessage(conn_))));
    return;
  }
  update_interest();
}

bool PgSession::take(PGresult* raw) {
  PgResult result(raw);
  std::shared_ptr<PgOp> op = ops_.front();
  if (op->results_done) {
    // After a statement's results: its Sync.
    if (raw && PQresultStatus(raw) == PGRES_PIPELINE_SYNC) {
      ops_.pop_front();
      op->session = nullptr;
      on_new_head();
      return true;
    }
    lose(std::make_exception_ptr(
        PgError(ErrorKind::Protocol, where_, "", "unexpected result where a Sync was due")));
    return false;
  }
  if (!raw) {
    op->results_done = true;
    if (op->cancelling && --cancelling_ == 0) settled_.set();
    op->ready.set();
    if (op->close_on_error && op->error) {
      // The transaction may still be open: only closing the connection ends it for sure,
      // before anyone else's statement runs in it.
      lose(closed("ROLLBACK failed, so the connection was closed to end the transaction: " +
                  exception_message(op->error)));
      op->gate.release();
      return false;
    }
    op->gate.release();
    return true;
  }
  switch (PQresultStatus(raw)) {
    case PGRES_SINGLE_TUPLE:
    case PGRES_TUPLES_OK:
    case PGRES_COMMAND_OK:
    case PGRES_EMPTY_QUERY:
      if (op->kind == PgOp::Kind::Query) {
        op->result = std::move(result);
        return true;
      }
      if (PQresultStatus(raw) != PGRES_SINGLE_TUPLE) op->command = PQcmdStatus(raw);
      if (result.rows() > 0 && !op->abandoned) {
        op->buffered += static_cast<size_t>(result.rows());
        op->rows.push_back(std::move(result));
        op->ready.set();
      }
      return true;
    case PGRES_PIPELINE_ABORTED:
      op->error = std::make_exception_ptr(
          PgError(ErrorKind::InvalidState, where_, "", "the pipeline was aborted"));
      return true;
    case PGRES_COPY_IN:
    case PGRES_COPY_OUT:
    case PGRES_COPY_BOTH:
      lose(std::make_exception_ptr(PgError(ErrorKind::InvalidArgument, where_, "",
                                           "COPY is not supported; the connection was closed")));
      return false;
    case PGRES_PIPELINE_SYNC:
      lose(std::make_exception_ptr(
          PgError(ErrorKind::Protocol, where_, "", "a Sync came before the statement's results")));
      return false;
    default:
      op->error = server_error(where_, raw);
      return true;
  }
}

void PgSession::on_new_head() {
  if (ops_.empty()) return;
  PgOp& head = *ops_.front();
  if (head.kind == PgOp::Kind::Stream && !head.single_row)
    head.single_row = PQsetSingleRowMode(conn_) == 1;
  if (head.abandoned && head.cancel && !head.results_done) request_cancel();
}

bool PgSession::flush() {
  int r = PQflush(conn_);
  if (r < 0) {
    lose(closed("the connection was lost while sending: " + tidy(PQerrorMessage(conn_))));
    return false;
  }
  want_write_ = r == 1;
  return true;
}

void PgSession::update_interest() {
  IoEvents want = IoEvents::None;
  if (conn_) {
    if (!paused_) want = want | IoEvents::Read;
    if (want_write_) want = want | IoEvents::Write;
  }
  if (want == watching_) return;
  if (watching_ == IoEvents::None) {
    loop_->add_handler(fd_, want, [this](IoEvents e) { on_io(e); });
  } else if (want == IoEvents::None) {
    loop_->remove_handler(fd_);
  } else {
    loop_->update_handler(fd_, want);
  }
  watching_ = want;
}

void PgSession::lose(std::exception_ptr error) noexcept {
  cancel_retry_.cancel();
  if (watching_ != IoEvents::None) loop_->remove_handler(fd_);
  watching_ = IoEvents::None;
  if (conn_) {
    PQfinish(conn_);
    conn_ = nullptr;
    ++generation_;
  }
  fd_ = -1;
  paused_ = want_write_ = false;
  cancelling_ = 0;
  settled_.set();
  std::deque<std::shared_ptr<PgOp>> ops = std::move(ops_);
  ops_.clear();
  for (auto& op : ops) {
    op->session = nullptr;
    op->gate.release();
    if (!op->results_done) {
      op->results_done = true;
      op->error = error;
    }
    op->ready.set();
  }
}

}  // namespace detail

namespace {

// "host:port/db" from the parsed conninfo, for messages (never the password).
std::string describe_target(PQconninfoOption* options) {
  std::string host, port, db, user;
  for (PQconninfoOption* o = options; o && o->keyword; ++o) {
    if (!o->val) continue;
    std::string_view k = o->keyword;
    if (k == "host" || (k == "hostaddr" && host.empty())) host = o->val;
    if (k == "port") port = o->val;
    if (k == "dbname") db = o->val;
    if (k == "user") user = o->val;
  }
  if (host.empty()) host = "local socket";
  std::string s = host;
  s += ":" + (port.empty() ? std::string("5432") : port);
  s += "/" + (db.empty() ? user : db);
  return s;
}

}  // namespace

PgConnection::PgConnection(std::string_view url, PgOptions options) {
  if (options.stream_buffer_rows == 0)
    throw InvalidArgumentError("postgres: stream_buffer_rows must be at least 1");
  std::string conninfo(url);
  char* error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(conninfo.c_str(), &error);
  if (!parsed) {
    std::string why = error ? detail::tidy(error) : "out of memory";
    PQfreemem(error);
    throw InvalidArgumentError("postgres: cannot parse the connection URL: " + why);
  }
  std::string where = describe_target(parsed);
  std::string host, hostaddr;
  for (PQconninfoOption* o = parsed; o->keyword; ++o) {
    if (!o->val) continue;
    if (std::string_view(o->keyword) == "host") host = o->val;
    if (std::string_view(o->keyword) == "hostaddr") hostaddr = o->val;
  }
  PQconninfoFree(parsed);
  session_ = std::make_unique<detail::PgSession>(std::move(conninfo), options, std::move(where));
  // One host given by name (not an address, a socket directory or a list): ours to resolve.
  if (hostaddr.empty() && !host.empty() && host.find(',') == std::string::npos &&
      host.front() != '/' && host.front() != '@' && !Address::from_ip(host, 0))
    session_->host_name_ = host;
}

PgConnection::~PgConnection() = default;
PgConnection::PgConnection(PgConnection&& other) noexcept = default;
PgConnection& PgConnection::operator=(PgConnection&& other) noexcept = default;

namespace {
detail::PgSession& need(const std::unique_ptr<detail::PgSession>& s) {
  if (!s) throw InvalidStateError("postgres: the connection was moved from");
  return *s;
}
}  // namespace

Task<void> PgConnection::connect() {
  return need(session_).connect_now();
}

Task<PgResult> PgConnection::query(PgQueryOptions options, std::string_view sql,
                                   const std::vector<PgParam>& params) {
  detail::PgStatement statement{std::string(sql), params};
  return need(session_).run_query(std::move(statement), options);
}

Task<PgRowStream> PgConnection::stream(PgQueryOptions options, std::string_view sql,
                                       const std::vector<PgParam>& params) {
  detail::PgStatement statement{std::string(sql), params};
  return need(session_).run_stream(std::move(statement), options);
}

Task<PgTransaction> PgConnection::begin(std::string_view statement) {
  return need(session_).begin(std::string(statement));
}

void PgConnection::close() {
  auto& s = need(session_);
  s.lose(s.closed("the connection was closed"));
}

bool PgConnection::connected() const noexcept {
  return session_ && session_->conn_;
}

size_t PgConnection::in_flight() const noexcept {
  return session_ ? session_->ops_.size() : 0;
}

int PgConnection::backend_pid() const noexcept {
  return session_ && session_->conn_ ? PQbackendPID(session_->conn_) : 0;
}

const std::string& PgConnection::where() const noexcept {
  static const std::string none;
  return session_ ? session_->where_ : none;
}

PgTransaction::PgTransaction(detail::PgSession& session, Lock::Guard guard,
                             uint64_t generation) noexcept
    : session_(&session), guard_(std::move(guard)), generation_(generation) {}

PgTransaction::PgTransaction(PgTransaction&& other) noexcept
    : session_(std::exchange(other.session_, nullptr)),
      guard_(std::move(other.guard_)),
      generation_(other.generation_) {}

PgTransaction::~PgTransaction() {
  if (!session_) return;
  if (session_->alive(generation_)) session_->send_rollback(std::move(guard_));
  end();
}

void PgTransaction::end() noexcept {
  if (!session_) return;
  session_->transaction_owner_ = nullptr;
  session_ = nullptr;
  guard_.release();
}

Task<PgResult> PgTransaction::query(PgQueryOptions options, std::string_view sql,
                                    const std::vector<PgParam>& params) {
  detail::PgStatement statement{std::string(sql), params};
  return run(std::move(statement), options);
}

Task<PgResult> PgTransaction::run(detail::PgStatement statement, PgQueryOptions options) {
  if (!session_) throw InvalidStateError("postgres: a query on a transaction that has ended");
  if (!session_->alive(generation_))
    throw PgError(ErrorKind::Closed, session_->where_, "",
                  "the connection was lost during the transaction, which the server rolled back");
  Timeout limit = session_->query_limit(options);
  TimePoint deadline = deadline_after(limit);
  co_await session_->settle(deadline, limit, statement.sql.substr(0, 60));
  if (!session_ || !session_->alive(generation_))
    throw PgError(ErrorKind::Closed, session_ ? session_->where_ : std::string(), "",
                  "the connection was lost during the transaction, which the server rolled back");
  std::shared_ptr<detail::PgOp> op = session_->send(statement, detail::PgOp::Kind::Query);
  co_return co_await detail::PgSession::wait_result(std::move(op), deadline, limit);
}

Task<void> PgTransaction::commit() {
  return finish("COMMIT");
}

Task<void> PgTransaction::rollback() {
  return finish("ROLLBACK");
}

Task<void> PgTransaction::finish(std::string statement) {
  if (!session_)
    throw InvalidStateError("postgres: " + statement + " of a transaction that has ended");
  detail::PgSession& s = *session_;
  std::string where = s.where_;
  if (!s.alive(generation_)) {
    end();
    // The server ended the transaction with the connection: a rollback has nothing to do.
    if (statement == "ROLLBACK") co_return;
    throw PgError(ErrorKind::Closed, where, "",
                  "the connection was lost during the transaction, which the server rolled back");
  }
  Timeout limit = s.options_.query_timeout;
  TimePoint deadline = deadline_after(limit);
  std::shared_ptr<detail::PgOp> op =
      s.send(detail::PgStatement{statement, {}}, detail::PgOp::Kind::Query);
  // Others wait for the end of the transaction, and a ROLLBACK that fails closes the
  // connection before they can run in what is left of it.
  op->close_on_error = statement == "ROLLBACK";
  op->gate = std::move(guard_);
  end();
  PgResult r = co_await detail::PgSession::wait_result(std::move(op), deadline, limit);
  if (statement == "COMMIT" && r.command() == "ROLLBACK")
    throw PgError(ErrorKind::InvalidState, where, "25P02",
                  "COMMIT rolled back instead: a statement in the transaction had failed");
}

PgRowStream::PgRowStream(std::shared_ptr<detail::PgOp> op, Timeout timeout) noexcept
    : op_(std::move(op)), timeout_(timeout) {}

PgRowStream::PgRowStream(PgRowStream&& other) noexcept
    : op_(std::move(other.op_)),
      timeout_(other.timeout_),
      current_(std::move(other.current_)),
      current_row_(other.current_row_),
      count_(other.count_) {}

PgRowStream::~PgRowStream() {
  if (!op_ || op_->results_done) return;
  op_->abandoned = true;
  op_->cancel = true;
  if (op_->session) op_->session->on_abandoned(*op_);
}

Task<bool> PgRowStream::next() {
  if (!op_) throw InvalidStateError("postgres: next() on a stream that was moved from");
  detail::PgOp& op = *op_;
  // A result of several rows comes when single-row mode could not be set.
  if (current_.native() && current_row_ + 1 < current_.rows()) {
    ++current_row_;
    ++count_;
    co_return true;
  }
  current_ = PgResult();
  for (;;) {
    if (!op.rows.empty()) {
      current_ = std::move(op.rows.front());
      op.rows.pop_front();
      op.buffered -= static_cast<size_t>(current_.rows());
      current_row_ = 0;
      ++count_;
      // Room again: read on once half the buffer is free (the session stops reading while it
      // is full), so that a consumer keeping pace does not switch reading on and off per row.
      if (op.session && op.session->paused() &&
          op.buffered <= op.session->options_.stream_buffer_rows / 2)
        op.session->drain();
      co_return true;
    }
    if (op.results_done) {
      if (op.error) std::rethrow_exception(op.error);
      co_return false;
    }
    op.ready.clear();
    TimePoint deadline = deadline_after(timeout_);
    bool timed_out = false;
    try {
      co_await op.ready.wait(timeout_);
    } catch (const TimeoutError&) {
      if (Clock::now() < deadline) throw;
      timed_out = true;
    }
    if (timed_out)
      throw TimeoutError("postgres " + op.where + ": no row within " +
                         detail::describe(timeout_.value_or(Duration::zero())) + ": " + op.label);
  }
}

PgRow PgRowStream::row() const {
  if (!current_.native())
    throw InvalidStateError("postgres: row() of a stream before next() returned true");
  return PgRow(current_, current_row_);
}

std::string_view PgRowStream::command() const {
  return op_ ? std::string_view(op_->command) : std::string_view();
}

}  // namespace squall
