// `squall fetch`: URLs fetched with HttpClient, printed as curl prints them, with curl's flags and
// exit statuses.
#include "squall/cli/fetch_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <ostream>
#include <string>

#include "squall/cli/request_options.h"
#include "squall/cli/write_out.h"
#include "squall/core.h"
#include "squall/core/seconds.h"
#include "squall/http/client.h"
#include "squall/http/cookie_jar.h"
#include "squall/http/decode.h"
#include "squall/http/form.h"
#include "squall/http/mime.h"
#include "squall/http/multipart.h"
#include "squall/net/address.h"
#include "squall/net/net_error.h"
#include "squall/net/resolver.h"
#include "squall/net/stream.h"
#include "squall/net/tls.h"
#include "squall/url/ascii.h"

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
  kWriteError = 23,
  kReadError = 26,
  kTimeout = 28,
  kTlsHandshake = 35,
  kTooManyRedirects = 47,
  kEmptyReply = 52,
  kReceive = 56,
  kUntrustedCertificate = 60,
  kBadContentEncoding = 61,
  kSizeLimit = 63,
  kCaCertFile = 77,
};

// The TLS failure behind a 599, if that is what it was.
std::optional<TlsFailure> tls_failure(const HttpError& e) {
  if (auto cause = e.cause()) {
    try {
      std::rethrow_exception(cause);
    } catch (const TlsError& t) {
      return t.failure();
    } catch (...) {
    }
  }
  return std::nullopt;
}

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

// What the command line offers against a certificate the client refused.
std::string_view certificate_advice(TlsFailure failure) {
  switch (failure) {
    case TlsFailure::Untrusted:
      return "; --cacert FILE trusts the CA that issued it, -k (--insecure) skips verification";
    case TlsFailure::Expired:
    case TlsFailure::HostnameMismatch:
    case TlsFailure::Certificate:
      return "; -k (--insecure) skips verification";
    default:
      return "";
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

// A file's contents, or standard input's for "-"; nullopt when it cannot be read.
std::optional<std::string> read_input(const std::string& path) {
  if (path == "-")
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  if (file.bad()) return std::nullopt;
  return text;
}

// The file name -O takes from a URL: the last segment of its path, as curl takes it.
std::string remote_name(const Url& url) {
  std::string_view path = url.path();
  return std::string(path.substr(path.rfind('/') + 1));
}

// Error lines on `err`, hidden by -s unless -S asks for them.
class Messages {
 public:
  Messages(const FetchCommand& c, std::ostream& err)
      : shown_(!c.silent || c.show_error), err_(err) {}
  void error(std::string_view text) {
    if (shown_) err_ << "squall fetch: " << text << "\n";
  }
  void warning(std::string_view text) {
    if (shown_) err_ << "squall fetch: warning: " << text << "\n";
  }

 private:
  bool shown_;
  std::ostream& err_;
};

// What -d, -F, -T and --data-file make of the request body, read once for every URL.
struct Body {
  std::string bytes;
  std::string content_type;           // the Content-Type to send unless -H gives one
  std::optional<std::string> query;   // -G: the data for the URL's query instead
  std::optional<std::string> upload;  // -T FILE: streamed from the file (bytes is empty)
  uint64_t upload_size = 0;
  bool present = false;
};

// -d, --data-binary, --data-raw and --data-urlencode joined as curl joins them; a usage error
// message or empty.
std::string join_data(const std::vector<FetchData>& data, std::string& out) {
  for (const auto& d : data) {
    std::string piece;
    if (d.kind == FetchData::Kind::UrlEncode) {
      std::string_view v = d.value;
      size_t at = v.find_first_of("=@");
      std::string name;
      std::string content;
      if (at != std::string_view::npos && v[at] == '@') {
        name = std::string(v.substr(0, at));
        auto file = read_input(std::string(v.substr(at + 1)));
        if (!file)
          return "cannot read the file '" + std::string(v.substr(at + 1)) + "' of --data-urlencode";
        content = std::move(*file);
      } else if (at != std::string_view::npos) {
        name = std::string(v.substr(0, at));
        content = std::string(v.substr(at + 1));
      } else {
        content = std::string(v);
      }
      piece =
          name.empty() ? http::percent_encode(content) : name + "=" + http::percent_encode(content);
    } else if (d.kind != FetchData::Kind::Raw && d.value.starts_with('@')) {
      auto file = read_input(d.value.substr(1));
      if (!file) return "cannot read the file '" + d.value.substr(1) + "' of -d";
      piece = std::move(*file);
      if (d.kind == FetchData::Kind::Ascii)
        std::erase_if(piece, [](char c) { return c == '\r' || c == '\n'; });
    } else {
      piece = d.value;
    }
    if (&d != &data.front()) out += '&';
    out += piece;
  }
  return {};
}

// One -F argument as a part: "name=value", "name=@file", "name=<file", with ";type=" and
// ";filename=" options after it.
std::string form_part(const std::string& spec, http::MultipartPart& part) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    return "bad -F '" + spec + "' (give -F name=value, -F name=@file or -F name=<file)";
  part.name = spec.substr(0, eq);
  std::string value = spec.substr(eq + 1);
  bool file = value.starts_with('@');
  bool contents = value.starts_with('<');
  std::optional<std::string> type, filename;
  if (file || contents) {
    // Options follow the file name: "@photo.jpg;type=image/jpeg;filename=me.jpg".
    size_t semi = value.find(';');
    std::string options = semi == std::string::npos ? "" : value.substr(semi + 1);
    value = value.substr(1, semi == std::string::npos ? std::string::npos : semi - 1);
    while (!options.empty()) {
      size_t next = options.find(';');
      std::string option = options.substr(0, next);
      options = next == std::string::npos ? "" : options.substr(next + 1);
      if (option.starts_with("type=")) {
        type = option.substr(5);
      } else if (option.starts_with("filename=")) {
        filename = option.substr(9);
      } else {
        return "-F '" + spec + "': unknown option '" + option + "' (type= and filename= exist)";
      }
    }
    auto bytes = read_input(value);
    if (!bytes) return "cannot read the file '" + value + "' of -F";
    part.body = std::move(*bytes);
    if (file) {
      part.filename = filename.value_or(std::filesystem::path(value).filename().string());
      part.content_type = type.value_or(std::string(http::mime_type(value)));
    } else if (type) {
      part.content_type = *type;
    }
  } else {
    part.body = std::move(value);
  }
  return {};
}

// The body every URL of the command sends; a usage error message or empty.
std::string build_body(const FetchCommand& c, Body& body) {
  int sources = !c.data.empty() + !!c.data_file + !c.form.empty() + !!c.upload_file;
  if (sources > 1) return "give one of -d (and its kin), --data-file, -F and -T, not several";
  if (!c.data.empty()) {
    if (std::string error = join_data(c.data, body.bytes); !error.empty()) return error;
    body.content_type = "application/x-www-form-urlencoded";
  } else if (c.data_file) {
    auto bytes = read_input(*c.data_file);
    if (!bytes) return "cannot read the --data-file '" + *c.data_file + "'";
    body.bytes = std::move(*bytes);
    body.content_type = "application/x-www-form-urlencoded";
  } else if (!c.form.empty()) {
    std::vector<http::MultipartPart> parts(c.form.size());
    for (size_t i = 0; i < c.form.size(); ++i)
      if (std::string error = form_part(c.form[i], parts[i]); !error.empty()) return error;
    std::string boundary = http::make_multipart_boundary();
    body.bytes = http::format_multipart(parts, boundary);
    body.content_type = "multipart/form-data; boundary=" + boundary;
  } else if (c.upload_file) {
    if (*c.upload_file == "-") {
      body.bytes = *read_input("-");
    } else {
      std::error_code ec;
      body.upload_size = std::filesystem::file_size(*c.upload_file, ec);
      std::ifstream probe(*c.upload_file, std::ios::binary);
      if (ec || !probe) return "cannot read the file '" + *c.upload_file + "' of -T";
      body.upload = *c.upload_file;
    }
  } else {
    return {};
  }
  body.present = true;
  if (c.data_in_query) {
    if (!c.form.empty() || c.upload_file) return "-G sends -d data in the URL: not with -F or -T";
    body.query = std::move(body.bytes);
    body.bytes.clear();
    body.present = false;
  }
  return {};
}

// --resolve host:port:address[,address...] and -4/-6, in front of the default resolver.
class CommandResolver final : public Resolver {
 public:
  struct Entry {
    std::string host;
    uint16_t port = 0;
    std::vector<Address> addresses;
  };

  explicit CommandResolver(int ip_version) : ip_version_(ip_version) {}

  // Adds one --resolve entry; a usage error message or empty.
  std::string add(const std::string& spec) {
    std::string_view s = spec;
    if (s.starts_with('+')) s.remove_prefix(1);
    size_t first = s.find(':');
    size_t second = first == std::string_view::npos ? first : s.find(':', first + 1);
    if (second == std::string_view::npos)
      return "bad --resolve '" + spec +
             "' (give host:port:address, e.g. example.com:443:127.0.0.1)";
    Entry e;
    e.host = std::string(s.substr(0, first));
    std::string port(s.substr(first + 1, second - first - 1));
    char* end = nullptr;
    long p = std::strtol(port.c_str(), &end, 10);
    if (port.empty() || *end != '\0' || p <= 0 || p > 65535)
      return "bad --resolve '" + spec + "': '" + port + "' is not a port";
    e.port = static_cast<uint16_t>(p);
    std::string_view list = s.substr(second + 1);
    while (!list.empty()) {
      size_t comma = list.find(',');
      std::string_view ip = list.substr(0, comma);
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
      auto address = Address::from_ip(ip, e.port);
      if (!address)
        return "bad --resolve '" + spec + "': '" + std::string(ip) + "' is not an IP address";
      e.addresses.push_back(*address);
    }
    if (e.addresses.empty()) return "bad --resolve '" + spec + "': no address";
    entries_.push_back(std::move(e));
    return {};
  }

  Task<std::vector<Address>> resolve(std::string host, uint16_t port) override {
    std::vector<Address> found;
    bool pinned = false;
    for (const auto& e : entries_) {
      if (e.port == port && iequals(e.host, host)) {
        found = e.addresses;
        pinned = true;
        break;
      }
    }
    if (!pinned) found = co_await default_resolver().resolve(host, port);
    if (ip_version_ == 0) co_return found;
    int family = ip_version_ == 4 ? AF_INET : AF_INET6;
    std::erase_if(found, [family](const Address& a) { return a.family() != family; });
    if (found.empty())
      throw NetError(ErrorKind::Resolve, NetPhase::Resolve, host,
                     "no IPv" + std::to_string(ip_version_) + " address (-" +
                         std::to_string(ip_version_) + " asks for one)");
    co_return found;
  }

 private:
  int ip_version_;
  std::vector<Entry> entries_;
};

// Where the response of one transfer goes: the heads (with -i or -I) and the body, to `out` or
// a file opened on the first byte. An HTTP error status in fail mode prints nothing, as curl
// --fail does.
class Printer {
 public:
  Printer(const FetchCommand& command, std::optional<std::string> file, std::ostream& out)
      : command_(command), file_name_(std::move(file)), out_(out) {}

  void head(std::string_view head) {
    // The status line is "HTTP/1.1 200 OK": the code follows the first space.
    size_t space = head.find(' ');
    int status = space == std::string_view::npos ? 0 : std::atoi(head.data() + space + 1);
    quiet_ = status >= 400 && !command_.no_fail;
    if ((command_.include || command_.head) && !quiet_) write(head);
  }

  void body(std::string_view bytes) {
    if (quiet_) return;
    written_ += bytes.size();
    write(bytes);
  }

  // After a successful fetch: -o makes its file even for an empty body.
  bool finish() {
    if (!quiet_ && file_name_ && !file_.is_open()) open();
    if (file_.is_open()) file_.close();
    if (!file_name_) out_.flush();
    return !failed_ && !file_.fail() && !(!file_name_ && out_.fail());
  }
  uint64_t written() const noexcept { return written_; }
  const std::string& file_name() const noexcept {
    static const std::string none;
    return file_name_ ? *file_name_ : none;
  }

 private:
  void open() {
    file_.open(*file_name_, std::ios::binary | std::ios::trunc);
    if (!file_) failed_ = true;
  }
  void write(std::string_view bytes) {
    if (failed_) return;
    if (file_name_) {
      if (!file_.is_open()) open();
      if (failed_) return;
      file_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!file_) failed_ = true;
    } else {
      out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
  }

  const FetchCommand& command_;
  std::optional<std::string> file_name_;
  std::ostream& out_;
  bool quiet_ = false;
  bool failed_ = false;
  uint64_t written_ = 0;
  std::ofstream file_;
};

// Watches one transfer on the wire: what -v prints, what -i prints, what -w counts.
class Trace final : public http::WireCapture {
 public:
  Trace(const FetchCommand& command, Printer& printer, Transfer& transfer, std::ostream& err)
      : command_(command), printer_(printer), transfer_(transfer), err_(err) {}

  void begin(const Url&, const Connection& connection) override {
    if (auto address = connection.address()) {
      transfer_.remote_ip = address->host();
      transfer_.remote_port = address->port();
    }
    if (!connection.reused) transfer_.num_connects++;
    if (!command_.verbose) return;
    if (connection.reused) {
      err_ << "* Re-using the connection to " << connection.peer << "\n";
      return;
    }
    err_ << "* Connected to " << connection.peer << "\n";
    if (const TlsInfo* tls = connection.tls) {
      err_ << "* TLS connection using " << tls->version << " / " << tls->cipher
           << (tls->session_reused ? " (session resumed)" : "") << "\n";
      err_ << "* ALPN: " << (tls->alpn.empty() ? "none agreed" : "server accepted " + tls->alpn)
           << "\n";
      if (!tls->peer_subject.empty()) {
        err_ << "* Server certificate:\n*  subject: " << tls->peer_subject
             << "\n*  issuer: " << tls->peer_issuer << "\n";
      }
      if (command_.insecure) err_ << "* Certificate not verified (--insecure)\n";
    }
  }

  void request_head(std::string_view head) override {
    transfer_.size_request += head.size();
    if (command_.verbose) lines('>', head);
  }

  void response_head(std::string_view head) override {
    transfer_.size_header += head.size();
    // "HTTP/1.1 200 OK": curl's http_version is "1.1".
    if (head.starts_with("HTTP/")) transfer_.http_version = head.substr(5, head.find(' ') - 5);
    if (command_.verbose) lines('<', head);
    printer_.head(head);
  }

 private:
  // A head as curl -v shows it: each line after the prefix, the empty line as a lone prefix.
  void lines(char prefix, std::string_view head) {
    while (!head.empty()) {
      size_t end = head.find('\n');
      std::string_view line = head.substr(0, end);
      if (line.ends_with('\r')) line.remove_suffix(1);
      err_ << prefix << (line.empty() ? "" : " ") << line << "\n";
      if (end == std::string_view::npos) break;
      head.remove_prefix(end + 1);
    }
  }

  const FetchCommand& command_;
  Printer& printer_;
  Transfer& transfer_;
  std::ostream& err_;
};

void describe_response(const HttpResponse& r, std::ostream& err) {
  for (const auto& url : r.redirect_chain) err << "* redirected from " << url << "\n";
  if (!r.redirect_chain.empty()) err << "* final URL " << r.effective_url << "\n";
  const auto& t = r.times;
  err << "* times: queued " << milliseconds(t.queued) << ", dns " << milliseconds(t.dns)
      << ", connect " << milliseconds(t.connect) << ", tls " << milliseconds(t.tls)
      << ", first byte " << milliseconds(t.first_byte) << ", total " << milliseconds(t.total)
      << (r.reused_connection ? " (reused connection)" : "") << "\n";
}

// Everything the URLs of one command share: flags made into request fields, the body, the
// client.
struct Plan {
  const FetchCommand& c;
  Body body;
  std::optional<std::string> user, password;
  std::optional<Duration> limit;         // --timeout
  std::optional<std::string> write_out;  // -w, read from its file for "@file"
  std::string cookie;                    // the -b cookie strings, joined
  http::CookieJar* jar = nullptr;        // with a -b file or -c: the cookie engine
  http::ProxySettings proxies;           // -x, --noproxy and the environment's
  TlsTrust trust;                        // -k and --cacert
};

// The request for `url` from the flags; a usage error message or empty.
std::string build_request(const Plan& plan, std::string url, HttpRequest& request) {
  const FetchCommand& c = plan.c;
  if (plan.body.query) {
    size_t hash = url.find('#');
    std::string fragment = hash == std::string::npos ? "" : url.substr(hash);
    url = url.substr(0, hash);
    url += url.find('?') == std::string::npos ? '?' : '&';
    url += *plan.body.query;
    url += fragment;
  }
  if (c.upload_file && *c.upload_file != "-" && url.ends_with('/'))
    url += std::filesystem::path(*c.upload_file).filename().string();  // curl names the target
  request.url = std::move(url);
  request.raise_error = false;
  for (const auto& line : c.headers)
    if (std::string bad = add_header_flag(line, request.headers); !bad.empty()) return bad;
  if (c.referer) {
    std::string_view referer = *c.referer;
    if (referer.ends_with(";auto")) referer.remove_suffix(5);
    if (!referer.empty() && !request.headers.contains("Referer"))
      request.headers.add("Referer", referer);
  }
  if (c.range) {
    if (c.range->empty() || c.range->find_first_not_of("0123456789-,") != std::string::npos)
      return "bad -r '" + *c.range + "' (give a byte range such as 0-499, 500- or -500)";
    request.headers.set("Range", "bytes=" + *c.range);
  }
  if (!plan.cookie.empty()) request.headers.add("Cookie", plan.cookie);
  request.cookie_jar = plan.jar;
  const Body& body = plan.body;
  if (body.present) {
    if (!body.content_type.empty() && !request.headers.contains("Content-Type"))
      request.headers.add("Content-Type", body.content_type);
    if (body.upload) {
      if (!request.headers.contains("Content-Length"))
        request.headers.add("Content-Length", std::to_string(body.upload_size));
      std::string path = *body.upload;
      request.body_producer = [path](http::BodyWriter& writer) -> Task<void> {
        std::ifstream file(path, std::ios::binary);
        std::string chunk(64 * 1024, '\0');
        while (file.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) ||
               file.gcount() > 0) {
          co_await writer.write(std::string_view(chunk.data(), static_cast<size_t>(file.gcount())));
        }
      };
    } else {
      request.body = body.bytes;
    }
  }
  request.method = !c.method.empty() ? c.method
                   : c.head          ? "HEAD"
                   : c.upload_file   ? "PUT"
                   : body.present    ? "POST"
                                     : "GET";
  if (c.connect_timeout) {
    if (*c.connect_timeout <= 0) return "--connect-timeout must be positive";
    request.connect_timeout = from_seconds(*c.connect_timeout);
  }
  if (c.timeout && *c.timeout <= 0) return "--timeout must be positive";
  // --timeout bounds the whole fetch (see run_transfer); without it a download may take as
  // long as it takes, as with curl, so each hop gets a day.
  request.request_timeout = c.timeout ? from_seconds(*c.timeout) : std::chrono::hours(24);
  if (c.max_redirects) {
    if (*c.max_redirects < 0) return "--max-redirects must be 0 or more";
    request.max_redirects = *c.max_redirects;
  }
  request.follow_redirects = true;
  if (plan.user) {
    request.auth_username = plan.user;
    request.auth_password = plan.password;
  }
  if (!plan.trust.verify) request.validate_cert = false;
  if (!plan.trust.ca_file.empty()) request.ca_certs = plan.trust.ca_file;
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

// How one try of a transfer ended.
struct Attempt {
  int status = kOk;
  std::string message;     // for a failure
  std::string advice;      // what to do about it, after the message on the last try
  bool transient = false;  // worth another try with --retry
  std::optional<Duration> retry_after;
};

// One try at `url`: the request, its response printed, the transfer's figures filled in.
Task<Attempt> run_attempt(const Plan& plan, HttpClient& client, const std::string& url,
                          Printer& printer, Transfer& transfer, std::ostream& err) {
  const FetchCommand& c = plan.c;
  Attempt a;
  HttpRequest request;
  if (std::string usage = build_request(plan, url, request); !usage.empty()) {
    a.status = kUsage;
    a.message = std::move(usage);
    co_return a;
  }
  Trace trace(c, printer, transfer, err);
  request.capture = &trace;
  request.streaming_callback = [&printer](std::string_view bytes) { printer.body(bytes); };
  if (auto parsed = Url::parse(request.url)) request.proxy = plan.proxies.for_url(*parsed);
  if (c.verbose && !request.proxy.empty()) err << "* Using proxy " << request.proxy << "\n";
  if (c.verbose && !request.body.empty())
    err << "* request body: " << request.body.size() << " bytes\n";
  transfer.method = request.method;
  transfer.size_upload = request.body_producer ? plan.body.upload_size : request.body.size();
  transfer.size_request += transfer.size_upload;

  HttpResponse response;
  try {
    response = co_await fetch_one(client, std::move(request), plan.limit);
  } catch (const TimeoutError&) {
    a.status = kTimeout;
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", *c.timeout);
    a.message = "timeout: no complete response within " + std::string(limit) + " s (" + url + ")";
    a.transient = true;
    co_return a;
  }
  if (c.verbose) describe_response(response, err);
  transfer.url_effective = response.effective_url;
  transfer.num_redirects = static_cast<int>(response.redirect_chain.size());
  transfer.headers = response.headers;
  if (response.code != 599) {
    transfer.http_code = response.code;
    if (auto location = response.headers.get("Location"))
      if (response.code >= 300 && response.code < 400) transfer.redirect_url = *location;
  }
  const auto& t = response.times;
  transfer.time_namelookup = to_seconds(t.queued + t.dns);
  transfer.time_connect = transfer.time_namelookup + to_seconds(t.connect);
  transfer.time_appconnect = t.tls.count() ? transfer.time_connect + to_seconds(t.tls) : 0;
  transfer.time_pretransfer = transfer.time_connect + to_seconds(t.tls);
  transfer.time_starttransfer = to_seconds(t.first_byte);
  transfer.time_total = to_seconds(t.total);

  if (!response.error) co_return a;
  try {
    std::rethrow_exception(response.error);
  } catch (const HttpError& e) {
    if (e.code() == 599) {
      a.status = failure_status(e);
      a.message = e.what();
      // The advice goes before the closing "(GET URL)" the client adds.
      if (auto tls = tls_failure(e)) {
        size_t request = a.message.rfind(" (");
        a.message.insert(request == std::string::npos ? a.message.size() : request,
                         certificate_advice(*tls));
      }
      a.advice = bomb_advice(e);
      a.transient = a.status == kTimeout;
      co_return a;
    }
    int code = e.code();
    a.transient =
        code == 408 || code == 429 || code == 500 || code == 502 || code == 503 || code == 504;
    if (auto after = response.headers.get("Retry-After")) {
      std::string digits(*after);
      if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos)
        a.retry_after = std::chrono::seconds(std::stoll(digits.substr(0, 9)));
    }
    if (code >= 400 && !c.no_fail) {
      a.status = kHttpError;
      a.message = "the server answered " + std::to_string(code) + " " + response.reason + " (" +
                  response.effective_url + ")";
      a.advice = "; --no-fail prints the body and exits 0";
    }
  } catch (const std::exception& e) {
    a.status = kFailed;
    a.message = e.what();
  }
  co_return a;
}

// Writes the jar in Netscape format to `path` (- for `out`); false when it cannot.
bool save_cookies(const http::CookieJar& jar, const std::string& path, std::ostream& out) {
  std::string text = jar.to_netscape();
  if (path == "-") {
    out << text;
    return bool(out.flush());
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  return !file.fail();
}

// The file the body of the URL at `index` goes to (nullopt: standard output), or a message.
std::optional<std::string> output_for(const FetchCommand& c, size_t index, const std::string& url,
                                      std::string& error) {
  if (index >= c.outputs.size()) return std::nullopt;
  const auto& output = c.outputs[index];
  if (output) {
    if (*output == "-") return std::nullopt;
    return *output;
  }
  auto parsed = Url::parse(url);
  std::string name = parsed ? remote_name(*parsed) : std::string();
  if (name.empty())
    error = "-O: the URL " + url + " names no file (its path ends in '/'); give -o FILE instead";
  return name;
}

// One URL, with its retries: the exit status of its transfer.
Task<int> run_transfer(const Plan& plan, HttpClient& client, size_t index, std::ostream& out,
                       std::ostream& err, Messages& messages) {
  const FetchCommand& c = plan.c;
  const std::string& url = c.urls[index];
  std::string bad_output;
  std::optional<std::string> file = output_for(c, index, url, bad_output);
  Transfer transfer;
  transfer.url = url;
  transfer.url_effective = url;
  Attempt a;
  if (!bad_output.empty()) {
    a.status = kWriteError;
    a.message = bad_output;
  } else {
    Duration delay = c.retry_delay ? from_seconds(*c.retry_delay) : std::chrono::seconds(1);
    for (int tries_left = c.retries;; --tries_left) {
      transfer = Transfer{};
      transfer.url = url;
      transfer.url_effective = url;
      Printer printer(c, file, out);
      a = co_await run_attempt(plan, client, url, printer, transfer, err);
      if (a.status == kUsage) break;
      bool written = printer.finish();
      transfer.size_download = printer.written();
      transfer.filename_effective = printer.file_name();
      if (a.status == kOk && !written) {
        a.status = kWriteError;
        a.message = "cannot write '" + (file ? *file : std::string("standard output")) + "'";
      }
      if (a.status == kOk || !a.transient || tries_left <= 0) break;
      Duration wait = a.retry_after ? std::max(delay, *a.retry_after) : delay;
      char text[32];
      std::snprintf(text, sizeof text, "%g", to_seconds(wait));
      messages.warning(a.message + "; trying again in " + text + " s (" +
                       std::to_string(tries_left) + (tries_left == 1 ? " try" : " tries") +
                       " left)");
      co_await sleep(wait);
      if (!c.retry_delay) delay = std::min<Duration>(delay * 2, std::chrono::minutes(10));
    }
  }
  if (a.status != kOk) messages.error(a.message + a.advice);
  if (plan.write_out) {
    transfer.exitcode = a.status;
    transfer.errormsg = a.message;
    out << format_write_out(*plan.write_out, transfer, [&](std::string_view name) {
      messages.warning("-w: unknown variable '" + std::string(name) + "'");
    });
    out.flush();
  }
  co_return a.status;
}

Task<int> run_all(const Plan& plan, HttpClient& client, std::ostream& out, std::ostream& err,
                  Messages& messages) {
  int status = kOk;
  for (size_t i = 0; i < plan.c.urls.size(); ++i) {
    int s = co_await run_transfer(plan, client, i, out, err, messages);
    if (s == kUsage) co_return s;
    if (s != kOk) status = s;
  }
  co_return status;
}

}  // namespace

int run_fetch(const FetchCommand& command, std::ostream& out, std::ostream& err) {
  if (command.render) return run_fetch_render(command, out, err);
  Messages messages(command, err);
  auto usage = [&](std::string_view text) {
    messages.error(text);
    return kUsage;
  };
  if (command.urls.empty()) return usage("no URL given (squall fetch URL...)");
  Plan plan{command};
  if (command.user) {
    size_t colon = command.user->find(':');
    if (colon == std::string::npos)
      return usage("-u '" + *command.user +
                   "' has no password: give -u user:password (squall fetch does not ask for one)");
    plan.user = command.user->substr(0, colon);
    plan.password = command.user->substr(colon + 1);
  }
  if (command.retries < 0) return usage("--retry must be 0 or more");
  if (command.retry_delay && *command.retry_delay < 0)
    return usage("--retry-delay must be 0 or more");
  if (command.outputs.size() > command.urls.size())
    messages.warning(std::to_string(command.outputs.size() - command.urls.size()) +
                     " more -o/-O than URLs; the extra ones are not used");
  if (std::string error = build_body(command, plan.body); !error.empty()) {
    messages.error(error);
    return error.starts_with("cannot read") ? kReadError : kUsage;
  }
  try {
    plan.proxies = proxy_settings(command.proxy, command.noproxy);
  } catch (const InvalidArgumentError& e) {
    return usage(e.what());
  }
  try {
    plan.trust = tls_trust(command.insecure, command.cacert);
  } catch (const InvalidArgumentError& e) {
    messages.error(e.what());
    return kCaCertFile;
  }
  CommandResolver resolver(command.ip_version);
  for (const auto& entry : command.resolve)
    if (std::string error = resolver.add(entry); !error.empty()) return usage(error);
  if (command.timeout) plan.limit = from_seconds(*command.timeout);
  plan.write_out = command.write_out;
  if (plan.write_out && plan.write_out->starts_with('@')) {
    plan.write_out = read_input(plan.write_out->substr(1));
    if (!plan.write_out) {
      messages.error("cannot read the -w file '" + command.write_out->substr(1) + "'");
      return kReadError;
    }
  }

  // As curl does: a -b argument without '=' is a file to read (none yet is no error, so that
  // "-b jar -c jar" works from the first run), and -b FILE or -c turns the cookie engine on.
  http::CookieJar jar;
  bool engine = command.cookie_jar.has_value();
  try {
    for (const auto& cookie : command.cookies)
      engine |= add_cookie_flag(cookie, plan.cookie, jar, /*missing_ok=*/true);
  } catch (const InvalidArgumentError& e) {
    messages.error(e.what());
    return kReadError;
  }
  if (engine) plan.jar = &jar;

  Loop loop;
  HttpClient client(http::ClientOptions{.max_clients = 1, .resolver = &resolver}, loop);
  int status = kOk;
  try {
    status = run_sync(run_all(plan, client, out, err, messages));
  } catch (const std::exception& e) {
    messages.error(e.what());
    status = kFailed;
  }
  client.close();
  if (command.cookie_jar && !save_cookies(jar, *command.cookie_jar, out)) {
    messages.error("cannot write the cookie jar '" + *command.cookie_jar + "'");
    if (status == kOk) status = kWriteError;
  }
  return status;
}

}  // namespace squall::cli
