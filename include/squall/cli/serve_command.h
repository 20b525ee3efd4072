// `squall serve`: a static file server for a directory (python -m http.server, done with
// squall's own server).
//
//   squall serve site --port 8080 --workers 2 --access-log access.log --list
//
// Prints "Serving <DIR> at http://<ADDR>:<PORT>/" once every worker listens (with --port 0,
// the port the system chose), serves until SIGINT or SIGTERM, then stops gracefully: no new
// connections, requests in flight get up to five seconds to finish.
//
// What it serves, beyond StaticFiles's defaults (static_files.h): hidden paths (.git/, .env, a
// segment starting with '.', except .well-known) are 404 unless --dotfiles; a directory without
// index.html is 404 unless --list, which answers with a listing; text types go out compressed
// with zstd or gzip to clients that accept it (precompressed .zst/.gz siblings first) unless
// --no-compress. A port another process listens on is an error, never shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace squall::cli {

struct ServeCommand {
  std::string dir = ".";
  uint16_t port = 8000;
  std::string bind = "127.0.0.1";  // an IP address, or a name: its first IPv4 address, else IPv6
  size_t workers = 1;              // loops (threads) sharing the port with SO_REUSEPORT
  bool access_log = false;         // one line per request (access_log.h)
  std::string access_log_file;     // where: "" standard error, "-" standard output, or a file
  std::string log_format = "combined";  // or "common"
  bool dotfiles = false;                // serve hidden paths
  bool list = false;                    // directory listings
  bool compress = true;                 // zstd and gzip for text types
};

// Runs the server until SIGINT or SIGTERM; returns the exit status: 0 after a clean stop, 2
// when it could not start (a directory that cannot be opened, an address that does not resolve
// or is taken, zero workers, an access log that cannot be opened), with one line on `err`
// saying why. Blocks SIGINT and SIGTERM in the
// calling thread (they are received with sigwait).
int run_serve(const ServeCommand& command, std::ostream& out, std::ostream& err);

}  // namespace squall::cli
