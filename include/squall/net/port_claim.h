// PortClaim: makes a TCP port one process's own before its SO_REUSEPORT listeners bind it.
//
//   PortClaim claim(address);   // throws "address in use" when something listens there
//   ... each thread binds `address` with reuse_port and listens ...
//   // the claim ends with its scope, once every listener is up
//
// Linux lets a socket with SO_REUSEPORT join the listeners of any port whose listeners all set
// it too, as long as the same user made them: two servers that each spread their threads over
// one port this way would silently share the port, and split its connections. Linux offers no
// way to close such a group once it is formed (clearing SO_REUSEPORT on a member afterwards
// does not stop a newcomer), so the check is made before it forms:
//   - a probe socket, with SO_REUSEADDR but without SO_REUSEPORT, is bound to the address and
//     closed. Linux refuses that bind while any socket listens on the port at an overlapping
//     address (the same one, or 0.0.0.0 / :: of the same family), whoever made it and whatever
//     its options; connections in TIME_WAIT do not count;
//   - from the probe until the claim ends, the claimant holds a lock named after the port (an
//     abstract Unix socket, which the kernel releases if the process dies), so that two
//     processes starting on one port at the same moment go one after the other and the second
//     one's probe sees the first one's listeners.
// A process that binds the port with SO_REUSEPORT and does not take part in this (another
// program of the same user) can still join after the probe: that program asked to share.
//
// Threads: any thread; the claim is a plain object that touches no loop.
#pragma once

#include "squall/net/address.h"

namespace squall {

class PortClaim {
 public:
  // Takes the port's lock (waiting up to about a second for another process that holds it
  // while it starts), then probes the address. Throws NetError (kind System, phase Listen, the
  // address as peer) with EADDRINUSE ("address already in use") when something listens there
  // or the lock stays taken, or with the system's errno when the probe cannot be made (e.g.
  // EADDRNOTAVAIL for an address this machine does not have). `address` must name a port
  // (not 0: an ephemeral port is never shared, so it needs no claim).
  explicit PortClaim(const Address& address);
  PortClaim(const PortClaim&) = delete;
  PortClaim& operator=(const PortClaim&) = delete;
  // Releases the lock; the listeners bound meanwhile keep the port.
  ~PortClaim();

 private:
  int lock_fd_ = -1;
};

}  // namespace squall
