// `squall serve`: StaticFiles behind HttpWorkers, until a signal.
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "squall/cli/serve_command.h"
#include "squall/core/error.h"
#include "squall/core/loop.h"
#include "squall/core/spawn.h"
#include "squall/http/access_log.h"
#include "squall/http/server.h"
#include "squall/http/static_files.h"
#include "squall/net/address.h"
#include "squall/net/net_error.h"
#include "squall/net/resolver.h"

namespace squall::cli {

namespace {

// --bind as an IP literal, or the first IPv4 address of a host name (else its first IPv6):
// "localhost" is 127.0.0.1, where a browser's http://localhost/ finds it too.
Address bind_address(const std::string& bind, uint16_t port) {
  if (auto literal = Address::from_ip(bind, port)) return *literal;
  Loop loop;
  std::vector<Address> found = run_sync(default_resolver().resolve(bind, port));
  for (const Address& a : found)
    if (!a.is_v6()) return a;
  return found.front();
}

}  // namespace

int run_serve(const ServeCommand& command, std::ostream& out, std::ostream& err) {
  if (command.workers == 0) {
    err << "squall serve: --workers must be at least 1\n";
    return 2;
  }
  auto format = http::parse_access_log_format(command.log_format);
  if (!format) {
    err << "squall serve: --log-format must be combined or common, not '" << command.log_format
        << "'\n";
    return 2;
  }
  std::optional<Address> address;
  try {
    address = bind_address(command.bind, command.port);
  } catch (const std::exception& e) {
    err << "squall serve: --bind must be an IP address such as 127.0.0.1 or ::1, or a host "
           "name of this machine such as localhost; '"
        << command.bind << "' does not resolve: " << e.what() << "\n";
    return 2;
  }
  try {
    // Opened once here so that a bad directory is reported before any thread starts; each
    // worker gets a copy (they share the root descriptor, read-only).
    http::StaticOptions static_options;
    static_options.dotfiles = command.dotfiles;
    static_options.list_directories = command.list;
    static_options.compress = command.compress;
    http::StaticFiles files(command.dir, static_options);
    // Made before the workers, so it outlives them: the destructor writes the last lines.
    std::unique_ptr<http::AccessLog> access_log;
    if (command.access_log) {
      access_log = command.access_log_file.empty()
                       ? std::make_unique<http::AccessLog>(STDERR_FILENO, *format)
                       : std::make_unique<http::AccessLog>(command.access_log_file, *format);
    }
    http::HttpServerOptions options;
    if (access_log) options.access_log_sink = access_log->sink();
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
