// NetError: the typed error every net-layer failure throws, naming the phase and the peer.
#pragma once

#include <string>
#include <string_view>

#include "squall/core/error.h"

namespace squall {

// Where in a connection's life a failure happened; it prefixes the detail of the message.
enum class NetPhase { Resolve, Connect, Listen, Accept, Read, Write, Tls };

std::string_view net_phase_name(NetPhase phase) noexcept;

// "<kind>: <phase> <peer>: <detail>", e.g.
//   "connect: connect to 127.0.0.1:9: connection refused (ECONNREFUSED)"
//   "closed: read from [::1]:4000: connection reset by peer (ECONNRESET)"
// kind() says what happened (Connect, Closed, TooLarge, Timeout, System...); error_number() is
// the errno behind it, or 0.
class NetError : public Error {
 public:
  NetError(ErrorKind kind, NetPhase phase, std::string peer, std::string_view detail,
           int error_number = 0);
  NetPhase phase() const noexcept { return phase_; }
  const std::string& peer() const noexcept { return peer_; }
  int error_number() const noexcept { return errno_; }

 private:
  NetPhase phase_;
  std::string peer_;
  int errno_;
};

// "connection reset by peer (ECONNRESET)": strerror in lower case, then the errno's name.
std::string describe_errno(int error_number);

}  // namespace squall
