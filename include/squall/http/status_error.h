// StatusError: what a web handler throws to answer with an HTTP error status (Tornado's
// tornado.web.HTTPError).
//
//   if (!user) throw StatusError(404, "no user " + id);
//
// The Application catches it and answers `status` with an error page; `detail` is logged, and
// shown in the page only in debug mode (it may name internals). A StatusError is a
// squall::Error whose kind follows the status: TooLarge for 413, Timeout for 408 and 504,
// Protocol for every other status.
#pragma once

#include <string>
#include <string_view>

#include "squall/core/error.h"

namespace squall::http {

class StatusError : public Error {
 public:
  // `status` outside 400-599 is kept as given; the Application answers it as it is.
  explicit StatusError(int status, std::string_view detail = {});
  int status() const noexcept { return status_; }
  const std::string& detail() const noexcept { return detail_; }

 private:
  int status_;
  std::string detail_;
};

}  // namespace squall::http
