// One HTTP/1.1 server connection: reads heads in place, runs the handler per request, frames the
// responses (private to src/http; HttpServer, ServerRequest and ServerResponse are its users).
#pragma once

#include <atomic>
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

struct ServerShared {
  ServerShared(Handler h, HttpServerOptions o, Loop& l)
      : handler(std::move(h)), options(std::move(o)), loop(&l) {}

  // Field storage for heads being served: only connections with a request in progress hold
  // one, so 10,000 idle keep-alive connections cost no field arrays.
  std::unique_ptr<HeaderView[]> take_storage() {
    if (storage_pool.empty()) return std::make_unique<HeaderView[]>(options.max_headers);
    auto s = std::move(storage_pool.back());
    storage_pool.pop_back();
    return s;
  }
  void give_storage(std::unique_ptr<HeaderView[]> s) { storage_pool.push_back(std::move(s)); }

  Handler handler;
  HttpServerOptions options;
  Loop* loop;
  // Written only on the server's loop; read relaxed by HttpWorkers from another thread.
  std::atomic<uint64_t> served{0};
  bool stopping = false;
  squall::detail::IntrusiveList<Connection> idle;  // waiting for the next request's first byte
  std::vector<std::unique_ptr<HeaderView[]>> storage_pool;
};
// One client connection: reads heads, runs the handler per request, frames the responses.
class Connection : public squall::detail::ListHook<Connection> {
 public:
  Connection(ServerShared& s, Stream& stream) : s_(s), o_(s.options), stream_(stream) {
    req_.conn_ = this;
    resp_.conn_ = this;
  }
  ~Connection() {
    if (storage_) s_.give_storage(std::move(storage_));
  }

  Task<void> run();
  void close_stream() noexcept { stream_.close(); }

  // --- used by ServerRequest / ServerResponse ---
  const std::string& peer() const noexcept { return stream_.peer(); }
  Task<size_t> read_body(std::span<char> into);
  bool body_done() const noexcept { return body_.done(); }
  const Framing& framing() const noexcept { return body_.framing(); }
  const Headers& trailers() const noexcept { return body_.trailers(); }
  Task<void> write(std::string_view bytes);
  Task<void> flush(bool finishing);
  Task<void> finish();
  Task<void> send_file(int fd, off_t offset, size_t count);

 private:
  Task<bool> read_head();
  bool setup_request(int& error_status, std::string_view& error_message);
  Task<bool> serve_request();
  Task<void> answer_error(int status, std::string_view message);
  Task<void> drain_body();
  Task<void> close_connection();
  Task<void> fill_body();
  [[noreturn]] void body_error(int status, ErrorKind kind, std::string_view message);
  void pin_head();
  void build_head(std::string& out, bool finishing);
  void append_body(std::string& out, std::string_view data);
  void log_access(int status, uint64_t bytes);
  void reset_response();

  ServerShared& s_;
  const HttpServerOptions& o_;
  Stream& stream_;
  ServerRequest req_;
  ServerResponse resp_;

  // The head in progress: views into the stream's buffer until pin_head() copies them.
  std::unique_ptr<HeaderView[]> storage_;
  RequestView view_;
  const char* head_begin_ = nullptr;
  size_t head_size_ = 0;
  std::string pinned_;
  bool pinned_head_ = false;
  bool head_parsed_ = false;
  // Bytes at the front of stream_.buffered() that this request already used (its head and the
  // body bytes read so far), consumed from the stream only before it reads again.
  size_t skip_ = 0;
  bool first_ = true;
  // The idle and head deadlines, moved for each request without touching the timer heap.
  squall::detail::RollingTimeout timeout_;

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
  bool linger_ = false;  // input may be left unread: close slowly
  std::optional<uint64_t> declared_length_;
  uint64_t sent_body_ = 0;
  std::string out_;
  std::string body_buf_;
  TimePoint start_;
};

// Serves `stream` until the client leaves, the connection fails or the server stops.
Task<void> serve_connection(std::shared_ptr<ServerShared> s, Stream& stream);

}  // namespace squall::http::detail
