// websocket_connect: the client's opening handshake on a connection HttpClient opens.
#include "squall/http/websocket_client.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "client_internal.h"
#include "squall/core/timeout.h"
#include "squall/http/h1_connection.h"
#include "squall/http/websocket_handshake.h"
#include "squall/url/url.h"

namespace squall::http {

namespace {

using namespace detail;

// The URL under the HTTP scheme the client's connections speak: ws → http, wss → https.
Target http_target(std::string_view text) {
  UrlResult url = Url::parse(text);
  if (!url) {
    throw InvalidArgumentError("not a URL: " + std::string(text) + " (" +
                               std::string(url_error_message(url.error())) + ")");
  }
  const UrlScheme scheme = url->scheme_kind();
  if (scheme == UrlScheme::Http || scheme == UrlScheme::Https) return Target(std::move(*url));
  if (scheme != UrlScheme::Ws && scheme != UrlScheme::Wss)
    throw InvalidArgumentError("a WebSocket URL is ws:// or wss://, not " + std::string(text));
  std::string as_http = scheme == UrlScheme::Wss ? "https" : "http";
  as_http.append(url->href().substr(url->scheme().size()));
  std::string bad;
  std::optional<Target> target = Target::parse(as_http, bad);
  if (!target) throw InvalidArgumentError("not a WebSocket URL: " + std::string(text) + ": " + bad);
  return std::move(*target);
}

// The answer to the handshake when it is not a 101: HttpError with the head, as Tornado's
// HTTPClientError carries the response.
[[noreturn]] void refused(const ResponseHead& head, const Target& target) {
  auto response = std::make_shared<HttpResponse>();
  response->code = head.status;
  response->reason = head.reason;
  response->headers = head.headers;
  response->effective_url = std::string(target.href());
  std::string message = "WebSocket handshake with " + response->effective_url +
                        " refused: " + std::to_string(head.status) + " " + head.reason;
  throw HttpError(head.status, ErrorKind::Protocol, message, std::move(response));
}

// The options travel by shared pointer, not as a coroutine parameter (see the header).
Task<WebSocket> connect_with(ClientCore& c, std::string url,
                             std::shared_ptr<const WebSocketConnectOptions> shared) {
  const WebSocketConnectOptions& o = *shared;
  HttpRequest request = o.request;
  request.method = "GET";
  request.decompress_response = false;
  const std::string key = ws_new_key();
  for (const Header& h : ws_client_fields(key, o.subprotocols, o.compression))
    request.headers.add(h.name, h.value);
  const Settings s = settle(c.options, request);

  Hop hop{http_target(url)};
  hop.method = request.method;
  hop.headers = &request.headers;
  hop.tunnel = true;
  if (std::optional<std::string> bad = set_proxy(hop, s)) throw InvalidArgumentError(*bad);
  const std::string head = build_head(c, request, s, hop, false, true);

  const TimePoint start = Loop::time();
  const TimePoint answer_by = start + s.request_timeout;
  RequestTimes times;
  std::unique_ptr<PooledConnection> connection =
      co_await open_connection(c, hop, s, std::min(answer_by, start + s.connect_timeout), times);
  Stream stream = std::move(connection->stream);

  std::vector<HeaderView> fields(kMaxFields);
  ResponseView view;
  ParseResult answer;
  try {
    co_await with_deadline(answer_by, stream.write(head));
    // Interim answers other than the 101 itself are skipped, as fetch() skips them.
    for (;;) {
      answer = co_await with_deadline(answer_by, read_head(stream, view, fields, head_limits(s)));
      bool interim = answer.status == ParseStatus::Ok && view.status >= 100 && view.status < 200 &&
                     view.status != 101;
      if (!interim) break;
      stream.consume(answer.consumed);
    }
  } catch (const TimeoutError&) {
    if (Loop::time() < answer_by) throw;
    throw TimeoutError("WebSocket handshake with " + std::string(hop.target.href()) +
                       ": no answer within " + milliseconds(s.request_timeout) +
                       " (request_timeout)");
  }
  if (answer.status == ParseStatus::Incomplete)
    throw NetError(ErrorKind::Closed, NetPhase::Read, stream.peer(),
                   "the server closed the connection instead of answering the WebSocket "
                   "handshake");
  if (answer.status != ParseStatus::Ok)
    throw protocol_error(stream, "bad answer to the WebSocket handshake", answer.status);
  const ResponseHead response = to_head(view);
  stream.consume(answer.consumed);
  if (response.status != 101) refused(response, hop.target);
  WsAccepted accepted;
  if (std::optional<std::string> problem =
          check_ws_accept(response, key, o.subprotocols, o.compression, accepted))
    throw Error(ErrorKind::Protocol, *problem + " (" + std::string(hop.target.href()) + ")");
  co_return WebSocket(std::move(stream), WebSocket::Role::Client, o.websocket, accepted.deflate,
                      accepted.protocol);
}

}  // namespace

Task<WebSocket> websocket_connect(std::string_view url, WebSocketConnectOptions options) {
  HttpClient& client = options.client ? *options.client : HttpClient::shared();
  if (client.closed()) throw InvalidStateError("websocket_connect on a closed HttpClient");
  return connect_with(detail::core_of(client), std::string(url),
                      std::make_shared<const WebSocketConnectOptions>(std::move(options)));
}

}  // namespace squall::http
