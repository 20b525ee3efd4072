// One HTTP/1.1 server connection: reads heads in place, runs the handler per request, frames the
// responses (private to src/http; HttpServer, ServerRequest and ServerResponse are its users).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/timeout.h"
#include "squall/http/h1_connection.h"
#include "squall/http/server.h"

namespace squall::http::detail {

class Connection;
class Exchange;

struct ServerShared {
  ServerShared(Handler h, HttpServerOptions o, Loop& l);
  ~ServerShared();

  // Request state for connections serving a request: an idle connection holds none, so
  // 10,000 idle keep-alive connections cost none of it, and a busy loop passes a few between
  // its connections. At most kKeptExchanges wait here; a burst beyond goes back to malloc.
  std::unique_ptr<Exchange> take_exchange(Stream& stream);
  void give_exchange(std::unique_ptr<Exchange> x) noexcept;
  static constexpr size_t kKeptExchanges = 64;

  Handler handler;
  HttpServerOptions options;
  Loop* loop;
  // Written only on the server's loop; read relaxed by HttpWorkers from another thread.
  std::atomic<uint64_t> served{0};
  bool stopping = false;
  squall::detail::IntrusiveList<Connection> idle;      // waiting for the next request's first byte
  squall::detail::IntrusiveList<Exchange> stop_hooks;  // handlers with an on_server_stop() hook
  // Responses are framed here and handed to the stream in the same call (which copies what the
  // socket does not take at once), so one buffer serves every connection of the loop.
  std::string scratch;
  std::vector<std::unique_ptr<Exchange>> exchanges;
};

// One client connection between requests: the keep-alive loop, the idle and head deadlines,
// and the close. All it holds while idle is this and its stream; the request state comes from
// the pool when the next request's bytes arrive.
class Connection : public squall::detail::ListHook<Connection> {
 public:
  // Serves `stream` until the client leaves, the connection fails or the server stops.
  static Task<void> serve(std::shared_ptr<ServerShared> s, Stream& stream);
  void close_stream() noexcept { stream_.close(); }

 private:
  Connection(ServerShared& s, Stream& stream) noexcept : s_(s), stream_(stream) {}
  ~Connection();
  Task<void> close_connection(bool linger);

  ServerShared& s_;
  Stream& stream_;
  // The idle and head deadlines, moved for each request without touching the timer heap.
  squall::detail::RollingTimeout timeout_;
  std::unique_ptr<Exchange> x_;
  bool first_ = true;
};

// One request and its response: reads the head in place, runs the handler, frames the answer.
class Exchange : public squall::detail::ListHook<Exchange> {
 public:
  explicit Exchange(ServerShared& s)
      : s_(s), o_(s.options), fields_(std::make_unique<HeaderView[]>(s.options.max_headers)) {
    req_.exchange_ = this;
    resp_.exchange_ = this;
  }
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Starts serving a connection: nothing of the previous one's requests is left.
  void attach(Stream& stream) noexcept {
    stream_ = &stream;
    skip_ = 0;
    head_parsed_ = false;
    linger_ = false;
    upgraded_ = false;
  }
  // Parses the head that begins in the stream's buffer, reading the rest of it under the
  // header_timeout deadline of `timeout`. False when the connection should end (the client
  // closed mid-head, or an error was answered).
  Task<bool> read_head(squall::detail::RollingTimeout& timeout);
  // Runs the handler and finishes the response; false when the connection ends after it.
  Task<bool> serve_request();
  // Consumes the request's bytes from the stream, before it reads again.
  void end_request() noexcept {
    stream_->consume(skip_);
    skip_ = 0;
    head_parsed_ = false;
  }
  // The client may still be sending what was not read: the close should linger.
  bool linger() const noexcept { return linger_; }
  // The handler took the stream (upgrade()): the connection must not touch it again.
  bool upgraded() const noexcept { return upgraded_; }
  // The fields array holds only this request's fields (fit_fields()): not for another request.
  bool fitted() const noexcept { return fitted_; }

  // --- used by ServerRequest / ServerResponse ---
  const std::string& peer() const noexcept { return upgraded_ ? peer_ : stream_->peer(); }
  Task<size_t> read_body(std::span<char> into);
  bool body_done() const noexcept { return body_.done(); }
  const Framing& framing() const noexcept { return body_.framing(); }
  const Headers& trailers() const noexcept { return body_.trailers(); }
  Task<void> write(std::string_view bytes);
  Task<void> flush(bool finishing);
  Task<void> finish();
  Task<void> send_file(int fd, off_t offset, size_t count);
  Task<Stream> upgrade(const ResponseHead& head);
  void on_server_stop(std::function<void()> hook);
  // Runs and drops the hook (HttpServer::stop, which has taken this out of stop_hooks).
  void run_stop_hook();

 private:
  // Drops the hook when the handler returns, however it returns.
  struct StopHookScope {
    explicit StopHookScope(Exchange& x) noexcept : x_(x) {}
    ~StopHookScope() {
      x_.unlink();
      x_.stop_hook_ = nullptr;
    }
    Exchange& x_;
  };

  bool setup_request(int& error_status, std::string_view& error_message);
  Task<void> answer_error(int status, std::string_view message);
  Task<void> drain_body();
  Task<void> fill_body();
  [[noreturn]] void body_error(int status, ErrorKind kind, std::string_view message);
  void pin_head();
  // An upgraded request keeps its head for as long as the handler runs, which may be hours:
  // its fields move to an array of their own size, and the one for max_headers (3 KiB at the
  // default 100) is freed.
  void fit_fields();
  void build_head(std::string& out, bool finishing);
  void append_body(std::string& out, std::string_view data);
  void log_access(int status, uint64_t bytes);
  // The Error line for a handler's exception.
  void log_failure(const std::exception_ptr& failure);
  void reset_response();

  ServerShared& s_;
  const HttpServerOptions& o_;
  Stream* stream_ = nullptr;
  ServerRequest req_;
  ServerResponse resp_;

  // The head in progress: views into the stream's buffer until pin_head() copies them.
  std::unique_ptr<HeaderView[]> fields_;
  RequestView view_;
  const char* head_begin_ = nullptr;
  size_t head_size_ = 0;
  std::string pinned_;
  bool pinned_head_ = false;
  bool fitted_ = false;
  bool head_parsed_ = false;
  // Bytes at the front of stream_->buffered() that this request already used (its head and the
  // body bytes read so far), consumed from the stream only before it reads again.
  size_t skip_ = 0;

  // The body.
  BodyReader body_{MessageKind::Request};
  bool expect_continue_ = false;
  bool continue_sent_ = false;
  int body_error_status_ = 0;

  // The response.
  bool keep_alive_ = true;
  bool head_request_ = false;
  bool body_allowed_ = true;
  bool chunked_ = false;
  bool linger_ = false;              // input may be left unread: close slowly
  bool upgraded_ = false;            // the stream was handed over (upgrade())
  std::string peer_;                 // the peer's name, kept once the stream is handed over
  std::function<void()> stop_hook_;  // ServerResponse::on_server_stop()
  std::optional<uint64_t> declared_length_;
  uint64_t sent_body_ = 0;
  std::string body_buf_;
  TimePoint start_;
};

}  // namespace squall::http::detail
