// StatusError: an HTTP status as an exception.
#include "squall/http/status_error.h"

#include "squall/http/message.h"

namespace squall::http {

namespace {

ErrorKind kind_for(int status) noexcept {
  if (status == 413) return ErrorKind::TooLarge;
  if (status == 408 || status == 504) return ErrorKind::Timeout;
  return ErrorKind::Protocol;
}

std::string describe(int status, std::string_view detail) {
  std::string out = std::to_string(status);
  std::string_view reason = reason_phrase(status);
  if (!reason.empty()) out.append(" ").append(reason);
  if (!detail.empty()) out.append(": ").append(detail);
  return out;
}

}  // namespace

StatusError::StatusError(int status, std::string_view detail)
    : Error(kind_for(status), describe(status, detail)), status_(status), detail_(detail) {}

}  // namespace squall::http
