// NetError messages: phase, peer, detail, and errno names.
#include "squall/net/net_error.h"

#include <cctype>
#include <cstring>

namespace squall {

std::string_view net_phase_name(NetPhase phase) noexcept {
  switch (phase) {
    case NetPhase::Resolve:
      return "resolve";
    case NetPhase::Connect:
      return "connect to";
    case NetPhase::Listen:
      return "listen on";
    case NetPhase::Accept:
      return "accept on";
    case NetPhase::Read:
      return "read from";
    case NetPhase::Write:
      return "write to";
    case NetPhase::Tls:
      return "TLS with";
  }
  return "use";
}

namespace {
std::string compose(NetPhase phase, const std::string& peer, std::string_view detail) {
  std::string message(net_phase_name(phase));
  message += ' ';
  message += peer;
  message += ": ";
  message += detail;
  return message;
}
}  // namespace

NetError::NetError(ErrorKind kind, NetPhase phase, std::string peer, std::string_view detail,
                   int error_number)
    : Error(kind, compose(phase, peer, detail)),
      phase_(phase),
      peer_(std::move(peer)),
      errno_(error_number) {}

std::string describe_errno(int error_number) {
  std::string text = std::strerror(error_number);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  if (const char* name = strerrorname_np(error_number)) {
    text += " (";
    text += name;
    text += ')';
  }
  return text;
}

}  // namespace squall
