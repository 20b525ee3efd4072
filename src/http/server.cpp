// HttpServer, and the request and response its handlers see.
#include "squall/http/server.h"

#include <algorithm>

#include "server_connection.h"
#include "squall/core/error.h"

namespace squall::http {

// --- ServerRequest ---------------------------------------------------------------------------

std::optional<std::string_view> ServerRequest::header(std::string_view name) const noexcept {
  for (const HeaderView& h : fields_)
    if (h.name.size() == name.size() && iequals(h.name, name)) return h.value;
  return std::nullopt;
}

const Headers& ServerRequest::headers() const {
  if (!headers_) {
    headers_.emplace();
    headers_->reserve(fields_.size());
    for (const HeaderView& h : fields_) headers_->add(h.name, h.value);
  }
  return *headers_;
}

const std::string& ServerRequest::peer() const noexcept {
  return exchange_->peer();
}

bool ServerRequest::has_body() const noexcept {
  const Framing& f = exchange_->framing();
  return f.kind == BodyKind::Chunked || (f.kind == BodyKind::Length && f.length > 0);
}

std::optional<uint64_t> ServerRequest::content_length() const noexcept {
  const Framing& f = exchange_->framing();
  if (f.kind == BodyKind::Length) return f.length;
  return std::nullopt;
}

bool ServerRequest::body_complete() const noexcept {
  return exchange_->body_done();
}

const Headers& ServerRequest::trailers() const noexcept {
  return exchange_->trailers();
}

Task<size_t> ServerRequest::read_body(std::span<char> into) {
  return exchange_->read_body(into);
}

Task<std::string> ServerRequest::body() {
  std::string out;
  if (exchange_->body_done()) co_return out;
  // A declared length is a promise the client may not keep: grow towards it as bytes arrive
  // rather than allocating it up front.
  std::optional<uint64_t> length = content_length();
  constexpr size_t kFirst = 64 * 1024;
  size_t used = 0;
  out.resize(length ? static_cast<size_t>(std::min<uint64_t>(*length, kFirst)) : kFirst);
  for (;;) {
    if (used == out.size()) {
      size_t grown = out.size() * 2;
      if (length) grown = static_cast<size_t>(std::min<uint64_t>(grown, *length));
      out.resize(grown);
    }
    used += co_await exchange_->read_body({out.data() + used, out.size() - used});
    if (exchange_->body_done()) break;
  }
  out.resize(used);
  co_return out;
}

// --- ServerResponse --------------------------------------------------------------------------

void ServerResponse::set_status(int status, std::string_view reason) {
  if (headers_sent_) throw InvalidStateError("set_status() after the head was sent");
  if (status < 100 || status > 999) throw InvalidArgumentError("a status code has three digits");
  for (char c : reason)
    if (c == '\r' || c == '\n' || c == '\0')
      throw InvalidArgumentError("a reason phrase holds no CR, LF or NUL");
  status_ = status;
  reason_.assign(reason);
}

Task<void> ServerResponse::write(std::string_view bytes) {
  return exchange_->write(bytes);
}

Task<void> ServerResponse::flush() {
  return exchange_->flush(false);
}

Task<void> ServerResponse::finish() {
  return exchange_->finish();
}

Task<void> ServerResponse::send_file(int fd, off_t offset, size_t count) {
  return exchange_->send_file(fd, offset, count);
}

Task<Stream> ServerResponse::upgrade(const ResponseHead& head) {
  return exchange_->upgrade(head);
}

void ServerResponse::on_server_stop(std::function<void()> hook) {
  exchange_->on_server_stop(std::move(hook));
}

// --- HttpServer ------------------------------------------------------------------------------

HttpServer::HttpServer(Handler handler, HttpServerOptions options, Loop& loop)
    : shared_(
          std::make_shared<detail::ServerShared>(std::move(handler), std::move(options), loop)) {
  if (shared_->options.max_headers == 0)
    throw InvalidArgumentError("HttpServerOptions: max_headers must be > 0");
  ServerOptions tcp = shared_->options.tcp;
  tcp.max_connections = shared_->options.max_connections;
  tcp.stream.write_timeout = shared_->options.write_timeout;
  tcp_ = std::make_unique<TcpServer>(
      [s = shared_](Stream& stream) { return detail::Connection::serve(s, stream); }, tcp, loop);
}

HttpServer::~HttpServer() = default;

void HttpServer::listen(const Address& address) {
  tcp_->listen(address);
}

const Address& HttpServer::address() const noexcept {
  return tcp_->address();
}

Task<void> HttpServer::stop(Timeout grace) {
  std::shared_ptr<detail::ServerShared> s = shared_;
  s->stopping = true;
  // Connections between requests close now; those mid-request finish (with Connection: close).
  while (detail::Connection* c = s->idle.pop_front()) c->close_stream();
  // Handlers that asked to hear of it (an open WebSocket's close 1001).
  while (detail::Exchange* x = s->stop_hooks.pop_front()) x->run_stop_hook();
  co_await tcp_->stop(grace);
}

size_t HttpServer::connection_count() const noexcept {
  return tcp_->connection_count();
}

uint64_t HttpServer::requests_served() const noexcept {
  return shared_->served.load(std::memory_order_relaxed);
}

}  // namespace squall::http
