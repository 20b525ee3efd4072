// HttpClient: the request queue, the hops of a fetch and its redirects.
#include "squall/http/client.h"

#include "client_internal.h"
#include "squall/core/loop_local.h"
#include "squall/core/seconds.h"
#include "squall/http/cookie_jar.h"
#include "squall/http/decode.h"
#include "squall/http/redirect.h"
#include "squall/net/net_error.h"
#include "squall/url/ascii.h"
#include "squall/url/base64.h"

namespace squall::http {

std::string HttpResponse::failure_kind() const {
  if (!error || code != 599) return {};
  try {
    std::rethrow_exception(error);
  } catch (const HttpError& e) {
    try {
      if (e.cause()) std::rethrow_exception(e.cause());
    } catch (const DecodeError& d) {
      if (d.ratio_exceeded()) return "decompression bomb";
    } catch (...) {
    }
    return std::string(error_kind_name(e.kind()));
  } catch (const Error& e) {
    return std::string(error_kind_name(e.kind()));
  } catch (...) {
  }
  return "other";
}

HttpError::HttpError(int code, ErrorKind kind, std::string_view message,
                     std::shared_ptr<const HttpResponse> response, std::exception_ptr cause,
                     HttpFailure failure)
    : Error(kind, message),
      code_(code),
      failure_(failure),
      response_(std::move(response)),
      cause_(std::move(cause)) {}

namespace detail {

ClientCore::ClientCore(ClientOptions o, Loop& l)
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

Target::Target(Url parsed) : url(std::move(parsed)) {
  if (url.has_credentials()) {
    user = percent_decode(url.username());
    if (!url.password().empty()) password = percent_decode(url.password());
  }
}

std::optional<Target> Target::from(const Url& parsed, std::string& error) {
  if (!parsed.is_http()) {
    error = "unsupported scheme '" + std::string(parsed.scheme()) + "' (only http and https)";
    return std::nullopt;
  }
  return Target(parsed);
}

std::optional<Target> Target::parse(std::string_view text, std::string& error) {
  UrlResult parsed = Url::parse(text);
  if (!parsed) {
    error = url_error_message(parsed.error());
    return std::nullopt;
  }
  return from(*parsed, error);
}

std::string Target::origin() const {
  std::string o(https() ? "https://" : "http://");
  o += authority();
  return o;
}

std::string basic_credentials(const std::string& user, const std::optional<std::string>& password) {
  std::string credentials = user;
  credentials += ':';
  if (password) credentials += *password;
  return "Basic " + base64_encode(credentials);
}

std::optional<std::string> set_proxy(Hop& hop, const Settings& s) {
  if (s.proxy.empty()) return std::nullopt;
  std::string bad;
  std::optional<Target> proxy = Target::parse(s.proxy, bad);
  if (!proxy || proxy->https())
    return "bad proxy '" + std::string(s.proxy) +
           "': " + (proxy ? "only http:// proxies are supported" : bad);
  const std::optional<std::string>* user = s.proxy_username;
  const std::optional<std::string>* password = s.proxy_password;
  if (!*user && proxy->user) {
    user = &proxy->user;
    password = &proxy->password;
  }
  if (*user) hop.proxy_authorization = basic_credentials(**user, *password);
  hop.proxy = std::move(proxy);
  return std::nullopt;
}

ClientCore& core_of(HttpClient& client) noexcept {
  return *client.core_;
}

std::string milliseconds(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

namespace {

std::string_view either(const std::string& mine, const std::string& fallback) {
  return !mine.empty() ? std::string_view(mine) : std::string_view(fallback);
}

}  // namespace

Settings settle(const ClientOptions& o, const HttpRequest& r) {
  const HttpRequest& d = o.defaults;
  Settings s;
  s.connect_timeout = r.connect_timeout.value_or(d.connect_timeout.value_or(20s));
  s.request_timeout = r.request_timeout.value_or(d.request_timeout.value_or(20s));
  s.follow_redirects = r.follow_redirects.value_or(d.follow_redirects.value_or(true));
  s.max_redirects = r.max_redirects.value_or(d.max_redirects.value_or(5));
  s.decompress = r.decompress_response.value_or(d.decompress_response.value_or(true));
  s.max_decode_ratio =
      r.max_decode_ratio.value_or(d.max_decode_ratio.value_or(RatioGuard::kDefaultMaxRatio));
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

}  // namespace detail

namespace {

using namespace detail;

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

// Tells a capture that its exchange ended, however it ends.
struct CaptureGuard {
  WireCapture* capture;
  bool complete = false;
  ~CaptureGuard() {
    if (capture) capture->end(complete);
  }
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

}  // namespace

// ---------------------------------------------------------------------------------------------

namespace {

// The options configure() set for this thread's shared clients.
ClientOptions& configured() {
  thread_local ClientOptions options;
  return options;
}

// A loop's shared client, destroyed with the loop.
struct SharedClient {
  std::unique_ptr<HttpClient> client;
};

}  // namespace

HttpClient& HttpClient::shared() {
  Loop& loop = Loop::current();
  std::unique_ptr<HttpClient>& slot = loop_local<SharedClient>(loop).client;
  if (!slot || slot->closed()) slot = std::make_unique<HttpClient>(configured(), loop);
  return *slot;
}

void HttpClient::configure(ClientOptions options) {
  configured() = std::move(options);
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

// Why a fetch ends with a 599, before the request is named in the message.
struct Failure {
  ErrorKind kind;
  std::string message;
  HttpFailure failure = HttpFailure::Other;
  std::exception_ptr cause = nullptr;
};

// The first hop of `req`: its target, proxy, method, headers and body, checked before anything
// is sent.
std::optional<Failure> first_hop(const HttpRequest& req, const Settings& s,
                                 std::optional<Hop>& out) {
  std::string bad;
  std::optional<Target> target =
      req.parsed_url ? Target::from(*req.parsed_url, bad) : Target::parse(req.url, bad);
  if (!target) {
    std::string text(req.parsed_url ? req.parsed_url->href() : std::string_view(req.url));
    return Failure{ErrorKind::InvalidArgument, "bad URL '" + text + "': " + bad, HttpFailure::Other,
                   std::make_exception_ptr(InvalidArgumentError(bad))};
  }
  Hop& hop = out.emplace(Hop{std::move(*target)});
  if (std::optional<std::string> refused = set_proxy(hop, s))
    return Failure{ErrorKind::InvalidArgument, std::move(*refused)};
  hop.method = req.method;
  hop.headers = &req.headers;
  hop.body = &req.body;
  hop.producer = req.body_producer ? &req.body_producer : nullptr;
  hop.capture = req.capture;
  for (const auto& h : req.headers) {
    if (!is_token(h.name) || !is_field_value(h.value))
      return Failure{ErrorKind::InvalidArgument,
                     "request header '" + h.name +
                         "': the name is not a token or the value holds a control byte"};
  }
  if (!is_token(hop.method))
    return Failure{ErrorKind::InvalidArgument, "the method '" + hop.method + "' is not a token"};
  return std::nullopt;
}

// How a hop that failed with `error` is reported; the client's own timeout says which phase it
// ran out in.
Failure hop_failure(std::exception_ptr error, const ExchangeState& x, const Settings& s,
                    bool empty_reply) {
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
  return Failure{kind, std::move(text), empty_reply ? HttpFailure::EmptyReply : HttpFailure::Other,
                 error};
}

// Turns `hop` into the next hop of a redirect to x.location: 301/302/303 become GET without a
// body where browsers do so, credentials stay with their origin.
std::optional<Failure> follow_redirect(const Settings& s, const ExchangeState& x, int redirects,
                                       Hop& hop, HttpResponse& r) {
  if (redirects >= s.max_redirects) {
    return Failure{ErrorKind::Protocol,
                   "too many redirects (more than " + std::to_string(s.max_redirects) + ")",
                   HttpFailure::TooManyRedirects};
  }
  Redirect redirect = resolve_redirect(hop.target.url, x.location);
  if (!redirect.url)
    return Failure{ErrorKind::InvalidArgument, std::move(redirect.refusal),
                   HttpFailure::BadRedirect};
  Target next(std::move(*redirect.url));
  r.redirect_chain.push_back(r.effective_url);
  int code = r.code;
  if (hop.headers != &hop.own_headers) {
    hop.own_headers = *hop.headers;
    hop.headers = &hop.own_headers;
  }
  if (redirect_turns_to_get(code, hop.method)) {
    hop.method = "GET";
    hop.body = nullptr;
    hop.producer = nullptr;
    hop.own_headers.remove("Content-Length");
    hop.own_headers.remove("Content-Type");
    hop.own_headers.remove("Transfer-Encoding");
  } else if (hop.producer) {
    return Failure{
        ErrorKind::InvalidArgument,
        "a " + std::to_string(code) + " redirect asks to resend a body that came from a producer"};
  }
  if (!next.same_origin(hop.target)) {
    hop.own_headers.remove("Authorization");
    hop.own_headers.remove("Cookie");
    hop.credentials = false;
  }
  hop.own_headers.remove("Host");
  hop.target = std::move(next);
  r.effective_url = hop.target.href();
  return std::nullopt;
}

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
    r.request_time = to_seconds(r.times.total);
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
  auto fail = [&](Failure f) {
    if (r.effective_url.empty())  // failed before the hop's target was made: the URL as given
      r.effective_url = req.parsed_url ? std::string(req.parsed_url->href()) : req.url;
    f.message += " (";
    f.message += req.method;
    f.message += ' ';
    f.message += r.effective_url;
    f.message += ')';
    return conclude(599, f.kind, std::move(f.message), std::move(f.cause), f.failure);
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
      co_return fail({ErrorKind::Timeout, "Timeout in request queue after " + milliseconds(limit),
                      HttpFailure::QueueTimeout});
    }
    if (!wait.granted) {
      co_return fail({ErrorKind::Closed, "the client was closed while queued"});
    }
  }
  SlotGuard slot{c};

  // --- hops --------------------------------------------------------------------------------
  std::optional<Hop> first;
  std::optional<Failure> refused = first_hop(req, s, first);
  if (first) r.effective_url = first->target.href();
  if (refused) co_return fail(std::move(*refused));
  Hop& hop = *first;

  for (int redirects = 0;; ++redirects) {
    TimePoint hop_deadline = Loop::time() + s.request_timeout;
    ExchangeState x;
    std::exception_ptr error;
    bool retried = false;
    bool empty_reply = false;  // the connection ended cleanly before any byte of an answer
    // A request that cannot be resent never goes on an idle connection, which the server may
    // be closing as it arrives (as curl opens a new connection for it).
    bool replayable = !hop.producer && is_idempotent(hop.method);
    for (;;) {
      std::exception_ptr attempt_error;
      bool stale = false;
      x = ExchangeState{};
      r.headers.clear();
      r.trailers.clear();
      r.body.clear();
      r.times.dns = r.times.connect = r.times.tls = Duration::zero();
      try {
        auto lease =
            co_await c.pool.checkout(pool_key(hop.target, s), hop_deadline, retried || !replayable);
        LeaseGuard guard{c.pool, std::move(lease)};
        r.reused_connection = guard.lease.reused;
        if (!guard.lease.connection) {
          guard.lease.connection = co_await open_connection(
              c, hop, s, std::min(hop_deadline, Loop::time() + s.connect_timeout), r.times);
        } else {
          c.stats.connections_reused++;
        }
        PooledConnection& connection = *guard.lease.connection;
        if (hop.capture)
          hop.capture->begin(hop.target.url, {connection.stream.peer(), connection.stream.tls(),
                                              guard.lease.reused});
        CaptureGuard captured{hop.capture};
        try {
          squall::detail::RollingTimeout::Armed limit(connection.exchange_limit, hop_deadline,
                                                      s.request_timeout);
          co_await exchange(c, connection.stream, req, s, hop, r, x);
          guard.reusable = x.reusable;
          captured.complete = true;
        } catch (const StaleConnection&) {
          stale = guard.lease.reused;
          if (!stale) throw;
        }
      } catch (const StaleConnection& e) {
        empty_reply = !e.cause;
        attempt_error =
            e.cause ? e.cause
                    : std::make_exception_ptr(NetError(
                          ErrorKind::Closed, NetPhase::Read, std::string(hop.target.authority()),
                          "the server closed the connection without answering"));
      } catch (...) {
        attempt_error = std::current_exception();
      }
      // Only a replayable request's first try takes an idle connection: it is resent once, on a
      // new one.
      if (stale) {
        retried = true;
        c.stats.retries++;
        continue;
      }
      error = attempt_error;
      break;
    }
    if (x.first_byte != TimePoint{}) r.times.first_byte = x.first_byte - start;
    if (error) {
      if (is_foreign(error, hop_deadline)) std::rethrow_exception(error);
      co_return fail(hop_failure(error, x, s, empty_reply));
    }
    if (req.cookie_jar) req.cookie_jar->store(hop.target.url, r.headers);
    if (!x.follow) break;

    if (auto failure = follow_redirect(s, x, redirects, hop, r))
      co_return fail(std::move(*failure));
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
