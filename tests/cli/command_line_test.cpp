// The squall command itself: --version, help, and what a mistyped subcommand gets.
#include <gtest/gtest.h>

#include <string>

#include "support/squall_command.h"

namespace squall {
namespace {

test::CommandResult squall(std::vector<std::string> args) {
  args.insert(args.begin(), test::squall_binary());
  return test::run_command(args, std::filesystem::temp_directory_path());
}

TEST(CommandLine, VersionNamesTheReleaseAndTheLibraries) {
  for (const char* flag : {"--version", "-V"}) {
    auto r = squall({flag});
    EXPECT_EQ(r.status, 0) << flag;
    EXPECT_TRUE(r.out.starts_with("squall 0.")) << r.out;
    EXPECT_NE(r.out.find(" OpenSSL/3."), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nProtocols: http https\n"), std::string::npos) << r.out;
  }
}

TEST(CommandLine, AMistypedSubcommandGetsTheNearestOneSuggested) {
  auto r = squall({"fetc", "http://127.0.0.1/"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "squall: unknown command 'fetc'; did you mean fetch? (squall --help lists the "
            "commands)\n");
  EXPECT_NE(squall({"crwal"}).err.find("did you mean crawl?"), std::string::npos);
  EXPECT_NE(squall({"ser"}).err.find("did you mean serve?"), std::string::npos);
  auto far = squall({"download"});
  EXPECT_EQ(far.status, 2);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

TEST(CommandLine, HelpSubcommandPrintsWhatSubcommandHelpPrints) {
  auto help = squall({"help", "fetch"});
  EXPECT_EQ(help.status, 0);
  EXPECT_EQ(help.out, squall({"fetch", "--help"}).out);
  EXPECT_NE(help.out.find("--write-out"), std::string::npos);
  auto top = squall({"help"});
  EXPECT_EQ(top.status, 0);
  EXPECT_EQ(top.out, squall({"--help"}).out);
  EXPECT_NE(squall({"help", "fetc"}).err.find("did you mean fetch?"), std::string::npos);
}

}  // namespace
}  // namespace squall
