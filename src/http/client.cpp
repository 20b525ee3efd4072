// HttpClient: the request queue, redirects, retries and one HTTP/1.1 exchange per hop.
#include "squall/http/client.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <unordered_map>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/timeout.h"
#include "squall/http/decode.h"
#include "squall/http/http_date.h"
#include "squall/http/parser.h"
#include "squall/http/pool.h"
#include "squall/net/net_error.h"
#include "squall/net/resolver.h"
#include "squall/net/stream.h"
#include "squall/net/tcp_client.h"
#include "squall/net/tls.h"

namespace squall::http {

using namespace std::chrono_literals;

HttpError::HttpError(int code, ErrorKind kind, std::string_view message,
                     std::shared_ptr<const HttpResponse> response, std::exception_ptr cause,
                     HttpFailure failure)
    : Error(kind, message),
      code_(code),
      failure_(failure),
      response_(std::move(response)),
      cause_(std::move(cause)) {}

Task<void> BodyWriter::write(std::string_view bytes) {
  if (bytes.empty()) co_return;
  if (length_ && written_ + bytes.size() > *length_) {
    throw InvalidArgumentError("body_producer wrote more than the request's Content-Length (" +
                               std::to_string(*length_) + " bytes)");
  }
  written_ += bytes.size();
  if (chunked_) {
    char size[20];
    auto [end, ec] = std::to_chars(size, size + sizeof size - 2, bytes.size(), 16);
    *end++ = '\r';
    *end++ = '\n';
    co_await stream_->write(std::string_view(size, static_cast<size_t>(end - size)));
    co_await stream_->write(bytes);
    co_await stream_->write("\r\n");
  } else {
    co_await stream_->write(bytes);
  }
}

namespace {

// ---------------------------------------------------------------------------------------------
// URLs: just what a client needs (split an absolute http(s) URL, resolve a Location against it).
// The crawl layer's WHATWG parser sits above this layer; the crawler hands the client URLs it
// has already normalised, so this splitter stays strict and small.

struct Target {
  bool https = false;
  std::string host;  // without brackets, lower case
  uint16_t port = 80;
  std::string authority;  // the Host field: host[:port], brackets kept, default port left out
  std::string path;       // origin-form: "/path?query"
  std::optional<std::string> user, password;  // from userinfo, percent-decoded

  std::string_view scheme_prefix() const noexcept { return https ? "https://" : "http://"; }
  std::string origin() const {
    std::string o;
    o.reserve(8 + authority.size());
    o += scheme_prefix();
    o += authority;
    return o;
  }
  std::string url() const {
    std::string u;
    u.reserve(8 + authority.size() + path.size());
    u += scheme_prefix();
    u += authority;
    u += path;
    return u;
  }
  bool same_origin(const Target& other) const noexcept {
    return https == other.https && host == other.host && port == other.port;
  }
};

bool is_alpha(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The scheme of `s` ("http" in "http://x") or empty when `s` starts without one.
std::string_view scheme_of(std::string_view s) noexcept {
  if (s.empty() || !is_alpha(s[0])) return {};
  for (size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (c == ':') return s.substr(0, i);
    if (!is_alpha(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') return {};
  }
  return {};
}

// Appends `s` to `out`, percent-encoding spaces and bytes outside ASCII (as browsers do for a
// Location they follow); false on a control byte, which no URL may carry.
bool append_encoded(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  size_t run = 0;  // start of the bytes that go as they are, appended in one piece
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c > 0x20 && c < 0x7f) continue;
    if (c < 0x20 || c == 0x7f) return false;
    out.append(s.data() + run, i - run);
    out += '%';
    out += kHex[c >> 4];
    out += kHex[c & 15];
    run = i + 1;
  }
  out.append(s.data() + run, s.size() - run);
  return true;
}

// Splits an absolute http(s) URL; an error message when it is not one.
std::optional<std::string> parse_target(std::string_view url, Target& out) {
  while (!url.empty() && (url.front() == ' ' || url.front() == '\t')) url.remove_prefix(1);
  while (!url.empty() && (url.back() == ' ' || url.back() == '\t')) url.remove_suffix(1);
  std::string_view scheme = scheme_of(url);
  if (scheme.empty()) return "not an absolute URL (no scheme)";
  if (iequals(scheme, "https")) {
    out.https = true;
  } else if (iequals(scheme, "http")) {
    out.https = false;
  } else {
    return "unsupported scheme '" + std::string(scheme) + "' (only http and https)";
  }
  url.remove_prefix(scheme.size() + 1);
  if (url.substr(0, 2) != "//") return "no '//' after the scheme";
  url.remove_prefix(2);
  size_t end = 0;  // the authority ends at the first of / ? # and backslash (as browsers read it)
  while (end < url.size() && url[end] != '/' && url[end] != '?' && url[end] != '#' &&
         url[end] != '\\')
    ++end;
  std::string_view authority = url.substr(0, end);
  std::string_view rest = url.substr(end);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    authority.remove_prefix(at + 1);
    size_t colon = userinfo.find(':');
    out.user = percent_decode(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) out.password = percent_decode(userinfo.substr(colon + 1));
  } else {
    out.user.reset();
    out.password.reset();
  }
  std::string_view host = authority, port;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return "unterminated '[' in the host";
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return "bytes after the IPv6 address";
      port = after.substr(1);
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return "empty host";
  for (char c : host) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f || c == '%' || c == '<' || c == '>' || c == '"')
      return "a forbidden byte in the host";
  }
  out.host.assign(host);
  for (auto& c : out.host)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  uint16_t default_port = out.https ? 443 : 80;
  out.port = default_port;
  if (!port.empty()) {
    unsigned value = 0;
    auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || p != port.data() + port.size() || value == 0 || value > 65535)
      return "bad port '" + std::string(port) + "'";
    out.port = static_cast<uint16_t>(value);
  }
  bool v6 = out.host.find(':') != std::string::npos;
  out.authority.clear();
  if (v6) out.authority += '[';
  out.authority += out.host;
  if (v6) out.authority += ']';
  if (out.port != default_port) {
    out.authority += ':';
    out.authority += std::to_string(out.port);
  }
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  out.path.clear();
  if (rest.empty() || rest.front() == '?') out.path += '/';
  if (!append_encoded(out.path, rest)) return "a control byte in the path";
  for (auto& c : out.path)
    if (c == '\\') c = '/';
  return std::nullopt;
}

// RFC 3986 section 5.2.4 on a path (the query is kept apart by the caller).
std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> segments;
  bool absolute = !path.empty() && path.front() == '/';
  bool trailing = false;
  size_t i = absolute ? 1 : 0;
  while (i <= path.size()) {
    size_t slash = path.find('/', i);
    std::string_view seg =
        path.substr(i, slash == std::string_view::npos ? std::string_view::npos : slash - i);
    trailing = false;
    if (seg == "..") {
      if (!segments.empty()) segments.pop_back();
      trailing = true;
    } else if (seg == ".") {
      trailing = true;
    } else {
      segments.push_back(seg);
    }
    if (slash == std::string_view::npos) break;
    i = slash + 1;
  }
  std::string out = "/";
  for (size_t k = 0; k < segments.size(); ++k) {
    if (k) out += '/';
    out += segments[k];
  }
  if (trailing && out.back() != '/') out += '/';
  return out;
}

// The absolute URL a Location names, resolved against `base`; an error for other schemes.
std::optional<std::string> resolve_location(const Target& base, std::string_view ref,
                                            std::string& out) {
  while (!ref.empty() && (ref.front() == ' ' || ref.front() == '\t')) ref.remove_prefix(1);
  while (!ref.empty() && (ref.back() == ' ' || ref.back() == '\t')) ref.remove_suffix(1);
  std::string_view scheme = scheme_of(ref);
  if (!scheme.empty()) {
    if (!iequals(scheme, "http") && !iequals(scheme, "https"))
      return "a redirect to a '" + std::string(scheme) + ":' URL is refused (only http and https)";
    out.assign(ref);
    return std::nullopt;
  }
  std::string scheme_prefix = base.https ? "https:" : "http:";
  if (ref.substr(0, 2) == "//") {
    out = scheme_prefix;
    out += ref;
    return std::nullopt;
  }
  if (size_t hash = ref.find('#'); hash != std::string_view::npos) ref = ref.substr(0, hash);
  out = base.origin();
  std::string_view base_path = base.path;
  std::string_view base_query;
  if (size_t q = base_path.find('?'); q != std::string_view::npos) {
    base_query = base_path.substr(q);
    base_path = base_path.substr(0, q);
  }
  if (ref.empty()) {
    out += base.path;
    return std::nullopt;
  }
  std::string_view ref_path = ref, ref_query;
  if (size_t q = ref.find('?'); q != std::string_view::npos) {
    ref_path = ref.substr(0, q);
    ref_query = ref.substr(q);
  }
  if (ref_path.empty()) {
    out += base_path;
  } else if (ref_path.front() == '/') {
    out += remove_dot_segments(ref_path);
  } else {
    std::string merged(base_path.substr(0, base_path.rfind('/') + 1));
    merged += ref_path;
    out += remove_dot_segments(merged);
  }
  out += ref_query;
  return std::nullopt;
}

std::string base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16 | static_cast<uint8_t>(in[i + 1]) << 8 |
                 static_cast<uint8_t>(in[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (size_t left = in.size() - i) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    if (left == 2) v |= static_cast<uint8_t>(in[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += left == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string milliseconds(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

// ---------------------------------------------------------------------------------------------
// Resolvers the client puts in front of the configured one.

// hostname_mapping: a mapped host is resolved as its replacement.
class MappingResolver final : public Resolver {
 public:
  MappingResolver(const std::map<std::string, std::string, std::less<>>& mapping, Resolver& next)
      : mapping_(mapping), next_(next) {}
  Task<std::vector<Address>> resolve(std::string host, uint16_t port) override {
    auto it = mapping_.find(host);
    if (it != mapping_.end()) host = it->second;
    co_return co_await next_.resolve(std::move(host), port);
  }

 private:
  const std::map<std::string, std::string, std::less<>>& mapping_;
  Resolver& next_;
};

// Addresses already resolved (timed on their own), handed to tcp_connect.
class FixedResolver final : public Resolver {
 public:
  explicit FixedResolver(std::vector<Address> addresses) : addresses_(std::move(addresses)) {}
  Task<std::vector<Address>> resolve(std::string, uint16_t) override { co_return addresses_; }

 private:
  std::vector<Address> addresses_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// The client's state.

namespace detail {

using squall::detail::IntrusiveList;
using squall::detail::Waiter;

// A fetch waiting in the queue for a slot.
class QueueWait final : public Waiter {
 public:
  QueueWait(IntrusiveList<Waiter>& queue, TimePoint deadline) noexcept
      : queue_(queue), deadline_(deadline) {}
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    if (!suspend(h, deadline_)) return false;
    queue_.push_back(*this);
    return true;
  }
  // True when the deadline passed. A kill is rethrown by finish(); the caller gives back a slot
  // it was granted just before.
  bool await_resume() { return finish(); }

  bool granted = false;  // woken with a slot handed over (else woken by close())

 private:
  IntrusiveList<Waiter>& queue_;
  TimePoint deadline_;
};

// The most fields a response head (or trailer section) may have.
constexpr size_t kMaxFields = 128;

struct ClientCore {
  ClientCore(ClientOptions o, Loop& l)
      : options(std::move(o)),
        loop(l),
        pool(PoolOptions{options.max_connections_per_host,
                         options.idle_timeout.count() > 0 ? options.max_idle_connections : 0,
                         options.idle_timeout},
             l),
        base_resolver(options.resolver ? *options.resolver : default_resolver()),
        mapping(options.hostname_mapping, base_resolver) {
    if (options.max_clients == 0) throw InvalidArgumentError("ClientOptions: max_clients is 0");
  }

  Resolver& resolver() {
    return options.hostname_mapping.empty() ? base_resolver : static_cast<Resolver&>(mapping);
  }

  // Gives a slot back: straight to the longest waiter if there is one.
  void release_slot() noexcept {
    if (auto* w = static_cast<QueueWait*>(queue.pop_front())) {
      w->granted = true;
      w->wake();
    } else {
      --active;
    }
  }

  ClientOptions options;
  Loop& loop;
  ConnectionPool pool;
  Resolver& base_resolver;
  MappingResolver mapping;
  size_t active = 0;
  IntrusiveList<Waiter> queue;
  bool closed = false;
  ClientStats stats;
  // Where response heads are parsed before their fields are copied into the response. Nothing
  // suspends between the two, so one array serves every fetch of this client.
  std::unique_ptr<HeaderView[]> fields = std::make_unique<HeaderView[]>(kMaxFields);
};

}  // namespace detail

namespace {

using detail::ClientCore;
using detail::kMaxFields;

// A request's fields after the defaults are applied.
struct Settings {
  Duration connect_timeout = 20s;
  Duration request_timeout = 20s;
  bool follow_redirects = true;
  int max_redirects = 5;
  bool decompress = true;
  std::string_view user_agent = "squall/1.0";
  const std::optional<std::string>* auth_username = nullptr;
  const std::optional<std::string>* auth_password = nullptr;
  std::string_view proxy;
  const std::optional<std::string>* proxy_username = nullptr;
  const std::optional<std::string>* proxy_password = nullptr;
  bool validate_cert = true;
  std::string_view ca_certs, client_cert, client_key;
  size_t max_header_size = 0;
  size_t max_body_size = 0;
};

std::string_view either(const std::string& mine, const std::string& fallback) {
  return !mine.empty() ? std::string_view(mine) : std::string_view(fallback);
}

Settings settle(const ClientOptions& o, const HttpRequest& r) {
  const HttpRequest& d = o.defaults;
  Settings s;
  s.connect_timeout = r.connect_timeout.value_or(d.connect_timeout.value_or(20s));
  s.request_timeout = r.request_timeout.value_or(d.request_timeout.value_or(20s));
  s.follow_redirects = r.follow_redirects.value_or(d.follow_redirects.value_or(true));
  s.max_redirects = r.max_redirects.value_or(d.max_redirects.value_or(5));
  s.decompress = r.decompress_response.value_or(d.decompress_response.value_or(true));
  if (r.user_agent && !r.user_agent->empty()) {
    s.user_agent = *r.user_agent;
  } else if (d.user_agent && !d.user_agent->empty()) {
    s.user_agent = *d.user_agent;
  }
  s.auth_username = r.auth_username ? &r.auth_username : &d.auth_username;
  s.auth_password = r.auth_password ? &r.auth_password : &d.auth_password;
  s.proxy = either(r.proxy, d.proxy);
  s.proxy_username = r.proxy_username ? &r.proxy_username : &d.proxy_username;
  s.proxy_password = r.proxy_password ? &r.proxy_password : &d.proxy_password;
  s.validate_cert = r.validate_cert.value_or(d.validate_cert.value_or(true));
  s.ca_certs = either(r.ca_certs, d.ca_certs);
  s.client_cert = either(r.client_cert, d.client_cert);
  s.client_key = either(r.client_key, d.client_key);
  s.max_header_size = r.max_header_size.value_or(d.max_header_size.value_or(o.max_header_size));
  s.max_body_size = r.max_body_size.value_or(
      d.max_body_size.value_or(o.max_body_size.value_or(o.max_buffer_size)));
  return s;
}

// What one hop sends: the method, body and headers may change along a redirect chain.
struct Hop {
  Target target;
  std::string method;
  const Headers* headers = nullptr;  // the request's, until a redirect changes them
  Headers own_headers;
  const std::string* body = nullptr;  // memory body, or null
  const BodyProducer* producer = nullptr;
  bool credentials = true;          // the request's own auth and cookies still apply (same origin)
  std::optional<Target> proxy;      // the forwarding proxy, if any
  std::string proxy_authorization;  // "Basic ..." for Proxy-Authorization, or empty
  // An http URL through a proxy: the request line carries the absolute URL and the proxy's
  // credentials. (An https URL tunnels: the origin sees an ordinary request.)
  bool forwarded() const noexcept { return proxy && !target.https; }
};

// How an exchange ended, beyond the response fields.
struct ExchangeState {
  bool reusable = false;
  bool response_started = false;  // a byte of the response arrived
  bool request_sent = false;
  bool follow = false;  // a redirect to follow: the body was drained, not kept
  std::string location;
  TimePoint first_byte{};
};

// The connection ended before any byte of the response came: on a pooled connection, the
// server had closed it while idle, and an idempotent request may be resent.
struct StaleConnection {
  std::exception_ptr cause;  // the read or write failure, or null for a plain end of stream
};

std::string build_head(const ClientCore& c, const HttpRequest& req, const Settings& s,
                       const Hop& hop, bool chunked, bool keep_alive) {
  std::string head;
  head.reserve(256 + hop.target.path.size());
  head += hop.method;
  head += ' ';
  if (hop.forwarded()) head += hop.target.origin();
  head += hop.target.path;
  head += " HTTP/1.1\r\n";
  auto field = [&head](std::string_view name, std::string_view value) {
    head += name;
    head += ": ";
    head += value;
    head += "\r\n";
  };
  if (!hop.headers->contains("Host")) field("Host", hop.target.authority);
  if (!hop.headers->contains("User-Agent")) field("User-Agent", s.user_agent);
  if (hop.forwarded() && !hop.proxy_authorization.empty() &&
      !hop.headers->contains("Proxy-Authorization"))
    field("Proxy-Authorization", hop.proxy_authorization);
  for (const auto& h : c.options.defaults.headers) {
    if (!hop.headers->contains(h.name)) field(h.name, h.value);
  }
  for (const auto& h : *hop.headers) {
    if (!is_token(h.name) || !is_field_value(h.value))
      throw InvalidArgumentError("request header '" + h.name +
                                 "': the name is not a token or the value holds a control byte");
    field(h.name, h.value);
  }
  if (hop.credentials && !hop.headers->contains("Authorization")) {
    const std::optional<std::string>* user = s.auth_username;
    const std::optional<std::string>* password = s.auth_password;
    std::optional<std::string> url_user = hop.target.user, url_password = hop.target.password;
    if (!*user && url_user) {
      user = &url_user;
      password = &url_password;
    }
    if (*user) {
      std::string credentials = **user;
      credentials += ':';
      if (*password) credentials += **password;
      std::string value = "Basic ";
      value += base64(credentials);
      field("Authorization", value);
    }
  }
  if (s.decompress && !hop.headers->contains("Accept-Encoding"))
    field("Accept-Encoding", kAcceptEncoding);
  if (req.if_modified_since && !hop.headers->contains("If-Modified-Since"))
    field("If-Modified-Since", format_http_date(*req.if_modified_since));
  if (!req.if_none_match.empty() && !hop.headers->contains("If-None-Match")) {
    if (!is_field_value(req.if_none_match))
      throw InvalidArgumentError("if_none_match holds a control byte");
    field("If-None-Match", req.if_none_match);
  }
  if (hop.producer) {
    if (chunked) field("Transfer-Encoding", "chunked");
  } else if (hop.body && !hop.headers->contains("Content-Length")) {
    if (!hop.body->empty() || hop.method == "POST" || hop.method == "PUT" ||
        hop.method == "PATCH") {
      char digits[24];
      auto [end, ec] = std::to_chars(digits, digits + sizeof digits, hop.body->size());
      field("Content-Length", std::string_view(digits, static_cast<size_t>(end - digits)));
    }
  }
  if (req.expect_continue && (hop.producer || (hop.body && !hop.body->empty())))
    field("Expect", "100-continue");
  if (!keep_alive && !hop.headers->contains("Connection")) field("Connection", "close");
  head += "\r\n";
  return head;
}

// Copies the head's fields into the response.
void take_head(const ResponseView& view, HttpResponse& r) {
  r.code = view.status;
  r.reason.assign(view.reason);
  r.headers.clear();
  r.headers.reserve(view.headers.size());
  for (const auto& h : view.headers) r.headers.add(h.name, h.value);
}

// Tornado's header_callback: the final head again, line by line.
void announce_head(const HttpRequest& req, Version version, const HttpResponse& r) {
  std::string line = "HTTP/";
  line += static_cast<char>('0' + version.major);
  line += '.';
  line += static_cast<char>('0' + version.minor);
  line += ' ';
  line += std::to_string(r.code);
  line += ' ';
  line += r.reason;
  line += "\r\n";
  req.header_callback(line);
  for (const auto& h : r.headers) {
    line.assign(h.name);
    line += ": ";
    line += h.value;
    line += "\r\n";
    req.header_callback(line);
  }
  req.header_callback("\r\n");
}

NetError protocol_error(const Stream& stream, std::string_view what, ParseStatus status) {
  std::string detail(what);
  detail += ": ";
  detail += parse_status_message(status);
  detail += " (";
  detail += parse_status_name(status);
  detail += ')';
  ErrorKind kind = status == ParseStatus::HeadTooLarge || status == ParseStatus::TooManyHeaders ||
                           status == ParseStatus::StartLineTooLong ||
                           status == ParseStatus::TrailersTooLarge
                       ? ErrorKind::TooLarge
                       : ErrorKind::Protocol;
  return NetError(kind, NetPhase::Read, stream.peer(), detail);
}

// Reads one response head (any status, 1xx included) into `r`; returns its framing inputs.
struct HeadInfo {
  int status = 0;
  Version version;
  bool keep_alive = true;
  Framing framing;
  size_t consumed = 0;
};

Task<HeadInfo> read_head(Stream& stream, std::span<HeaderView> storage, const Settings& s,
                         const Hop& hop, HttpResponse& r, ExchangeState& x) {
  HeadLimits limits;
  limits.max_head = s.max_header_size;
  limits.max_start_line = std::min<size_t>(limits.max_start_line, s.max_header_size);
  size_t previous = 0;
  for (;;) {
    std::string_view buf = stream.buffered();
    if (!buf.empty()) {
      if (!x.response_started) {
        x.response_started = true;
        x.first_byte = Loop::time();
      }
      ResponseView view;
      ParseResult p = parse_response(buf, view, storage, limits, previous);
      if (p.status == ParseStatus::Ok) {
        HeadInfo info;
        info.status = view.status;
        info.version = view.version;
        info.consumed = p.consumed;
        ParseStatus fs =
            response_framing(hop.method, view.status, view.version, view.headers, info.framing);
        if (is_error(fs)) throw protocol_error(stream, "bad response framing", fs);
        if (view.status >= 200) {
          // Only the final head is kept; 1xx heads are looked at and dropped.
          take_head(view, r);
          info.keep_alive = keep_alive(view.version, r.headers);
        }
        stream.consume(p.consumed);
        co_return info;
      }
      if (p.status != ParseStatus::Incomplete)
        throw protocol_error(stream, "bad response head", p.status);
      previous = buf.size();
    }
    size_t n = 0;
    try {
      n = co_await stream.read_more();
    } catch (const NetError& e) {
      if (x.response_started || e.kind() != ErrorKind::Closed) throw;
      n = 0;
      throw StaleConnection{std::current_exception()};
    }
    if (n == 0) {
      if (!x.response_started) throw StaleConnection{};
      throw NetError(ErrorKind::Closed, NetPhase::Read, stream.peer(),
                     "the server closed the connection in the middle of the response head (" +
                         std::to_string(stream.buffered().size()) + " bytes received)");
    }
  }
}

// Hands body bytes to their destination, within max_body_size.
// Both the bytes on the wire and the decoded bytes are bounded by max_body_size: the first
// stops an endless body, the second a decompression bomb.
struct BodySink {
  HttpResponse& r;
  const HttpRequest& req;
  size_t max;
  bool discard;
  ContentDecoder* decoder = nullptr;
  uint64_t total = 0;

  void deliver(const Stream& stream, std::string_view bytes) {
    total += bytes.size();
    if (total > max) {
      throw NetError(ErrorKind::TooLarge, NetPhase::Read, stream.peer(),
                     "the response body exceeds max_body_size (" + std::to_string(max) + " bytes)");
    }
    if (discard || bytes.empty()) return;
    if (decoder) {
      decoder->feed(bytes, [this](std::string_view decoded) { hand_over(decoded); });
    } else {
      hand_over(bytes);
    }
  }
  void hand_over(std::string_view bytes) {
    if (req.streaming_callback) {
      req.streaming_callback(bytes);
    } else {
      r.body.append(bytes);
    }
  }
  // Direct reads into the body string skip deliver(): only without decoding or streaming.
  bool direct() const noexcept { return !discard && !decoder && !req.streaming_callback; }
};

NetError closed_mid_body(const Stream& stream, uint64_t got, std::string_view expected) {
  std::string detail = "the server closed the connection in the middle of the body (";
  detail += std::to_string(got);
  detail += " bytes received";
  detail += expected;
  detail += ')';
  return NetError(ErrorKind::Closed, NetPhase::Read, stream.peer(), detail);
}

Task<void> read_body(Stream& stream, const Framing& framing, const Settings& s, BodySink& sink,
                     HttpResponse& r) {
  switch (framing.kind) {
    case BodyKind::None:
    case BodyKind::Tunnel:
      co_return;
    case BodyKind::Length: {
      uint64_t remaining = framing.length;
      if (remaining > sink.max) {
        throw NetError(ErrorKind::TooLarge, NetPhase::Read, stream.peer(),
                       "the response announces " + std::to_string(framing.length) +
                           " body bytes, more than max_body_size (" + std::to_string(sink.max) +
                           ")");
      }
      if (sink.direct()) {
        // Straight into the body: what is buffered first, then reads into the string itself.
        size_t have = std::min<uint64_t>(remaining, stream.buffered().size());
        size_t base = r.body.size();
        r.body.resize(base + remaining);
        std::memcpy(r.body.data() + base, stream.buffered().data(), have);
        stream.consume(have);
        sink.total += remaining;
        size_t got = have;
        try {
          while (got < remaining) {
            got += co_await stream.read_into(
                std::span<char>(r.body.data() + base + got, remaining - got), true);
          }
        } catch (const NetError& e) {
          r.body.resize(base + got);
          if (e.kind() == ErrorKind::Closed)
            throw closed_mid_body(stream, got,
                                  ", " + std::to_string(framing.length) + " announced");
          throw;
        }
        co_return;
      }
      while (remaining > 0) {
        std::string_view buf = stream.buffered();
        if (buf.empty()) {
          if (co_await stream.read_more() == 0)
            throw closed_mid_body(stream, framing.length - remaining,
                                  ", " + std::to_string(framing.length) + " announced");
          continue;
        }
        size_t n = std::min<uint64_t>(remaining, buf.size());
        sink.deliver(stream, buf.substr(0, n));
        stream.consume(n);
        remaining -= n;
      }
      co_return;
    }
    case BodyKind::Chunked: {
      ChunkedLimits limits;
      limits.max_trailers = s.max_header_size;
      ChunkedDecoder decoder(MessageKind::Response, limits);
      for (;;) {
        std::string_view buf = stream.buffered();
        if (buf.empty()) {
          if (co_await stream.read_more() == 0)
            throw closed_mid_body(stream, decoder.body_size(), ", chunked");
          continue;
        }
        auto step = decoder.decode(buf);
        sink.deliver(stream, step.data);
        stream.consume(step.consumed);
        if (step.status == ParseStatus::Ok) {
          r.trailers = decoder.trailers();
          co_return;
        }
        if (step.status != ParseStatus::Incomplete)
          throw protocol_error(stream, "bad chunked body", step.status);
      }
    }
    case BodyKind::UntilClose: {
      for (;;) {
        std::string_view buf = stream.buffered();
        if (!buf.empty()) {
          sink.deliver(stream, buf);
          stream.consume(buf.size());
        }
        if (co_await stream.read_more() == 0) co_return;
      }
    }
  }
}

bool is_redirect(int code) noexcept {
  return code == 301 || code == 302 || code == 303 || code == 307 || code == 308;
}

// One request and its response on `stream`.
Task<void> exchange(ClientCore& c, Stream& stream, const HttpRequest& req, const Settings& s,
                    const Hop& hop, HttpResponse& r, ExchangeState& x) {
  bool chunked = hop.producer && !hop.headers->contains("Content-Length");
  bool keep = c.pool.closed() ? false : c.options.idle_timeout.count() > 0;
  std::span<HeaderView> fields(c.fields.get(), kMaxFields);
  std::string head = build_head(c, req, s, hop, chunked, keep);
  bool has_body = hop.producer || (hop.body && !hop.body->empty());
  bool expect = req.expect_continue && has_body;
  // A small memory body goes in the same write as the head: one system call, one segment.
  bool body_in_head = !expect && !hop.producer && hop.body && hop.body->size() <= 64 * 1024;

  auto send_body = [&]() -> Task<void> {
    if (hop.producer) {
      std::optional<uint64_t> length;
      if (auto cl = hop.headers->get("Content-Length")) {
        uint64_t v = 0;
        auto [p, ec] = std::from_chars(cl->data(), cl->data() + cl->size(), v);
        if (ec != std::errc() || p != cl->data() + cl->size())
          throw InvalidArgumentError("request Content-Length is not a number");
        length = v;
      }
      BodyWriter writer(stream, chunked, length);
      co_await (*hop.producer)(writer);
      if (length && writer.written() != *length)
        throw InvalidArgumentError("body_producer wrote " + std::to_string(writer.written()) +
                                   " bytes, not the request's Content-Length of " +
                                   std::to_string(*length));
      if (chunked) co_await stream.write("0\r\n\r\n");
    } else if (hop.body && !hop.body->empty()) {
      co_await stream.write(std::string_view(*hop.body));
    }
  };

  if (body_in_head) head += *hop.body;
  try {
    co_await stream.write(std::move(head));
  } catch (const NetError& e) {
    if (e.kind() == ErrorKind::Closed) throw StaleConnection{std::current_exception()};
    throw;
  }
  x.request_sent = true;
  c.stats.requests++;

  HeadInfo info;
  bool have_final = false;
  bool body_skipped = false;
  if (expect) {
    bool got = false;
    TimePoint wait_until = Loop::time() + 1s;
    try {
      info = co_await with_deadline(wait_until, read_head(stream, fields, s, hop, r, x));
      got = true;
    } catch (const TimeoutError&) {
      if (Loop::time() < wait_until) throw;  // an outer limit
    }
    if (got && info.status >= 200) {
      have_final = true;
      body_skipped = true;  // the server answered without the body: it cannot be reused
    } else {
      co_await send_body();
    }
  } else if (!body_in_head) {
    co_await send_body();
  }
  co_await stream.flush();

  while (!have_final) {
    info = co_await read_head(stream, fields, s, hop, r, x);
    if (info.status >= 200) have_final = true;
    // 101 would switch protocols, which the client never asks for: treat it as final garbage.
    if (info.status == 101)
      throw NetError(ErrorKind::Protocol, NetPhase::Read, stream.peer(),
                     "the server switched protocols (101) without being asked");
  }

  x.follow = false;
  if (s.follow_redirects && is_redirect(info.status)) {
    if (auto loc = r.headers.get("Location")) {
      x.follow = true;
      x.location.assign(*loc);
    }
  }
  // As in Tornado, a head that only leads to the next hop is not announced.
  if (!x.follow && req.header_callback) announce_head(req, info.version, r);
  BodySink sink{r, req, s.max_body_size, x.follow};
  std::optional<ContentDecoder> decoder;
  if (s.decompress && !x.follow && info.framing.kind != BodyKind::None) {
    if (auto coding = r.headers.get("Content-Encoding")) {
      decoder.emplace(*coding, s.max_body_size);  // DecodeError for a coding it does not know
      if (decoder->identity()) {
        decoder.reset();
      } else {
        // As Tornado does: the body is no longer encoded, the field says what was undone.
        std::string consumed(*coding);
        r.headers.remove("Content-Encoding");
        r.headers.add("X-Consumed-Content-Encoding", consumed);
        sink.decoder = &*decoder;
      }
    }
  }
  r.body.clear();
  if (sink.direct() && info.framing.kind == BodyKind::Length)
    r.body.reserve(std::min<uint64_t>(info.framing.length, s.max_body_size));
  co_await read_body(stream, info.framing, s, sink, r);
  if (decoder) decoder->finish();
  x.reusable = keep && info.keep_alive && !info.framing.must_close && !body_skipped &&
               info.framing.kind != BodyKind::UntilClose && info.framing.kind != BodyKind::Tunnel;
}

// Gives back a connection lease when the hop ends, however it ends.
struct LeaseGuard {
  ConnectionPool& pool;
  ConnectionPool::Lease lease;
  bool reusable = false;
  ~LeaseGuard() { pool.checkin(std::move(lease), reusable); }
};

struct SlotGuard {
  ClientCore& c;
  ~SlotGuard() { c.release_slot(); }
};

// The message of a caught exception without its kind's prefix ("connect: ...").
std::pair<ErrorKind, std::string> describe(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    std::string_view text = err.what();
    std::string_view prefix = error_kind_name(err.kind());
    if (text.substr(0, prefix.size()) == prefix && text.substr(prefix.size(), 2) == ": ")
      text.remove_prefix(prefix.size() + 2);
    return {err.kind(), std::string(text)};
  } catch (const std::exception& err) {
    return {ErrorKind::Protocol, err.what()};
  } catch (...) {
    return {ErrorKind::Protocol, "an unknown failure"};
  }
}

// Whether an exception is the kill or outer timeout that must propagate unchanged.
bool is_foreign(std::exception_ptr e, TimePoint hop_deadline) {
  try {
    std::rethrow_exception(e);
  } catch (const CancelledError&) {
    return true;
  } catch (const TimeoutError&) {
    return Loop::time() < hop_deadline;
  } catch (...) {
    return false;
  }
}

// Opens a CONNECT tunnel through the proxy on `stream` to the hop's origin.
Task<void> open_tunnel(Stream& stream, const Hop& hop, const Settings& s) {
  std::string authority = hop.target.host.find(':') != std::string::npos
                              ? "[" + hop.target.host + "]"
                              : hop.target.host;
  authority += ':';
  authority += std::to_string(hop.target.port);
  std::string head = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n";
  if (!hop.proxy_authorization.empty()) {
    head += "Proxy-Authorization: ";
    head += hop.proxy_authorization;
    head += "\r\n";
  }
  head += "\r\n";
  co_await stream.write(std::move(head));
  std::array<HeaderView, kMaxFields> storage;
  HeadLimits limits;
  limits.max_head = s.max_header_size;
  limits.max_start_line = std::min<size_t>(limits.max_start_line, s.max_header_size);
  size_t previous = 0;
  for (;;) {
    std::string_view buf = stream.buffered();
    if (!buf.empty()) {
      ResponseView view;
      ParseResult p = parse_response(buf, view, storage, limits, previous);
      if (p.status == ParseStatus::Ok) {
        if (view.status >= 100 && view.status < 200) {
          stream.consume(p.consumed);
          previous = 0;
          continue;
        }
        if (view.status < 200 || view.status >= 300) {
          throw NetError(ErrorKind::Connect, NetPhase::Connect, stream.peer(),
                         "the proxy refused the tunnel to " + authority + ": " +
                             std::to_string(view.status) + " " + std::string(view.reason));
        }
        stream.consume(p.consumed);
        if (!stream.buffered().empty())
          throw NetError(ErrorKind::Protocol, NetPhase::Connect, stream.peer(),
                         "the proxy sent bytes after accepting the tunnel, before TLS began");
        co_return;
      }
      if (p.status != ParseStatus::Incomplete)
        throw protocol_error(stream, "bad answer to CONNECT", p.status);
      previous = buf.size();
    }
    if (co_await stream.read_more() == 0)
      throw NetError(ErrorKind::Closed, NetPhase::Connect, stream.peer(),
                     "the proxy closed the connection instead of opening a tunnel");
  }
}

Task<std::unique_ptr<PooledConnection>> open_connection(ClientCore& c, const Hop& hop,
                                                        const Settings& s, TimePoint deadline,
                                                        RequestTimes& times) {
  // Through a proxy, the connection goes to the proxy; the origin is reached over it.
  const Target& to = hop.proxy ? *hop.proxy : hop.target;
  TimePoint t0 = Loop::time();
  std::vector<Address> addresses;
  try {
    addresses = co_await with_deadline(deadline, c.resolver().resolve(to.host, to.port));
  } catch (const TimeoutError&) {
    if (Loop::time() < deadline) throw;
    throw NetError(ErrorKind::Timeout, NetPhase::Resolve, to.authority,
                   "Timeout while connecting: no address within " + milliseconds(deadline - t0));
  }
  TimePoint t1 = Loop::time();
  times.dns = t1 - t0;
  FixedResolver fixed(std::move(addresses));
  ConnectOptions options;
  options.timeout = std::max(Duration::zero(), deadline - t1);
  options.resolver = &fixed;
  options.stream.max_buffer_size = c.options.max_buffer_size;
  Stream stream = co_await tcp_connect(to.host, to.port, options);
  TimePoint t2 = Loop::time();
  times.connect = t2 - t1;
  c.stats.connections_opened++;
  if (hop.target.https) {
    auto secure = [&]() -> Task<Stream> {
      if (hop.proxy) co_await open_tunnel(stream, hop, s);
      TlsClientOptions tls;
      tls.verify = s.validate_cert;
      tls.ca_file.assign(s.ca_certs);
      tls.cert_file.assign(s.client_cert);
      tls.key_file.assign(s.client_key);
      tls.alpn = {"http/1.1"};
      if (hop.proxy) tls.session_key = hop.target.host + ":" + std::to_string(hop.target.port);
      co_return co_await start_tls(std::move(stream), hop.target.host, std::move(tls));
    };
    try {
      stream = co_await with_deadline(deadline, secure());
    } catch (const TimeoutError&) {
      if (Loop::time() < deadline) throw;
      throw NetError(
          ErrorKind::Timeout, NetPhase::Tls, hop.target.authority,
          "Timeout while connecting: no TLS session within " + milliseconds(deadline - t0));
    }
    times.tls = Loop::time() - t2;
  }
  co_return std::make_unique<PooledConnection>(std::move(stream));
}

// Connections are shared only by requests that would have opened the same one: same origin,
// same proxy, and for https the same verification settings and client certificate (a
// connection verified against one CA must not serve a request that trusts another).
std::string pool_key(const Target& t, const Settings& s) {
  std::string key = t.origin();
  if (!s.proxy.empty()) {
    key += '|';
    key += s.proxy;
  }
  if (t.https) {
    key += s.validate_cert ? "|verify:" : "|noverify:";
    key += s.ca_certs;
    key += '|';
    key += s.client_cert;
    key += '|';
    key += s.client_key;
  }
  return key;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

namespace {

struct Registry {
  ClientOptions configured;
  std::unordered_map<Loop*, std::unique_ptr<HttpClient>> clients;
};

Registry& registry() {
  thread_local Registry r;
  return r;
}

}  // namespace

HttpClient& HttpClient::shared() {
  Loop& loop = Loop::current();
  Registry& reg = registry();
  auto& slot = reg.clients[&loop];
  if (!slot || slot->closed()) slot = std::make_unique<HttpClient>(reg.configured, loop);
  return *slot;
}

void HttpClient::configure(ClientOptions options) {
  registry().configured = std::move(options);
}

HttpClient::HttpClient(ClientOptions options, Loop& loop)
    : core_(std::make_unique<detail::ClientCore>(std::move(options), loop)) {}

HttpClient::~HttpClient() {
  close();
}

size_t HttpClient::free_size() const noexcept {
  return core_->options.max_clients > core_->active ? core_->options.max_clients - core_->active
                                                    : 0;
}
size_t HttpClient::active_count() const noexcept {
  return core_->active;
}
size_t HttpClient::queued_count() const noexcept {
  return core_->queue.size();
}

void HttpClient::close() noexcept {
  ClientCore& c = *core_;
  if (c.closed) return;
  c.closed = true;
  while (auto* w = static_cast<detail::QueueWait*>(c.queue.pop_front())) w->wake();
  c.pool.close();
}

bool HttpClient::closed() const noexcept {
  return core_->closed;
}

const ClientOptions& HttpClient::options() const noexcept {
  return core_->options;
}

ClientStats HttpClient::stats() const noexcept {
  ClientStats s = core_->stats;
  s.idle_connections = core_->pool.idle_count();
  return s;
}

namespace {

// HttpClient::fetch: one request from the queue to its response. The response keeps the
// request it was given, so the request is moved once, into the block they share.
Task<HttpResponse> run_fetch(ClientCore& c, std::shared_ptr<const HttpRequest> shared_request) {
  if (c.closed) throw InvalidStateError("fetch on a closed HttpClient");
  TimePoint start = Loop::time();
  const HttpRequest& req = *shared_request;
  Settings s = settle(c.options, req);
  HttpResponse r;

  auto stamp = [&] {
    r.times.total = Loop::time() - start;
    r.request_time = std::chrono::duration<double>(r.times.total).count();
  };
  // Ends the fetch with an error: thrown, or set on the response. The response inside the error
  // is a copy whose own `error` stays null (an error holding itself would never be freed).
  auto conclude = [&](int code, ErrorKind kind, std::string message, std::exception_ptr cause,
                      HttpFailure failure) -> HttpResponse {
    stamp();
    r.code = code;
    r.request = shared_request;
    if (req.raise_error) {
      auto shared = std::make_shared<const HttpResponse>(std::move(r));
      throw HttpError(code, kind, message, std::move(shared), std::move(cause), failure);
    }
    auto shared = std::make_shared<HttpResponse>(r);
    r.error = std::make_exception_ptr(
        HttpError(code, kind, message, std::move(shared), std::move(cause), failure));
    return std::move(r);
  };
  // A 599: the message names the cause, then the request.
  auto fail = [&](std::exception_ptr cause, ErrorKind kind, std::string message,
                  HttpFailure failure = HttpFailure::Other) {
    if (r.effective_url.empty()) r.effective_url = req.url;  // failed before the URL was parsed
    message += " (";
    message += req.method;
    message += ' ';
    message += r.effective_url;
    message += ')';
    return conclude(599, kind, std::move(message), std::move(cause), failure);
  };

  // --- the queue ---------------------------------------------------------------------------
  if (c.active < c.options.max_clients && c.queue.empty()) {
    ++c.active;
  } else {
    Duration limit =
        c.options.queue_timeout.value_or(std::min(s.connect_timeout, s.request_timeout));
    detail::QueueWait wait(c.queue, start + limit);
    bool timed_out = false;
    try {
      timed_out = co_await wait;
    } catch (...) {
      if (wait.granted) c.release_slot();
      throw;
    }
    r.times.queued = Loop::time() - start;
    if (timed_out) {
      c.stats.queue_timeouts++;
      co_return fail(nullptr, ErrorKind::Timeout,
                     "Timeout in request queue after " + milliseconds(limit),
                     HttpFailure::QueueTimeout);
    }
    if (!wait.granted) {
      co_return fail(nullptr, ErrorKind::Closed, "the client was closed while queued");
    }
  }
  SlotGuard slot{c};

  // --- hops --------------------------------------------------------------------------------
  Hop hop;
  if (auto error = parse_target(req.url, hop.target)) {
    co_return fail(std::make_exception_ptr(InvalidArgumentError(*error)),
                   ErrorKind::InvalidArgument, "bad URL '" + req.url + "': " + *error);
  }
  if (!s.proxy.empty()) {
    Target proxy;
    if (auto error = parse_target(s.proxy, proxy); error || proxy.https) {
      co_return fail(nullptr, ErrorKind::InvalidArgument,
                     "bad proxy '" + std::string(s.proxy) +
                         "': " + (error ? *error : "only http:// proxies are supported"));
    }
    const std::optional<std::string>* user = s.proxy_username;
    const std::optional<std::string>* password = s.proxy_password;
    if (!*user && proxy.user) {
      user = &proxy.user;
      password = &proxy.password;
    }
    if (*user) {
      std::string credentials = **user;
      credentials += ':';
      if (*password) credentials += **password;
      hop.proxy_authorization = "Basic " + base64(credentials);
    }
    hop.proxy = std::move(proxy);
  }
  hop.method = req.method;
  hop.headers = &req.headers;
  hop.body = &req.body;
  hop.producer = req.body_producer ? &req.body_producer : nullptr;
  r.effective_url = hop.target.url();
  for (const auto& h : req.headers) {
    if (!is_token(h.name) || !is_field_value(h.value))
      co_return fail(nullptr, ErrorKind::InvalidArgument,
                     "request header '" + h.name +
                         "': the name is not a token or the value holds a control byte");
  }
  if (!is_token(hop.method)) {
    co_return fail(nullptr, ErrorKind::InvalidArgument,
                   "the method '" + hop.method + "' is not a token");
  }

  for (int redirects = 0;; ++redirects) {
    TimePoint hop_deadline = Loop::time() + s.request_timeout;
    ExchangeState x;
    std::exception_ptr error;
    bool retried = false;
    bool empty_reply = false;  // the connection ended cleanly before any byte of an answer
    for (;;) {
      std::exception_ptr attempt_error;
      bool stale = false;
      x = ExchangeState{};
      r.headers.clear();
      r.trailers.clear();
      r.body.clear();
      r.times.dns = r.times.connect = r.times.tls = Duration::zero();
      try {
        auto lease = co_await c.pool.checkout(pool_key(hop.target, s), hop_deadline, retried);
        LeaseGuard guard{c.pool, std::move(lease)};
        r.reused_connection = guard.lease.reused;
        if (!guard.lease.connection) {
          guard.lease.connection = co_await open_connection(
              c, hop, s, std::min(hop_deadline, Loop::time() + s.connect_timeout), r.times);
        } else {
          c.stats.connections_reused++;
        }
        PooledConnection& connection = *guard.lease.connection;
        try {
          squall::detail::RollingTimeout::Armed limit(connection.exchange_limit, hop_deadline,
                                                      s.request_timeout);
          co_await exchange(c, connection.stream, req, s, hop, r, x);
          guard.reusable = x.reusable;
        } catch (const StaleConnection&) {
          stale = guard.lease.reused;
          if (!stale) throw;
        }
      } catch (const StaleConnection& e) {
        empty_reply = !e.cause;
        attempt_error = e.cause ? e.cause
                                : std::make_exception_ptr(NetError(
                                      ErrorKind::Closed, NetPhase::Read, hop.target.authority,
                                      "the server closed the connection without answering"));
      } catch (...) {
        attempt_error = std::current_exception();
      }
      if (stale) {
        bool replayable = !hop.producer && is_idempotent(hop.method);
        if (replayable && !retried) {
          retried = true;
          c.stats.retries++;
          continue;
        }
        empty_reply = true;
        attempt_error = std::make_exception_ptr(
            NetError(ErrorKind::Closed, NetPhase::Read, hop.target.authority,
                     "a kept-alive connection was closed by the server before it answered" +
                         std::string(replayable ? " (twice)"
                                                : "; the request is not idempotent, so it is "
                                                  "not resent")));
      }
      error = attempt_error;
      break;
    }
    if (x.first_byte != TimePoint{}) r.times.first_byte = x.first_byte - start;
    if (error) {
      if (is_foreign(error, hop_deadline)) std::rethrow_exception(error);
      auto [kind, text] = describe(error);
      bool own_timeout = false;
      try {
        std::rethrow_exception(error);
      } catch (const TimeoutError&) {
        own_timeout = true;
      } catch (...) {
      }
      if (own_timeout) {
        text = x.request_sent ? "Timeout during request: no complete response within "
                              : "Timeout while connecting: no connection within ";
        text += milliseconds(s.request_timeout);
      }
      co_return fail(error, kind, std::move(text),
                     empty_reply ? HttpFailure::EmptyReply : HttpFailure::Other);
    }
    if (!x.follow) break;

    // --- a redirect to follow ---
    if (redirects >= s.max_redirects) {
      co_return fail(nullptr, ErrorKind::Protocol,
                     "too many redirects (more than " + std::to_string(s.max_redirects) + ")",
                     HttpFailure::TooManyRedirects);
    }
    std::string next_url;
    if (auto refused = resolve_location(hop.target, x.location, next_url)) {
      co_return fail(nullptr, ErrorKind::InvalidArgument, *refused, HttpFailure::BadRedirect);
    }
    Target next;
    if (auto bad = parse_target(next_url, next)) {
      co_return fail(nullptr, ErrorKind::InvalidArgument,
                     "bad redirect location '" + x.location + "': " + *bad,
                     HttpFailure::BadRedirect);
    }
    r.redirect_chain.push_back(r.effective_url);
    int code = r.code;
    bool to_get = (code == 303 && hop.method != "HEAD") ||
                  ((code == 301 || code == 302) && hop.method == "POST");
    if (hop.headers != &hop.own_headers) {
      hop.own_headers = *hop.headers;
      hop.headers = &hop.own_headers;
    }
    if (to_get) {
      hop.method = "GET";
      hop.body = nullptr;
      hop.producer = nullptr;
      hop.own_headers.remove("Content-Length");
      hop.own_headers.remove("Content-Type");
      hop.own_headers.remove("Transfer-Encoding");
    } else if (hop.producer) {
      co_return fail(nullptr, ErrorKind::InvalidArgument,
                     "a " + std::to_string(code) +
                         " redirect asks to resend a body that came from a producer");
    }
    if (!next.same_origin(hop.target)) {
      hop.own_headers.remove("Authorization");
      hop.own_headers.remove("Cookie");
      hop.credentials = false;
    }
    hop.own_headers.remove("Host");
    hop.target = std::move(next);
    r.effective_url = hop.target.url();
  }

  if (r.code < 200 || r.code >= 300) {
    std::string message = "HTTP " + std::to_string(r.code);
    message += ": ";
    message += r.reason.empty() ? reason_phrase(r.code) : std::string_view(r.reason);
    message += " (";
    message += req.method;
    message += ' ';
    message += r.effective_url;
    message += ')';
    co_return conclude(r.code, ErrorKind::Protocol, std::move(message), nullptr,
                       HttpFailure::Status);
  }
  stamp();
  r.request = std::move(shared_request);
  co_return std::move(r);
}

}  // namespace

Task<HttpResponse> HttpClient::fetch(std::string url) {
  auto request = std::make_shared<HttpRequest>();
  request->url = std::move(url);
  return run_fetch(*core_, std::move(request));
}

Task<HttpResponse> HttpClient::fetch(HttpRequest request) {
  return run_fetch(*core_, std::make_shared<const HttpRequest>(std::move(request)));
}

}  // namespace squall::http
