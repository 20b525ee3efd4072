// `squall fetch`: a curl-like fetch of one URL over HttpClient, with curl's exit statuses.
//
// The body goes to `out` (or the -o file) as it arrives; -i puts the final response's status
// line and header fields before it; -v describes the exchange on `err`: the request, the
// response head, the redirect chain and where the time went. Redirects are followed (up to
// --max-redirects, 5 by default) and gzip, deflate, br and zstd bodies are decoded.
//
// Exit status, as `curl --fail` gives for the same cause, so scripts written for curl keep
// working: 0 success; 22 an HTTP error status (400 or above; --no-fail gives 0 and the body);
// 6 the host could not be resolved; 7 no connection; 28 a timeout; 35 a TLS handshake failure;
// 60 a certificate that is not trusted; 47 too many redirects; 52 an empty reply; 56 a receive
// error (reset, closed mid-response); 61 a body that cannot be decoded; 63 a size limit; 1 any
// other failure. A failure prints one line on `err`, "squall fetch: <what went wrong>"; flags
// that make no request possible (a header without a colon, an unreadable --data-file) are
// status 2, as for the other subcommands.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace squall::cli {

struct FetchCommand {
  std::string url;
  std::string method;                     // -X; empty: GET, or POST when a body is given
  std::vector<std::string> headers;       // -H "Name: value", repeatable
  std::optional<std::string> data;        // -d: the request body
  std::optional<std::string> data_file;   // --data-file: the request body from a file
  std::optional<std::string> output;      // -o: write the body here instead of `out`
  bool include = false;                   // -i: status line and header fields first
  bool verbose = false;                   // -v: the exchange described on `err`
  std::optional<double> timeout;          // --timeout: seconds for the whole fetch
  std::optional<double> connect_timeout;  // --connect-timeout: seconds to resolve and connect
  std::optional<int> max_redirects;       // --max-redirects (0: follow none)
  std::optional<uint64_t> max_filesize;   // --max-filesize: bytes of (decoded) body at most
  std::optional<uint32_t> max_ratio;      // --max-ratio: the decompression-bomb guard (0: off)
  std::string proxy;                      // --proxy http://[user:password@]host:port
  bool insecure = false;                  // --insecure: do not verify the TLS certificate
  std::optional<std::string> user_agent;  // --user-agent
  bool no_fail = false;                   // --no-fail: an HTTP error status is still status 0
};

// Fetches command.url on a loop of its own and returns the exit status described above.
int run_fetch(const FetchCommand& command, std::ostream& out, std::ostream& err);

}  // namespace squall::cli
