// `squall fetch -w`: curl's --write-out variables filled in from a Transfer.
#include "squall/cli/write_out.h"

#include <cstdio>
#include <optional>

namespace squall::cli {

namespace {

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6f", s);
  return text;
}

std::string speed(uint64_t bytes, double seconds) {
  return std::to_string(seconds > 0 ? static_cast<uint64_t>(static_cast<double>(bytes) / seconds)
                                    : 0);
}

// The value of `name`, or nullopt when curl has no such variable (or squall does not know it).
std::optional<std::string> variable(std::string_view name, const Transfer& t) {
  auto number = [](auto n) { return std::to_string(n); };
  if (name == "http_code" || name == "response_code") {
    char code[8];
    std::snprintf(code, sizeof code, "%03d", t.http_code);
    return code;
  }
  if (name == "url_effective") return t.url_effective;
  if (name == "url") return t.url;
  if (name == "redirect_url") return t.redirect_url;
  if (name == "num_redirects") return number(t.num_redirects);
  if (name == "num_connects") return number(t.num_connects);
  if (name == "content_type") return std::string(t.headers.get("Content-Type").value_or(""));
  if (name == "method") return t.method;
  if (name == "scheme") {  // upper case, as curl prints it
    std::string scheme = t.url_effective.substr(0, t.url_effective.find(':'));
    for (char& c : scheme)
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return scheme;
  }
  if (name == "http_version") return t.http_version.empty() ? "0" : t.http_version;
  if (name == "remote_ip") return t.remote_ip;
  if (name == "remote_port") return number(t.remote_port);
  if (name == "size_download") return number(t.size_download);
  if (name == "size_upload") return number(t.size_upload);
  if (name == "size_header") return number(t.size_header);
  if (name == "size_request") return number(t.size_request);
  if (name == "speed_download") return speed(t.size_download, t.time_total);
  if (name == "speed_upload") return speed(t.size_upload, t.time_total);
  if (name == "time_namelookup") return seconds_text(t.time_namelookup);
  if (name == "time_connect") return seconds_text(t.time_connect);
  if (name == "time_appconnect") return seconds_text(t.time_appconnect);
  if (name == "time_pretransfer") return seconds_text(t.time_pretransfer);
  if (name == "time_starttransfer") return seconds_text(t.time_starttransfer);
  if (name == "time_redirect") return seconds_text(t.time_redirect);
  if (name == "time_total") return seconds_text(t.time_total);
  if (name == "filename_effective") return t.filename_effective;
  if (name == "exitcode") return number(t.exitcode);
  if (name == "errormsg") return t.errormsg;
  return std::nullopt;
}

}  // namespace

std::string format_write_out(std::string_view format, const Transfer& transfer,
                             const std::function<void(std::string_view name)>& warn) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    std::string_view rest = format.substr(i);
    if (c == '%' && rest.starts_with("%%")) {
      out += '%';
      ++i;
    } else if (c == '%' && (rest.starts_with("%{") || rest.starts_with("%header{")) &&
               rest.find('}') != std::string_view::npos) {
      size_t open = rest.find('{');
      size_t close = rest.find('}');
      std::string_view name = rest.substr(open + 1, close - open - 1);
      if (open > 1) {  // %header{Name}
        out += transfer.headers.get_joined(name);
      } else if (auto value = variable(name, transfer)) {
        out += *value;
      } else {
        warn(name);
      }
      i += close;
    } else if (c == '\\' && i + 1 < format.size() &&
               std::string_view("nrt\\").find(format[i + 1]) != std::string_view::npos) {
      char next = format[++i];
      out += next == 'n' ? '\n' : next == 'r' ? '\r' : next == 't' ? '\t' : '\\';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace squall::cli
