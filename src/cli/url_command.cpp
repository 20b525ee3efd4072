// `squall url`: parse and resolve URLs from the shell, as a browser's URL API would.
#include <nlohmann/json.hpp>
#include <ostream>

#include "squall/cli/url_command.h"
#include "squall/url/url.h"

namespace squall::cli {

namespace {

// The fields of the URL API's object, with its conventions ("https:", "?q", "#f", "" for a
// default port).
nlohmann::ordered_json to_json(const Url& url) {
  // Built with append: GCC 12 at -O3 misreports `"?" + std::string(...)` under -Wrestrict.
  auto port = url.port();
  std::string search, hash, host(url.host());
  if (!url.query().empty()) search.append("?").append(url.query());
  if (!url.fragment().empty()) hash.append("#").append(url.fragment());
  if (port) host.append(":").append(std::to_string(*port));
  nlohmann::ordered_json j;
  j["href"] = std::string(url.href());
  j["protocol"] = std::string(url.scheme()).append(":");
  j["username"] = std::string(url.username());
  j["password"] = std::string(url.password());
  j["host"] = host;
  j["hostname"] = std::string(url.host());
  j["port"] = port ? std::to_string(*port) : "";
  j["pathname"] = std::string(url.path());
  j["search"] = search;
  j["hash"] = hash;
  return j;
}

}  // namespace

int run_url(const UrlCommand& command, std::ostream& out, std::ostream& err) {
  std::optional<Url> base;
  if (command.base) {
    auto parsed = Url::parse(*command.base);
    if (!parsed) {
      err << "squall url: the base '" << *command.base
          << "' is not a URL: " << url_error_message(parsed.error())
          << " (give an absolute URL such as https://example.com/)\n";
      return 2;
    }
    base = std::move(parsed).value();
  }
  int status = 0;
  for (const auto& input : command.inputs) {
    auto parsed = Url::parse(input, base ? &*base : nullptr);
    if (!parsed) {
      out << "error: " << url_error_message(parsed.error()) << "\n";
      status = 1;
    } else if (command.json) {
      out << to_json(*parsed).dump() << "\n";
    } else {
      out << parsed->href() << "\n";
    }
  }
  return status;
}

}  // namespace squall::cli
