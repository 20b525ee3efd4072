// Chromium: starting the browser process on a pipe pair, and what /proc says about its group.
#include "squall/browser/chromium.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "squall/core/error.h"

namespace squall::browser {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) {
  return ::access(p.c_str(), X_OK) == 0;
}

std::string in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return executable(name) ? name : "";
  const char* path = ::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && executable(fs::path(dir) / name)) return (fs::path(dir) / name).string();
  return "";
}

// A small file of /proc whole, "" when it is gone: a process may end while it is read (which
// makes a stream's read throw, not fail).
std::string read_proc(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  ::close(fd);
  return out;
}

// The process group of `pid` from /proc/PID/stat (the field after the state), or -1.
pid_t process_group(pid_t pid) {
  std::string stat = read_proc("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream rest(stat.substr(paren + 1));
  char state;
  pid_t ppid, pgrp;
  if (!(rest >> state >> ppid >> pgrp)) return -1;
  return state == 'Z' ? -1 : pgrp;
}

size_t pss_bytes(pid_t pid) {
  std::istringstream in(read_proc("/proc/" + std::to_string(pid) + "/smaps_rollup"));
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("Pss:")) return std::strtoull(line.c_str() + 4, nullptr, 10) * 1024;
  return 0;
}

// A descriptor moved above the ones the child is given (3 and 4), so that dup2 onto 3 and 4
// cannot overwrite one still to be moved.
int above_four(int fd) {
  if (fd > 4) return fd;
  int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return high;
}

}  // namespace

std::string find_chromium(const std::string& configured) {
  if (!configured.empty()) return in_path(configured);
  if (const char* env = ::getenv("SQUALL_CHROMIUM"); env && *env) return in_path(env);
  for (const char* name : {"chromium-headless-shell", "chromium"})
    if (std::string found = in_path(name); !found.empty()) return found;
  return "";
}

std::string no_chromium_message() {
  return "no Chromium to render pages with: install Debian's chromium-headless-shell "
         "(apt-get install chromium-headless-shell) or chromium, or name a Chromium "
         "executable in SQUALL_CHROMIUM";
}

Task<std::unique_ptr<Chromium>> Chromium::start(ChromiumOptions options) {
  std::string exe = find_chromium(options.executable);
  if (exe.empty()) {
    if (!options.executable.empty())
      throw InvalidStateError("cannot run the browser " + options.executable + ": " +
                              no_chromium_message());
    throw InvalidStateError(no_chromium_message());
  }
  fs::path scratch = options.scratch_dir;
  if (scratch.empty()) {
    const char* tmp = ::getenv("TMPDIR");
    scratch = tmp && *tmp ? tmp : "/tmp";
  }
  std::string templ = (scratch / "squall-chromium-XXXXXX").string();
  if (!::mkdtemp(templ.data())) throw SystemError("mkdtemp " + templ, errno);

  std::unique_ptr<Chromium> browser(new Chromium());
  browser->profile_ = templ;

  std::vector<std::string> args = {
      exe,
      "--headless",
      "--remote-debugging-pipe",
      "--user-data-dir=" + (browser->profile_ / "profile").string(),
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--disable-extensions",
      "--disable-breakpad",
      "--disable-crash-reporter",
      "--disable-domain-reliability",
      "--disable-client-side-phishing-detection",
      "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,"
      "CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,"
      "DialMediaRouteProvider,SafeBrowsing",
      "--no-pings",
      "--metrics-recording-only",
      "--disable-dev-shm-usage",
      "--disable-gpu",
      "--mute-audio",
      "--hide-scrollbars",
      "--block-new-web-contents",
      // The default context's traffic goes to a loopback port where nothing answers; the
      // contexts pages render in name their own proxy.
      "--proxy-server=http://127.0.0.1:9",
      "--js-flags=--max-old-space-size=" + std::to_string(options.js_heap_mib),
  };
  if (!options.allowed_hosts.empty()) {
    std::string rules = "MAP * ~NOTFOUND";
    for (const auto& host : options.allowed_hosts) rules += " , EXCLUDE " + host;
    args.push_back("--host-resolver-rules=" + rules);
  }
  // Chromium's sandbox needs user namespaces that root does not get: as root it refuses to
  // start without this.
  if (::geteuid() == 0) args.push_back("--no-sandbox");
  for (const auto& a : options.extra_args) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int to_browser[2], from_browser[2];
  if (::pipe2(to_browser, O_CLOEXEC) != 0) throw SystemError("pipe2", errno);
  if (::pipe2(from_browser, O_CLOEXEC) != 0) {
    int e = errno;
    ::close(to_browser[0]);
    ::close(to_browser[1]);
    throw SystemError("pipe2", e);
  }
  for (int* fd : {&to_browser[0], &to_browser[1], &from_browser[0], &from_browser[1]})
    *fd = above_four(*fd);
  std::string log = (browser->profile_ / "stderr.log").string();
  int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t parent = ::getpid();

  pid_t pid = ::fork();
  if (pid == 0) {
    // Only async-signal-safe calls from here to exec.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(null_fd, 0);
    if (log_fd >= 0) {
      ::dup2(log_fd, 1);
      ::dup2(log_fd, 2);
    }
    ::dup2(to_browser[0], 3);
    ::dup2(from_browser[1], 4);
    ::close_range(5, ~0U, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int fork_errno = errno;
  ::close(to_browser[0]);
  ::close(from_browser[1]);
  if (log_fd >= 0) ::close(log_fd);
  if (null_fd >= 0) ::close(null_fd);
  if (pid < 0) {
    ::close(to_browser[1]);
    ::close(from_browser[0]);
    throw SystemError("fork", fork_errno);
  }
  ::setpgid(pid, pid);
  browser->pid_ = pid;
  browser->pipe_ = std::make_unique<DevToolsPipe>(to_browser[1], from_browser[0]);
  nlohmann::json version;
  try {
    version = co_await browser->pipe_->call("Browser.getVersion", nlohmann::json::object(), {},
                                            options.start_timeout);
  } catch (const Error& e) {
    browser->kill("the browser did not start");
    throw Error(ErrorKind::Closed, "the browser " + exe + " did not start (" + e.what() +
                                       "); it said: " + browser->log_tail(1000));
  }
  browser->product_ = version.value("product", std::string());
  Chromium* watched = browser.get();
  browser->watchdog_ = std::make_unique<PeriodicCallback>(
      [watched] {
        if (!watched->alive()) watched->watchdog_->stop();
      },
      std::chrono::milliseconds(200));
  browser->watchdog_->start();
  co_return browser;
}

Chromium::~Chromium() {
  watchdog_.reset();
  kill("the browser was closed");
  std::error_code ignored;
  if (!profile_.empty()) fs::remove_all(profile_, ignored);
}

bool Chromium::alive() {
  if (!pipe_ || pipe_->closed() || reaped_) return false;
  int status;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    reaped_ = true;
    // Its renderers and zygotes go with it.
    ::kill(-pid_, SIGKILL);
    pipe_->close("the browser exited (killed, or crashed: its log ends with: " + log_tail(300) +
                 ")");
    return false;
  }
  return true;
}

void Chromium::kill(std::string_view why) {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    if (!reaped_) {
      int status;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      reaped_ = true;
    }
  }
  if (pipe_) pipe_->close(why);
}

std::vector<pid_t> Chromium::processes() const {
  std::vector<pid_t> out;
  if (pid_ <= 0) return out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t p = static_cast<pid_t>(std::strtol(name.c_str(), nullptr, 10));
    if (process_group(p) == pid_) out.push_back(p);
  }
  return out;
}

size_t Chromium::memory_bytes() const {
  size_t total = 0;
  for (pid_t p : processes()) total += pss_bytes(p);
  return total;
}

std::string Chromium::log_tail(size_t bytes) const {
  std::string all = read_proc((profile_ / "stderr.log").string());
  return all.size() > bytes ? all.substr(all.size() - bytes) : all;
}

}  // namespace squall::browser
