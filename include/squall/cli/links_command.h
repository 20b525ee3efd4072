// `squall links`: the links a crawler would follow from one HTML document.
//
// Returns the process exit status: 0 once the document is read; 2 when the base is not a URL or
// the file cannot be read, with one line on `err` saying what to give instead.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace squall::cli {

struct LinksCommand {
  std::optional<std::string> base;  // the page's URL: relative links resolve against it
  bool all = false;                 // add element, rel and nofollow columns
  std::string file = "-";           // an HTML file, or "-" for standard input
};
// `squall links`: the crawlable (http and https) links of an HTML document, one absolute URL per
// line, read and tokenized as it streams in.
int run_links(const LinksCommand& command, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace squall::cli
