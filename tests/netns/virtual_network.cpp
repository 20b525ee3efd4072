// The test hosts' network: `ip netns` and veth pairs into a bridge, and the clean-up that runs
// however the test ends.
#include "netns/virtual_network.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

#include "support/squall_command.h"

extern char** environ;

namespace squall::test {

namespace {

constexpr const char* kIp = "/sbin/ip";               // iproute2's, on merged and split /usr alike
constexpr const char* kNsenter = "/usr/bin/nsenter";  // util-linux's, in every Debian
constexpr const char* kRunPrefix = "squall-netns-";
constexpr const char* kSwitch = "switch";
constexpr const char* kBridge = "br0";

// A shell function: cleanup PREFIX kills what runs in each namespace whose name starts with
// PREFIX, then deletes the namespace (its veth ends go with it).
constexpr const char* kCleanup =
    "cleanup() {\n"
    "  for ns in $(/sbin/ip netns list | cut -d' ' -f1 | grep -F \"$1\"); do\n"
    "    case \"$ns\" in \"$1\"*) ;; *) continue ;; esac\n"
    "    for pid in $(/sbin/ip netns pids \"$ns\"); do kill -9 \"$pid\" 2>/dev/null; done\n"
    "    /sbin/ip netns del \"$ns\"\n"
    "  done\n"
    "}\n";

// `ip -n NS ...` runs as nsenter runs `ip ...` in NS's network namespace: `ip -n` also remounts
// /sys in a mount namespace of its own, which fails where / is not a mount point (a chroot, as
// make fresh-check's), and netlink needs only the network namespace.
CommandResult ip(std::vector<std::string> args) {
  if (args.size() > 1 && args[0] == "-n") {
    std::string ns = "--net=/run/netns/" + args[1];
    args.erase(args.begin(), args.begin() + 2);
    args.insert(args.begin(), {kNsenter, ns, kIp});
  } else {
    args.insert(args.begin(), kIp);
  }
  return run_command(args, "/");
}

void must(std::vector<std::string> args) {
  CommandResult r = ip(args);
  if (r.status != 0) {
    std::string line = "ip";
    for (const std::string& a : args) line += " " + a;
    throw std::runtime_error(line + " failed (status " + std::to_string(r.status) + "): " + r.err);
  }
}

// Runs the clean-up for `prefix` to its end.
void clean_up(const std::string& prefix) {
  run_command({"/bin/sh", "-c", std::string(kCleanup) + "cleanup \"$0\"", prefix}, "/");
}

// The namespaces of earlier runs whose process is gone: their prefixes.
std::vector<std::string> stale_prefixes() {
  std::vector<std::string> out;
  std::istringstream list(ip({"netns", "list"}).out);
  for (std::string line; std::getline(list, line);) {
    if (line.rfind(kRunPrefix, 0) != 0) continue;
    size_t start = std::strlen(kRunPrefix);
    size_t dash = line.find('-', start);
    if (dash == std::string::npos) continue;
    std::string digits = line.substr(start, dash - start);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = static_cast<pid_t>(std::stol(digits));
    std::string prefix = line.substr(0, dash + 1);
    if (kill(pid, 0) != 0 && errno == ESRCH &&
        std::find(out.begin(), out.end(), prefix) == out.end())
      out.push_back(prefix);
  }
  return out;
}

}  // namespace

VirtualNetwork::VirtualNetwork() : prefix_(kRunPrefix + std::to_string(getpid()) + "-") {
  if (geteuid() != 0)
    throw NetworkRefused("not running as root: network namespaces (ip netns) need root");
  if (access(kIp, X_OK) != 0)
    throw std::runtime_error(std::string(kIp) +
                             " is missing (package iproute2; scripts/bootstrap)");
  for (const std::string& prefix : stale_prefixes()) clean_up(prefix);

  // The watchdog: a shell whose parent exits at once, so that it belongs to no process tree of
  // ours that a test runner kills, in a session of its own, reading a pipe that only this
  // process holds open. End of file (this process closed it, or died) starts the clean-up.
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2: " + std::string(strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 3);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  // The pipe is its descriptor 3: an asynchronous list's standard input is /dev/null.
  std::string script = std::string(kCleanup) + "(read -r _ <&3; exec 3<&-; cleanup \"$0\") &";
  std::vector<char*> argv = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"), script.data(),
                             prefix_.data(), nullptr};
  pid_t shell = -1;
  int rc = posix_spawn(&shell, "/bin/sh", &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(fds[0]);
  if (rc != 0) {
    close(fds[1]);
    throw std::runtime_error("cannot start the network's watchdog: " + std::string(strerror(rc)));
  }
  int ignored = 0;
  waitpid(shell, &ignored, 0);
  watchdog_pipe_ = fds[1];

  std::string sw = namespace_of(kSwitch);
  CommandResult made = ip({"netns", "add", sw});
  if (made.status != 0) {
    std::string why = made.err;
    close(watchdog_pipe_);
    if (why.find("Operation not permitted") != std::string::npos ||
        why.find("Permission denied") != std::string::npos)
      throw NetworkRefused("ip netns add was refused: " + why);
    throw std::runtime_error("ip netns add " + sw + " failed: " + why);
  }
  try {
    must({"-n", sw, "link", "add", kBridge, "type", "bridge"});
    must({"-n", sw, "link", "set", kBridge, "up"});
  } catch (...) {
    clean_up(prefix_);
    close(watchdog_pipe_);
    throw;
  }
}

VirtualNetwork::~VirtualNetwork() {
  clean_up(prefix_);
  close(watchdog_pipe_);
}

std::string VirtualNetwork::namespace_of(const std::string& name) const {
  return prefix_ + name;
}

std::string VirtualNetwork::namespace_path(const std::string& name) const {
  return "/run/netns/" + namespace_of(name);
}

std::string VirtualNetwork::add_host(const std::string& name) {
  if (name.empty() || name.size() > 15 || name == kSwitch || name == kBridge ||
      addresses_.count(name))
    throw std::invalid_argument("a host needs a new name of 1 to 15 characters: " + name);
  std::string address = "10.77.0." + std::to_string(2 + addresses_.size());
  std::string ns = namespace_of(name);
  std::string sw = namespace_of(kSwitch);
  must({"netns", "add", ns});
  addresses_[name] = address;
  must({"-n", ns, "link", "set", "lo", "up"});
  must({"-n", sw, "link", "add", name, "type", "veth", "peer", "name", "eth0", "netns", ns});
  must({"-n", sw, "link", "set", name, "master", kBridge, "up"});
  must({"-n", ns, "addr", "add", address + "/24", "dev", "eth0"});
  must({"-n", ns, "link", "set", "eth0", "up"});
  return address;
}

const std::string& VirtualNetwork::address(const std::string& name) const {
  auto it = addresses_.find(name);
  if (it == addresses_.end()) throw std::invalid_argument("no host named " + name);
  return it->second;
}

void VirtualNetwork::cut(const std::string& name) {
  must({"-n", namespace_of(kSwitch), "link", "set", name, "down"});
}

void VirtualNetwork::mend(const std::string& name) {
  must({"-n", namespace_of(kSwitch), "link", "set", name, "up"});
}

HostScope::HostScope(const VirtualNetwork& network, const std::string& host) {
  previous_ = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  int target = open(network.namespace_path(host).c_str(), O_RDONLY | O_CLOEXEC);
  if (previous_ < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0) {
    std::string why = strerror(errno);
    if (target >= 0) close(target);
    if (previous_ >= 0) close(previous_);
    throw std::runtime_error("cannot enter the network namespace of " + host + ": " + why);
  }
  close(target);
}

HostScope::~HostScope() {
  setns(previous_, CLONE_NEWNET);
  close(previous_);
}

}  // namespace squall::test
