// WireCapture: the bytes of each HTTP exchange as they crossed the wire, for archives (WARC).
//
//   struct Recorder : http::WireCapture { ... };
//   Recorder recorder;
//   HttpRequest req;
//   req.capture = &recorder;  // unset (null): the client does no capture work at all
//   co_await client.fetch(std::move(req));
//
// The client calls the capture of a request, on the fetch's loop, for every exchange it puts on a
// connection: each redirect hop is one, and so is a request resent on a new connection after a
// pooled one turned out to be closed (that first exchange ends incomplete). The bytes are those
// of the HTTP messages, above TLS: what the client wrote (the head with the fields it added, the
// body with its chunk framing) and what it read (every response head, 1xx included, then the
// body as framed, transfer and content codings intact, trailers included). A CONNECT to a proxy
// is not an exchange of the request and is not captured. Views are valid only during the call.
// The capture must outlive the fetch; its calls must not throw.
#pragma once

#include <string_view>

#include "squall/url/url.h"

namespace squall::http {

class WireCapture {
 public:
  virtual ~WireCapture() = default;

  // An exchange begins on a connection to `peer` (as the stream names it: "127.0.0.1:80", or
  // "example.com (93.184.216.34:443)"; the proxy's when one forwards the request) for `url`, the
  // hop's target.
  virtual void begin(const Url& url, std::string_view peer) = 0;
  // Request bytes as written, in order.
  virtual void sent(std::string_view bytes) = 0;
  // Response bytes as read, in order.
  virtual void received(std::string_view bytes) = 0;
  // The response's body with its transfer coding removed and its content coding kept (the
  // "entity-body" that WARC's payload digest covers), in order, as it is read.
  virtual void payload(std::string_view bytes) = 0;
  // The exchange ended: `complete` when the whole response was read, false when it failed.
  virtual void end(bool complete) = 0;
};

}  // namespace squall::http
