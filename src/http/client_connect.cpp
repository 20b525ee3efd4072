// How HttpClient reaches a server: resolve, connect, a CONNECT tunnel through a proxy, TLS; and
// which pooled connections may serve which requests.
#include <algorithm>
#include <array>

#include "client_internal.h"
#include "squall/core/timeout.h"
#include "squall/http/h1_connection.h"
#include "squall/net/net_error.h"
#include "squall/net/stream.h"
#include "squall/net/tcp_client.h"
#include "squall/net/tls.h"

namespace squall::http::detail {

Task<std::vector<Address>> MappingResolver::resolve(std::string host, uint16_t port) {
  auto it = mapping_.find(host);
  if (it != mapping_.end()) host = it->second;
  co_return co_await next_.resolve(std::move(host), port);
}

namespace {

// Addresses already resolved (timed on their own), handed to tcp_connect.
class FixedResolver final : public Resolver {
 public:
  explicit FixedResolver(std::vector<Address> addresses) : addresses_(std::move(addresses)) {}
  Task<std::vector<Address>> resolve(std::string, uint16_t) override { co_return addresses_; }

 private:
  std::vector<Address> addresses_;
};

// Opens a CONNECT tunnel through the proxy on `stream` to the hop's origin.
Task<void> open_tunnel(Stream& stream, const Hop& hop, const Settings& s) {
  std::string authority = hop.target.url.host_port();  // host:port, IPv6 in brackets
  std::string head = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n";
  if (!hop.proxy_authorization.empty()) {
    head += "Proxy-Authorization: ";
    head += hop.proxy_authorization;
    head += "\r\n";
  }
  head += "\r\n";
  co_await stream.write(std::move(head));
  std::array<HeaderView, kMaxFields> storage;
  HeadLimits limits = head_limits(s);
  for (;;) {
    ResponseView view;
    ParseResult p = co_await read_head(stream, view, storage, limits);
    if (p.status == ParseStatus::Incomplete)
      throw NetError(ErrorKind::Closed, NetPhase::Connect, stream.peer(),
                     "the proxy closed the connection instead of opening a tunnel");
    if (p.status != ParseStatus::Ok)
      throw protocol_error(stream, "bad answer to CONNECT", p.status);
    if (view.status >= 100 && view.status < 200) {
      stream.consume(p.consumed);
      continue;
    }
    if (view.status < 200 || view.status >= 300) {
      throw NetError(ErrorKind::Connect, NetPhase::Connect, stream.peer(),
                     "the proxy refused the tunnel to " + authority + ": " +
                         std::to_string(view.status) + " " + std::string(view.reason));
    }
    stream.consume(p.consumed);
    if (!stream.buffered().empty())
      throw NetError(ErrorKind::Protocol, NetPhase::Connect, stream.peer(),
                     "the proxy sent bytes after accepting the tunnel, before TLS began");
    co_return;
  }
}

}  // namespace

Task<std::unique_ptr<PooledConnection>> open_connection(ClientCore& c, const Hop& hop,
                                                        const Settings& s, TimePoint deadline,
                                                        RequestTimes& times) {
  // Through a proxy, the connection goes to the proxy; the origin is reached over it.
  const Target& to = hop.proxy ? *hop.proxy : hop.target;
  TimePoint t0 = Loop::time();
  std::vector<Address> addresses;
  try {
    addresses =
        co_await with_deadline(deadline, c.resolver().resolve(std::string(to.host()), to.port()));
  } catch (const TimeoutError&) {
    if (Loop::time() < deadline) throw;
    throw NetError(ErrorKind::Timeout, NetPhase::Resolve, std::string(to.authority()),
                   "Timeout while connecting: no address within " + milliseconds(deadline - t0));
  }
  TimePoint t1 = Loop::time();
  times.dns = t1 - t0;
  FixedResolver fixed(std::move(addresses));
  ConnectOptions options;
  options.timeout = std::max(Duration::zero(), deadline - t1);
  options.resolver = &fixed;
  options.stream.max_buffer_size = c.options.max_buffer_size;
  Stream stream = co_await tcp_connect(std::string(to.host()), to.port(), options);
  TimePoint t2 = Loop::time();
  times.connect = t2 - t1;
  c.stats.connections_opened++;
  if (hop.tunnelled() || hop.target.https()) {
    auto secure = [&]() -> Task<Stream> {
      if (hop.tunnelled()) co_await open_tunnel(stream, hop, s);
      if (!hop.target.https()) co_return std::move(stream);
      TlsClientOptions tls;
      tls.verify = s.validate_cert;
      tls.ca_file.assign(s.ca_certs);
      tls.cert_file.assign(s.client_cert);
      tls.key_file.assign(s.client_key);
      tls.alpn = {"http/1.1"};
      if (hop.proxy) tls.session_key = hop.target.url.host_port();
      co_return co_await start_tls(std::move(stream), std::string(hop.target.host()),
                                   std::move(tls));
    };
    try {
      stream = co_await with_deadline(deadline, secure());
    } catch (const TimeoutError&) {
      if (Loop::time() < deadline) throw;
      if (!hop.target.https())
        throw NetError(ErrorKind::Timeout, NetPhase::Connect, std::string(to.authority()),
                       "Timeout while connecting: no tunnel through the proxy within " +
                           milliseconds(deadline - t0));
      throw NetError(
          ErrorKind::Timeout, NetPhase::Tls, std::string(hop.target.authority()),
          "Timeout while connecting: no TLS session within " + milliseconds(deadline - t0));
    }
    if (hop.target.https()) times.tls = Loop::time() - t2;
  }
  co_return std::make_unique<PooledConnection>(std::move(stream));
}

// Connections are shared only by requests that would have opened the same one: same origin,
// same proxy, and for https the same verification settings and client certificate (a
// connection verified against one CA must not serve a request that trusts another).
std::string pool_key(const Target& t, const Settings& s) {
  std::string key = t.origin();
  if (!s.proxy.empty()) {
    key += '|';
    key += s.proxy;
  }
  if (t.https()) {
    key += s.validate_cert ? "|verify:" : "|noverify:";
    key += s.ca_certs;
    key += '|';
    key += s.client_cert;
    key += '|';
    key += s.client_key;
  }
  return key;
}

}  // namespace squall::http::detail
