// `squall run` from an installed squall: `cmake --install` puts the pyspider package beside the
// binary, and the binary finds it there wherever the installed tree is moved.
#include <gtest/gtest.h>

#include "cli/run_peer.h"

namespace squall {
namespace {

using test::RunPeer;
using test::TempDir;
using test::with_origin;

TEST(RunInstall, AnInstalledSquallMovedElsewhereRunsAProjectWithThePackageInstalledBesideIt) {
  RunPeer site;
  TempDir work;
  std::filesystem::path prefix = work.path() / "prefix";
  test::CommandResult installed = test::run_command(
      {SQUALL_CMAKE, "--install", SQUALL_BINARY_DIR, "--prefix", prefix.string()}, work.path());
  ASSERT_EQ(installed.status, 0) << installed.out << installed.err;
  ASSERT_TRUE(std::filesystem::exists(prefix / "bin" / "squall"));
  ASSERT_TRUE(
      std::filesystem::exists(prefix / "share/squall/python/pyspider/libs/base_handler.py"));

  std::filesystem::path moved = work.path() / "elsewhere";
  std::filesystem::rename(prefix, moved);
  work.write("where.py", with_origin(R"(
import pyspider.libs.base_handler
from pyspider.libs.base_handler import *

class Handler(BaseHandler):
    def on_start(self):
        self.crawl("{ORIGIN}/page/x", callback=self.page)

    def page(self, response):
        return {"title": response.doc("title").text(),
                "package": pyspider.libs.base_handler.__file__}
)",
                                     site.origin));
  test::suppress_interpreter_leaks();
  test::CommandResult r = test::run_command(
      {(moved / "bin" / "squall").string(), "run", "where.py", "--results", "out.jsonl"},
      work.path(), {{"SQUALL_PYTHON_PATH", ""}});
  ASSERT_EQ(r.status, 0) << r.err;
  auto results = test::results_by_taskid(work.path() / "out.jsonl");
  ASSERT_EQ(results.size(), 1u);
  const nlohmann::json& result = results.begin()->second["result"];
  EXPECT_EQ(result["title"], "x");
  EXPECT_EQ(result["package"],
            (moved / "share/squall/python/pyspider/libs/base_handler.py").string())
      << "the installed package, not the source tree's";
}

}  // namespace
}  // namespace squall
