// A network of test hosts on one machine: each host a network namespace of its own (made with
// `ip netns`) whose interface eth0 has one address on 10.77.0.0/24, every host plugged by a veth
// pair into a bridge that sits in a namespace of its own (the switch). Nothing is done in the
// namespace the test starts in: no interface, address or route of the machine's is touched, and
// the hosts reach nothing but each other (and their own loopback).
//
//   VirtualNetwork net;                          // throws NetworkRefused when it may not
//   std::string ip = net.add_host("redis");      // "10.77.0.2"
//   {
//     HostScope on(net, "redis");                // this thread, and what it starts, on "redis"
//     RedisServer redis({}, ip);
//   }
//   net.cut("fetcher3");                         // its switch port down: its packets are lost
//   net.mend("fetcher3");
//
// Names are unique to the run: squall-netns-<pid>-<host>, so two runs never meet. Cleaned up
// always: when the network is destroyed, and also when this process dies without destroying it
// (killed -9, a ctest timeout, Ctrl-C), a watchdog process, in a session of its own so that a
// terminal's signals miss it, kills whatever still runs in the run's namespaces and deletes
// them. A new network first does the same for the namespaces of runs whose process is gone.
// Blocking; used outside the loop.
#pragma once

#include <sys/types.h>

#include <map>
#include <stdexcept>
#include <string>

namespace squall::test {

// The machine does not let this process make network namespaces: not root, or `ip netns add`
// was refused. A test skips, saying so.
class NetworkRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class VirtualNetwork {
 public:
  // Removes what earlier runs left, then makes the switch. Throws NetworkRefused (above), or
  // std::runtime_error with ip's output when a step fails otherwise.
  VirtualNetwork();
  // Kills what still runs in the hosts and deletes every namespace of the run.
  ~VirtualNetwork();
  VirtualNetwork(const VirtualNetwork&) = delete;
  VirtualNetwork& operator=(const VirtualNetwork&) = delete;

  // A new host named `name` (at most 15 characters, unique in the network) with the next free
  // address, which it returns; its loopback is up too.
  std::string add_host(const std::string& name);
  // The host's address.
  const std::string& address(const std::string& name) const;
  // The path of the host's namespace (/run/netns/...), for setns.
  std::string namespace_path(const std::string& name) const;

  // Takes the host's port on the switch down: what it sends and what is sent to it is lost, and
  // the host itself sees its link without carrier, as when a cable is pulled. mend() puts it back.
  void cut(const std::string& name);
  void mend(const std::string& name);

 private:
  std::string namespace_of(const std::string& name) const;

  std::string prefix_;  // squall-netns-<pid>-
  std::map<std::string, std::string> addresses_;
  pid_t watchdog_ = -1;
  int watchdog_pipe_ = -1;  // its stdin: closing it (or dying) starts the clean-up
};

// The calling thread in a host's network namespace while the scope lives: the sockets it makes
// and the processes it starts are on that host. Throws std::runtime_error if setns fails.
class HostScope {
 public:
  HostScope(const VirtualNetwork& network, const std::string& host);
  ~HostScope();
  HostScope(const HostScope&) = delete;
  HostScope& operator=(const HostScope&) = delete;

 private:
  int previous_ = -1;  // the namespace the thread was in
};

}  // namespace squall::test
