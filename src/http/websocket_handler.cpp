// WebSocketHandler: the opening handshake on a route, then the message loop.
#include "squall/http/websocket_handler.h"

#include "squall/core/log.h"
#include "squall/core/spawn.h"
#include "squall/url/url.h"

namespace squall::http {

Task<void> WebSocketHandler::open() {
  return Task<void>::ready();
}

Task<void> WebSocketHandler::on_message(WsMessage) {
  return Task<void>::ready();
}

void WebSocketHandler::on_ping(std::string_view) {}
void WebSocketHandler::on_pong(std::string_view) {}

bool WebSocketHandler::check_origin(std::string_view origin) {
  std::optional<std::string_view> host = request().raw().header("Host");
  if (!host) return false;
  UrlResult from = Url::parse(origin);
  UrlResult self = Url::parse(std::string("http://").append(*host));
  if (!from || !self) return false;
  // Host and port as serialized (lower case, default port dropped); the scheme may differ, as
  // behind a TLS-terminating proxy.
  return from->host() == self->host() && from->effective_port() == self->effective_port();
}

std::optional<std::string> WebSocketHandler::select_subprotocol(const std::vector<std::string>&) {
  return std::nullopt;
}

std::optional<WsCompressionOptions> WebSocketHandler::compression_options() const {
  return std::nullopt;
}

WebSocketOptions WebSocketHandler::websocket_options() const {
  return {};
}

Task<void> WebSocketHandler::get() {
  bool opened = co_await accept();
  if (!opened) co_return;
  response().raw().on_server_stop([this] { going_away(); });
  co_await serve(*ws_);
}

// RFC 6455 7.4.1's code for a server going down, on a task of its own: the closing handshake
// ends the handler's read loop as a close from the peer would, within close_timeout.
void WebSocketHandler::going_away() {
  if (ws_->closed()) return;
  spawn(ws_->close(ws_close::kGoingAway, "the server is shutting down"));
}

// The handshake is a coroutine of its own, so that the request's fields copied for it and the
// offers parsed from them are gone before the connection begins to wait for messages.
Task<bool> WebSocketHandler::accept() {
  ServerRequest& raw = request().raw();
  RequestHead head;
  head.method = std::string(raw.method());
  head.version = raw.version();
  // From the views, not raw.headers(): that copy would stay with the request for as long as
  // the connection is open.
  head.headers.reserve(raw.header_views().size());
  for (const HeaderView& h : raw.header_views()) head.headers.add(h.name, h.value);
  WsUpgrade upgrade;
  if (std::optional<WsRefusal> refusal = read_ws_upgrade(head, upgrade)) {
    set_status(refusal->head.status);
    for (const Header& h : refusal->head.headers) set_header(h.name, h.value);
    co_await write(refusal->message + "\n");
    co_return false;
  }
  if (upgrade.origin && !check_origin(*upgrade.origin)) {
    set_status(403);
    co_await write("Cross origin websockets not allowed\n");
    co_return false;
  }
  std::string protocol;
  if (std::optional<std::string> chosen = select_subprotocol(upgrade.protocols)) {
    bool offered = false;
    for (const std::string& p : upgrade.protocols) offered = offered || p == *chosen;
    if (!offered) throw InvalidStateError("select_subprotocol chose one the client did not offer");
    protocol = std::move(*chosen);
  }
  WebSocketOptions options = websocket_options();
  std::optional<WsDeflateParams> deflate;
  if (std::optional<WsCompressionOptions> compression = compression_options()) {
    deflate = choose_ws_deflate(upgrade.extensions, compression->no_context_takeover);
    options.compression_level = compression->level;
  }

  Stream stream =
      co_await response().raw().upgrade(ws_accept_response(upgrade.key, protocol, deflate));
  ws_.emplace(std::move(stream), WebSocket::Role::Server, options, deflate, protocol);
  ws_->set_ping_callback([this](std::string_view data) { on_ping(data); });
  ws_->set_pong_callback([this](std::string_view data) { on_pong(data); });
  co_return true;
}

// open(), then each message, then on_close(); an exception from a hook closes with 1011.
Task<void> WebSocketHandler::serve(WebSocket& ws) {
  std::exception_ptr failure;
  bool closing = false;
  try {
    co_await open();
    for (;;) {
      std::optional<WsMessage> message = co_await ws.read_message();
      if (!message) break;
      co_await on_message(std::move(*message));
    }
  } catch (const CancelledError&) {
    on_close();
    throw;
  } catch (const WebSocketClosedError&) {
    closing = true;
  } catch (...) {
    failure = std::current_exception();
  }
  if (closing) {
    // A hook wrote after the close had begun (the server stopping, say): no failure, the end
    // of the closing handshake is all that is left.
    for (;;) {
      std::optional<WsMessage> dropped = co_await ws.read_message();
      if (!dropped) break;
    }
  }
  if (failure) {
    log(LogLevel::Error, std::string("WebSocket handler for ")
                             .append(request().raw().target())
                             .append(" failed: ")
                             .append(exception_message(failure)));
    co_await ws.close(ws_close::kInternalError, "internal error");
  }
  on_close();
}

Task<void> WebSocketHandler::write_message(std::string_view data, bool binary) {
  if (!ws_) throw WebSocketClosedError("write_message before the WebSocket is open");
  return ws_->write_message(data, binary);
}

Task<void> WebSocketHandler::ping(std::string_view data) {
  if (!ws_) throw WebSocketClosedError("ping before the WebSocket is open");
  return ws_->ping(data);
}

Task<void> WebSocketHandler::close(uint16_t code, std::string_view reason) {
  if (!ws_) throw WebSocketClosedError("close before the WebSocket is open");
  return ws_->close(code, reason);
}

std::optional<uint16_t> WebSocketHandler::close_code() const noexcept {
  return ws_ ? ws_->close_code() : std::nullopt;
}

std::string_view WebSocketHandler::close_reason() const noexcept {
  return ws_ ? ws_->close_reason() : std::string_view();
}

const std::string& WebSocketHandler::selected_subprotocol() const noexcept {
  static const std::string none;
  return ws_ ? ws_->selected_subprotocol() : none;
}

WebSocket& WebSocketHandler::websocket() {
  if (!ws_) throw InvalidStateError("websocket() before the WebSocket is open");
  return *ws_;
}

}  // namespace squall::http
