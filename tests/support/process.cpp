// Child processes for real peers: fork and exec, a log file per process, polite stops.
#include "support/process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

namespace squall::test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = (base && *base ? std::string(base) : std::string("/tmp"));
  pattern.append("/squall-test-XXXXXX");
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error("mkdtemp: " + std::string(strerror(errno)));
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

fs::path TempDir::write(const std::string& name, std::string_view contents) const {
  fs::path p = path_ / name;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
  return p;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Process Process::start(const std::vector<std::string>& argv, const fs::path& workdir) {
  if (argv.empty()) throw std::runtime_error("Process::start: no program");
  Process p;
  static std::mt19937_64 rng{std::random_device{}()};
  p.log_ = fs::temp_directory_path() /
           ("squall-peer-" + std::to_string(getpid()) + "-" + std::to_string(rng()) + ".log");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The child tells an exec that failed through this pipe (its errno); one that succeeded closes
  // it (O_CLOEXEC) with nothing written.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2: " + std::string(strerror(errno)));
  const pid_t parent = getpid();
  const char* log_path = p.log_.c_str();
  const char* dir = workdir.empty() ? nullptr : workdir.c_str();
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(report[0]);
    close(report[1]);
    throw std::runtime_error("cannot start " + argv[0] + ": fork: " + strerror(e));
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here to exec: the test may have threads.
    close(report[0]);
    // A peer dies with its test: a test binary killed by a timeout leaves no server behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int in = open("/dev/null", O_RDONLY);
    int out = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = 0;
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
        (dir && chdir(dir) != 0))
      e = errno;
    if (e == 0) {
      if (in > 2) close(in);
      if (out > 2) close(out);
      execvp(args[0], args.data());
      e = errno;
    }
    ssize_t ignored = write(report[1], &e, sizeof e);
    (void)ignored;
    _exit(127);
  }
  close(report[1]);
  int e = 0;
  ssize_t n;
  do {
    n = read(report[0], &e, sizeof e);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  p.pid_ = pid;
  if (n == static_cast<ssize_t>(sizeof e)) {
    int status = 0;
    waitpid(pid, &status, 0);
    p.pid_ = -1;
    throw std::runtime_error("cannot start " + argv[0] + ": " + strerror(e));
  }
  return p;
}

Process::Process(Process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), status_(other.status_), log_(std::move(other.log_)) {
  other.log_.clear();
}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    this->~Process();
    new (this) Process(std::move(other));
  }
  return *this;
}

Process::~Process() {
  if (pid_ > 0) stop();
  if (!log_.empty()) {
    std::error_code ignored;
    fs::remove(log_, ignored);
  }
}

bool Process::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    status_ = status;
    pid_ = -1;
    return false;
  }
  return r == 0;
}

int Process::wait(std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(5ms);
  }
  return status_;
}

int Process::stop(int signal, std::chrono::milliseconds grace) {
  if (!running()) return status_;
  ::kill(pid_, signal);
  if (wait(grace) != -1) return status_;
  ::kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  status_ = status;
  return status_;
}

std::string Process::output() const {
  return read_file(log_);
}

bool is_proxy_variable(std::string_view name) {
  for (std::string_view proxy : {"http_proxy", "https_proxy", "all_proxy", "no_proxy"})
    if (name.size() == proxy.size() && strncasecmp(name.data(), proxy.data(), name.size()) == 0)
      return true;
  return false;
}

void clear_proxy_environment() {
  for (const char* name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                           "ALL_PROXY", "no_proxy", "NO_PROXY"})
    unsetenv(name);
}

namespace {

// The first port of the upper half of the ephemeral range, as Linux splits it for bind(0) (46884
// of "32768 60999"); 0 when the range cannot be read.
uint16_t upper_half_start() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  unsigned low = 0, high = 0;
  if (!(in >> low >> high) || high <= low || high > 65535) return 0;
  return static_cast<uint16_t>(low + (((high + 1 - low) >> 2) << 1));
}

// Claims `port` for this process among the test processes running at once: an flock on a file
// named after it, held until the process exits. Two tests that start together can be handed the
// same free port by bind(0); the second then finds it claimed and takes another, instead of
// starting a server that cannot bind while it talks to the first test's server.
bool claim_port(uint16_t port, bool udp) {
  static const std::string dir = [] {
    std::string d = (std::filesystem::temp_directory_path() / "squall-test-ports").string();
    ::mkdir(d.c_str(), 0777);
    ::chmod(d.c_str(), 01777);
    return d;
  }();
  std::string path = dir + "/" + (udp ? "udp-" : "tcp-") + std::to_string(port);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return true;  // nowhere to claim it: take it as before
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return false;
  }
  return true;  // the descriptor stays open: the claim lasts as long as the process
}

}  // namespace

uint16_t free_port(bool udp) {
  // The port stays free only until someone else binds it, and servers bind port 0 all the time
  // in the tests of other processes. Linux gives such a listener (one with SO_REUSEADDR, as
  // servers set it) an odd port from the lower half of the ephemeral range, and connect() even
  // ones, while a bind(0) without SO_REUSEADDR, as here, picks any odd port: one from the upper
  // half is left to those alone. About every other answer is one; a range that cannot be read,
  // or a run of bad luck, takes what comes.
  static const uint16_t upper = upper_half_start();
  for (int tries = 0;; ++tries) {
    int fd = socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("socket: " + std::string(strerror(errno)));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      close(fd);
      throw std::runtime_error("bind: " + std::string(strerror(errno)));
    }
    close(fd);
    uint16_t port = ntohs(a.sin_port);
    if (!claim_port(port, udp) && tries < 63) continue;
    if (udp || port >= upper || tries == 63) return port;
  }
}

static bool accepts(const std::string& host, uint16_t port) {
  bool v6 = host.find(':') != std::string::npos;
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  int rc;
  if (v6) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_port = htons(port);
    inet_pton(AF_INET6, host.c_str(), &a.sin6_addr);
    rc = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, host.c_str(), &a.sin_addr);
    rc = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  close(fd);
  return rc == 0;
}

void wait_for_port(uint16_t port, const std::string& what, Process* process,
                   std::chrono::milliseconds limit, const std::string& host) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!accepts(host, port)) {
    if (process && !process->running())
      throw std::runtime_error(what + " exited before listening:\n" + process->output());
    if (std::chrono::steady_clock::now() >= deadline)
      throw std::runtime_error(what + " did not listen on port " + std::to_string(port) +
                               (process ? ":\n" + process->output() : std::string()));
    std::this_thread::sleep_for(10ms);
  }
}

Process start_nginx(const TempDir& dir, const std::string& server_body, uint16_t port,
                    const std::string& listen_options, const std::string& extra_http) {
  fs::create_directories(dir.path() / "nginx-tmp");
  std::string conf =
      "daemon off;\nmaster_process off;\nworker_processes 1;\npid " +
      (dir.path() / "nginx.pid").string() + ";\nerror_log " + (dir.path() / "error.log").string() +
      " warn;\nevents { worker_connections 16384; }\nhttp {\n"
      "  access_log " +
      (dir.path() / "access.log").string() + " combined;\n  client_body_temp_path " +
      (dir.path() / "nginx-tmp").string() +
      ";\n  default_type application/octet-stream;\n  keepalive_requests 1000000;\n" + extra_http +
      "\n  server {\n    listen 127.0.0.1:" + std::to_string(port) + " " + listen_options +
      ";\n    root " + dir.path().string() + ";\n" + server_body + "\n  }\n}\n";
  fs::path conf_path = dir.write("nginx.conf", conf);
  Process p = Process::start({"/usr/sbin/nginx", "-e", (dir.path() / "error.log").string(), "-p",
                              dir.path().string(), "-c", conf_path.string()});
  wait_for_port(port, "nginx", &p);
  return p;
}

Process start_tls_nginx(const TempDir& dir, const CertFiles& cert, const std::string& server_body,
                        uint16_t port) {
  return start_nginx(dir,
                     "ssl_certificate " + cert.cert.string() + ";\n    ssl_certificate_key " +
                         cert.key.string() + ";\n" + server_body,
                     port, "ssl");
}

Process start_httpbin(uint16_t& port) {
  // Not `python3 -m httpbin.core --port N`: a port chosen before Python has started (most of a
  // second) is free for any other socket to take meanwhile, and tests in other processes bind
  // port 0 all the time. This one takes port 0 itself and says what it got.
  constexpr const char* kServe =
      "from werkzeug.serving import make_server\n"
      "from httpbin.core import app\n"
      "server = make_server('127.0.0.1', 0, app, threaded=True)\n"
      "print('httpbin listening on port', server.port, flush=True)\n"
      "server.serve_forever()\n";
  constexpr std::string_view kListening = "httpbin listening on port ";
  Process p = Process::start({"/usr/bin/python3", "-c", kServe});
  auto deadline = std::chrono::steady_clock::now() + 30s;
  for (;;) {
    std::string out = p.output();
    size_t at = out.find(kListening);
    if (at != std::string::npos && out.find('\n', at) != std::string::npos) {
      port = static_cast<uint16_t>(std::stoi(out.substr(at + kListening.size())));
      return p;
    }
    if (!p.running()) throw std::runtime_error("httpbin exited before listening:\n" + out);
    if (std::chrono::steady_clock::now() >= deadline)
      throw std::runtime_error("httpbin did not listen within 30 s:\n" + out);
    std::this_thread::sleep_for(10ms);
  }
}

Process start_dnsmasq(const std::vector<std::string>& options, uint16_t& port) {
  const passwd* user = getpwuid(getuid());
  std::string failed;
  for (int attempt = 0; attempt < 10; ++attempt) {
    port = free_port(true);
    std::vector<std::string> argv = {
        "/usr/sbin/dnsmasq",
        "--no-daemon",
        "--port=" + std::to_string(port),
        "--listen-address=127.0.0.1",
        "--bind-interfaces",
        "--no-resolv",
        "--no-hosts",
        "--conf-file=/dev/null",
        "--pid-file=",
        // Not "nobody", who may not read the files the options name.
        std::string("--user=") + (user ? user->pw_name : "nobody"),
    };
    argv.insert(argv.end(), options.begin(), options.end());
    Process p = Process::start(argv);
    // dnsmasq says "started" once it holds both sockets. Only that line proves the port is
    // this one's: another dnsmasq (a parallel test's) may accept on it while this one fails.
    auto deadline = std::chrono::steady_clock::now() + 15s;
    while (p.running() && p.output().find("dnsmasq: started,") == std::string::npos) {
      if (std::chrono::steady_clock::now() >= deadline)
        throw std::runtime_error("dnsmasq did not start on port " + std::to_string(port) + ":\n" +
                                 p.output());
      std::this_thread::sleep_for(5ms);
    }
    if (p.running()) {
      wait_for_port(port, "dnsmasq", &p);
      return p;
    }
    failed = p.output();
    if (failed.find("Address already in use") == std::string::npos)
      throw std::runtime_error("dnsmasq exited before listening:\n" + failed);
  }
  throw std::runtime_error("dnsmasq found no free port in 10 tries; the last said:\n" + failed);
}

CertFiles make_self_signed(const TempDir& dir, const std::string& stem, const std::string& cn,
                           int days) {
  CertFiles f{dir.path() / (stem + ".crt"), dir.path() / (stem + ".key")};
  Process p = Process::start(
      {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
       "-nodes", "-keyout", f.key.string(), "-out", f.cert.string(), "-days", std::to_string(days),
       "-subj", "/CN=" + cn, "-addext", "subjectAltName=DNS:" + cn + ",IP:127.0.0.1,IP:::1"});
  int status = p.wait(std::chrono::seconds(30));
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("openssl req failed:\n" + p.output());
  return f;
}

namespace {
// Runs an openssl command to its end; throws std::runtime_error with its output if it fails.
void run_openssl(const std::vector<std::string>& argv, const std::string& what) {
  Process p = Process::start(argv);
  int status = p.wait(std::chrono::seconds(30));
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(what + " failed:\n" + p.output());
}
}  // namespace

CertFiles make_ca(const TempDir& dir, const std::string& stem, const std::string& cn) {
  CertFiles f{dir.path() / (stem + ".crt"), dir.path() / (stem + ".key")};
  run_openssl({"openssl",
               "req",
               "-x509",
               "-newkey",
               "ec",
               "-pkeyopt",
               "ec_paramgen_curve:prime256v1",
               "-nodes",
               "-keyout",
               f.key.string(),
               "-out",
               f.cert.string(),
               "-days",
               "30",
               "-subj",
               "/CN=" + cn,
               "-addext",
               "basicConstraints=critical,CA:TRUE",
               "-addext",
               "keyUsage=critical,keyCertSign,cRLSign"},
              "openssl req (CA)");
  return f;
}

CertFiles make_signed(const TempDir& dir, const std::string& stem, const std::string& cn,
                      const CertFiles& ca, bool expired) {
  CertFiles f{dir.path() / (stem + ".crt"), dir.path() / (stem + ".key")};
  fs::path work = dir.path() / (stem + ".ca");
  fs::create_directories(work);
  fs::path csr = work / "request.csr";
  run_openssl(
      {"openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
       "-nodes", "-keyout", f.key.string(), "-out", csr.string(), "-subj", "/CN=" + cn, "-addext",
       "subjectAltName=DNS:" + cn + ",IP:127.0.0.1,IP:::1"},
      "openssl req (leaf)");
  // `openssl ca` is the one tool that takes explicit validity dates (for expired leaves); it
  // wants a configuration, an index and a serial file.
  std::ofstream(work / "index.txt").close();
  std::ofstream(work / "serial") << "1000\n";
  std::string conf =
      "[ca]\ndefault_ca = test\n[test]\ndatabase = " + (work / "index.txt").string() +
      "\nnew_certs_dir = " + work.string() + "\nserial = " + (work / "serial").string() +
      "\ndefault_md = sha256\npolicy = any\ncopy_extensions = copy\n"
      "unique_subject = no\n[any]\ncommonName = supplied\n";
  std::ofstream(work / "ca.conf") << conf;
  std::vector<std::string> argv = {"openssl",  "ca",
                                   "-batch",   "-notext",
                                   "-config",  (work / "ca.conf").string(),
                                   "-cert",    ca.cert.string(),
                                   "-keyfile", ca.key.string(),
                                   "-in",      csr.string(),
                                   "-out",     f.cert.string()};
  if (expired) {
    for (const char* arg : {"-startdate", "20200101000000Z", "-enddate", "20200201000000Z"})
      argv.emplace_back(arg);
  } else {
    for (const char* arg : {"-days", "30"}) argv.emplace_back(arg);
  }
  run_openssl(argv, "openssl ca");
  return f;
}

}  // namespace squall::test
