// GeneratedSite: scripts/gensite.py's output behind nginx.
#include "support/site.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace squall::test {

void generate_site(const std::filesystem::path& out, int pages, const std::string& origin) {
  Process gen =
      Process::start({"/usr/bin/python3", SQUALL_SOURCE_DIR "/scripts/gensite.py", "--out",
                      out.string(), "--origin", origin, "--pages", std::to_string(pages)});
  if (gen.wait(std::chrono::seconds(60)) != 0)
    throw std::runtime_error("gensite.py failed:\n" + gen.output());
}

GeneratedSite::GeneratedSite(int pages, int requests_per_second) : port(free_port()) {
  origin = "http://127.0.0.1:";
  origin.append(std::to_string(port));
  auto root = dir.path() / "site";
  generate_site(root, pages, origin);
  auto expected = nlohmann::json::parse(read_file(root / "expected.json"));
  for (const auto& u : expected["with_robots"]) with_robots.insert(u.get<std::string>());
  for (const auto& u : expected["without_robots"]) without_robots.insert(u.get<std::string>());
  std::string pace;
  if (requests_per_second > 0)
    pace = "limit_req_zone $server_port zone=pace:1m rate=" + std::to_string(requests_per_second) +
           "r/s;\nlimit_req zone=pace burst=100000;\n";
  nginx = start_nginx(dir, "location / { root " + root.string() + "; }", port, "", pace);
}

std::map<std::string, int> GeneratedSite::hits() const {
  std::map<std::string, int> out;
  // Combined log format: ... "GET /path HTTP/1.1" ...
  std::istringstream log(read_file(dir.path() / "access.log"));
  for (std::string line; std::getline(log, line);) {
    size_t start = line.find("\"GET ");
    size_t end = line.find(" HTTP/", start);
    if (start != std::string::npos && end != std::string::npos)
      out[line.substr(start + 5, end - start - 5)]++;
  }
  return out;
}

}  // namespace squall::test
