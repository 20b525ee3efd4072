// `squall fetch`: one URL fetched with HttpClient, printed as curl prints it, with curl's statuses.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <ostream>
#include <string>

#include "squall/cli/fetch_command.h"
#include "squall/cli/request_options.h"
#include "squall/core.h"
#include "squall/http/client.h"
#include "squall/http/decode.h"
#include "squall/net/tls.h"

namespace squall::cli {

namespace {

using http::HttpClient;
using http::HttpError;
using http::HttpRequest;
using http::HttpResponse;

// curl's exit statuses for the causes it shares with squall (curl's libcurl-errors.3).
enum Status : int {
  kOk = 0,
  kFailed = 1,
  kUsage = 2,
  kResolve = 6,
  kConnect = 7,
  kHttpError = 22,
  kTimeout = 28,
  kTlsHandshake = 35,
  kTooManyRedirects = 47,
  kEmptyReply = 52,
  kReceive = 56,
  kUntrustedCertificate = 60,
  kBadContentEncoding = 61,
  kSizeLimit = 63,
};

// The status for a failure that produced no HTTP status (a 599), from its cause when the cause
// says more than the kind does.
int failure_status(const HttpError& e) {
  if (auto cause = e.cause()) {
    try {
      std::rethrow_exception(cause);
    } catch (const http::DecodeError& d) {
      return d.kind() == ErrorKind::TooLarge ? kSizeLimit : kBadContentEncoding;
    } catch (const TlsError& t) {
      if (t.failure() == TlsFailure::Timeout) return kTimeout;
      return t.certificate_problem() ? kUntrustedCertificate : kTlsHandshake;
    } catch (...) {
    }
  }
  switch (e.failure()) {
    case http::HttpFailure::TooManyRedirects:
      return kTooManyRedirects;
    case http::HttpFailure::EmptyReply:
      return kEmptyReply;
    default:
      break;
  }
  switch (e.kind()) {
    case ErrorKind::Resolve:
      return kResolve;
    case ErrorKind::Connect:
      return kConnect;
    case ErrorKind::Timeout:
      return kTimeout;
    case ErrorKind::Tls:
      return kTlsHandshake;
    case ErrorKind::TooLarge:
      return kSizeLimit;
    case ErrorKind::Closed:
      return kReceive;
    default:
      return kFailed;
  }
}

// What to do about a body the decompression-bomb guard stopped; empty for other failures.
std::string_view bomb_advice(const HttpError& e) {
  try {
    if (e.cause()) std::rethrow_exception(e.cause());
  } catch (const http::DecodeError& d) {
    if (d.ratio_exceeded()) return "; --max-ratio 0 turns the guard off";
  } catch (...) {
  }
  return {};
}

std::string milliseconds(Duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", std::chrono::duration<double, std::milli>(d).count());
  return text;
}

Duration seconds(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
}

// Where the response goes: the head (with -i) and the body, to `out` or a file opened on the
// first byte, and the head line by line to `err` with -v. An HTTP error status without
// --no-fail prints nothing, as curl --fail does.
class Printer {
 public:
  Printer(const FetchCommand& command, std::ostream& out, std::ostream& err)
      : command_(command), out_(out), err_(err) {}

  void head_line(std::string_view line) {
    head_.append(line);
    if (line != "\r\n") return;
    // The status line is "HTTP/1.1 200 OK": the code follows the first space.
    size_t space = head_.find(' ');
    if (space != std::string::npos) status_ = std::atoi(head_.c_str() + space + 1);
    quiet_ = status_ >= 400 && !command_.no_fail;
    if (command_.verbose) {
      std::string_view rest = head_;
      while (rest.size() > 2) {
        size_t end = rest.find("\r\n");
        err_ << "< " << rest.substr(0, end) << "\n";
        rest.remove_prefix(end + 2);
      }
    }
    if (command_.include && !quiet_) write(head_);
    head_.clear();
  }

  void body(std::string_view bytes) {
    if (!quiet_) write(bytes);
  }

  // After a successful fetch: -o makes its file even for an empty body.
  bool finish() {
    if (!quiet_ && command_.output && !file_.is_open()) open();
    if (file_.is_open()) file_.close();
    return !failed_ && !file_.fail();
  }
  bool failed() const { return failed_; }

 private:
  void open() {
    file_.open(*command_.output, std::ios::binary | std::ios::trunc);
    if (!file_) failed_ = true;
  }
  void write(std::string_view bytes) {
    if (failed_) return;
    if (command_.output) {
      if (!file_.is_open()) open();
      if (failed_) return;
      file_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!file_) failed_ = true;
    } else {
      out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
  }

  const FetchCommand& command_;
  std::ostream& out_;
  std::ostream& err_;
  std::string head_;
  int status_ = 0;
  bool quiet_ = false;
  bool failed_ = false;
  std::ofstream file_;
};

void describe_request(const HttpRequest& request, std::ostream& err) {
  err << "> " << request.method << " " << request.url << "\n";
  for (const auto& field : request.headers)
    err << "> " << field.name << ": " << field.value << "\n";
  if (request.proxy.size()) err << "* via proxy " << request.proxy << "\n";
  if (!request.body.empty()) err << "* request body: " << request.body.size() << " bytes\n";
}

void describe_response(const HttpResponse& r, std::ostream& err) {
  for (const auto& url : r.redirect_chain) err << "* redirected from " << url << "\n";
  if (!r.redirect_chain.empty()) err << "* final URL " << r.effective_url << "\n";
  const auto& t = r.times;
  err << "* times: queued " << milliseconds(t.queued) << ", dns " << milliseconds(t.dns)
      << ", connect " << milliseconds(t.connect) << ", tls " << milliseconds(t.tls)
      << ", first byte " << milliseconds(t.first_byte) << ", total " << milliseconds(t.total)
      << (r.reused_connection ? " (reused connection)" : "") << "\n";
}

// Builds the request from the flags; returns a usage error message, or empty.
std::string build_request(const FetchCommand& c, HttpRequest& request) {
  request.url = c.url;
  request.raise_error = false;
  for (const auto& line : c.headers)
    if (std::string bad = add_header_flag(line, request.headers); !bad.empty()) return bad;
  if (c.data && c.data_file) return "give either -d or --data-file, not both";
  bool has_body = false;
  if (c.data) {
    request.body = *c.data;
    has_body = true;
  } else if (c.data_file) {
    std::ifstream file(*c.data_file, std::ios::binary);
    if (!file) return "cannot read the --data-file '" + *c.data_file + "'";
    request.body.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    has_body = true;
  }
  // As curl does for -d: a form body unless the caller says otherwise.
  if (has_body && !request.headers.contains("Content-Type")) {
    request.headers.add("Content-Type", "application/x-www-form-urlencoded");
  }
  request.method = !c.method.empty() ? c.method : has_body ? "POST" : "GET";
  if (c.connect_timeout) {
    if (*c.connect_timeout <= 0) return "--connect-timeout must be positive";
    request.connect_timeout = seconds(*c.connect_timeout);
  }
  if (c.timeout && *c.timeout <= 0) return "--timeout must be positive";
  // --timeout bounds the whole fetch (see run_fetch); without it a download may take as long as
  // it takes, as with curl, so each hop gets a day.
  request.request_timeout = c.timeout ? seconds(*c.timeout) : std::chrono::hours(24);
  if (c.max_redirects) {
    if (*c.max_redirects < 0) return "--max-redirects must be 0 or more";
    request.max_redirects = *c.max_redirects;
  }
  request.follow_redirects = true;
  request.proxy = c.proxy;
  if (c.insecure) request.validate_cert = false;
  if (c.user_agent) request.user_agent = *c.user_agent;
  request.max_body_size =
      c.max_filesize ? static_cast<size_t>(*c.max_filesize) : std::numeric_limits<size_t>::max();
  request.max_decode_ratio = c.max_ratio;
  return {};
}

Task<HttpResponse> fetch_one(HttpClient& client, HttpRequest request,
                             std::optional<Duration> limit) {
  if (!limit) co_return co_await client.fetch(std::move(request));
  co_return co_await with_timeout(*limit, client.fetch(std::move(request)));
}

}  // namespace

int run_fetch(const FetchCommand& command, std::ostream& out, std::ostream& err) {
  HttpRequest request;
  if (std::string usage = build_request(command, request); !usage.empty()) {
    err << "squall fetch: " << usage << "\n";
    return kUsage;
  }
  Printer printer(command, out, err);
  request.header_callback = [&printer](std::string_view line) { printer.head_line(line); };
  request.streaming_callback = [&printer](std::string_view bytes) { printer.body(bytes); };
  if (command.verbose) describe_request(request, err);
  std::optional<Duration> limit;
  if (command.timeout) limit = seconds(*command.timeout);

  Loop loop;
  HttpClient client(http::ClientOptions{.max_clients = 1}, loop);
  HttpResponse response;
  try {
    response = run_sync(fetch_one(client, std::move(request), limit));
  } catch (const TimeoutError&) {
    client.close();
    err << "squall fetch: timeout: no complete response within " << *command.timeout << " s ("
        << command.url << ")\n";
    return kTimeout;
  } catch (const std::exception& e) {
    client.close();
    err << "squall fetch: " << e.what() << "\n";
    return kFailed;
  }
  client.close();
  if (command.verbose) describe_response(response, err);

  int status = kOk;
  if (response.error) {
    try {
      std::rethrow_exception(response.error);
    } catch (const HttpError& e) {
      if (e.code() == 599) {
        err << "squall fetch: " << e.what() << bomb_advice(e) << "\n";
        return failure_status(e);
      }
      if (e.code() >= 400 && !command.no_fail) {
        err << "squall fetch: the server answered " << e.code() << " " << response.reason << " ("
            << response.effective_url << "); --no-fail prints the body and exits 0\n";
        status = kHttpError;
      }
    } catch (const std::exception& e) {
      err << "squall fetch: " << e.what() << "\n";
      return kFailed;
    }
  }
  if (!printer.finish()) {
    err << "squall fetch: cannot write '" << command.output.value_or("standard output") << "'\n";
    return kFailed;
  }
  return status;
}

}  // namespace squall::cli
