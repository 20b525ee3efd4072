// TLS (OpenSSL 3) behind the Stream interface: upgrading a connected stream, client and server.
//
//   TlsClientOptions tls;
//   tls.alpn = {"http/1.1"};
//   Stream s = co_await tcp_connect("example.com", 443, {.tls = tls});   // tcp_client.h
//   Stream s = co_await start_tls(std::move(plain), "example.com");      // after a proxy CONNECT
//   if (const TlsInfo* info = s.tls()) ... info->alpn, info->version, info->session_reused ...
//
// A TLS stream is an ordinary Stream whose transport encrypts: every read, write, limit and
// cancellation rule of stream.h holds unchanged. The handshake runs on the loop before the TLS
// stream exists; nothing is sent in clear after it.
//
// Verification is on by default: the peer's chain must lead to a trusted anchor (the system
// store, or options.ca_file) and the certificate must name the host (DNS name, or IP address
// when the host is an IP literal). SNI is sent for names, never for IP literals (RFC 6066).
//
// Contexts (SSL_CTX) are made once per distinct options on each thread and shared by every
// connection with those options. The client keeps the last session per "<server name>:<port>"
// (a bounded cache per context) and offers it on the next handshake to the same place, so a
// second connection resumes (TlsInfo::session_reused) when the server agrees.
//
// End of stream: a peer that closes TCP without sending close_notify is read as an ordinary
// end of stream (OpenSSL 3's SSL_OP_IGNORE_UNEXPECTED_EOF), as browsers and curl do; the
// framing above (Content-Length, chunked) decides whether the data was complete. Stream's
// shutdown_write() sends close_notify, then FIN; close() sends no close_notify, because it
// would tell the peer that everything was sent, which a close after an error, a timeout or a
// kill does not mean (a server that ends a connection cleanly calls shutdown_write() first).
//
// Errors are TlsError (a NetError of kind Tls and phase Tls) whose failure() says what went
// wrong in a form a program can branch on, and whose message says it in words a user acts
// on: "certificate has expired", "unknown issuer / self-signed certificate (not trusted)",
// "hostname mismatch: certificate is for X, not Y", "handshake timed out after 500 ms",
// "protocol error: <OpenSSL's reason>". The message names no option: the layer above knows what
// its user passes to trust a CA or skip verification (ca_file and verify here, flags in a
// command) and says so. A TLS failure after the handshake (a corrupt record)
// closes the stream with a TlsError as the reason, like any other I/O failure.
//
// Threads: like everything on a loop, a TLS stream belongs to one thread; the context cache is
// per thread, so loops share nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/net_error.h"
#include "squall/net/stream.h"

namespace squall {

struct TlsClientOptions {
  // Chain and host name verification. Off only explicitly (then any certificate is accepted).
  bool verify = true;
  // Trust anchors in PEM used instead of the system store (a test CA, a corporate root).
  std::string ca_file;
  // A client certificate and its key (PEM), for servers that ask for one.
  std::string cert_file, key_file;
  // Protocols offered by ALPN in order of preference, e.g. {"http/1.1"}; none by default.
  std::vector<std::string> alpn;
  // The name sent by SNI and checked against the certificate; by default the host connected to
  // (tcp_connect) or the server_name argument (start_tls).
  std::string server_name;
  // The key under which the session is kept for resumption; "<server name>:<peer port>" if
  // empty (through a proxy, pass "<origin host>:<origin port>").
  std::string session_key;
  // The limit for the handshake alone; none by default.
  Timeout handshake_timeout;
};

struct TlsServerOptions {
  // The certificate (chain) and key (PEM) the server presents.
  std::string cert_file, key_file;
  // Protocols the server accepts by ALPN, in its order of preference; a client offering none of
  // them gets no ALPN answer (the handshake goes on).
  std::vector<std::string> alpn;
  // The limit for each client's handshake; none by default (a TcpServer should set one).
  Timeout handshake_timeout;
};

// What a TLS stream negotiated; Stream::tls() returns it (null on a plain stream).
struct TlsInfo {
  std::string version;      // "TLSv1.3", "TLSv1.2"
  std::string cipher;       // "TLS_AES_256_GCM_SHA384"
  std::string alpn;         // the protocol ALPN chose; empty if none
  std::string server_name;  // the SNI name (sent by the client; received by the server)
  // The subject and issuer of the peer's certificate, when it sent one, as `openssl x509
  // -subject` prints them: "C=US, O=Example, CN=example.com".
  std::string peer_subject;
  std::string peer_issuer;
  bool session_reused = false;
};

// Why a TLS operation failed, for callers that branch on it (an HTTP client maps Untrusted,
// Expired and HostnameMismatch to curl's exit 60 "peer certificate cannot be authenticated",
// the rest of the handshake failures to 35).
enum class TlsFailure {
  Untrusted,         // unknown issuer, self-signed, incomplete chain
  Expired,           // the certificate (or one in its chain) is expired or not yet valid
  HostnameMismatch,  // the certificate does not name the host
  Certificate,       // any other verification failure (revoked, bad signature, bad purpose...)
  Timeout,           // the handshake did not finish within handshake_timeout
  Protocol,          // the peer broke the protocol, no common version or cipher, alert received
  Configuration,     // our own side: a certificate, key or CA file that cannot be loaded
};

// "untrusted", "expired", ... (for logs and tests).
std::string_view tls_failure_name(TlsFailure failure) noexcept;

class TlsError : public NetError {
 public:
  TlsError(TlsFailure failure, std::string peer, std::string_view detail, long verify_result = 0);
  TlsFailure failure() const noexcept { return failure_; }
  // The peer's certificate failed verification (Untrusted, Expired, HostnameMismatch,
  // Certificate): curl's 60, where other handshake failures are its 35.
  bool certificate_problem() const noexcept {
    return failure_ == TlsFailure::Untrusted || failure_ == TlsFailure::Expired ||
           failure_ == TlsFailure::HostnameMismatch || failure_ == TlsFailure::Certificate;
  }
  // OpenSSL's X509_V_* code for certificate failures, 0 otherwise.
  long verify_result() const noexcept { return verify_result_; }

 private:
  TlsFailure failure_;
  long verify_result_;
};

// `co_await start_tls(std::move(plain), "example.com", options)`: runs a client handshake over
// the connected plain TCP stream and returns the TLS stream (Tornado's start_tls). The plain
// stream must have nothing buffered or queued (InvalidStateError otherwise) and is consumed.
// The TLS stream keeps the plain stream's StreamOptions and peer name. `server_name` is the
// host to verify (and SNI) unless options.server_name is set; an IP literal is checked as an
// IP address. Throws TlsError; a kill or timeout closes the socket.
[[nodiscard]] Task<Stream> start_tls(Stream plain, std::string server_name,
                                     TlsClientOptions options);
// The same with default options (an overload, not a default argument: GCC 12 destroys a
// default argument's temporary twice when the call is in a co_await expression).
[[nodiscard]] Task<Stream> start_tls(Stream plain, std::string server_name);

// The server side: runs the handshake as a server and returns the TLS stream. TlsError
// (Configuration) if the certificate or key cannot be loaded, before anything is read.
[[nodiscard]] Task<Stream> start_tls_server(Stream plain, const TlsServerOptions& options);

// Forgets every cached context and session on this thread (tests use it to start cold).
void clear_tls_caches() noexcept;

}  // namespace squall
