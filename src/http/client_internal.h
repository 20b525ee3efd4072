// The pieces of HttpClient shared by its sources (private to src/http).
//
// client.cpp holds HttpClient itself: the request queue, the hops of a fetch and its redirects.
// client_connect.cpp opens connections (resolve, connect, proxy tunnels, TLS) and names the pool
// keys; client_exchange.cpp runs one request and its response on a connection.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/loop.h"
#include "squall/core/time.h"
#include "squall/http/client.h"
#include "squall/http/parser.h"
#include "squall/http/pool.h"
#include "squall/net/net_error.h"
#include "squall/net/resolver.h"
#include "squall/net/stream.h"
#include "squall/url/url.h"

namespace squall::http::detail {

using namespace std::chrono_literals;

// Where one hop goes: a parsed http(s) URL and what the connection and the request line take
// from it.
struct Target {
  // `parsed` must be an http(s) URL (which always has a host).
  explicit Target(Url parsed);
  // The target `parsed` names, or nullopt with the reason in `error` (another scheme).
  static std::optional<Target> from(const Url& parsed, std::string& error);
  // Parses `text` first (the WHATWG URL Standard, as `squall url` does).
  static std::optional<Target> parse(std::string_view text, std::string& error);

  Url url;
  std::optional<std::string> user, password;  // from userinfo, percent-decoded

  bool https() const noexcept { return url.scheme_kind() == UrlScheme::Https; }
  // As the resolver and TLS take it: IPv6 without brackets.
  std::string_view host() const noexcept { return url.hostname_for_connect(); }
  uint16_t port() const noexcept { return *url.effective_port(); }
  // The Host field: host[:port], brackets kept, default port left out.
  std::string_view authority() const noexcept { return url.host_and_port(); }
  // origin-form: "/path?query".
  std::string_view path() const noexcept { return url.request_target(); }
  // The URL without its fragment, as the response's effective_url.
  std::string_view href() const noexcept { return url.dedup_key(); }
  std::string origin() const;
  bool same_origin(const Target& other) const noexcept {
    return https() == other.https() && host() == other.host() && port() == other.port();
  }
};

// A fetch waiting in the queue for a slot.
class QueueWait final : public squall::detail::Waiter {
 public:
  QueueWait(squall::detail::IntrusiveList<Waiter>& queue, TimePoint deadline) noexcept
      : queue_(queue), deadline_(deadline) {}
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) { return suspend_in(queue_, h, deadline_); }
  // True when the deadline passed. A kill is rethrown by finish(); the caller gives back a slot
  // it was granted just before.
  bool await_resume() { return finish(); }

  bool granted = false;  // woken with a slot handed over (else woken by close())

 private:
  squall::detail::IntrusiveList<Waiter>& queue_;
  TimePoint deadline_;
};

// hostname_mapping: a mapped host is resolved as its replacement.
class MappingResolver final : public Resolver {
 public:
  MappingResolver(const std::map<std::string, std::string, std::less<>>& mapping, Resolver& next)
      : mapping_(mapping), next_(next) {}
  Task<std::vector<Address>> resolve(std::string host, uint16_t port) override;

 private:
  const std::map<std::string, std::string, std::less<>>& mapping_;
  Resolver& next_;
};

// The most fields a response head (or trailer section) may have.
constexpr size_t kMaxFields = 128;

struct ClientCore {
  ClientCore(ClientOptions o, Loop& l);

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
  squall::detail::IntrusiveList<squall::detail::Waiter> queue;
  bool closed = false;
  ClientStats stats;
  // Where response heads are parsed before their fields are copied into the response. Nothing
  // suspends between the two, so one array serves every fetch of this client.
  std::unique_ptr<HeaderView[]> fields = std::make_unique<HeaderView[]>(kMaxFields);
};

// A request's fields after the defaults are applied.
struct Settings {
  Duration connect_timeout = 20s;
  Duration request_timeout = 20s;
  bool follow_redirects = true;
  int max_redirects = 5;
  bool decompress = true;
  uint32_t max_decode_ratio = 0;
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

Settings settle(const ClientOptions& o, const HttpRequest& r);

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
  WireCapture* capture = nullptr;   // the request's, if any
  // Reach the origin through the proxy with CONNECT even for an http URL: a WebSocket's upgrade
  // must reach the origin as it was sent.
  bool tunnel = false;
  // An http URL through a proxy: the request line carries the absolute URL and the proxy's
  // credentials. (An https URL, or a tunnelled one, tunnels: the origin sees an ordinary
  // request.)
  bool forwarded() const noexcept { return proxy && !target.https() && !tunnel; }
  // The connection goes through a CONNECT tunnel.
  bool tunnelled() const noexcept { return proxy && (target.https() || tunnel); }
};

// Sets `hop`'s proxy from the settings (with its Proxy-Authorization); the reason when the
// proxy cannot be used (not an http:// URL).
std::optional<std::string> set_proxy(Hop& hop, const Settings& s);

// How an exchange ended, beyond the response fields.
struct ExchangeState {
  bool reusable = false;
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

// "Basic base64(user:password)".
std::string basic_credentials(const std::string& user, const std::optional<std::string>& password);

// Why the client fails a response head or body: a protocol error, or TooLarge for a limit.
NetError protocol_error(const Stream& stream, std::string_view what, ParseStatus status);

// The head limits of a response under settings `s`.
HeadLimits head_limits(const Settings& s);

// "1500 ms".
std::string milliseconds(Duration d);

// Opens a connection for `hop` (to its proxy when it has one), within `deadline`, and records
// the resolve, connect and TLS times.
Task<std::unique_ptr<PooledConnection>> open_connection(ClientCore& c, const Hop& hop,
                                                        const Settings& s, TimePoint deadline,
                                                        RequestTimes& times);

// The pool key of the connection `t` needs under settings `s`.
std::string pool_key(const Target& t, const Settings& s);

// The request head `hop` sends: the request line, Host, User-Agent, the client's default
// fields, the request's, credentials, and the framing fields. InvalidArgumentError for a field
// that is not a token and a field value.
std::string build_head(const ClientCore& c, const HttpRequest& req, const Settings& s,
                       const Hop& hop, bool chunked, bool keep_alive);

// One request and its response on `stream`. Throws StaleConnection when the connection ended
// before any byte of the response came.
Task<void> exchange(ClientCore& c, Stream& stream, const HttpRequest& req, const Settings& s,
                    const Hop& hop, HttpResponse& r, ExchangeState& x);

}  // namespace squall::http::detail
