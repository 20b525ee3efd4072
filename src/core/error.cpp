// Names and messages for the error kinds table.
#include "squall/core/error.h"

#include <cstring>

namespace squall {

std::string_view error_kind_name(ErrorKind kind) noexcept {
  switch (kind) {
#define SQUALL_X(id, name, doc) \
  case ErrorKind::id:           \
    return name;
    SQUALL_ERROR_KINDS(SQUALL_X)
#undef SQUALL_X
  }
  return "error";
}

namespace {
std::string compose(ErrorKind kind, std::string_view detail) {
  std::string message(error_kind_name(kind));
  message += ": ";
  message += detail;
  return message;
}
}  // namespace

Error::Error(ErrorKind kind, std::string_view detail)
    : std::runtime_error(compose(kind, detail)), kind_(kind) {}

SystemError::SystemError(std::string_view call, int error_number)
    : Error(ErrorKind::System, std::string(call) + ": " + std::strerror(error_number)),
      errno_(error_number) {}

std::string exception_message(const std::exception_ptr& error) {
  if (!error) return {};
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}

}  // namespace squall
