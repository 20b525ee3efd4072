// HttpServer: the HTTP/1.1 server (Tornado's HTTPServer + HTTP1ServerConnection).
//
//   HttpServer server([](ServerRequest& req, ServerResponse& resp) -> Task<void> {
//     resp.headers().set("Content-Type", "text/plain");
//     co_await resp.write("abc");
//   });
//   server.listen(Address::parse("127.0.0.1:2345"));
//
// One task per connection (on TcpServer) serves its requests one after another: the next head
// is parsed only once the response to the previous one is finished, so pipelined requests are
// answered in order while their bytes simply wait in the read buffer. Heads are parsed in place
// from the stream's buffer (parser.h); the request's method, target and fields are views into it.
//
// Protocol, as RFC 9112 asks: keep-alive by default in HTTP/1.1, in HTTP/1.0 only when the
// client asks for it; "Connection: close" from either side ends the connection after the
// response; HEAD answers carry no body; chunked request bodies are decoded; "Expect:
// 100-continue" gets its interim "100 Continue" when the handler first reads the body (a handler
// that answers without reading gets none, and the connection closes unless the unread body is
// small enough to drain).
//
// Limits answer with a status and close the connection: a request line over max_request_line
// (414), a head over max_header_size or max_headers fields (431), a body over max_body_size
// (413), a head not complete within header_timeout of its first byte (408: slowloris). A head
// that breaks the grammar, and the request-smuggling shapes the parser refuses (Content-Length
// with Transfer-Encoding, differing Content-Lengths, a final coding other than chunked), get 400
// (501 for an unknown transfer coding, 505 for HTTP/2+ in an HTTP/1 head, 417 for an Expect
// other than 100-continue; an HTTP/1.1 request without exactly one Host is a 400) and a close. A
// connection idle between requests for idle_timeout, or silent for header_timeout after it was
// accepted, is closed without an answer.
//
// Handlers. An exception escaping a handler becomes a 500 (if no byte of the response was sent;
// otherwise the connection is cut) and one Error log line naming the request; the body names the
// exception only with `debug`. A handler that returns without finishing the response has it
// finished for it. Each request produces one access-log entry when enabled.
//
// Threads: an HttpServer, its connections, requests and responses belong to the loop it was made
// on. For several cores, HttpWorkers runs one loop and one server per thread on one port
// (SO_REUSEPORT); it is the only type here another thread may drive (see its members).
#pragma once

#include <sys/types.h>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "squall/core/loop.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/http/message.h"
#include "squall/http/parser.h"
#include "squall/net/address.h"
#include "squall/net/stream.h"
#include "squall/net/tcp_server.h"

namespace squall::http {

namespace detail {
class Exchange;
struct ServerShared;
struct WorkerState;
}  // namespace detail

// One finished request, as the access log sees it. Views live only during the callback.
struct AccessLogEntry {
  std::string_view peer;    // "127.0.0.1:51234"
  std::string_view method;  // "GET"
  std::string_view target;  // as sent: "/a/b?x=1"
  Version version;
  int status = 0;
  uint64_t bytes = 0;   // body bytes sent (what GET would have sent, for HEAD: see bytes_written)
  Duration duration{};  // from the end of the request head to the end of the response
  std::string_view referer;     // the Referer field, empty if none
  std::string_view user_agent;  // the User-Agent field, empty if none
};

struct HttpServerOptions {
  // Bytes of the request line (with its CRLF); longer: 414.
  size_t max_request_line = 8 * 1024;
  // Bytes of the whole head; longer: 431.
  size_t max_header_size = 64 * 1024;
  // Fields in a head; more: 431.
  size_t max_headers = 100;
  // Bytes of a request body, declared (Content-Length) or decoded (chunked); more: 413.
  uint64_t max_body_size = uint64_t{100} << 20;
  // From the first byte of a request head to its end (the slowloris guard); exceeded: 408.
  Duration header_timeout = std::chrono::seconds(30);
  // How long a kept-alive connection may wait for the first byte of its next request.
  Duration idle_timeout = std::chrono::seconds(60);
  // How long a body read may wait for the next bytes from the client; exceeded: 408 if nothing
  // was sent yet, and a close. No limit when empty.
  Timeout body_timeout;
  // How long a response write may wait for a client that reads nothing (nginx's send_timeout);
  // exceeded: the connection is closed. No limit when empty.
  Timeout write_timeout = std::chrono::seconds(60);
  // An unread body up to this size is read and dropped after the response so the connection
  // can be reused; a bigger one closes the connection instead.
  uint64_t max_drain_size = 64 * 1024;
  // Connections open at once; 0 for no limit. At the limit, further clients wait in the
  // kernel's backlog until a connection ends (TcpServer's max_connections).
  size_t max_connections = 0;
  // The Server header on every response; empty for none.
  std::string server_name = "squall";
  // Trust X-Real-Ip / X-Forwarded-For and X-Forwarded-Proto / X-Scheme (behind a proxy) for
  // ServerRequest::remote_ip() and protocol().
  bool xheaders = false;
  // A 500 caused by an exception shows the exception's message in its body.
  bool debug = false;
  // One line per request at Info level: `<peer> "<method> <target> HTTP/x.y" <status> <bytes>
  // <ms>ms`. access_log_sink, when set, receives the entries instead (it need not set this).
  bool access_log = false;
  std::function<void(const AccessLogEntry&)> access_log_sink;
  // The listener and the connections' streams (backlog, reuse_port, buffer sizes, and TLS once
  // the transport offers it). Its max_connections and stream.write_timeout are replaced by the
  // ones above.
  ServerOptions tcp;
};

// One request on a connection, handed to the handler. Valid until the handler's task returns.
class ServerRequest {
 public:
  ServerRequest(const ServerRequest&) = delete;
  ServerRequest& operator=(const ServerRequest&) = delete;

  // The head. Views stay valid for the whole request (they point into the connection's read
  // buffer, or into the request's own copy once reading the body needs the buffer).
  std::string_view method() const noexcept { return method_; }
  std::string_view target() const noexcept { return target_; }
  // The target's path (before '?'; for an absolute-form target, the path after the authority;
  // "*" for an asterisk-form target) and its query (after '?', without it; empty if none). Both
  // still percent-encoded.
  std::string_view path() const noexcept { return path_; }
  std::string_view query() const noexcept { return query_; }
  Version version() const noexcept { return version_; }
  // The fields, without copying: name as received, value trimmed.
  std::span<const HeaderView> header_views() const noexcept { return fields_; }
  // The first value of `name` (case-insensitive), or nullopt; no allocation.
  std::optional<std::string_view> header(std::string_view name) const noexcept;
  // The fields as a Headers value, built on first call (copies them once).
  const Headers& headers() const;

  // The client's "ip:port" as the socket sees it.
  const std::string& peer() const noexcept;
  // The client's IP: the socket's, or X-Real-Ip / the last X-Forwarded-For hop with xheaders.
  std::string_view remote_ip() const noexcept { return remote_ip_; }
  // "http", or "https" (TLS, or the forwarded scheme with xheaders).
  std::string_view protocol() const noexcept { return protocol_; }
  // Whether the connection stays open after this request (the client's wish so far; a response
  // with "Connection: close" or an unread large body still closes it).
  bool keep_alive() const noexcept { return keep_alive_; }

  // --- the body ----------------------------------------------------------------------------
  // Whether the request has a body at all (Content-Length > 0 or chunked).
  bool has_body() const noexcept;
  // The declared length, or nullopt for chunked or no body.
  std::optional<uint64_t> content_length() const noexcept;
  // The whole body, chunked framing removed. Sends "100 Continue" first when the client expects
  // it. Throws squall::Error of kind TooLarge past max_body_size (the server answers 413 if the
  // handler lets it escape), of kind Protocol for a malformed chunked body or a client that ends
  // the connection mid-body (400), TimeoutError past body_timeout (408), or the stream's
  // NetError when the connection fails. After a partial read_body() it returns the rest.
  [[nodiscard]] Task<std::string> body();
  // Streams the body: fills `into` with at least one byte, returns the count, or 0 at the end of
  // the body. Throws as body() does.
  [[nodiscard]] Task<size_t> read_body(std::span<char> into);
  // True once the whole body was read (immediately for a request without one).
  bool body_complete() const noexcept;
  // Trailer fields of a chunked body, once body_complete().
  const Headers& trailers() const noexcept;

 private:
  friend class detail::Exchange;
  ServerRequest() = default;

  detail::Exchange* exchange_ = nullptr;
  std::string_view method_, target_, path_, query_;
  Version version_;
  std::span<HeaderView> fields_;
  std::string_view remote_ip_, protocol_;
  bool keep_alive_ = true;
  mutable std::optional<Headers> headers_;
};

// The response to one request. The head goes out with the first body bytes that leave (or at
// finish()), so status and headers may change until headers_sent().
//
// Framing is chosen when the head is sent: the handler's Content-Length if it set one; else, at
// finish() with the whole body still buffered, a Content-Length of its size (head and body then
// leave in one write); else chunked for HTTP/1.1 clients, and read-until-close for HTTP/1.0
// ones. 1xx, 204 and 304 answers and answers to HEAD carry no body: for HEAD, written bytes are
// counted and dropped, so Content-Length says what GET would have sent. Date, Server and
// Connection are added unless the handler set them; a handler that sets "Connection: close"
// ends the connection after this response. Transfer-Encoding belongs to the server: a handler
// that sets it, or a header that is not a token or holds CR, LF or another control byte, makes
// sending the head throw InvalidArgumentError (a 500 if it escapes the handler), so no header
// can be injected.
class ServerResponse {
 public:
  ServerResponse(const ServerResponse&) = delete;
  ServerResponse& operator=(const ServerResponse&) = delete;

  // The status; an empty reason means the standard phrase. InvalidStateError after
  // headers_sent().
  void set_status(int status, std::string_view reason = {});
  int status() const noexcept { return status_; }
  // The fields to send; changes after headers_sent() have no effect.
  Headers& headers() noexcept { return headers_; }

  // Appends to the body. Bytes are buffered until flush(), finish(), or until more than 64 KiB
  // wait, when they are sent as if flush() were called. Throws InvalidStateError after
  // finish() or past a Content-Length the handler set, and the stream's NetError when the
  // client has gone.
  [[nodiscard]] Task<void> write(std::string_view bytes);
  // Sends the head (if not sent yet) and the buffered body bytes; resumes once the connection
  // holds no more than its write high-water mark (backpressure from a slow client).
  [[nodiscard]] Task<void> flush();
  // Ends the response: sends what is left (with Content-Length or the final chunk) and lets the
  // connection go on to the next request. Idempotent. A body shorter than a Content-Length the
  // handler set is logged and the connection closed, as the client could not frame what follows.
  [[nodiscard]] Task<void> finish();
  // Sends `count` bytes of the open file `fd` from `offset` as body bytes, after whatever was
  // written before: small files are copied into the buffered body (one write with the head),
  // larger ones go out with Stream::send_file (sendfile(2) on plain TCP). With no
  // Content-Length set and nothing sent yet, Content-Length becomes the buffered size plus
  // `count`. The descriptor is not closed. A file shorter than asked is a SystemError (small
  // files) or the stream's NetError, which closes the connection.
  [[nodiscard]] Task<void> send_file(int fd, off_t offset, size_t count);

  // Switches protocols (RFC 9110 section 15.2.2; a WebSocket's opening handshake): sends `head`,
  // a 101, and hands the connection over. The stream returned holds, buffered, whatever the
  // client sent after the request, and is the caller's from then on: the server neither reads
  // nor writes it again, and the connection's task ends when the handler returns (so the
  // connection counts as a request in flight for stop()'s grace until then). The request's
  // accessors stay valid until the handler returns. Throws, from the task, InvalidStateError
  // after headers_sent() or for a request with a body, InvalidArgumentError for a status other
  // than 101 or a field that is not a token and a field value, and the stream's NetError.
  [[nodiscard]] Task<Stream> upgrade(const ResponseHead& head);

  // Runs `hook` once, on the server's loop, when the server's stop() begins while this
  // request's handler still runs (at once if it has begun already): the chance for an answer
  // that lasts, an upgraded connection above all, to end itself gracefully before the grace
  // runs out (a WebSocket closes with 1001, Going Away). The hook must not wait or throw
  // (spawn a task for what waits). A second call replaces the hook; it is dropped when the
  // handler returns.
  void on_server_stop(std::function<void()> hook);

  bool headers_sent() const noexcept { return headers_sent_; }
  bool finished() const noexcept { return finished_; }
  // Body bytes written so far (for HEAD, the bytes written and dropped).
  uint64_t bytes_written() const noexcept { return bytes_written_; }

 private:
  friend class detail::Exchange;
  ServerResponse() = default;

  detail::Exchange* exchange_ = nullptr;
  int status_ = 200;
  std::string reason_;
  Headers headers_;
  bool headers_sent_ = false;
  bool finished_ = false;
  uint64_t bytes_written_ = 0;
};

// Called once per request; may co_await freely (other connections go on meanwhile).
using Handler = std::function<Task<void>(ServerRequest&, ServerResponse&)>;

class HttpServer {
 public:
  explicit HttpServer(Handler handler, HttpServerOptions options = {},
                      Loop& loop = Loop::current());
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  // Stops accepting and kills running connections (call stop() first for a graceful end).
  ~HttpServer();

  // Binds and listens (port 0: ephemeral, see port()). Throws NetError as TcpServer::listen.
  void listen(const Address& address);
  const Address& address() const noexcept;
  uint16_t port() const noexcept { return address().port(); }

  // `co_await server.stop(grace)`: stops accepting at once and closes connections idle between
  // requests; requests in flight go on for up to `grace` (no limit if empty) and are answered
  // with "Connection: close", and their handlers' on_server_stop() hooks run; whatever still
  // runs then is killed. Returns when every connection is closed. Idempotent.
  [[nodiscard]] Task<void> stop(Timeout grace = {});

  // Connections open now, and requests answered since listen() (for tests and monitoring).
  size_t connection_count() const noexcept;
  uint64_t requests_served() const noexcept;

 private:
  std::shared_ptr<detail::ServerShared> shared_;
  std::unique_ptr<TcpServer> tcp_;
};

// N threads, each with its own Loop and HttpServer, all listening on one address with
// SO_REUSEPORT, so the kernel spreads connections across cores (share-nothing: a handler runs
// on the thread of its connection). `make_handler` runs once on each worker thread. The port
// is this process's alone: one worker binds without SO_REUSEPORT, several first make a
// PortClaim (port_claim.h), so a port another process listens on is an "address already in
// use" error, never a port shared with it.
//
// Threads: every member may be called from any one controlling thread (not from a worker).
// The workers block SIGINT and SIGTERM, so that run_until_signal()'s thread receives them.
class HttpWorkers {
 public:
  // Starts `workers` threads and returns once all listen. Port 0 picks one ephemeral port
  // shared by all. Throws NetError with EADDRINUSE when another process listens on the port,
  // the first worker's listen error (after stopping the others), or InvalidArgumentError for
  // zero workers.
  HttpWorkers(size_t workers, const Address& address, std::function<Handler()> make_handler,
              HttpServerOptions options = {});
  HttpWorkers(const HttpWorkers&) = delete;
  HttpWorkers& operator=(const HttpWorkers&) = delete;
  // stop(0s) if still running.
  ~HttpWorkers();

  const Address& address() const noexcept { return address_; }
  uint16_t port() const noexcept { return address_.port(); }
  size_t size() const noexcept { return threads_.size(); }

  // Stops every worker as HttpServer::stop(grace) does, and joins the threads. Idempotent.
  void stop(Timeout grace = {});
  // Requests answered by each worker so far.
  std::vector<uint64_t> requests_served() const;

 private:
  Address address_;
  std::vector<std::unique_ptr<detail::WorkerState>> workers_;
  std::vector<std::thread> threads_;
  bool stopped_ = false;
};

// Blocks SIGINT and SIGTERM in the calling thread, then waits for one of them and returns its
// number. Call it from the thread that made the HttpWorkers (or before making them: threads
// inherit the mask), then stop() the workers: `squall serve`'s Ctrl-C.
int wait_for_shutdown_signal();

}  // namespace squall::http
