// A real PostgreSQL 15 cluster for tests: initdb into a scratch directory, the server on a free
// loopback port (its Unix socket in the same directory), stopped and removed at the end.
// Blocking; used outside the loop.
//
//   PostgresServer pg;                  // throws std::runtime_error with the server's output
//   PgConnection db(pg.url());          // postgresql://squall:...@127.0.0.1:PORT/postgres
//   pg.restart();                       // a fast shutdown (clients are disconnected), then start
//
// initdb and postgres refuse to run as root: as root (CI), the cluster belongs to the system's
// `postgres` user (which Debian's postgresql-common creates) and the servers run as that user.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "support/loop_fixture.h"
#include "support/process.h"

namespace squall::test {

class PostgresServer {
 public:
  // The superuser "squall", whose password (with characters a URL must percent-encode) the
  // server checks with SCRAM over TCP.
  static constexpr const char* user = "squall";
  static constexpr const char* password = "p@ss:w/rd";

  // Listens on `host` (an address of this machine's, or of the network namespace the calling
  // thread is in); other than 127.0.0.1, clients of its subnet ("samenet") may log in too.
  explicit PostgresServer(std::string host = "127.0.0.1");
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  uint16_t port() const { return port_; }
  // postgresql://squall:p%40ss%3Aw%2Frd@HOST:PORT/postgres
  std::string url() const;

  // Fast shutdown (SIGINT: sessions are ended, FATAL 57P01), then waits for the exit.
  void stop();
  // Starts it again on the same port and directory; returns once it accepts queries.
  void start();
  void restart() {
    stop();
    start();
  }

 private:
  // argv run as the cluster's owner.
  std::vector<std::string> as_owner(std::vector<std::string> argv) const;

  TempDir dir_;
  std::string host_;
  std::string owner_;  // the user to run as, or "" for ourselves
  uint16_t port_ = 0;
  Process server_;
};

// A fixture whose tests share one PostgresServer, started before the suite's first test: a test
// fails, saying why, when it could not start.
class PostgresTest : public LoopTest {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  void SetUp() override;
  static PostgresServer& pg() { return *server_; }

 private:
  static std::unique_ptr<PostgresServer> server_;
  static std::string start_error_;
};

}  // namespace squall::test
