// curl_command: a `curl ...` command line as a pyspider task, as pyspider's fetch API takes it.
//
//   nlohmann::json task = task_from_curl("curl -X POST -H 'Accept: text/html' -d a=1 http://h/");
//   // {"url": "http://h/", "fetch": {"method": "POST", "headers": {"Accept": "text/html"},
//   //                                "data": "a=1"}}
//
// The line is split as a POSIX shell splits words ('single', "double" with its \ escapes, \ out
// of quotes); the flags taken are those a browser's "Copy as cURL" writes: -X/--request,
// -H/--header, -d/--data/--data-raw/--data-binary/--data-ascii (joined with '&' when repeated;
// POST unless -X says otherwise), -b/--cookie (a "name=value; ..." string), -A/--user-agent,
// -e/--referer, --compressed, -k/--insecure, -L/--location, -I/--head, -G/--get, --url, and a
// few that change nothing for a fetch (-s, -S, -v, -i); short flags may come together ("-sSL")
// and a short flag's value may follow it in the same word ("-XPOST"). As in curl, redirects are
// followed only with -L (the fetch dict then says allow_redirects false); a User-Agent (-A or -H)
// becomes the fetch's user_agent and a Cookie (-b or -H) its cookies dict. Anything else throws
// InvalidArgumentError naming the flag, as do a missing URL, two URLs, unbalanced quotes and a
// header without ':'.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace squall {

// The words of a shell command line. InvalidArgumentError for an unclosed quote.
std::vector<std::string> split_shell_words(std::string_view line);

// The pyspider task ({"url", "fetch"}) that the command line asks for.
nlohmann::json task_from_curl(std::string_view command);

}  // namespace squall
