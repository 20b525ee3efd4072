// The squall command: thin flag parsing over libsquall's subcommands.
#include <CLI/CLI.hpp>
#include <iostream>

#include "squall/cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "squall: an asynchronous networking runtime and web crawler.\n"
      "Run `squall SUBCOMMAND --help` for the flags of each subcommand.",
      "squall"};
  app.require_subcommand(1);

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

  CLI11_PARSE(app, argc, argv);
  if (url_cmd->parsed()) return squall::cli::run_url(url, std::cout, std::cerr);
  if (links_cmd->parsed()) return squall::cli::run_links(links, std::cin, std::cout, std::cerr);
  if (robots_cmd->parsed()) return squall::cli::run_robots(robots, std::cin, std::cout, std::cerr);
  return 2;
}
