// PgConnection against a real PostgreSQL 15 started for the test: URLs, parameters and typed
// results, SQLSTATE errors, a pipeline of a thousand queries, transactions, timeouts that cancel,
// a server restart, streaming a large result in bounded memory, and SKIP LOCKED claims.
#include "squall/net/postgres.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "support/loop_fixture.h"
#include "support/memory.h"
#include "support/postgres_server.h"

namespace squall {
namespace {

using namespace std::chrono_literals;

using test::PostgresTest;

// The kind and SQLSTATE of the PgError `task` fails with (kind Timeout if it never failed, so
// that a missing error fails the test's comparison).
template <class T>
Task<std::pair<ErrorKind, std::string>> pg_failure(Task<T> task) {
  try {
    co_await std::move(task);
  } catch (const PgError& e) {
    co_return std::pair(e.kind(), e.sqlstate());
  }
  co_return std::pair(ErrorKind::Timeout, std::string("no error"));
}

TEST_F(PostgresTest, ConnectsWithAUrlWhosePasswordIsPercentEncoded) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    EXPECT_FALSE(db.connected());
    co_await db.connect();
    EXPECT_TRUE(db.connected());
    EXPECT_GT(db.backend_pid(), 0);
    PgResult r = co_await db.query("SELECT current_user AS who, current_database() AS db");
    EXPECT_EQ(r.get_string(0, 0), "squall");
    EXPECT_EQ(r[0].get_string("db"), "postgres");
    EXPECT_EQ(db.where(), "127.0.0.1:" + std::to_string(pg().port()) + "/postgres");
  };
  run(body());
}

TEST_F(PostgresTest, AConninfoStringWorksAsWellAsAUrl) {
  auto body = [&]() -> Task<void> {
    PgConnection db("host=127.0.0.1 port=" + std::to_string(pg().port()) +
                    " user=squall password='p@ss:w/rd' dbname=postgres");
    PgResult r = co_await db.query("SELECT 1");
    EXPECT_EQ(r.get_int(0, 0), 1);
  };
  run(body());
}

TEST_F(PostgresTest, AHostNameIsResolvedOnTheLoopAndEachAddressTried) {
  auto body = [&]() -> Task<void> {
    // "localhost" is ::1 then 127.0.0.1; the server listens on the second only.
    PgConnection db("postgresql://squall:p%40ss%3Aw%2Frd@localhost:" + std::to_string(pg().port()) +
                    "/postgres");
    PgResult r = co_await db.query("SELECT inet_server_addr()::text");
    EXPECT_EQ(r.get_string(0, 0), "127.0.0.1/32");
    PgConnection nowhere("postgresql://squall@no-such-host.invalid:" + std::to_string(pg().port()) +
                         "/postgres");
    auto [kind, sqlstate] = co_await pg_failure(nowhere.query("SELECT 1"));
    EXPECT_EQ(kind, ErrorKind::Resolve);
  };
  run(body());
}

TEST_F(PostgresTest, AWrongPasswordIsAConnectErrorNamingTheCause) {
  auto body = [&]() -> Task<void> {
    PgConnection db("postgresql://squall:wrong@127.0.0.1:" + std::to_string(pg().port()) +
                    "/postgres");
    std::string message;
    ErrorKind kind = ErrorKind::Timeout;
    try {
      co_await db.query("SELECT 1");
    } catch (const PgError& e) {
      kind = e.kind();
      message = e.what();
    }
    EXPECT_EQ(kind, ErrorKind::Connect);
    EXPECT_NE(message.find("password authentication failed"), std::string::npos) << message;
    EXPECT_EQ(message.find("wrong"), std::string::npos) << "the message shows the password";
    EXPECT_FALSE(db.connected());
  };
  run(body());
}

TEST_F(PostgresTest, NothingListeningIsAConnectError) {
  auto body = [&]() -> Task<void> {
    uint16_t port = test::free_port();
    PgConnection db("postgresql://squall@127.0.0.1:" + std::to_string(port) + "/postgres");
    auto [kind, sqlstate] = co_await pg_failure(db.query("SELECT 1"));
    EXPECT_EQ(kind, ErrorKind::Connect);
  };
  run(body());
}

TEST_F(PostgresTest, AMalformedUrlIsRejectedWithLibpqsReason) {
  try {
    PgConnection db("postgresql://squall@127.0.0.1:5432/postgres?nonsense=1");
    FAIL() << "accepted an unknown parameter";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("nonsense"), std::string::npos) << e.what();
  }
  EXPECT_THROW(PgConnection("host=127.0.0.1 port='unterminated"), InvalidArgumentError);
  EXPECT_THROW(PgConnection(pg().url(), {.stream_buffer_rows = 0}), InvalidArgumentError);
}

TEST_F(PostgresTest, ParametersBindAndColumnsReadByNameOrIndex) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    PgResult r = co_await db.query(
        "SELECT $1::int + 1 AS n, $2::text AS s, $3::float8 AS d, $4::bool AS b, $5::text AS "
        "nothing, $6::bigint AS big",
        41, "héllo 'quoted'", 2.5, true, nullptr, int64_t(-9000000000));
    EXPECT_EQ(r.rows(), 1);
    EXPECT_EQ(r.columns(), 6);
    EXPECT_EQ(r.column_name(1), "s");
    EXPECT_EQ(r.column_index("nothing"), 4);
    PgRow row = r[0];
    EXPECT_EQ(row.get_int("n"), 42);
    EXPECT_EQ(row.get_int(0), 42);
    EXPECT_EQ(row.get_string("s"), "héllo 'quoted'");
    EXPECT_DOUBLE_EQ(row.get_double("d"), 2.5);
    EXPECT_TRUE(row.get_bool("b"));
    EXPECT_TRUE(row.is_null("nothing"));
    EXPECT_FALSE(row.is_null("n"));
    EXPECT_EQ(row.text("nothing"), "");
    EXPECT_EQ(row.get_int("big"), -9000000000);
    EXPECT_THROW(row.get_int("nothing"), InvalidArgumentError);
    EXPECT_THROW(row.get_int("s"), InvalidArgumentError);
    EXPECT_THROW(row.get_int("no_such_column"), InvalidArgumentError);
    EXPECT_THROW(r.row(1), InvalidArgumentError);
    EXPECT_EQ(r.command(), "SELECT 1");

    PgResult specials =
        co_await db.query("SELECT $1::float8, $2::float8, 'NaN'::float8", 1e300 * 1e300, -0.125);
    EXPECT_EQ(specials.text(0, 0), "Infinity");
    EXPECT_DOUBLE_EQ(specials.get_double(0, 1), -0.125);
    EXPECT_TRUE(std::isnan(specials.get_double(0, 2)));

    std::string bytes("a\0b\xff", 4);
    PgResult b = co_await db.query("SELECT $1::bytea, length($1::bytea)", PgParam::bytes(bytes));
    EXPECT_EQ(b[0].get_bytes(0), bytes);
    EXPECT_EQ(b.get_int(0, 1), 4);

    std::vector<PgParam> many;
    for (int i = 0; i < 100; ++i) many.emplace_back(i);
    std::string sql = "SELECT 0";
    for (int i = 1; i <= 100; ++i) sql += " + $" + std::to_string(i) + "::int";
    PgResult sum = co_await db.query(sql, many);
    EXPECT_EQ(sum.get_int(0, 0), 4950);
  };
  run(body());
}

TEST_F(PostgresTest, ATextParameterWithANulByteIsRefusedAndTheConnectionGoesOn) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    bool refused = false;
    try {
      co_await db.query("SELECT $1::text", std::string("a\0b", 3));
    } catch (const InvalidArgumentError&) {
      refused = true;
    }
    EXPECT_TRUE(refused);
    PgResult r = co_await db.query("SELECT 'still here'");
    EXPECT_EQ(r.get_string(0, 0), "still here");
  };
  run(body());
}

TEST_F(PostgresTest, AffectedRowsAndTheCommandTagComeWithTheResult) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    co_await db.query("CREATE TEMP TABLE t (id int PRIMARY KEY, name text)");
    PgResult ins = co_await db.query("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)");
    EXPECT_EQ(ins.affected_rows(), 3);
    EXPECT_EQ(ins.command(), "INSERT 0 3");
    PgResult upd = co_await db.query("UPDATE t SET name = $1 WHERE name IS NOT NULL", "z");
    EXPECT_EQ(upd.affected_rows(), 2);
    EXPECT_EQ(upd.command(), "UPDATE 2");
    PgResult sel = co_await db.query("SELECT id, name FROM t ORDER BY id");
    std::vector<int64_t> ids;
    int nulls = 0;
    for (PgRow row : sel) {
      ids.push_back(row.get_int("id"));
      if (row.is_null("name")) ++nulls;
    }
    EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3}));
    EXPECT_EQ(nulls, 1);
    PgResult del = co_await db.query("DELETE FROM t WHERE id > $1", 1);
    EXPECT_EQ(del.affected_rows(), 2);
  };
  run(body());
}

TEST_F(PostgresTest, ServerErrorsCarryTheirSqlstateAndMessage) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    co_await db.query("CREATE TEMP TABLE u (id int PRIMARY KEY)");
    co_await db.query("INSERT INTO u VALUES (1)");
    std::string message, detail, sqlstate;
    try {
      co_await db.query("INSERT INTO u VALUES ($1)", 1);
    } catch (const PgError& e) {
      sqlstate = e.sqlstate();
      message = e.what();
      detail = e.detail();
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
      EXPECT_NE(e.server_message().find("duplicate key"), std::string::npos);
    }
    EXPECT_EQ(sqlstate, "23505");
    EXPECT_NE(message.find("SQLSTATE 23505"), std::string::npos) << message;
    EXPECT_NE(message.find("u_pkey"), std::string::npos) << message;
    EXPECT_EQ(detail, "Key (id)=(1) already exists.");

    auto syntax = co_await pg_failure(db.query("SELEC 1"));
    EXPECT_EQ(syntax.second, "42601");
    auto zero = co_await pg_failure(db.query("SELECT 1 / $1::int", 0));
    EXPECT_EQ(zero.second, "22012");
    auto missing = co_await pg_failure(db.query("SELECT * FROM no_such_table"));
    EXPECT_EQ(missing.second, "42P01");
    // The connection and the table are still there.
    PgResult r = co_await db.query("SELECT count(*) FROM u");
    EXPECT_EQ(r.get_int(0, 0), 1);
  };
  run(body());
}

TEST_F(PostgresTest, AThousandQueriesShareOneConnectionInOnePipeline) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    co_await db.connect();
    int pid = db.backend_pid();
    std::vector<TaskHandle<int64_t>> handles;
    for (int i = 0; i < 1000; ++i) {
      handles.push_back(spawn([](PgConnection& db, int i) -> Task<int64_t> {
        // Every hundredth divides by zero: its error must not disturb the others.
        PgResult r = co_await db.query("SELECT $1::int * 2 / $2::int", i, i % 100 == 7 ? 0 : 1);
        co_return r.get_int(0, 0);
      }(db, i)));
    }
    size_t peak = 0;
    while (peak < 1000 && !handles.back().done()) {
      peak = std::max(peak, db.in_flight());
      co_await sleep(0ms);
    }
    int failures = 0;
    for (int i = 0; i < 1000; ++i) {
      co_await handles[i].join();
      if (i % 100 == 7) {
        EXPECT_FALSE(handles[i].successful());
        try {
          handles[i].value();
        } catch (const PgError& e) {
          EXPECT_EQ(e.sqlstate(), "22012");
          ++failures;
        }
      } else {
        EXPECT_EQ(handles[i].value(), 2 * i);
      }
    }
    EXPECT_EQ(failures, 10);
    EXPECT_GE(peak, 500u) << "the queries were not in flight together";
    EXPECT_EQ(db.in_flight(), 0u);
    EXPECT_EQ(db.backend_pid(), pid) << "one connection";
  };
  run(body(), 120s);
}

TEST_F(PostgresTest, ATransactionCommitsOrRollsBack) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    PgConnection other(pg().url());
    co_await db.query("DROP TABLE IF EXISTS accounts");
    co_await db.query("CREATE TABLE accounts (id int PRIMARY KEY, balance int)");
    co_await db.query("INSERT INTO accounts VALUES (1, 100), (2, 0)");
    {
      PgTransaction tx = co_await db.begin();
      co_await tx.query("UPDATE accounts SET balance = balance - $1 WHERE id = 1", 30);
      co_await tx.query("UPDATE accounts SET balance = balance + $1 WHERE id = 2", 30);
      // Not visible to another session before COMMIT.
      PgResult before = co_await other.query("SELECT balance FROM accounts WHERE id = 2");
      EXPECT_EQ(before.get_int(0, 0), 0);
      co_await tx.commit();
      EXPECT_FALSE(tx.active());
    }
    PgResult after = co_await other.query("SELECT balance FROM accounts ORDER BY id");
    EXPECT_EQ(after.get_int(0, 0), 70);
    EXPECT_EQ(after.get_int(1, 0), 30);

    {
      PgTransaction tx = co_await db.begin();
      co_await tx.query("UPDATE accounts SET balance = 0");
      co_await tx.rollback();
    }
    // An exception inside the transaction's scope rolls it back.
    bool threw = false;
    try {
      PgTransaction tx = co_await db.begin();
      co_await tx.query("UPDATE accounts SET balance = -1");
      throw std::runtime_error("the handler failed");
    } catch (const std::runtime_error&) {
      threw = true;
    }
    EXPECT_TRUE(threw);
    PgResult kept = co_await db.query("SELECT sum(balance) FROM accounts");
    EXPECT_EQ(kept.get_int(0, 0), 100);

    // A failed statement fails the transaction; COMMIT then says so.
    PgTransaction failed = co_await db.begin();
    auto dup = co_await pg_failure(failed.query("INSERT INTO accounts VALUES (1, 5)"));
    EXPECT_EQ(dup.second, "23505");
    auto aborted = co_await pg_failure(failed.query("SELECT 1"));
    EXPECT_EQ(aborted.second, "25P02");
    auto commit = co_await pg_failure(failed.commit());
    EXPECT_EQ(commit.first, ErrorKind::InvalidState);
    EXPECT_EQ(commit.second, "25P02");
  };
  run(body());
}

TEST_F(PostgresTest, OtherTasksWaitForAnOpenTransactionAndItsOwnerMustUseIt) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    co_await db.query("CREATE TEMP TABLE marks (who text)");
    std::vector<std::string> order;
    PgTransaction tx = co_await db.begin();
    auto outsider = spawn([](PgConnection& db, std::vector<std::string>& order) -> Task<void> {
      co_await db.query("INSERT INTO marks VALUES ('outsider')");
      order.push_back("outsider");
    }(db, order));
    co_await sleep(50ms);
    EXPECT_TRUE(order.empty()) << "a query ran inside another task's transaction";
    bool refused = false;
    try {
      co_await db.query("SELECT 1");
    } catch (const InvalidStateError&) {
      refused = true;
    }
    EXPECT_TRUE(refused) << "the owner's query on the connection would wait for itself";
    co_await tx.query("INSERT INTO marks VALUES ('transaction')");
    order.push_back("transaction");
    co_await tx.rollback();
    co_await outsider;
    EXPECT_EQ(order, (std::vector<std::string>{"transaction", "outsider"}));
    // The outsider's row ran after the ROLLBACK, outside the transaction: it is the one left.
    PgResult r = co_await db.query("SELECT who FROM marks");
    EXPECT_EQ(r.rows(), 1);
    EXPECT_EQ(r.rows() == 1 ? r.get_string(0, 0) : "", "outsider");
  };
  run(body());
}

TEST_F(PostgresTest, AQueryPastItsTimeoutIsCancelledOnTheServer) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    co_await db.connect();
    int pid = db.backend_pid();
    TimePoint start = Clock::now();
    bool timed_out = false;
    try {
      co_await db.query({.timeout = 200ms}, "SELECT pg_sleep(30)");
    } catch (const TimeoutError& e) {
      timed_out = true;
      EXPECT_NE(std::string(e.what()).find("pg_sleep"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(timed_out);
    EXPECT_LT(Clock::now() - start, 2s);
    // The next query on the same connection comes back long before the sleep would have ended:
    // the statement was cancelled.
    PgResult r = co_await db.query({.timeout = 10s}, "SELECT 'after'");
    EXPECT_EQ(r.get_string(0, 0), "after");
    EXPECT_LT(Clock::now() - start, 10s);
    EXPECT_EQ(db.backend_pid(), pid) << "cancelling kept the connection";
    // A killed query is cancelled as well.
    auto h =
        spawn([](PgConnection& db) -> Task<void> { co_await db.query("SELECT pg_sleep(30)"); }(db));
    for (int i = 0; i < 1000 && db.in_flight() == 0; ++i) co_await sleep(1ms);
    h.kill();
    co_await h.join();
    PgResult again = co_await db.query({.timeout = 10s}, "SELECT 2");
    EXPECT_EQ(again.get_int(0, 0), 2);
    EXPECT_LT(Clock::now() - start, 20s);
    // And so is one that core's with_timeout interrupts.
    bool interrupted = false;
    try {
      co_await with_timeout(100ms, db.query("SELECT pg_sleep(30)"));
    } catch (const TimeoutError&) {
      interrupted = true;
    }
    EXPECT_TRUE(interrupted);
    PgResult third = co_await db.query({.timeout = 10s}, "SELECT 3");
    EXPECT_EQ(third.get_int(0, 0), 3);
    EXPECT_LT(Clock::now() - start, 30s);
  };
  run(body(), 60s);
}

TEST_F(PostgresTest, ATimeoutInsideATransactionRollsItBackBeforeOthersUseTheConnection) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    auto other = spawn([](PgConnection& db) -> Task<std::string> {
      co_await sleep(50ms);  // queued behind the transaction
      PgResult r = co_await db.query("SHOW statement_timeout");
      co_return r.get_string(0, 0);
    }(db));
    bool timed_out = false;
    try {
      PgTransaction tx = co_await db.begin();
      co_await tx.query("SET LOCAL statement_timeout = '1234ms'");
      co_await tx.query({.timeout = 100ms}, "SELECT pg_sleep(30)");
    } catch (const TimeoutError&) {
      timed_out = true;
    }
    EXPECT_TRUE(timed_out);
    // The other task's statement ran after the ROLLBACK, outside the transaction.
    std::string seen = co_await other;
    EXPECT_EQ(seen, "0");
    PgResult r = co_await db.query({.timeout = 10s}, "SHOW statement_timeout");
    EXPECT_EQ(r.get_string(0, 0), "0");
  };
  run(body(), 60s);
}

TEST_F(PostgresTest, AServerRestartFailsQueriesInFlightThenTheConnectionComesBack) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    co_await db.connect();
    int pid = db.backend_pid();
    auto first = spawn(pg_failure(db.query("SELECT pg_sleep(20)")));
    auto second = spawn(pg_failure(db.query("SELECT 1")));
    for (int i = 0; i < 1000 && db.in_flight() < 2; ++i) co_await sleep(1ms);
    EXPECT_EQ(db.in_flight(), 2u);
    pg().restart();  // blocks the loop meanwhile; the client sees it all afterwards
    auto [kind1, state1] = co_await first;
    auto [kind2, state2] = co_await second;
    EXPECT_EQ(kind1, ErrorKind::Closed) << state1;
    EXPECT_EQ(kind2, ErrorKind::Closed) << state2;
    EXPECT_FALSE(db.connected());
    PgResult r = co_await db.query("SELECT 'back'");
    EXPECT_EQ(r.get_string(0, 0), "back");
    EXPECT_NE(db.backend_pid(), pid);
  };
  run(body(), 120s);
}

TEST_F(PostgresTest, ATransactionCutByARestartFailsItsQueriesAndNeverRunsThemOutsideIt) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    co_await db.query("DROP TABLE IF EXISTS cut");
    co_await db.query("CREATE TABLE cut (v int)");
    {
      PgTransaction tx = co_await db.begin();
      co_await tx.query("INSERT INTO cut VALUES (1)");
      pg().restart();
      auto during = co_await pg_failure(tx.query("INSERT INTO cut VALUES (2)"));
      EXPECT_EQ(during.first, ErrorKind::Closed);
      auto after = co_await pg_failure(tx.query("INSERT INTO cut VALUES (3)"));
      EXPECT_EQ(after.first, ErrorKind::Closed);
      auto commit = co_await pg_failure(tx.commit());
      EXPECT_EQ(commit.first, ErrorKind::Closed);
    }
    PgResult r = co_await db.query("SELECT count(*) FROM cut");
    EXPECT_EQ(r.get_int(0, 0), 0) << "a statement of the lost transaction ran on its own";
  };
  run(body(), 120s);
}

TEST_F(PostgresTest, AnIdleConnectionNoticesARestartAndReconnectsOnTheNextQuery) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    co_await db.connect();
    pg().restart();
    // The loop reads the server's goodbye.
    for (int i = 0; i < 5000 && db.connected(); ++i) co_await sleep(1ms);
    EXPECT_FALSE(db.connected());
    PgResult r = co_await db.query("SELECT 1");
    EXPECT_EQ(r.get_int(0, 0), 1);
  };
  run(body(), 120s);
}

TEST_F(PostgresTest, AStreamReadsAHundredThousandRowsInBoundedMemory) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url(), {.stream_buffer_rows = 500});
    co_await db.connect();
    test::reset_peak_rss();
    size_t before = test::rss_kib();
    // About 100 MB of rows: far more than the bound below.
    PgRowStream rows = co_await db.stream(
        "SELECT i, repeat('x', 1000) AS pad FROM generate_series(1, $1::int) AS i", 100000);
    int64_t expected = 1;
    size_t bytes = 0;
    for (;;) {
      bool more = co_await rows.next();
      if (!more) break;
      PgRow row = rows.row();
      if (row.get_int("i") != expected) {
        ADD_FAILURE() << "row " << expected << " came as " << row.get_int("i");
        break;
      }
      bytes += row.text("pad").size();
      ++expected;
      // A slow consumer now and then: the server must wait, not the memory grow.
      if (expected % 20000 == 0) co_await sleep(50ms);
    }
    EXPECT_EQ(rows.count(), 100000);
    EXPECT_EQ(rows.command(), "SELECT 100000");
    EXPECT_EQ(bytes, 100000u * 1000u);
    size_t growth_mib = (test::peak_rss_kib() - std::min(before, test::peak_rss_kib())) / 1024;
    if (!test::kAddressSanitizer) {
      EXPECT_LT(growth_mib, 40u) << "streaming held the result in memory";
    }
    PgResult r = co_await db.query("SELECT 'next'");
    EXPECT_EQ(r.get_string(0, 0), "next");
  };
  run(body(), 240s);
}

TEST_F(PostgresTest, AStreamDroppedPartWayIsCancelledAndTheConnectionGoesOn) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url(), {.stream_buffer_rows = 100});
    co_await db.connect();
    int pid = db.backend_pid();
    TimePoint start = Clock::now();
    {
      PgRowStream rows =
          co_await db.stream("SELECT i, pg_sleep(0.001) FROM generate_series(1, 1000000) AS i");
      for (int i = 0; i < 10; ++i) {
        bool more = co_await rows.next();
        EXPECT_TRUE(more);
      }
    }
    PgResult r = co_await db.query({.timeout = 20s}, "SELECT 'after'");
    EXPECT_EQ(r.get_string(0, 0), "after");
    EXPECT_LT(Clock::now() - start, 20s) << "the dropped statement ran on";
    EXPECT_EQ(db.backend_pid(), pid);
  };
  run(body(), 60s);
}

TEST_F(PostgresTest, ClosingFailsQueriesInFlightAndTheNextQueryReconnects) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    co_await db.connect();
    auto h = spawn(pg_failure(db.query("SELECT pg_sleep(5)")));
    for (int i = 0; i < 1000 && db.in_flight() == 0; ++i) co_await sleep(1ms);
    EXPECT_EQ(db.in_flight(), 1u);
    db.close();
    EXPECT_FALSE(db.connected());
    auto [kind, sqlstate] = co_await h;
    EXPECT_EQ(kind, ErrorKind::Closed);
    EXPECT_EQ(sqlstate, "");
    PgResult r = co_await db.query("SELECT 3");
    EXPECT_EQ(r.get_int(0, 0), 3);
  };
  run(body());
}

TEST_F(PostgresTest, NotificationsAfterListenAreDroppedAndQueriesGoOn) {
  auto body = [&]() -> Task<void> {
    PgConnection db(pg().url());
    PgConnection other(pg().url());
    co_await db.query("LISTEN squall_test");
    for (int i = 0; i < 100; ++i) co_await other.query("SELECT pg_notify('squall_test', $1)", i);
    co_await sleep(50ms);  // they arrive while the connection is idle
    PgResult r = co_await db.query("SELECT 'listening'");
    EXPECT_EQ(r.get_string(0, 0), "listening");
  };
  run(body());
}

// Claims up to `n` unclaimed jobs for `worker` in one transaction. With `hold`, sets `claimed`
// once it has locked its rows and keeps them locked until `hold` is set.
Task<std::vector<int64_t>> claim(PgConnection& db, std::string worker, int n, Event* hold,
                                 Event* claimed) {
  PgTransaction tx = co_await db.begin();
  PgResult r = co_await tx.query(
      "SELECT id FROM jobs WHERE claimed_by IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED",
      n);
  std::vector<int64_t> ids;
  for (PgRow row : r) ids.push_back(row.get_int(0));
  if (claimed) claimed->set();
  if (hold) co_await hold->wait();
  for (int64_t id : ids)
    co_await tx.query("UPDATE jobs SET claimed_by = $1 WHERE id = $2", worker, id);
  co_await tx.commit();
  co_return ids;
}

TEST_F(PostgresTest, SkipLockedClaimsFromTwoConnectionsAreDisjoint) {
  auto body = [&]() -> Task<void> {
    PgConnection a(pg().url());
    PgConnection b(pg().url());
    co_await a.query("DROP TABLE IF EXISTS jobs");
    co_await a.query("CREATE TABLE jobs (id int PRIMARY KEY, claimed_by text)");
    co_await a.query("INSERT INTO jobs SELECT i, NULL FROM generate_series(1, 100) AS i");

    // Both hold their claims at once: the second skips the first's locked rows.
    // Without SKIP LOCKED the second would wait for the first's locks and never claim.
    Event hold, a_claimed, b_claimed;
    auto first = spawn(claim(a, "a", 10, &hold, &a_claimed));
    co_await a_claimed.wait(10s);
    auto second = spawn(claim(b, "b", 10, &hold, &b_claimed));
    co_await b_claimed.wait(10s);
    hold.set();
    std::vector<int64_t> ids_a = co_await first;
    std::vector<int64_t> ids_b = co_await second;
    EXPECT_EQ(ids_a.size(), 10u);
    EXPECT_EQ(ids_b.size(), 10u);
    std::set<int64_t> both(ids_a.begin(), ids_a.end());
    for (int64_t id : ids_b) EXPECT_TRUE(both.insert(id).second) << "job " << id << " twice";

    // Then two workers race for the rest, a few rows at a time.
    auto worker = [](PgConnection& db, std::string name) -> Task<std::vector<int64_t>> {
      std::vector<int64_t> mine;
      for (;;) {
        std::vector<int64_t> got = co_await claim(db, name, 3, nullptr, nullptr);
        if (got.empty()) break;
        mine.insert(mine.end(), got.begin(), got.end());
      }
      co_return mine;
    };
    auto wa = spawn(worker(a, "a"));
    auto wb = spawn(worker(b, "b"));
    std::vector<int64_t> rest_a = co_await wa;
    std::vector<int64_t> rest_b = co_await wb;
    EXPECT_FALSE(rest_a.empty());
    EXPECT_FALSE(rest_b.empty());
    for (int64_t id : rest_a) EXPECT_TRUE(both.insert(id).second) << "job " << id << " twice";
    for (int64_t id : rest_b) EXPECT_TRUE(both.insert(id).second) << "job " << id << " twice";
    EXPECT_EQ(both.size(), 100u);
    PgResult check = co_await a.query(
        "SELECT count(*) FILTER (WHERE claimed_by = 'a'), count(*) FILTER (WHERE claimed_by = "
        "'b'), count(*) FILTER (WHERE claimed_by IS NULL) FROM jobs");
    EXPECT_EQ(check.get_int(0, 0), static_cast<int64_t>(ids_a.size() + rest_a.size()));
    EXPECT_EQ(check.get_int(0, 1), static_cast<int64_t>(ids_b.size() + rest_b.size()));
    EXPECT_EQ(check.get_int(0, 2), 0);
  };
  run(body(), 60s);
}

}  // namespace
}  // namespace squall
