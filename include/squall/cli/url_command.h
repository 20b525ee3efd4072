// `squall url`: URLs parsed and resolved from the shell, as a browser's URL API would.
//
// Returns the process exit status: 0 when every input parsed; 1 when an input did not (its line
// of `out` is "error: <why>"); 2 when the base is not a URL, with one line on `err` saying what
// to give instead.
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

}  // namespace squall::cli
