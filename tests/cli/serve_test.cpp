// Tests for `squall serve`: the built command serving a directory to curl, and run_serve's
// refusals.
#include "squall/cli/serve_command.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <filesystem>
#include <sstream>
#include <thread>

#include "cli/serve_peer.h"
#include "http/web_peers.h"
#include "support/process.h"

namespace squall::cli {
namespace {

using test::squall_binary;
using test::start_serve;

TEST(SquallServe, ServesADirectoryAndStopsCleanlyOnSigterm) {
  ASSERT_TRUE(std::filesystem::exists(squall_binary())) << "build the squall target first";
  test::TempDir dir;
  dir.write("index.html", "<p>served</p>");
  dir.write("kib.txt", std::string(1024, 'k'));
  test::Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0"});
  ASSERT_NE(port, 0) << p.output();
  std::string base = test::cat("http://127.0.0.1:", std::to_string(port));
  EXPECT_EQ(test::curl({base + "/"}).body, "<p>served</p>");
  test::Reply kib = test::curl({base + "/kib.txt"});
  EXPECT_EQ(kib.status, 200);
  EXPECT_EQ(kib.body.size(), 1024u);
  EXPECT_NE(p.output().find(test::cat("Serving ", dir.path().string(), " at ", base, "/\n")),
            std::string::npos);
  int status = p.stop(SIGTERM, std::chrono::seconds(10));
  ASSERT_TRUE(WIFEXITED(status)) << p.output();
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(SquallServe, RunsSeveralWorkersWithAnAccessLogAndStopsOnCtrlC) {
  ASSERT_TRUE(std::filesystem::exists(squall_binary())) << "build the squall target first";
  test::TempDir dir;
  dir.write("a.txt", "A");
  test::Process p;
  uint16_t port = start_serve(p, {dir.path().string(), "--port", "0", "--workers", "2",
                                  "--access-log", "--bind", "127.0.0.1"});
  ASSERT_NE(port, 0) << p.output();
  std::string url = test::cat("http://127.0.0.1:", std::to_string(port), "/a.txt");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(test::curl({url}).body, "A");
  int status = p.stop(SIGINT, std::chrono::seconds(10));
  ASSERT_TRUE(WIFEXITED(status)) << p.output();
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(p.output().find("\"GET /a.txt HTTP/1.1\" 200 1"), std::string::npos) << p.output();
}

TEST(RunServe, RefusesWhatCannotBeServedWithExitStatus2) {
  std::ostringstream out, err;
  EXPECT_EQ(run_serve({.dir = "/nonexistent/squall-dir", .port = 0}, out, err), 2);
  EXPECT_NE(err.str().find("/nonexistent/squall-dir"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(run_serve({.port = 0, .bind = "no-such-host.invalid"}, out, err), 2);
  EXPECT_NE(err.str().find("--bind"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("no-such-host.invalid"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(run_serve({.port = 0, .workers = 0}, out, err), 2);
  EXPECT_NE(err.str().find("--workers"), std::string::npos);
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace squall::cli
