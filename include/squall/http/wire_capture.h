// WireCapture: each HTTP exchange of a fetch as it crosses the wire: the connection it goes on,
// the heads and the bytes, for archives (WARC) and traces (squall fetch -v).
//
//   struct Recorder : http::WireCapture { ... };  // overrides only the calls it needs
//   Recorder recorder;
//   HttpRequest req;
//   req.capture = &recorder;  // unset (null): the client does no capture work at all
//   co_await client.fetch(std::move(req));
//
// The client calls the capture of a request, on the fetch's loop, for every exchange it puts on a
// connection: each redirect hop is one, and so is a request resent on a new connection after a
// pooled one turned out to be closed (that first exchange ends incomplete). For each, in order:
// begin; request_head, then sent for the request body; response_head for each response head (1xx
// ones first), then received and payload for the body; end. The bytes are those of the HTTP
// messages, above TLS: what the client wrote (the head with the fields it added, the body with
// its chunk framing) and what it read (the body as framed, transfer and content codings intact,
// trailers included). A CONNECT to a proxy is not an exchange of the request and is not captured.
// Views are valid only during the call. Every call does nothing unless overridden. The capture
// must outlive the fetch; its calls must not throw.
#pragma once

#include <optional>
#include <string_view>

#include "squall/net/address.h"
#include "squall/url/url.h"

namespace squall {
struct TlsInfo;
}

namespace squall::http {

class WireCapture {
 public:
  virtual ~WireCapture() = default;

  // The connection an exchange goes on.
  struct Connection {
    // As the stream names its peer: "127.0.0.1:80", or "example.com (93.184.216.34:443)"; the
    // proxy's when one forwards the request.
    std::string_view peer;
    const TlsInfo* tls = nullptr;  // its TLS session; null over plain TCP
    bool reused = false;           // taken from the pool rather than newly opened

    // The address and port connected to, as the peer's name gives them (93.184.216.34:443 of
    // "example.com (93.184.216.34:443)", [::1]:80 of "[::1]:80"); nullopt when it names none.
    std::optional<Address> address() const;
  };

  // An exchange for `url`, the hop's target, begins on `connection`.
  virtual void begin(const Url& url, const Connection& connection);
  // The request head as written, from the request line to the empty line.
  virtual void request_head(std::string_view head);
  // Request body bytes as written, in order, after the head.
  virtual void sent(std::string_view bytes);
  // A response head as read, from the status line to the empty line.
  virtual void response_head(std::string_view head);
  // Response body bytes as read, in order, after the final head.
  virtual void received(std::string_view bytes);
  // The response's body with its transfer coding removed and its content coding kept (the
  // "entity-body" that WARC's payload digest covers), in order, as it is read.
  virtual void payload(std::string_view bytes);
  // The exchange ended: `complete` when the whole response was read, false when it failed.
  virtual void end(bool complete);
};

}  // namespace squall::http
