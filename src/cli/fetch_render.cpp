// `squall fetch --render`: pages rendered in headless Chromium, their DOM's HTML written out.
#include <fstream>
#include <ostream>

#include "squall/browser/browser_pool.h"
#include "squall/cli/fetch_command.h"
#include "squall/cli/request_options.h"
#include "squall/core.h"
#include "squall/engine/fetcher.h"

namespace squall::cli {

using nlohmann::json;

namespace {

// curl's statuses for the same causes (fetch_command.h).
int status_for(const FetchResult& r, bool no_fail) {
  if (r.status_code != 599) return r.status_code >= 400 && !no_fail ? 22 : 0;
  const std::string& kind = r.error_kind;
  if (kind == "connect") return 7;
  if (kind == "resolve") return 6;
  if (kind == "timeout") return 28;
  if (kind == "tls") return 35;
  if (kind == "too large") return 63;
  return 1;
}

// A flag that needs the HTTP client, or "" when none is given.
std::string unsupported_flag(const FetchCommand& c) {
  if (!c.data.empty() || c.data_file) return "-d";
  if (!c.form.empty()) return "-F";
  if (c.upload_file) return "-T";
  if (!c.method.empty()) return "-X";
  if (c.head) return "-I";
  if (c.range) return "-r";
  if (c.write_out) return "-w";
  if (c.cookie_jar) return "-c";
  if (c.user) return "-u";
  if (c.retries) return "--retry";
  if (!c.resolve.empty()) return "--resolve";
  if (!c.cacert.empty()) return "--cacert";
  if (c.insecure) return "-k";
  if (c.ip_version) return "-4/-6";
  return "";
}

std::string file_name_of(const std::string& url) {
  auto parsed = Url::parse(url);
  if (!parsed) return "";
  std::string path(parsed->path());
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

int run_fetch_render(const FetchCommand& command, std::ostream& out, std::ostream& err) {
  auto say = [&](const std::string& text) {
    if (!command.silent || command.show_error) err << "squall fetch: " << text << "\n";
  };
  if (command.urls.empty()) {
    say("no URL given (squall fetch --render URL...)");
    return 2;
  }
  if (std::string flag = unsupported_flag(command); !flag.empty()) {
    say(flag + " cannot be used with --render: the page is loaded by the browser");
    return 2;
  }
  if (browser::find_chromium().empty()) {
    say(browser::no_chromium_message());
    return 1;
  }
  json fetch = json::object();
  json headers = json::object();
  for (const std::string& line : command.headers) {
    http::Headers parsed;
    if (std::string bad = add_header_flag(line, parsed); !bad.empty()) {
      say(bad);
      return 2;
    }
    for (const auto& [name, value] : parsed) headers[std::string(name)] = std::string(value);
  }
  if (command.referer) headers["Referer"] = *command.referer;
  if (!headers.empty()) fetch["headers"] = headers;
  json cookies = json::object();
  for (const std::string& arg : command.cookies) {
    if (arg.find('=') == std::string::npos) {
      say("-b " + arg + ": with --render, give cookies as 'name=value; name2=value2'");
      return 2;
    }
    std::string_view rest = arg;
    while (!rest.empty()) {
      std::string_view pair = rest.substr(0, rest.find(';'));
      rest.remove_prefix(std::min(rest.size(), pair.size() + 1));
      size_t eq = pair.find('=');
      if (eq == std::string_view::npos) continue;
      cookies[std::string(http::trim_ows(pair.substr(0, eq)))] =
          std::string(http::trim_ows(pair.substr(eq + 1)));
    }
  }
  if (!cookies.empty()) fetch["cookies"] = cookies;
  if (command.user_agent) fetch["user_agent"] = *command.user_agent;
  if (command.timeout) fetch["timeout"] = *command.timeout;
  if (command.proxy) fetch["proxy"] = *command.proxy;
  fetch["fetch_type"] = "js";
  fetch["js_wait_until"] = "networkidle";

  Loop loop;
  browser::BrowserPoolOptions pool_options;
  pool_options.browsers = 1;
  // The browser resolves no host name but the URLs' own (a proxy resolves on its side).
  if (!command.proxy)
    for (const std::string& u : command.urls)
      if (auto parsed = Url::parse(u))
        pool_options.chromium.allowed_hosts.emplace_back(parsed->host());
  browser::BrowserPool pool(pool_options);
  FetcherOptions fetcher_options;
  fetcher_options.browser = &pool;
  fetcher_options.user_agent = "";
  Fetcher fetcher(fetcher_options);
  int status = 0;
  for (size_t i = 0; i < command.urls.size(); ++i) {
    CrawlTask task;
    task.url = command.urls[i];
    task.fetch = fetch;
    FetchResult r = run_sync(fetcher.fetch(task));
    int this_status = status_for(r, command.no_fail);
    if (r.status_code == 599) {
      say(r.error);
    } else {
      if (this_status) say("the page answered " + std::to_string(r.status_code) + ": " + task.url);
      if (this_status == 0 || command.no_fail) {
        std::optional<std::string> file;
        if (i < command.outputs.size())
          file = command.outputs[i] ? *command.outputs[i] : file_name_of(task.url);
        if (file && *file != "-") {
          std::ofstream f(*file, std::ios::binary);
          f << r.content;
          if (!f) {
            say("cannot write " + *file);
            this_status = 23;
          }
        } else {
          out << r.content;
          out.flush();
        }
      }
    }
    if (this_status) status = this_status;
  }
  pool.close();
  return status;
}

}  // namespace squall::cli
