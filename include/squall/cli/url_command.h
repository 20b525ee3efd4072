// The squall command line's subcommands, as functions a test can call with its own streams.
//
// Each returns the process exit status: 0 on success, 1 when an input was rejected (a URL that
// does not parse, a path robots.txt disallows), 2 when the command itself could not run (a file
// that cannot be read). Errors go to `err` as one line each, saying what to do.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace squall::cli {

struct UrlCommand {
  std::optional<std::string> base;  // resolve every input against it
  bool json = false;                // an object per input instead of the href
  std::vector<std::string> inputs;
};
// `squall url`: each input parsed (and resolved) as a browser's `new URL(input, base)` would.
int run_url(const UrlCommand& command, std::ostream& out, std::ostream& err);

struct RobotsCommand {
  std::string file;  // a robots.txt file, or "-" for standard input
  std::string agent;
  std::vector<std::string> urls;  // absolute URLs, or paths such as "/a?b"
};
// `squall robots`: "allowed" or "disallowed" per URL, with the deciding rule and its line.
int run_robots(const RobotsCommand& command, std::istream& in, std::ostream& out,
               std::ostream& err);

struct LinksCommand {
  std::optional<std::string> base;  // the page's URL: relative links resolve against it
  bool all = false;                 // add element, rel and nofollow columns
  std::string file = "-";           // an HTML file, or "-" for standard input
};
// `squall links`: the crawlable (http and https) links of an HTML document, one absolute URL per
// line, read and tokenized as it streams in.
int run_links(const LinksCommand& command, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace squall::cli
