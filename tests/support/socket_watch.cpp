// SocketWatch: /proc's socket tables joined with a process group's descriptors.
#include "support/socket_watch.h"

#include "support/process.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace squall::test {

namespace fs = std::filesystem;

namespace {

// A peer address of /proc/net/tcp* as text, and whether it is loopback or no peer at all.
struct Peer {
  std::string text;
  bool local = true;
};

Peer decode(const std::string& hex_address, bool v6) {
  size_t colon = hex_address.find(':');
  std::string ip = hex_address.substr(0, colon);
  unsigned port = std::stoul(hex_address.substr(colon + 1), nullptr, 16);
  Peer p;
  if (!v6) {
    uint32_t a = static_cast<uint32_t>(std::stoul(ip, nullptr, 16));  // little-endian bytes
    unsigned b0 = a & 0xff, b1 = (a >> 8) & 0xff, b2 = (a >> 16) & 0xff, b3 = a >> 24;
    p.text = std::to_string(b0) + "." + std::to_string(b1) + "." + std::to_string(b2) + "." +
             std::to_string(b3) + ":" + std::to_string(port);
    p.local = a == 0 || b0 == 127;
    return p;
  }
  p.text = "[" + ip + "]:" + std::to_string(port);
  bool zero = ip.find_first_not_of('0') == std::string::npos;
  bool loopback6 = ip == "00000000000000000000000001000000";
  bool mapped_loopback = ip.starts_with("0000000000000000FFFF0000") && ip.ends_with("7F");
  bool mapped_zero = ip == "0000000000000000FFFF000000000000";
  p.local = zero || loopback6 || mapped_loopback || mapped_zero;
  return p;
}

// Chromium's host resolver learns whether IPv6 (or IPv4) is routable beyond this machine by
// connecting a UDP socket to 2001:4860:4860::8888 (or 8.8.8.8), port 443, and reading the local
// address the kernel picked: a UDP connect sends no datagram, so it reaches nothing. It does so
// even for pages on 127.0.0.1, under any host-resolver rules.
bool reachability_probe(const std::string& hex_address) {
  return hex_address == "60480120000060480000000088880000:01BB" || hex_address == "08080808:01BB";
}

}  // namespace

std::vector<pid_t> process_group_members(pid_t pgid) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = read_file(entry.path() / "stat");
    size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(paren + 1));
    char state;
    pid_t ppid, pgrp;
    if (rest >> state >> ppid >> pgrp && state != 'Z' && pgrp == pgid)
      out.push_back(std::stoi(name));
  }
  return out;
}

std::vector<pid_t> wait_until_gone(const std::function<std::vector<pid_t>()>& processes,
                                   std::chrono::milliseconds limit) {
  auto give_up = std::chrono::steady_clock::now() + limit;
  std::vector<pid_t> left = processes();
  while (!left.empty() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = processes();
  }
  return left;
}

SocketWatch::SocketWatch(std::function<std::vector<pid_t>()> group,
                         std::chrono::milliseconds interval)
    : group_(std::move(group)) {
  thread_ = std::thread([this, interval] {
    while (!stop_) {
      sample();
      std::this_thread::sleep_for(interval);
    }
  });
}

SocketWatch::~SocketWatch() {
  stop_ = true;
  thread_.join();
}

void SocketWatch::sample() {
  std::set<std::string> inodes;
  std::vector<pid_t> pids = group_();
  for (pid_t pid : pids) {
    std::error_code ec;
    for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
      std::error_code lec;
      std::string target = fs::read_symlink(fd.path(), lec).string();
      if (target.starts_with("socket:[")) inodes.insert(target.substr(8, target.size() - 9));
    }
  }
  if (inodes.empty()) return;
  bool any_peer = false;
  for (const char* table : {"tcp", "tcp6", "udp", "udp6"}) {
    std::istringstream in(read_file("/proc/" + std::to_string(pids.front()) + "/net/" + table));
    std::string line;
    std::getline(in, line);  // the column names
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string sl, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      if (!(fields >> sl >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
            timeout >> inode))
        continue;
      if (!inodes.count(inode)) continue;
      bool v6 = std::string_view(table).ends_with('6');
      Peer peer = decode(remote, v6);
      if (peer.text.find(":0") != peer.text.size() - 2) any_peer = true;
      if (peer.local || (!std::string_view(table).starts_with("tcp") && reachability_probe(remote)))
        continue;
      std::string what = std::string(table) + " " + peer.text;
      std::lock_guard lock(mutex_);
      if (seen_.insert(what).second) outside_.push_back(what);
    }
  }
  std::lock_guard lock(mutex_);
  if (any_peer) ++with_peers_;
}

std::vector<std::string> SocketWatch::outside() const {
  std::lock_guard lock(mutex_);
  return outside_;
}

size_t SocketWatch::samples_with_peers() const {
  std::lock_guard lock(mutex_);
  return with_peers_;
}

}  // namespace squall::test
