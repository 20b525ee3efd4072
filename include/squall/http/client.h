// HttpClient: the asynchronous HTTP/1.1 client (Tornado's AsyncHTTPClient, with keep-alive).
//
//   HttpResponse r = co_await HttpClient::shared().fetch("http://127.0.0.1:8080/");
//
//   HttpRequest req;
//   req.url = "http://example.com/upload";
//   req.method = "POST";
//   req.body = "...";
//   req.request_timeout = 5s;
//   req.raise_error = false;
//   HttpResponse r = co_await client.fetch(std::move(req));
//   if (r.error) ... r.code is the status, or 599 when none came ...
//
// Tornado's contract, kept:
//   - One shared client per loop (shared()) unless a separate one is made on purpose; its
//     options are set with configure() before first use. A fetch on a closed client throws
//     InvalidStateError.
//   - fetch() returns the response. With raise_error (the default) a non-2xx status, or a
//     failure before any status came, throws HttpError, which carries the response when there
//     is one; with raise_error off the response comes back with `error` set. A failure with no
//     status (connect, timeout, reset, bad bytes, a limit) has code 599 and a message naming
//     the cause.
//   - At most max_clients requests are in flight; the rest wait in a FIFO queue, and the wait
//     counts: a request still queued after min(connect_timeout, request_timeout) (or
//     queue_timeout when it is set) fails with 599 "Timeout in request queue" and never
//     reaches the wire. free_size() says how many more could start now.
//   - Each response carries request_time and a breakdown (RequestTimes).
//   - max_header_size, max_body_size and max_buffer_size bound what a peer can make the client
//     hold: exceeding one is a clean 599 error (kind TooLarge) and the connection is dropped.
//
// Beyond Tornado's simple client: keep-alive connections pooled per (scheme, host, port,
// proxy, TLS settings) with a per-host limit and an idle timeout (ConnectionPool, pool.h), each
// looked at before reuse so that one the server closed while idle is replaced, not tried; an
// idempotent request is retried once on a new connection when a pooled one turns out to have been
// closed by the server before answering, and a request that cannot be resent (a method that is
// not idempotent, a body from a producer) always opens a new connection, as curl does, so a
// server closing the kept-alive connection after a 307 or 308 cannot fail it; bodies from memory
// or from a producer coroutine (chunked when no Content-Length is given); Expect: 100-continue;
// responses framed by Content-Length, chunked (with trailers) or close, HEAD/204/304 without
// bodies, 1xx skipped; a streaming_callback that gets body bytes as they arrive (nothing is
// buffered); redirects (301/302/303 turn into GET without a body, 307/308 keep method and body;
// Authorization and Cookie dropped when the host changes; only http and https targets; the chain
// kept on the response); basic auth; revalidation helpers.
//
// Timeouts: connect_timeout bounds resolving and connecting (and the TLS handshake);
// request_timeout bounds one exchange from the moment it leaves the queue (connection included)
// to the last body byte. Each redirect hop gets its own request_timeout, as in Tornado, where
// every hop is a new fetch. An outer with_timeout or kill around fetch() is not turned into a
// response: it propagates as it is, and the connection in use is dropped.
//
// Threads: a client belongs to the loop it was made on (shared() is per loop and per thread).
// It must outlive every fetch running on it; close() it before destroying a loop you made.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/core/error.h"
#include "squall/core/loop.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/http/message.h"
#include "squall/http/wire_capture.h"
#include "squall/url/url.h"

namespace squall {
class Resolver;
class Stream;
}  // namespace squall

namespace squall::http {

class CookieJar;
class HttpClient;

// What a body_producer writes the request body through. With a Content-Length header on the
// request, the producer must write exactly that many bytes (more is InvalidArgumentError, fewer
// fails the request); without one, each write() becomes one chunk of a chunked body, and the
// client ends it when the producer returns. write() applies the stream's backpressure.
class BodyWriter {
 public:
  // The client makes one per request over the connection's stream: chunked, or bounded by
  // `length` (the request's Content-Length); what it writes goes to `capture` too, if set.
  BodyWriter(Stream& stream, bool chunked, std::optional<uint64_t> length,
             WireCapture* capture = nullptr) noexcept
      : stream_(&stream), chunked_(chunked), length_(length), capture_(capture) {}

  [[nodiscard]] Task<void> write(std::string_view bytes);
  // Bytes the producer has written so far.
  uint64_t written() const noexcept { return written_; }

 private:
  Stream* stream_;
  bool chunked_;
  std::optional<uint64_t> length_;
  WireCapture* capture_;
  uint64_t written_ = 0;
};

using BodyProducer = std::function<Task<void>(BodyWriter&)>;

// One request. Fields left unset (nullopt, or empty for the strings marked so) take the value
// of the client's ClientOptions::defaults, and then the built-in default noted here.
struct HttpRequest {
  // http:// or https://[user:password@]host[:port]/path?query; userinfo is basic auth when
  // auth_username is unset. Parsed as a browser parses it (the WHATWG URL Standard, as
  // `squall url` prints it: spaces, non-ASCII and control bytes percent-encoded, tabs and
  // newlines removed, dot segments resolved, IDNA hosts); the fragment is not sent. A URL that
  // does not parse, or names another scheme, fails the fetch (599, kind InvalidArgument).
  std::string url;
  // The URL already parsed, used instead of `url` when set: a caller that holds a Url (the
  // crawler's frontier) hands it over, so it is parsed once on its way to the wire.
  std::optional<Url> parsed_url;
  // Any token; sent as given.
  std::string method = "GET";
  // Sent as given, after Host, User-Agent and the fields the client adds (Content-Length or
  // Transfer-Encoding, Authorization, revalidation fields, Expect). A field the client would add
  // that is already here is left as the caller set it (Host, User-Agent, Authorization...).
  // Names and values are checked (is_token / is_field_value): a bad one fails the request with
  // InvalidArgumentError before anything is sent.
  Headers headers;
  // The body from memory; Content-Length is set from it. Ignored when body_producer is set.
  std::string body;
  // The body from a coroutine, written as it produces it (see BodyWriter). A producer cannot be
  // replayed: such a request is never retried, and a 307/308 redirect of it fails.
  BodyProducer body_producer;
  // Send "Expect: 100-continue" and wait for the interim answer (at most 1 s, then send anyway)
  // before the body. A final status instead of 100 is the response, and the body is not sent.
  bool expect_continue = false;

  // Resolve + connect (+ TLS handshake). Built-in default: 20 s.
  std::optional<Duration> connect_timeout;
  // One exchange, connection included, from leaving the queue to the last byte. Default: 20 s.
  std::optional<Duration> request_timeout;
  // Default: true, up to max_redirects (default 5); beyond that a 599 "too many redirects".
  std::optional<bool> follow_redirects;
  std::optional<int> max_redirects;
  // Ask for and undo Content-Encoding (gzip, deflate, br, zstd; decode.h). Default: true. A
  // decoded response has the field renamed X-Consumed-Content-Encoding (as Tornado does); an
  // unknown coding or bad data is a 599 (kind Protocol, cause a DecodeError), and the decoded
  // size is bounded by max_body_size, so a decompression bomb is a 599 of kind TooLarge.
  std::optional<bool> decompress_response;
  // The decompression-bomb guard (decode.h's RatioGuard), for streamed bodies above all: a body
  // that decodes to more than 16 MiB at more than this many bytes per byte received is a 599 of
  // kind TooLarge whose cause is a DecodeError with ratio_exceeded(). Default: 200; 0: off.
  std::optional<uint32_t> max_decode_ratio;
  // Default: "squall/1.0". Empty in both request and defaults: the built-in default.
  std::optional<std::string> user_agent;

  // Basic authentication (the only mode): "Authorization: Basic base64(user:password)".
  std::optional<std::string> auth_username;
  std::optional<std::string> auth_password;

  // A forwarding proxy "http://[user:password@]host:port": http URLs are sent to it in
  // absolute form (with Proxy-Authorization), https URLs tunnel through CONNECT (credentials on
  // the CONNECT only) and TLS runs end to end inside. A refused CONNECT is a 599 of kind
  // Connect naming the proxy's status. Empty: none (defaults may set one).
  std::string proxy;
  std::optional<std::string> proxy_username;  // Proxy-Authorization basic; overrides the URL's
  std::optional<std::string> proxy_password;

  // TLS (https): verify the peer's certificate and name (default true); a CA bundle file
  // instead of the system's store; a client certificate and key (PEM files).
  std::optional<bool> validate_cert;
  std::string ca_certs;
  std::string client_cert;
  std::string client_key;

  // Body bytes as they arrive, views valid only during the call (decoded when decompressing);
  // with it the response's body stays empty and max_body_size still bounds the total.
  std::function<void(std::string_view chunk)> streaming_callback;
  // Each line of the final response head as it came: the status line, each field line, and a
  // last "\r\n", every one ending in "\r\n" (Tornado's header_callback). Not called for 1xx.
  std::function<void(std::string_view line)> header_callback;
  // Cookies kept across the hops of the fetch and beyond (cookie_jar.h): each response's
  // Set-Cookie fields are stored in it, and each request gets the cookies it holds for its URL,
  // in one Cookie field after any the headers give. Must outlive the fetch; null: none.
  CookieJar* cookie_jar = nullptr;

  // Revalidation: "If-Modified-Since: <IMF-fixdate>" and "If-None-Match: <value>" (an entity
  // tag as the server sent it in ETag, quotes included).
  std::optional<std::chrono::system_clock::time_point> if_modified_since;
  std::string if_none_match;

  // Throw HttpError for non-2xx and failures (true), or return the response with `error` set.
  bool raise_error = true;

  // Told about each exchange of the fetch as it crosses the wire (wire_capture.h): its
  // connection, heads and bytes, redirect hops and resent tries included. Null, the default,
  // costs a pointer test where the client would call it. With a capture, bodies are read through
  // the framing loop rather than straight into the response. Must outlive the fetch.
  WireCapture* capture = nullptr;

  // Per-request overrides of the client's limits (ClientOptions).
  std::optional<size_t> max_header_size;
  std::optional<size_t> max_body_size;
};

// Where the time of a fetch went (Tornado's time_info), each from the fetch() call: queued is
// the wait for a slot, dns/connect/tls the phases of opening a connection (zero when a pooled
// one was reused), first_byte until the first byte of the response head, total until the end.
// With redirects the phases are the last hop's; queued and total span the whole fetch.
struct RequestTimes {
  Duration queued{};
  Duration dns{};
  Duration connect{};
  Duration tls{};
  Duration first_byte{};
  Duration total{};
};

struct HttpResponse {
  // The status, or 599 when none came (then `error` is set).
  int code = 599;
  std::string reason;
  Headers headers;
  // Trailer fields of a chunked body.
  Headers trailers;
  // Empty when a streaming_callback took the bytes.
  std::string body;
  // The URL that answered last (after redirects).
  std::string effective_url;
  // Every URL that answered with a redirect that was followed, in order.
  std::vector<std::string> redirect_chain;
  // Set for a non-2xx status or a failure: the HttpError fetch() would have thrown.
  std::exception_ptr error;
  // Seconds from fetch() to the end, queue included (Tornado's request_time).
  double request_time = 0;
  RequestTimes times;
  // The answer came on a pooled connection that had served an earlier request.
  bool reused_connection = false;
  // The request as given to fetch() (defaults not applied); the body is kept, a producer too.
  // Shared with the response inside an HttpError, never copied.
  std::shared_ptr<const HttpRequest> request;

  // Rethrows `error` if set (Tornado's rethrow()).
  void rethrow() const {
    if (error) std::rethrow_exception(error);
  }
  bool ok() const noexcept { return !error; }
  // The kind of failure of a 599, for reports: the error_kind_name of its cause ("timeout",
  // "connect", "resolve", "tls", "closed", "protocol", "too large", ...), or "decompression
  // bomb" when the decoding guard stopped the body; "" for a response with a status.
  std::string failure_kind() const;
};

// A failed fetch. code() is the HTTP status, or 599 when no status came; kind() is the cause's
// kind for 599s (Timeout, Connect, Resolve, Tls, Closed, Protocol, TooLarge, InvalidArgument)
// and Protocol for an HTTP error status. cause() is the underlying exception of a 599 (a
// NetError, TimeoutError, ...), null for an error status. response() is the response when one
// exists (always for a status; for a 599 too, holding what was known: URL, chain, times); it is
// a copy whose own `error` is null.
// failure() tells apart the 599s whose kind alone does not say what happened (curl's exit
// statuses do: 47 too many redirects, 52 empty reply).
enum class HttpFailure {
  Other,
  Status,            // the server answered with a non-2xx status
  QueueTimeout,      // still queued when the queue timeout passed; never reached the wire
  EmptyReply,        // the connection ended before any byte of an answer
  TooManyRedirects,  // more than max_redirects
  BadRedirect,       // a Location that cannot be followed (a non-http scheme, a broken URL)
};

class HttpError : public Error {
 public:
  HttpError(int code, ErrorKind kind, std::string_view message,
            std::shared_ptr<const HttpResponse> response = nullptr,
            std::exception_ptr cause = nullptr, HttpFailure failure = HttpFailure::Other);
  int code() const noexcept { return code_; }
  HttpFailure failure() const noexcept { return failure_; }
  const HttpResponse* response() const noexcept { return response_.get(); }
  std::exception_ptr cause() const noexcept { return cause_; }

 private:
  int code_;
  HttpFailure failure_;
  std::shared_ptr<const HttpResponse> response_;
  std::exception_ptr cause_;
};

struct ClientOptions {
  // Requests in flight at once; the rest queue (FIFO).
  size_t max_clients = 10;
  // Values for request fields the caller leaves unset; headers here are added to each request
  // that lacks a field of that name.
  HttpRequest defaults;
  // The longest a request may wait in the queue; unset: min(connect_timeout, request_timeout).
  std::optional<Duration> queue_timeout;
  // Connections (busy + idle) to one (scheme, host, port, proxy); 0: no limit beyond
  // max_clients. A request over it waits for one of them, within its request_timeout.
  size_t max_connections_per_host = 0;
  // Idle keep-alive connections are closed after this long; at most max_idle_connections
  // are kept in all (the oldest go first). 0 disables keep-alive.
  Duration idle_timeout = std::chrono::seconds(30);
  size_t max_idle_connections = 64;
  // The most bytes a connection's read buffer may hold (Tornado's max_buffer_size).
  size_t max_buffer_size = size_t{100} << 20;
  // The most bytes of a response head (status line and fields), and of a trailer section.
  size_t max_header_size = size_t{64} << 10;
  // The most body bytes of one response (after decoding); default: max_buffer_size.
  std::optional<size_t> max_body_size;
  // Who resolves host names; default_resolver() if null. Must outlive the client.
  Resolver* resolver = nullptr;
  // Host names answered before the resolver is asked (Tornado's hostname_mapping): a host
  // maps to another host name or an IP literal; the request's Host field is unchanged.
  std::map<std::string, std::string, std::less<>> hostname_mapping;
};

// Counters for tests and for the crawler's progress line.
struct ClientStats {
  uint64_t requests = 0;            // exchanges put on the wire (redirect hops and retries count)
  uint64_t connections_opened = 0;  // new connections
  uint64_t connections_reused = 0;  // exchanges on a pooled connection
  uint64_t retries = 0;             // idempotent requests resent after a stale connection
  uint64_t queue_timeouts = 0;      // requests that timed out in the queue
  size_t idle_connections = 0;      // kept open now
};

namespace detail {
struct ClientCore;
// The client's internals, for what is built on its connections (websocket_client.h).
ClientCore& core_of(HttpClient& client) noexcept;
}  // namespace detail

class HttpClient {
 public:
  // The client of the current loop (one per loop and thread), made on first use with the
  // options of the last configure() call on this thread. Once closed, the next shared() makes
  // a new one.
  static HttpClient& shared();
  // Options for shared clients made from now on, on this thread (Tornado's configure()).
  static void configure(ClientOptions options);

  // A separate client with its own queue and pool (Tornado's force_instance=True).
  explicit HttpClient(ClientOptions options = {}, Loop& loop = Loop::current());
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;
  // close(); no fetch may still be running.
  ~HttpClient();

  // `co_await client.fetch(request)`: the response, or HttpError (see the top of this file).
  // InvalidStateError on a closed client. A kill or an outer timeout propagates unchanged.
  [[nodiscard]] Task<HttpResponse> fetch(HttpRequest request);
  [[nodiscard]] Task<HttpResponse> fetch(std::string url);

  // How many more requests could start now without queueing: max_clients - in flight.
  size_t free_size() const noexcept;
  size_t active_count() const noexcept;
  size_t queued_count() const noexcept;

  // Fails every queued request (599, kind Closed), closes idle connections, and keeps
  // in-flight requests going (their connections are closed, not pooled, when they end). Later
  // fetches throw InvalidStateError. Idempotent.
  void close() noexcept;
  bool closed() const noexcept;

  const ClientOptions& options() const noexcept;
  ClientStats stats() const noexcept;

 private:
  friend detail::ClientCore& detail::core_of(HttpClient& client) noexcept;
  std::unique_ptr<detail::ClientCore> core_;
};

}  // namespace squall::http
