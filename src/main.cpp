// The squall command: thin flag parsing over libsquall's subcommands.
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <string_view>
#include <vector>

#include "squall/cli/component_command.h"
#include "squall/cli/crawl_command.h"
#include "squall/cli/fetch_command.h"
#include "squall/cli/links_command.h"
#include "squall/cli/robots_command.h"
#include "squall/cli/run_command.h"
#include "squall/cli/serve_command.h"
#include "squall/cli/status_command.h"
#include "squall/cli/url_command.h"
#include "squall/cli/version.h"

namespace {

// Edits (insertions, deletions, substitutions) that turn `a` into `b`.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "unknown command 'fetc'; did you mean fetch?", naming the nearest subcommand when one is
// close (a prefix of it, or at most two edits away).
int unknown_command(const CLI::App& app, std::string_view word) {
  std::string_view best;
  size_t best_distance = 3;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string& name = sub->get_name();
    size_t d = name.starts_with(word) ? 0 : edit_distance(word, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  std::cerr << "squall: unknown command '" << word << "'";
  if (!best.empty()) std::cerr << "; did you mean " << best << "?";
  std::cerr << " (squall --help lists the commands)\n";
  return 2;
}

// --port, --bind, --auth and --exit-when-done: the control plane's flags, which squall crawl
// and squall run share (`what` is what they run).
template <class Command>
void add_control_flags(CLI::App* cmd, Command& c, const std::string& what) {
  cmd->add_option("--port", c.port,
                  "serve the JSON API, /metrics and the dashboard on this port while the " + what +
                      " runs, and after it until Ctrl-C (0: any free port)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--bind", c.bind,
                  "the address --port listens on (default 127.0.0.1; another needs --auth)");
  cmd->add_option("--auth", c.auth, "user:password: HTTP Basic auth on everything --port serves");
  cmd->add_flag("--exit-when-done", c.exit_when_done,
                "with --port, leave as soon as the " + what + " ends instead of serving on");
}

// One of the engine's components as a command (squall scheduler, fetcher, processor,
// result-worker), with the flags they share.
CLI::App* add_component_command(CLI::App& app, squall::cli::ComponentCommand& c,
                                const std::string& role, const std::string& description) {
  c.role = role;
  auto* cmd = app.add_subcommand(role, description);
  if (role == "scheduler" || role == "processor")
    cmd->add_option("PROJECT.py", c.script, "the project script (or --crawl)");
  if (role == "scheduler" || role == "processor" || role == "result-worker")
    cmd->add_flag("--crawl", c.crawl,
                  "the crawl a `squall crawl URL --redis` started in this namespace, with the "
                  "options it saved in Redis, instead of a project script");
  cmd->add_option("--redis", c.redis,
                  "redis://[[user]:password@]host[:port][/db], shared by every component")
      ->capture_default_str();
  cmd->add_option("--namespace", c.ns, "the crawl's keys are squall:NAMESPACE:... in Redis")
      ->capture_default_str();
  cmd->add_option("--lease", c.lease,
                  "seconds a component holds what it took before another may take it again")
      ->capture_default_str();
  cmd->add_option("--max-deliveries", c.max_deliveries,
                  "deliveries of one stream entry before it goes to the dead letters")
      ->capture_default_str();
  cmd->add_flag("--keep-running", c.keep_running, "stay up once the crawl is done, for the next");
  cmd->add_option("--port", c.port,
                  "serve the cluster read-only on this port while it runs: GET /api/cluster, "
                  "/metrics and the dashboard (0: any free port)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--bind", c.bind,
                  "the address --port listens on (default 127.0.0.1; another needs --auth)");
  cmd->add_option("--auth", c.auth, "user:password: HTTP Basic auth on everything --port serves");
  if (role == "scheduler" || role == "result-worker")
    cmd->add_option("--taskdb", c.taskdb,
                    "the task store: postgresql://USER@HOST/DB to share (or an SQLite file)");
  if (role == "scheduler") {
    cmd->add_flag("--fresh", c.fresh,
                  "start the crawl over: drop what the task store (its results too) held; "
                  "refused while another scheduler runs the project");
    cmd->add_option("--processing-timeout", c.processing_timeout,
                    "seconds before a task whose outcome never came is dispatched again (a push "
                    "lost in a Redis crash); default four leases, and at least 120");
  }
  if (role == "result-worker") {
    cmd->add_option("--resultdb", c.resultdb, "where results are stored (default: --taskdb)");
    cmd->add_option("--results", c.results,
                    "also write a JSON line per result here (pyspider's dump format)");
  }
  if (role == "fetcher") {
    cmd->add_option("-c,--concurrency", c.concurrency, "fetches in flight")->capture_default_str();
    cmd->add_option("--per-host", c.per_host,
                    "fetches in flight per host, across every fetcher of the crawl")
        ->capture_default_str();
    cmd->add_option("--delay", c.delay,
                    "seconds between two fetches of a host, across every fetcher of the crawl");
    cmd->add_option("--user-agent", c.user_agent, "User-Agent and robots.txt token")
        ->capture_default_str();
    cmd->add_flag("--ignore-robots", c.ignore_robots, "do not fetch or obey robots.txt");
  }
  return cmd;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "squall: an asynchronous networking runtime and web crawler.\n"
      "Run `squall SUBCOMMAND --help` for the flags of each subcommand.",
      "squall"};
  app.require_subcommand(1);
  app.set_version_flag("-V,--version", squall::cli::version_text());

  squall::cli::UrlCommand url;
  auto* url_cmd = app.add_subcommand(
      "url",
      "Parse URLs as a browser does (WHATWG URL Standard) and print each one serialized.\n"
      "Example: squall url --base https://example.com/a/b ../c '?q' //other.org/");
  url_cmd->add_option("--base", url.base, "resolve every input against this absolute URL");
  url_cmd->add_flag("--json", url.json,
                    "print an object per input: href, protocol, username, password, host, "
                    "hostname, port, pathname, search, hash");
  url_cmd->add_option("INPUT", url.inputs, "URLs or relative references")->required();

  squall::cli::RobotsCommand robots;
  auto* robots_cmd = app.add_subcommand(
      "robots",
      "Say whether robots.txt (RFC 9309) lets a crawler fetch each URL, and which rule decides.\n"
      "Exit status 0 when every URL is allowed, 1 otherwise.\n"
      "Example: squall robots robots.txt --agent squall https://example.com/private/x /public");
  robots_cmd->add_option("FILE", robots.file, "the robots.txt file, or - for standard input")
      ->required();
  robots_cmd->add_option("--agent", robots.agent, "the crawler's user agent or product token")
      ->required();
  robots_cmd->add_option("URL", robots.urls, "absolute URLs or paths such as /a?b")->required();

  squall::cli::LinksCommand links;
  auto* links_cmd = app.add_subcommand(
      "links",
      "Print the crawlable (http and https) links of an HTML document, one absolute URL per "
      "line.\nExample: squall links --base https://docs.python.org/3/ index.html");
  links_cmd->add_option("--base", links.base, "the page's URL, to resolve relative links");
  links_cmd->add_flag("--all", links.all,
                      "add tab-separated columns: element, rel, and follow or nofollow");
  links_cmd->add_option("FILE", links.file, "the HTML file, or - for standard input (default)");

  squall::cli::FetchCommand fetch;
  auto* fetch_cmd = app.add_subcommand(
      "fetch",
      "Fetch URLs like curl: the body on standard output, redirects followed (-L is the default),\n"
      "gzip, deflate, br and zstd decoded, curl's flags. Exit status as curl --fail gives it:\n"
      "0 ok, 22 HTTP error status, 6 resolve, 7 connect, 28 timeout, 35 TLS handshake, 60\n"
      "untrusted certificate, 47 too many redirects, 52 empty reply, 56 receive error, 61 bad\n"
      "content encoding, 63 size limit or decompression bomb, 23 cannot write, 26 cannot read,\n"
      "77 cannot read --cacert, 2 usage, 1 other.\n"
      "Proxies come from -x, else http_proxy, https_proxy, all_proxy (no_proxy: hosts without).\n"
      "Examples:\n"
      "  squall fetch http://127.0.0.1:8080/ -o page.html\n"
      "  squall fetch -O http://127.0.0.1:8080/a.tar.gz -O http://127.0.0.1:8080/b.tar.gz\n"
      "  squall fetch -v https://example.com/ -w '%{http_code} %{time_total}\\n'\n"
      "  squall fetch -d 'q=1' -H 'Accept: application/json' -u me:secret http://127.0.0.1:8080/\n"
      "  squall fetch -F name=squall -F photo=@me.jpg http://127.0.0.1:8080/upload\n"
      "  squall fetch --timeout 5 --retry 3 --no-fail http://127.0.0.1:8080/missing");
  // Flags squall does not know land in remaining() and are named in the error (see below).
  fetch_cmd->allow_extras();
  fetch_cmd->add_option("URL", fetch.urls, "http:// or https:// URLs, fetched in turn");
  fetch_cmd->add_option("--url", fetch.urls, "a URL (as a positional one)");
  // -o and -O pair with the URLs in the order given, so both append to one list as parsed.
  fetch_cmd
      ->add_option_function<std::string>(
          "-o,--output", [&fetch](const std::string& file) { fetch.outputs.push_back(file); },
          "write the body of the next URL to FILE (- for standard output)")
      ->trigger_on_parse();
  fetch_cmd
      ->add_flag_callback(
          "-O,--remote-name", [&fetch] { fetch.outputs.push_back(std::nullopt); },
          "write the body of the next URL to the file its path names")
      ->trigger_on_parse();
  fetch_cmd->add_option("-X,--request", fetch.method,
                        "method (default GET; HEAD with -I, PUT with -T, POST with a body)");
  fetch_cmd->add_option("-H,--header", fetch.headers, "'Name: value', repeatable")
      ->allow_extra_args(false);
  using DataKind = squall::cli::FetchData::Kind;
  auto data = [&](const char* name, DataKind kind, const char* help) {
    fetch_cmd
        ->add_option_function<std::string>(
            name,
            [&fetch, kind](const std::string& v) {
              fetch.data.push_back({kind, v});
            },
            help)
        ->trigger_on_parse();
  };
  data("-d,--data", DataKind::Ascii,
       "request body, POSTed as a form; @FILE reads a file without its newlines; repeated "
       "ones are joined with &");
  data("--data-ascii", DataKind::Ascii, "the same as -d");
  data("--data-binary", DataKind::Binary, "as -d, but @FILE is sent as it is");
  data("--data-raw", DataKind::Raw, "as -d, but '@' is not special");
  data("--data-urlencode", DataKind::UrlEncode,
       "as -d, percent-encoded: 'content', 'name=content', '@file' or 'name@file'");
  fetch_cmd->add_option("--data-file", fetch.data_file, "request body from a file");
  fetch_cmd->add_flag("-G,--get", fetch.data_in_query, "send the -d data in the URL's query");
  fetch_cmd
      ->add_option("-F,--form", fetch.form,
                   "multipart form part: name=value, name=@file[;type=T][;filename=N] or "
                   "name=<file (repeatable)")
      ->allow_extra_args(false);
  fetch_cmd->add_option("-T,--upload-file", fetch.upload_file,
                        "PUT this file (- for standard input); a URL ending in / gets its name");
  fetch_cmd->add_flag("-i,--include", fetch.include, "print each response's head before the body");
  fetch_cmd->add_flag("-I,--head", fetch.head, "ask with HEAD and print the head");
  fetch_cmd->add_flag("-v,--verbose", fetch.verbose,
                      "show the connection, TLS, each request and response head, redirects and "
                      "timings on stderr");
  fetch_cmd->add_flag("-s,--silent", fetch.silent, "no error messages");
  fetch_cmd->add_flag("-S,--show-error", fetch.show_error, "error messages even with -s");
  // curl's habits that are squall's defaults: accepted, and nothing to do.
  for (auto [name, help] : {std::pair{"-L,--location", "follow redirects (always on)"},
                            {"-f,--fail",
                             "exit 22 and print nothing for an HTTP error status "
                             "(the default)"},
                            {"--compressed",
                             "ask for a compressed body and decode it (the "
                             "default)"}})
    fetch_cmd->add_flag(name)->description(help);
  fetch_cmd->add_option("-m,--timeout,--max-time", fetch.timeout, "seconds for the whole fetch");
  fetch_cmd->add_option("--connect-timeout", fetch.connect_timeout,
                        "seconds to resolve and connect (default 20)");
  fetch_cmd->add_option("--max-redirects,--max-redirs", fetch.max_redirects,
                        "redirects to follow (default 5)");
  fetch_cmd->add_option("--max-filesize", fetch.max_filesize,
                        "bytes of decoded body at most (exit 63 beyond)");
  fetch_cmd->add_option("--max-ratio", fetch.max_ratio,
                        "decompression-bomb guard: past 16 MiB decoded, more than N bytes per "
                        "byte received fails (exit 63); default 200, 0 turns it off");
  fetch_cmd->add_option("-x,--proxy", fetch.proxy, "[http://][user:password@]host:port");
  fetch_cmd->add_option("--noproxy", fetch.noproxy,
                        "hosts reached without the proxy, comma-separated (* for all)");
  fetch_cmd->add_flag("-k,--insecure", fetch.insecure, "do not verify the server's certificate");
  fetch_cmd->add_option("--cacert", fetch.cacert, "trust the CA certificates of this PEM file");
  fetch_cmd->add_option("-A,--user-agent", fetch.user_agent, "User-Agent (default squall/1.0)");
  fetch_cmd->add_option("-u,--user", fetch.user, "user:password for basic authentication");
  fetch_cmd->add_option("-e,--referer", fetch.referer, "the Referer to send");
  fetch_cmd->add_option("-r,--range", fetch.range, "bytes to ask for: 0-499, 500-, -500");
  fetch_cmd
      ->add_option("-b,--cookie", fetch.cookies,
                   "'name=value; n2=v2' to send, or a cookie file to read (repeatable)")
      ->allow_extra_args(false);
  fetch_cmd->add_option("-c,--cookie-jar", fetch.cookie_jar,
                        "write every cookie to this file at the end (Netscape format)");
  fetch_cmd->add_option("-w,--write-out", fetch.write_out,
                        "print this after each transfer: %{http_code}, %{url_effective}, "
                        "%{time_total}, %{size_download}, %{num_redirects}, %{content_type}, "
                        "%{remote_ip}, %header{Name}... (@FILE reads it from a file)");
  fetch_cmd->add_option("--retry", fetch.retries,
                        "tries again after a timeout or 408, 429, 500, 502, 503, 504");
  fetch_cmd->add_option("--retry-delay", fetch.retry_delay,
                        "seconds between tries (default 1, doubling)");
  fetch_cmd
      ->add_option("--resolve", fetch.resolve,
                   "host:port:address: connect there instead of resolving (repeatable)")
      ->allow_extra_args(false);
  fetch_cmd->add_flag_callback(
      "-4,--ipv4", [&fetch] { fetch.ip_version = 4; }, "connect over IPv4 only");
  fetch_cmd->add_flag_callback(
      "-6,--ipv6", [&fetch] { fetch.ip_version = 6; }, "connect over IPv6 only");
  fetch_cmd->add_flag("--no-fail", fetch.no_fail,
                      "an HTTP error status prints its body and exits 0");
  fetch_cmd->add_flag("--render", fetch.render,
                      "load the page in headless Chromium and print its rendered HTML "
                      "(Debian's chromium-headless-shell)");

  squall::cli::ServeCommand serve;
  auto* serve_cmd = app.add_subcommand(
      "serve",
      "Serve the files of a directory over HTTP (GET and HEAD, ranges, conditional requests,\n"
      "index.html, zstd and gzip for text) until Ctrl-C or SIGTERM; prints the URL it listens\n"
      "on. Hidden paths (.git/, .env: any name starting with '.', but .well-known) are 404.\n"
      "A port another process listens on is an error (exit status 2), never shared.\n"
      "Examples:\n"
      "  squall serve site --port 8080 --workers 2 --access-log access.log\n"
      "  squall serve . --bind localhost --port 0 --list --access-log");
  serve_cmd->add_option("DIR", serve.dir, "the directory to serve (default .)");
  serve_cmd->add_option("--port", serve.port, "TCP port (default 8000; 0 picks a free one)");
  serve_cmd->add_option("--bind", serve.bind,
                        "IP address or host name to listen on (default 127.0.0.1; a name "
                        "listens on its first IPv4 address, else its first IPv6)");
  serve_cmd->add_option("--workers", serve.workers,
                        "threads, each with its own loop, sharing the port (default 1)");
  auto* access_log_opt =
      serve_cmd
          ->add_option("--access-log", serve.access_log_file,
                       "one line per request (nginx's combined format), appended to FILE, or on "
                       "standard output for -, or on standard error without FILE")
          ->expected(0, 1)
          ->type_name("[FILE|-]");
  serve_cmd->add_option("--log-format", serve.log_format, "combined (default) or common");
  serve_cmd->add_flag("--dotfiles", serve.dotfiles, "serve hidden paths (names starting with .)");
  serve_cmd->add_flag("--list", serve.list,
                      "list the entries of a directory that has no index.html (else 404)");
  serve_cmd->add_flag("--no-compress{false}", serve.compress,
                      "send text files as they are, never zstd or gzip");

  squall::cli::CrawlCommand crawl;
  auto* crawl_cmd = app.add_subcommand(
      "crawl",
      "Crawl everything beneath a URL's directory: robots.txt obeyed, polite per host, state\n"
      "kept in SQLite so that the same command resumes after Ctrl-C or a crash. Prints a\n"
      "progress line on a terminal and a summary at the end. One crawl per state file: another\n"
      "crawl needs its own --state (or --fresh to start over), and one process at a time.\n"
      "--concurrency is the fetches in flight in all; each host gets at most --per-host of them\n"
      "(default 2), so a crawl of one host runs --per-host at once: raise both for your own "
      "server.\n"
      "Proxies: --proxy, else http_proxy, https_proxy, all_proxy and no_proxy as curl reads them.\n"
      "Exit status: 0 finished, 3 --timeout ended it, 130/143 interrupted (both resumable),\n"
      "2 usage error or a state/output file of another crawl, 1 could not run (or robots.txt\n"
      "disallows everything). Nothing fetched successfully: 4 network failure, 5 TLS failure,\n"
      "8 the server answered with errors (as wget numbers them).\n"
      "Examples:\n"
      "  squall crawl http://127.0.0.1:8000/docs/\n"
      "  squall crawl http://127.0.0.1:8000/library/index.html   # all of /library/, as wget -np\n"
      "  squall crawl https://example.org/ --scope domain --max-pages 1000 --jsonl pages.jsonl\n"
      "  squall crawl http://127.0.0.1:8000/ --concurrency 64 --per-host 8 --warc site.warc.gz\n"
      "  squall crawl https://intranet.test/ -k -H 'Authorization: Bearer T' -b session=abc\n"
      "  sqlite3 crawl.db 'select status, count(*) from results group by status'");
  crawl_cmd->add_option("URL", crawl.urls, "start URLs (http or https)")->required();
  crawl_cmd
      ->add_option("-c,--concurrency", crawl.concurrency,
                   "fetches in flight in all (each host: at most --per-host)")
      ->capture_default_str();
  crawl_cmd->add_option("--timeout", crawl.timeout, "seconds for the whole crawl (positive)")
      ->capture_default_str();
  crawl_cmd
      ->add_option("--scope", crawl.scope,
                   "prefix (beneath the start URL's directory: http://h/a/b.html covers "
                   "http://h/a/, as wget -np), host, domain (registrable domain) or any")
      ->capture_default_str();
  crawl_cmd->add_option("--include", crawl.include,
                        "only URLs matching this regular expression (repeatable)");
  crawl_cmd->add_option("--exclude", crawl.exclude,
                        "skip URLs matching this regular expression (repeatable)");
  crawl_cmd->add_option("--max-depth", crawl.max_depth,
                        "links followed from a start URL (0: the start URLs only)");
  crawl_cmd->add_option("--max-pages", crawl.max_pages,
                        "fetch this many pages in all, resumes of the crawl included");
  crawl_cmd->add_option("--max-page-size", crawl.max_page_size, "bytes; larger pages fail")
      ->capture_default_str();
  crawl_cmd->add_option("--max-ratio", crawl.max_ratio,
                        "decompression-bomb guard: past 16 MiB decoded, more than N bytes per "
                        "byte received fails the page; default 200, 0 turns it off");
  crawl_cmd->add_flag("--ignore-robots", crawl.ignore_robots, "do not fetch or obey robots.txt");
  crawl_cmd->add_flag("--ignore-nofollow", crawl.ignore_nofollow, "follow rel=nofollow links too");
  crawl_cmd->add_flag("--no-sitemaps", crawl.no_sitemaps,
                      "do not read the sitemaps of the start hosts (robots.txt Sitemap: lines and "
                      "/sitemap.xml, gzip and index files too) for URLs in scope");
  crawl_cmd->add_option("--per-host", crawl.per_host, "fetches in flight per host")
      ->capture_default_str();
  crawl_cmd->add_option("--delay", crawl.delay,
                        "seconds between fetches from one host (robots.txt Crawl-delay wins "
                        "when longer)");
  crawl_cmd->add_option("--user-agent", crawl.user_agent, "User-Agent and robots.txt token")
      ->capture_default_str();
  crawl_cmd
      ->add_option("-H,--header", crawl.headers,
                   "'Name: value' sent with every request, repeatable")
      ->allow_extra_args(false);
  crawl_cmd
      ->add_option("-b,--cookie", crawl.cookies,
                   "cookies 'a=1; b=2' for every request, or (no '=') a Netscape cookie file "
                   "whose cookies go where they match, as curl -b; repeatable")
      ->allow_extra_args(false);
  crawl_cmd->add_option("-x,--proxy", crawl.proxy,
                        "http://[user:password@]host:port for every URL (no_proxy still applies)");
  crawl_cmd->add_flag("-k,--insecure", crawl.insecure, "do not verify TLS certificates");
  crawl_cmd->add_option(
      "--cacert", crawl.cacert,
      "trust the certificate authorities in this PEM file instead of the system's");
  crawl_cmd
      ->add_option("--timeout-per-fetch", crawl.timeout_per_fetch,
                   "seconds for one fetch (each redirect hop), connecting included")
      ->capture_default_str();
  crawl_cmd->add_option("--retries", crawl.retries, "tries after a 599, 429 or 5xx")
      ->capture_default_str();
  crawl_cmd
      ->add_option("--state,--taskdb", crawl.state,
                   "the store that keeps the crawl: an SQLite file, sqlite:///PATH, or\n"
                   "postgresql://USER@HOST/DB (one crawl per store; a run with other start URLs "
                   "is refused)")
      ->capture_default_str();

  crawl_cmd->add_flag("--fresh", crawl.fresh,
                      "start over: drop what the state file and the outputs hold");
  crawl_cmd->add_option(
      "--jsonl", crawl.jsonl,
      "write a JSON line per page here (- for stdout; a resume appends, a file of another crawl\n"
      "is refused): url, final_url, status (599: no HTTP status came, error_kind says why),\n"
      "depth, parent, content_type, length (body bytes), fetched_at, elapsed_ms, links (count),\n"
      "error, error_kind, title, redirects (the URLs that redirected, in order), content_length,\n"
      "last_modified, etag; null when absent");
  crawl_cmd->add_flag("--jsonl-links", crawl.jsonl_links,
                      "add each page's links to its JSON line (\"outlinks\": resolved URLs)");
  crawl_cmd->add_option("--warc", crawl.warc,
                        "write requests and responses as WARC 1.1 here (appended on resume, as "
                        "--jsonl)");
  crawl_cmd->add_flag("-q,--quiet", crawl.quiet, "no progress line and no summary");
  crawl_cmd->add_option("--redis", crawl.redis,
                        "run the crawl's components over this Redis (redis://host[:port][/db]), "
                        "so that\n`squall fetcher` and `squall processor --crawl` elsewhere share "
                        "it");
  crawl_cmd->add_option("--namespace", crawl.ns, "with --redis: the crawl's keys, squall:NS:...")
      ->capture_default_str();
  crawl_cmd
      ->add_option("--lease", crawl.lease,
                   "with --redis: seconds a component holds what it took before another may "
                   "take it again")
      ->capture_default_str();
  crawl_cmd->add_flag("--render", crawl.render,
                      "render every page in headless Chromium (Debian's chromium-headless-shell) "
                      "and take the links of its rendered DOM");
  crawl_cmd->add_option("--browsers", crawl.browsers, "browsers rendering at once, with --render")
      ->check(CLI::PositiveNumber);
  add_control_flags(crawl_cmd, crawl, "crawl");

  squall::cli::RunCommand run;
  std::vector<std::string> run_args;
  auto* run_cmd = app.add_subcommand(
      "run",
      "Run a pyspider project script on squall's engine: scheduler, fetcher, processor and\n"
      "result worker in one process (pyspider's `all`). The project is named after the file;\n"
      "its tasks and results stay in --db, so the same command resumes, and on_start runs on\n"
      "the first run only. robots.txt is obeyed unless --ignore-robots.\n"
      "Exit status: 0 no task left active (and no @every job), 3 --timeout, 130 Ctrl-C (both\n"
      "resumable), 2 the script did not load or a usage error, 1 the store could not be used.\n"
      "--debug PROJECT.py URL [--callback NAME] runs one step (pyspider's debugger): fetches\n"
      "URL, runs the callback (index_page unless named; URL on_start runs on_start) and prints\n"
      "the follows, result, messages and logs, changing no store. With --port (and no --debug)\n"
      "the dashboard's debugger pane steps the project the same way.\n"
      "Examples:\n"
      "  squall run tutorial.py --results results.jsonl\n"
      "  squall run tutorial.py --timeout 600 --concurrency 32 --per-host 8\n"
      "  squall run --debug tutorial.py http://127.0.0.1:8000/ --callback index_page\n"
      "  sqlite3 tutorial.db 'select taskid, url, status from tasks limit 10'");
  run_cmd->add_option("PROJECT.py [URL]", run_args, "the project script (and, with --debug, a URL)")
      ->required()
      ->expected(1, 2);
  run_cmd->add_option(
      "--db,--taskdb", run.db,
      "where its tasks, project and results are kept: an SQLite file (PROJECT.db),\n"
      "sqlite:///PATH, or postgresql://USER@HOST/DB (pyspider's --taskdb)");
  run_cmd->add_option("--resultdb", run.resultdb,
                      "keep its results in this store instead (a file or a URL as --taskdb)");
  run_cmd->add_option("--results", run.results,
                      "write a JSON line per result here (pyspider's dump format)");
  run_cmd->add_option("--timeout", run.timeout, "seconds, then stop (exit 3; the command resumes)");
  run_cmd->add_flag("--ignore-robots", run.ignore_robots, "do not fetch or obey robots.txt");
  run_cmd->add_option("-c,--concurrency", run.concurrency, "fetches in flight")
      ->capture_default_str();
  run_cmd->add_option("--per-host", run.per_host, "fetches in flight per host")
      ->capture_default_str();
  run_cmd->add_option("--user-agent", run.user_agent, "User-Agent and robots.txt token")
      ->capture_default_str();
  run_cmd->add_option("--delay", run.delay, "seconds between two fetch starts on one host");
  run_cmd->add_option("--redis", run.redis,
                      "run the components over this Redis (redis://host[:port][/db]), so that\n"
                      "squall fetcher and squall processor on other machines share the work");
  run_cmd->add_option("--namespace", run.ns, "with --redis: the crawl's keys, squall:NS:...")
      ->capture_default_str();
  run_cmd
      ->add_option("--lease", run.lease,
                   "with --redis: seconds a component holds what it took before another may "
                   "take it again")
      ->capture_default_str();
  run_cmd->add_flag("-q,--quiet", run.quiet, "no progress line and no summary");
  run_cmd->add_flag("--debug", run.debug, "run one step: fetch URL, run one callback, print");
  run_cmd->add_option("--callback", run.callback, "with --debug: the callback (index_page)");
  add_control_flags(run_cmd, run, "project");
  run_cmd->add_option("--browsers", run.browsers, "Chromium processes rendering js tasks")
      ->check(CLI::PositiveNumber);

  squall::cli::StatusCommand status;
  auto* status_cmd = app.add_subcommand(
      "status",
      "Show a distributed crawl from its Redis: every component that registered (role, host,\n"
      "pid, live or dead, heartbeat age, work handled, its queue's lag) and the depth of the four\n"
      "streams between them (length, pending: taken and not yet acknowledged, lag: not yet\n"
      "taken, dead letters, consumers). A component is dead after 3 leases without a heartbeat.\n"
      "Exit status 0 when Redis answered, 1 when it cannot be reached, 2 for a bad flag.\n"
      "Examples:\n"
      "  squall status --redis redis://127.0.0.1:6379/0\n"
      "  squall status --redis redis://:secret@10.0.0.5:6379/2 --namespace shop --json\n"
      "  squall status --redis redis://10.0.0.5:6379/0 --port 8080     # the dashboard");
  status_cmd
      ->add_option("--redis", status.redis,
                   "redis://[[user]:password@]host[:port][/db], the Redis the components use")
      ->required();
  status_cmd->add_option("--namespace", status.ns,
                         "the crawl's namespace: its keys are squall:NAMESPACE:... (default "
                         "squall)");
  status_cmd->add_flag("--json", status.json, "print one JSON object, for scripts");
  status_cmd
      ->add_option("--timeout", status.timeout,
                   "seconds to wait for Redis, to connect and for each reply (default 5)")
      ->check(CLI::PositiveNumber);
  status_cmd
      ->add_option("--port", status.port,
                   "serve the cluster read-only on this port until Ctrl-C instead of printing "
                   "it: GET /api/cluster, /metrics and the dashboard (0: any free port)")
      ->check(CLI::Range(0, 65535));
  status_cmd->add_option("--bind", status.bind,
                         "the address --port listens on (default 127.0.0.1; another needs --auth)");
  status_cmd->add_option("--auth", status.auth,
                         "user:password: HTTP Basic auth on everything --port serves");

  constexpr const char* kComponents =
      "The components of one crawl share --redis and --namespace; a second machine is one more\n"
      "command. Exit status 0 once the crawl is done, 130 Ctrl-C, 2 a usage error, 1 it could\n"
      "not run. Example (each line a process, on any machine):\n"
      "  squall scheduler tutorial.py --redis redis://10.0.0.5/0 --taskdb "
      "postgresql://c@10.0.0.6/crawl\n"
      "  squall fetcher --redis redis://10.0.0.5/0 -c 32\n"
      "  squall processor tutorial.py --redis redis://10.0.0.5/0\n"
      "  squall processor --crawl --redis redis://10.0.0.5/0      # of a squall crawl --redis\n"
      "  squall result-worker --redis redis://10.0.0.5/0 --taskdb postgresql://c@10.0.0.6/crawl\n"
      "  squall status --redis redis://10.0.0.5/0";
  squall::cli::ComponentCommand scheduler_c, fetcher_c, processor_c, result_c;
  std::vector<CLI::App*> component_cmds = {
      add_component_command(app, scheduler_c, "scheduler",
                            std::string("Run a project's scheduler: its tasks in --taskdb, "
                                        "dispatched to the fetchers through Redis,\noutcomes "
                                        "and follows taken back. One per project.\n") +
                                kComponents),
      add_component_command(app, fetcher_c, "fetcher",
                            std::string("Fetch the tasks the scheduler dispatches and hand the "
                                        "pages to the processors.\n") +
                                kComponents),
      add_component_command(app, processor_c, "processor",
                            std::string("Run a project's callbacks on fetched pages; outcomes "
                                        "and follows go to the scheduler,\nresults to the "
                                        "result workers.\n") +
                                kComponents),
      add_component_command(app, result_c, "result-worker",
                            std::string("Store the projects' results (upserted by taskid), and "
                                        "export them with --results.\n") +
                                kComponents)};

  // `squall help [SUBCOMMAND]` is `squall [SUBCOMMAND] --help`; a word that names no
  // subcommand gets the nearest one suggested.
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() >= 2 && args[1] == "help") {
    args.erase(args.begin() + 1);
    args.insert(args.begin() + std::min<size_t>(args.size(), 2), "--help");
  }
  if (args.size() >= 2 && !args[1].starts_with('-')) {
    const auto subs = app.get_subcommands({});
    if (std::none_of(subs.begin(), subs.end(),
                     [&](const CLI::App* sub) { return sub->get_name() == args[1]; }))
      return unknown_command(app, args[1]);
  }
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend() - 1);
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // --help and --version are status 0; every usage error is status 2, as the subcommands
    // document.
    return app.exit(e) == 0 ? 0 : 2;
  }
  // Flags curl has and squall does not are refused by name, not mistaken for URLs.
  for (const std::string& extra : fetch_cmd->remaining()) {
    if (extra.size() > 1 && extra.starts_with('-')) {
      std::cerr << "squall fetch: squall fetch does not support "
                << extra.substr(0, extra.find('='))
                << " (squall fetch --help lists the flags it has)\n";
      return 2;
    }
  }
  if (url_cmd->parsed()) return squall::cli::run_url(url, std::cout, std::cerr);
  if (links_cmd->parsed()) return squall::cli::run_links(links, std::cin, std::cout, std::cerr);
  if (robots_cmd->parsed()) return squall::cli::run_robots(robots, std::cin, std::cout, std::cerr);
  if (fetch_cmd->parsed()) return squall::cli::run_fetch(fetch, std::cout, std::cerr);
  if (serve_cmd->parsed()) {
    serve.access_log = access_log_opt->count() > 0;
    return squall::cli::run_serve(serve, std::cout, std::cerr);
  }
  if (crawl_cmd->parsed())
    return squall::cli::run_crawl(crawl, std::cerr, isatty(STDERR_FILENO) != 0);
  if (status_cmd->parsed()) return squall::cli::run_status(status, std::cout, std::cerr);
  for (squall::cli::ComponentCommand* c : {&scheduler_c, &fetcher_c, &processor_c, &result_c})
    for (CLI::App* cmd : component_cmds)
      if (cmd->parsed() && cmd->get_name() == c->role)
        return squall::cli::run_component(*c, std::cerr);
  if (run_cmd->parsed()) {
    run.script = run_args.at(0);
    if (run_args.size() > 1) {
      if (!run.debug) {
        std::cerr << "squall run: a URL after the script is for --debug\n";
        return 2;
      }
      run.debug_url = run_args[1];
    }
    return squall::cli::run_project(run, std::cout, std::cerr, isatty(STDERR_FILENO) != 0);
  }
  return 2;
}
