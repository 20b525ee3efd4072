// `squall serve`: StaticFiles behind HttpWorkers, until a signal.
#include <cerrno>
#include <exception>
#include <ostream>
#include <string>
#include <utility>

#include "squall/cli/serve_command.h"
#include "squall/core/error.h"
#include "squall/http/server.h"
#include "squall/http/static_files.h"
#include "squall/net/address.h"
#include "squall/net/net_error.h"

namespace squall::cli {

int run_serve(const ServeCommand& command, std::ostream& out, std::ostream& err) {
  auto address = Address::from_ip(command.bind, command.port);
  if (!address) {
    err << "squall serve: --bind must be an IP address such as 127.0.0.1 or ::1, not '"
        << command.bind << "'\n";
    return 2;
  }
  if (command.workers == 0) {
    err << "squall serve: --workers must be at least 1\n";
    return 2;
  }
  try {
    // Opened once here so that a bad directory is reported before any thread starts; each
    // worker gets a copy (they share the root descriptor, read-only).
    http::StaticFiles files(command.dir);
    http::HttpServerOptions options;
    options.access_log = command.access_log;
    http::HttpWorkers workers(
        command.workers, *address, [files] { return files.handler(); }, options);
    // An IPv6 literal goes in brackets in a URL.
    std::string host = address->host();
    if (address->is_v6()) {
      std::string bracketed;
      bracketed.reserve(host.size() + 2);
      bracketed.push_back('[');
      bracketed.append(host).push_back(']');
      host = std::move(bracketed);
    }
    out << "Serving " << command.dir << " at http://" << host << ":" << workers.port() << "/"
        << std::endl;
    int signal = http::wait_for_shutdown_signal();
    out << "Stopping (signal " << signal << ")" << std::endl;
    workers.stop(std::chrono::seconds(5));
    return 0;
  } catch (const NetError& e) {
    err << "squall serve: " << e.what();
    if (e.error_number() == EADDRINUSE)
      err << "; another process listens on port " << address->port()
          << ": stop it, or choose another --port (0 picks a free one)";
    err << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "squall serve: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace squall::cli
