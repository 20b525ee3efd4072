// `squall fetch -w`: curl's --write-out format, filled in from one transfer.
//
//   format_write_out("%{http_code} %{time_total}\n", transfer, warn) == "200 0.004211\n"
//
// The format is curl's: "%{name}" is a variable (below), "%header{Name}" a field of the final
// response, "%%" a percent sign, and "\n", "\r", "\t", "\\" the control characters they name.
// Anything else is copied. An unknown variable is left out and `warn` is told its name, as curl
// warns on standard error. Variables: http_code and response_code, url_effective, url,
// redirect_url, num_redirects, num_connects, content_type, method, scheme, http_version,
// remote_ip, remote_port, size_download, size_upload, size_header, size_request,
// speed_download, speed_upload, time_namelookup, time_connect, time_appconnect,
// time_pretransfer, time_starttransfer, time_redirect, time_total (seconds with six decimals,
// each counted from the start of the transfer as curl counts them), filename_effective,
// exitcode, errormsg.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "squall/http/message.h"

namespace squall::cli {

// What -w reports about one transfer.
struct Transfer {
  std::string url;            // as given
  std::string url_effective;  // the last URL asked for, after redirects
  std::string method;
  int http_code = 0;         // 0 when no response came
  std::string http_version;  // "1.1"
  http::Headers headers;     // of the final response
  std::string redirect_url;  // the Location of a redirect that was not followed
  int num_redirects = 0;
  int num_connects = 0;
  std::string remote_ip;
  int remote_port = 0;
  uint64_t size_download = 0;  // body bytes written out
  uint64_t size_upload = 0;    // request body bytes sent
  uint64_t size_header = 0;    // bytes of every response head, redirects included
  uint64_t size_request = 0;   // bytes of every request head and body
  // Seconds from the start of the transfer.
  double time_namelookup = 0, time_connect = 0, time_appconnect = 0, time_pretransfer = 0,
         time_starttransfer = 0, time_redirect = 0, time_total = 0;
  std::string filename_effective;  // the file the body went to, or ""
  int exitcode = 0;
  std::string errormsg;
};

std::string format_write_out(std::string_view format, const Transfer& transfer,
                             const std::function<void(std::string_view name)>& warn);

}  // namespace squall::cli
