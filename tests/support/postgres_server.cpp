// The test cluster: initdb, postgres in the foreground, a fast shutdown.
#include "support/postgres_server.h"

#include <gtest/gtest.h>

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace squall::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const fs::path bin = "/usr/lib/postgresql/15/bin";

}  // namespace

PostgresServer::PostgresServer(std::string host) : host_(std::move(host)) {
  if (!fs::exists(bin / "initdb") || !fs::exists(bin / "postgres"))
    throw std::runtime_error("PostgreSQL 15's server is not installed under " + bin.string() +
                             " (package postgresql-15; run scripts/bootstrap)");
  if (geteuid() == 0) {
    passwd* pw = getpwnam("postgres");
    if (!pw)
      throw std::runtime_error(
          "running as root, and there is no `postgres` user to run the test cluster as "
          "(initdb refuses root; postgresql-common creates that user)");
    owner_ = "postgres";
    fs::permissions(dir_.path(), fs::perms::owner_all);
    if (chown(dir_.path().c_str(), pw->pw_uid, pw->pw_gid) != 0)
      throw std::runtime_error("cannot give the scratch directory to the postgres user");
  }
  fs::path pwfile = dir_.write("pwfile", std::string(password) + "\n");
  if (!owner_.empty()) {
    passwd* pw = getpwnam(owner_.c_str());
    if (chown(pwfile.c_str(), pw->pw_uid, pw->pw_gid) != 0)
      throw std::runtime_error("cannot give the password file to the postgres user");
  }
  Process initdb = Process::start(
      as_owner({(bin / "initdb").string(), "-D", (dir_.path() / "data").string(), "-U", user,
                "--pwfile=" + pwfile.string(), "--auth-local=trust", "--auth-host=scram-sha-256",
                "-E", "UTF8", "--locale=C", "--no-sync"}),
      dir_.path());
  int status = initdb.wait(120s);
  if (status != 0)
    throw std::runtime_error("initdb failed (status " + std::to_string(status) + "):\n" +
                             initdb.output());
  // initdb lets TCP clients in from loopback only.
  if (host_ != "127.0.0.1") {
    std::ofstream hba(dir_.path() / "data" / "pg_hba.conf", std::ios::app);
    hba << "host all all samenet scram-sha-256\n";
    if (!hba) throw std::runtime_error("cannot add the subnet to pg_hba.conf");
  }
  start();
}

PostgresServer::~PostgresServer() {
  stop();
}

std::vector<std::string> PostgresServer::as_owner(std::vector<std::string> argv) const {
  if (owner_.empty()) return argv;
  std::vector<std::string> v = {"setpriv", "--reuid=" + owner_, "--regid=" + owner_,
                                "--init-groups", "--"};
  v.insert(v.end(), argv.begin(), argv.end());
  return v;
}

std::string PostgresServer::url() const {
  return "postgresql://squall:p%40ss%3Aw%2Frd@" + host_ + ":" + std::to_string(port_) + "/postgres";
}

void PostgresServer::start() {
  // A port free a moment ago may be taken by the time the server binds it: try a few.
  for (int attempt = 0;; ++attempt) {
    if (port_ == 0 || attempt > 0) port_ = free_port();
    server_ =
        Process::start(as_owner({(bin / "postgres").string(), "-D", (dir_.path() / "data").string(),
                                 "-p", std::to_string(port_), "-k", dir_.path().string(), "-c",
                                 "listen_addresses=" + host_, "-c", "fsync=off", "-c",
                                 "synchronous_commit=off", "-c", "full_page_writes=off", "-c",
                                 "max_connections=30", "-c", "shared_buffers=16MB"}),
                       dir_.path());
    auto deadline = std::chrono::steady_clock::now() + 60s;
    for (;;) {
      std::string out = server_.output();
      if (out.find("database system is ready to accept connections") != std::string::npos) return;
      if (!server_.running()) {
        if (out.find("could not bind") != std::string::npos && attempt < 5) break;
        throw std::runtime_error("postgres exited while starting:\n" + out);
      }
      if (std::chrono::steady_clock::now() >= deadline)
        throw std::runtime_error("postgres did not start within 60 s:\n" + out);
      std::this_thread::sleep_for(10ms);
    }
  }
}

void PostgresServer::stop() {
  // SIGINT is the fast shutdown: it ends the sessions instead of waiting for them.
  if (server_.running()) server_.stop(SIGINT, 30s);
}

std::unique_ptr<PostgresServer> PostgresTest::server_;
std::string PostgresTest::start_error_;

void PostgresTest::SetUpTestSuite() {
  try {
    server_ = std::make_unique<PostgresServer>();
  } catch (const std::exception& e) {
    start_error_ = e.what();
  }
}

void PostgresTest::TearDownTestSuite() {
  server_.reset();
}

void PostgresTest::SetUp() {
  ASSERT_TRUE(server_) << "the test cluster did not start: " << start_error_;
}

}  // namespace squall::test
