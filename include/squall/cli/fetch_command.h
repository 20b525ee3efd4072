// `squall fetch`: a curl-like fetch of URLs over HttpClient, with curl's flags and exit statuses.
//
// Each URL is fetched in turn; its body goes to `out` (or the file its -o/-O names) as it
// arrives; -i puts the final response's status line and header fields before it, -I asks with
// HEAD and prints only those; -v describes the exchange on `err` as curl -v does: "* " for what
// happens (the connection, the TLS session and certificate, redirects, timings), "> " for each
// request head as it was written and "< " for each response head as it came, redirect hops
// included. Redirects are followed (-L is the default; up to --max-redirects, 5 by default) and
// gzip, deflate, br and zstd bodies are decoded (--compressed is accepted for curl's sake).
//
// Exit status, as `curl --fail` gives for the same cause, so scripts written for curl keep
// working: 0 success; 22 an HTTP error status (400 or above; --no-fail gives 0 and the body);
// 6 the host could not be resolved; 7 no connection; 28 a timeout; 35 a TLS handshake failure;
// 60 a certificate that is not trusted; 47 too many redirects; 52 an empty reply; 56 a receive
// error (reset, closed mid-response); 61 a body that cannot be decoded; 63 a size limit
// (--max-filesize) or a decompression bomb (--max-ratio); 23 an output file that cannot be
// written (or -O with a URL that names no file); 77 a --cacert file that cannot be read; 1 any
// other failure. With several URLs the status is the last failure's.
// A failure prints one line on `err`, "squall fetch: <what went wrong>" (-s hides it unless -S
// is given too); flags that make no request possible (a header without a colon, -u without a
// password, a flag squall does not support) are status 2, as for the other subcommands, and a
// file to send that cannot be read (-d @file, --data-file, -F, -T), or a -b cookie file that
// cannot be read or holds a line that is not a cookie, is curl's 26.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace squall::cli {

// One -d, --data-binary, --data-raw or --data-urlencode argument, in the order given (curl joins
// them with '&').
struct FetchData {
  enum class Kind {
    Ascii,      // -d: "@file" reads a file (or - for standard input) without its CR and LF bytes
    Binary,     // --data-binary: "@file" reads a file as it is
    Raw,        // --data-raw: the text itself, '@' included
    UrlEncode,  // --data-urlencode: "content", "=content", "name=content", "@file", "name@file"
  };
  Kind kind = Kind::Ascii;
  std::string value;
};

struct FetchCommand {
  std::vector<std::string> urls;  // fetched in turn
  // -o FILE and -O, in the order given: the nth goes with the nth URL, as curl pairs them.
  // "-" is standard output; nullopt (-O) is the last segment of the URL's path.
  std::vector<std::optional<std::string>> outputs;
  std::string method;                // -X; empty: GET, HEAD with -I, PUT with -T, POST with a body
  std::vector<std::string> headers;  // -H "Name: value", repeatable
  std::vector<FetchData> data;       // -d and its kin, in order
  std::optional<std::string> data_file;    // --data-file: the request body from a file
  bool data_in_query = false;              // -G: the data goes in the URL's query, with GET
  std::vector<std::string> form;           // -F "name=value", "name=@file;type=...", "name=<file"
  std::optional<std::string> upload_file;  // -T: PUT this file (- for standard input)
  bool include = false;                    // -i: status line and header fields first
  bool head = false;                       // -I: HEAD, and print the head
  bool verbose = false;                    // -v: the exchange described on `err`
  bool silent = false;                     // -s: no error message
  bool show_error = false;                 // -S: the error message even with -s
  std::optional<double> timeout;           // --timeout, -m: seconds for the whole fetch of one URL
  std::optional<double> connect_timeout;   // --connect-timeout: seconds to resolve and connect
  std::optional<int> max_redirects;        // --max-redirects (0: follow none)
  std::optional<uint64_t> max_filesize;    // --max-filesize: bytes of (decoded) body at most
  std::optional<uint32_t> max_ratio;       // --max-ratio: the decompression-bomb guard (0: off)
  std::optional<std::string> proxy;        // -x: [http://][user:password@]host[:port]
  std::optional<std::string> noproxy;      // --noproxy: hosts reached directly ("*": all)
  bool insecure = false;                   // -k: do not verify the TLS certificate
  std::string cacert;                      // --cacert: trust the CAs of this PEM file
  std::optional<std::string> user_agent;   // -A
  std::optional<std::string> user;         // -u user:password (basic authentication)
  std::optional<std::string> referer;      // -e
  std::optional<std::string> range;        // -r "0-99", "-500", "100-"
  std::vector<std::string> cookies;        // -b "name=value; n2=v2", or a cookie file to read
  std::optional<std::string> cookie_jar;   // -c: write the cookies here at the end (Netscape)
  std::optional<std::string> write_out;    // -w: printed after each transfer, %{variable} filled
  int retries = 0;                         // --retry: tries again after a transient failure
  std::optional<double> retry_delay;  // --retry-delay: seconds between tries (else 1, doubling)
  std::vector<std::string> resolve;   // --resolve host:port:address[,address...]
  int ip_version = 0;                 // -4 or -6: addresses of that family only; 0: any
  bool no_fail = false;               // --no-fail: an HTTP error status is still status 0
  bool render = false;                // --render: the rendered HTML (fetch_render.cpp)
};

// Fetches each of command.urls on a loop of its own and returns the exit status described
// above.
int run_fetch(const FetchCommand& command, std::ostream& out, std::ostream& err);

// squall fetch --render: each URL rendered in headless Chromium (the js fetch type, waiting for the
// network to be idle) and the HTML
// of its rendered DOM written out (-o/-O as without it), with -H, -A, -b "name=value", -x and
// -m applied. The exit statuses are the ones above for the same causes (7 connect, 6 resolve,
// 28 timeout, 35 TLS, 22 an HTTP error status unless --no-fail, 63 a page too large or one
// that took too much memory) and 1 when the browser crashed or no Chromium is installed (the
// message names the package). Flags that ask for something a browser does not do here (-d, -F,
// -T, -X, -I, -r, -w, -c, -u, --retry, --resolve, --cacert, -k, -4/-6) are status 2.
int run_fetch_render(const FetchCommand& command, std::ostream& out, std::ostream& err);

}  // namespace squall::cli
