// `squall robots`: what a robots.txt file allows one crawler to fetch, and which rule decides.
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>

#include "squall/cli/robots_command.h"
#include "squall/crawl/robots.h"
#include "squall/url/url.h"

namespace squall::cli {

int run_robots(const RobotsCommand& command, std::istream& in, std::ostream& out,
               std::ostream& err) {
  std::string body;
  if (command.file == "-") {
    body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
    std::ifstream file(command.file, std::ios::binary);
    if (!file) {
      err << "squall robots: cannot read '" << command.file
          << "' (give a robots.txt file, or - for standard input)\n";
      return 2;
    }
    body.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  RobotsTxt robots = RobotsTxt::parse(body);
  RobotsRules rules = robots.rules_for(command.agent);
  int status = 0;
  for (const auto& target : command.urls) {
    // Paths are matched as given; URLs by their path and query, as the crawler does.
    std::string path = target;
    if (target.empty() || target[0] != '/') {
      auto url = Url::parse(target);
      if (!url) {
        out << target << "\terror: " << url_error_message(url.error()) << "\n";
        status = 1;
        continue;
      }
      path = std::string(url->request_target());
    }
    RobotsMatch match = rules.match(path);
    out << target << "\t" << (match.allowed ? "allowed" : "disallowed");
    if (match.rule) out << "\t" << match.rule->text << " (line " << match.rule->line << ")";
    out << "\n";
    if (!match.allowed) status = 1;
  }
  return status;
}

}  // namespace squall::cli
