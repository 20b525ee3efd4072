// Real peers for tests: start a program (nginx, dnsmasq, openssl s_server, httpbin, curl),
// wait until it listens, stop it at the end. Blocking helpers, used outside the loop. No test
// framework needed: the benchmarks start their peers with these too.
//
//   TempDir dir;
//   uint16_t port = free_port();
//   Process nginx = start_nginx(dir, "location / { return 200 'abc'; }", port);
//   ... connect to 127.0.0.1:port ...
//   // ~Process stops it (SIGTERM, then SIGKILL after 5 s)
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace squall::test {

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it at the end.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes `contents` to path()/name (creating parent folders) and returns the full path.
  std::filesystem::path write(const std::string& name, std::string_view contents) const;

 private:
  std::filesystem::path path_;
};

// The whole contents of a file ("" if it cannot be read).
std::string read_file(const std::filesystem::path& path);

// A child process; its stdout and stderr go to one file that output() reads. It is killed
// (SIGKILL) when the thread that started it ends, so a test binary killed by a timeout leaves no
// peer running: start a process that must outlive a thread from a thread that outlives it.
class Process {
 public:
  Process() = default;
  // Starts argv[0] (looked up in PATH) with the given arguments. Throws std::runtime_error if
  // it cannot be started.
  static Process start(const std::vector<std::string>& argv,
                       const std::filesystem::path& workdir = {});
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  ~Process();

  pid_t pid() const { return pid_; }
  // Still running (not exited, not yet reaped)?
  bool running();
  // Sends `signal` and waits up to `grace` for an exit, then SIGKILL. Returns the wait status
  // (as waitpid gives it), or -1 if the process was not running.
  int stop(int signal = 15, std::chrono::milliseconds grace = std::chrono::seconds(5));
  // Waits for the process to exit by itself, up to `limit`; the wait status, or -1 on timeout.
  int wait(std::chrono::milliseconds limit);
  // What it printed so far on stdout and stderr.
  std::string output() const;

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::filesystem::path log_;
};

// Whether `name` names a variable that sends a client through a proxy (http_proxy, https_proxy,
// all_proxy, no_proxy, in either case): tests reach their peers on loopback, directly.
bool is_proxy_variable(std::string_view name);
// Unsets those variables in this process, for a test that runs a client in it.
void clear_proxy_environment();

// A port that was free on 127.0.0.1 a moment ago (bind to port 0, read it back, close), for
// peers that must be told a port in their command line or configuration. `udp` for UDP. A TCP
// port is one that the listeners other tests bind to port 0 and the connections they open do
// not take on Linux meanwhile (see process.cpp), and one no other test process that runs at the
// same time is handed (each is claimed until its process exits); a peer that can bind port 0
// itself should.
uint16_t free_port(bool udp = false);

// Polls until something accepts TCP connections on host:port, or throws std::runtime_error
// naming `what` (and its output, if a process is given) after `limit`.
void wait_for_port(uint16_t port, const std::string& what, Process* process = nullptr,
                   std::chrono::milliseconds limit = std::chrono::seconds(15),
                   const std::string& host = "127.0.0.1");

// nginx (Debian's /usr/sbin/nginx) in the foreground, rooted in `dir`, listening on
// 127.0.0.1:`port` with `server_body` inside its server block, and `extra_http` at http level.
// Access log on (dir/access.log) so tests can count requests and connections; returns once it
// accepts connections. `listen_options` is appended to the listen directive (e.g. "ssl").
Process start_nginx(const TempDir& dir, const std::string& server_body, uint16_t port,
                    const std::string& listen_options = "", const std::string& extra_http = "");

// Debian's python3-httpbin served by /usr/bin/python3 (werkzeug's threaded server, as its own
// main runs it) on 127.0.0.1, on a port the system picks as the server binds it, which `port`
// receives; returns once it accepts connections.
Process start_httpbin(uint16_t& port);

// dnsmasq (Debian's /usr/sbin/dnsmasq) in the foreground, answering on 127.0.0.1 over UDP and
// TCP on one port that it picks and stores in `port`, forwarding nowhere, with `options` added
// to its command line (records, --local=/test/, --log-queries: its log is output()). Returns
// once it accepts TCP connections. A port free for UDP a moment ago may be taken for TCP, or
// taken by then, so a start that fails to bind is retried on a new port (10 tries); any other
// failure throws std::runtime_error with dnsmasq's output.
Process start_dnsmasq(const std::vector<std::string>& options, uint16_t& port);

// A self-signed certificate and key for `cn` (also a subjectAltName DNS name, plus 127.0.0.1
// and ::1 as IP names) made with `openssl req`, valid from now for `days` days.
// Writes dir/<stem>.crt and dir/<stem>.key.
struct CertFiles {
  std::filesystem::path cert;
  std::filesystem::path key;
};
CertFiles make_self_signed(const TempDir& dir, const std::string& stem, const std::string& cn,
                           int days = 30);

// start_nginx serving https on 127.0.0.1:`port` with `cert`, `server_body` after its
// certificate directives.
Process start_tls_nginx(const TempDir& dir, const CertFiles& cert, const std::string& server_body,
                        uint16_t port);

// A certificate authority for tests: dir/<stem>.crt (self-signed, CA:TRUE) and dir/<stem>.key.
CertFiles make_ca(const TempDir& dir, const std::string& stem, const std::string& cn);

// A leaf certificate for `cn` (a DNS subjectAltName, plus 127.0.0.1 and ::1) signed by `ca`
// with `openssl ca`: valid from now for 30 days, or with `expired`, valid only during January
// 2020. Writes dir/<stem>.crt and dir/<stem>.key.
CertFiles make_signed(const TempDir& dir, const std::string& stem, const std::string& cn,
                      const CertFiles& ca, bool expired = false);

}  // namespace squall::test
