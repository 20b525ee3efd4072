// SocketWatch: samples the TCP and UDP sockets of a process group while it lives, and keeps
// every peer address that is not loopback (what a browser under test must never reach).
//
//   SocketWatch watch(browser_pgid);
//   ... render pages ...
//   EXPECT_EQ(watch.outside(), std::vector<std::string>{});
//
// Sampling (every `interval`, on a thread of its own) sees connections that live at least that
// long; each sample reads /proc/PID/fd of the group's processes for socket inodes and
// /proc/net/{tcp,tcp6,udp,udp6} for their peers.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace squall::test {

class SocketWatch {
 public:
  // Watches the processes that `group()` names (called on each sample: the group may change as
  // a browser is restarted).
  explicit SocketWatch(std::function<std::vector<pid_t>()> group,
                       std::chrono::milliseconds interval = std::chrono::milliseconds(10));
  ~SocketWatch();
  SocketWatch(const SocketWatch&) = delete;
  SocketWatch& operator=(const SocketWatch&) = delete;

  // The peers seen that are not loopback ("tcp 93.184.216.34:443"), in order of first sight.
  std::vector<std::string> outside() const;
  // How many samples found at least one socket with a peer (a sanity check that it watches).
  size_t samples_with_peers() const;

 private:
  void sample();
  std::function<std::vector<pid_t>()> group_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<std::string> outside_;
  std::set<std::string> seen_;
  size_t with_peers_ = 0;
  std::thread thread_;
};

// The processes of process group `pgid` that are running.
std::vector<pid_t> process_group_members(pid_t pgid);

// Waits (up to `limit`) until `processes()` names none: processes killed with SIGKILL take a
// moment to go on a loaded machine. Returns those still there at the end.
std::vector<pid_t> wait_until_gone(const std::function<std::vector<pid_t>()>& processes,
                                   std::chrono::milliseconds limit = std::chrono::seconds(10));

}  // namespace squall::test
