// TLS over OpenSSL 3: the cached contexts, the session cache, the transport and the handshake.
#include "squall/net/tls.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstring>
#include <list>
#include <memory>
#include <unordered_map>

#include "squall/core/error.h"
#include "squall/core/io.h"
#include "squall/net/address.h"
#include "squall/net/transport.h"

namespace squall {

std::string_view tls_failure_name(TlsFailure failure) noexcept {
  switch (failure) {
    case TlsFailure::Untrusted:
      return "untrusted";
    case TlsFailure::Expired:
      return "expired";
    case TlsFailure::HostnameMismatch:
      return "hostname mismatch";
    case TlsFailure::Certificate:
      return "certificate";
    case TlsFailure::Timeout:
      return "timeout";
    case TlsFailure::Protocol:
      return "protocol";
    case TlsFailure::Configuration:
      return "configuration";
  }
  return "unknown";
}

TlsError::TlsError(TlsFailure failure, std::string peer, std::string_view detail,
                   long verify_result)
    : NetError(ErrorKind::Tls, NetPhase::Tls, std::move(peer), detail),
      failure_(failure),
      verify_result_(verify_result) {}

namespace detail {
namespace {

// OpenSSL's error queue in words: the reasons of every queued error, oldest first, distinct,
// joined by "; " (the queue is emptied). Empty if nothing was queued.
std::string openssl_reasons() {
  std::string text;
  while (unsigned long code = ERR_get_error()) {
    const char* reason = ERR_reason_error_string(code);
    std::string one = reason ? reason : "error code " + std::to_string(ERR_GET_REASON(code));
    if (text.find(one) != std::string::npos) continue;
    if (!text.empty()) text += "; ";
    text += one;
  }
  return text;
}

std::string milliseconds(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + " ms";
}

// ALPN's wire format: each protocol prefixed by its length.
std::string alpn_wire(const std::vector<std::string>& protocols) {
  std::string wire;
  for (const auto& p : protocols) {
    if (p.empty() || p.size() > 255)
      throw InvalidArgumentError("TLS: an ALPN protocol name must have 1 to 255 bytes");
    wire += static_cast<char>(p.size());
    wire += p;
  }
  return wire;
}

struct CtxFree {
  void operator()(SSL_CTX* ctx) const noexcept { SSL_CTX_free(ctx); }
};
struct SessionFree {
  void operator()(SSL_SESSION* s) const noexcept { SSL_SESSION_free(s); }
};
using CtxPtr = std::unique_ptr<SSL_CTX, CtxFree>;
using SessionPtr = std::unique_ptr<SSL_SESSION, SessionFree>;

TlsError config_error(const std::string& what) {
  std::string detail = what;
  std::string reasons = openssl_reasons();
  if (!reasons.empty()) {
    detail += ": ";
    detail += reasons;
  }
  return TlsError(TlsFailure::Configuration, "local configuration", detail);
}

CtxPtr new_context(const SSL_METHOD* method) {
  CtxPtr ctx(SSL_CTX_new(method));
  if (!ctx) throw config_error("cannot create an OpenSSL context");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // A peer that closes without close_notify reads as end of stream: the framing above decides
  // whether that was complete (see tls.h).
  SSL_CTX_set_options(ctx.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  // The stream hands over what its queue holds and retries from wherever that is after it was
  // moved or grown; a record written is progress reported at once.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Read ahead: OpenSSL asks the socket for as much as its buffer holds, not for a record's
  // 5-byte header and then its body (two reads a record), and a short read tells the stream
  // that the socket is drained (TlsTransport::drained).
  SSL_CTX_set_read_ahead(ctx.get(), 1);
  return ctx;
}

void load_certificate(SSL_CTX* ctx, const std::string& cert_file, const std::string& key_file) {
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1)
    throw config_error("cannot load the certificate file " + cert_file);
  const std::string& key = key_file.empty() ? cert_file : key_file;
  if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1)
    throw config_error("cannot load the key file " + key);
  if (SSL_CTX_check_private_key(ctx) != 1)
    throw config_error("the key in " + key + " does not match the certificate in " + cert_file);
}

// A distinguished name on one line: "C=US, O=Example, CN=example.com".
std::string name_text(const X509_NAME* name) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (!bio || X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_ONELINE & ~XN_FLAG_SPC_EQ) < 0)
    return {};
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

// The names a certificate is for (DNS and IP subjectAltNames, else its common name).
std::string certificate_names(X509* cert) {
  std::string names;
  auto add = [&](std::string name) {
    if (!names.empty()) names += ", ";
    names += name;
  };
  if (!cert) return "(no certificate)";
  auto* sans =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (sans) {
    for (int i = 0; i < sk_GENERAL_NAME_num(sans); ++i) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(sans, i);
      if (name->type == GEN_DNS) {
        const ASN1_STRING* s = name->d.dNSName;
        add(std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                        static_cast<size_t>(ASN1_STRING_length(s))));
      } else if (name->type == GEN_IPADD) {
        const ASN1_STRING* s = name->d.iPAddress;
        char text[INET6_ADDRSTRLEN] = {};
        int family = ASN1_STRING_length(s) == 4 ? AF_INET : AF_INET6;
        if (ASN1_STRING_length(s) == 4 || ASN1_STRING_length(s) == 16) {
          inet_ntop(family, ASN1_STRING_get0_data(s), text, sizeof text);
          add(text);
        }
      }
    }
    GENERAL_NAMES_free(sans);
  }
  if (names.empty()) {
    char cn[256] = {};
    if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn) > 0)
      add(cn);
  }
  return names.empty() ? "(no name)" : names;
}

// A client context and the sessions it may resume, by "<server name>:<port>". Bounded: the
// oldest entry goes when a new one would pass kMaxSessions.
class ClientContext {
 public:
  static constexpr size_t kMaxSessions = 1024;

  explicit ClientContext(const TlsClientOptions& o) : ctx_(new_context(TLS_client_method())) {
    SSL_CTX* ctx = ctx_.get();
    if (o.verify) {
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, &ClientContext::on_verify);
      if (!o.ca_file.empty()) {
        if (SSL_CTX_load_verify_file(ctx, o.ca_file.c_str()) != 1)
          throw config_error("cannot load the CA file " + o.ca_file);
      } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
        throw config_error("cannot load the system's trust store");
      }
    }
    if (!o.cert_file.empty()) load_certificate(ctx, o.cert_file, o.key_file);
    if (!o.alpn.empty()) {
      std::string wire = alpn_wire(o.alpn);
      if (SSL_CTX_set_alpn_protos(ctx, reinterpret_cast<const unsigned char*>(wire.data()),
                                  static_cast<unsigned>(wire.size())) != 0)
        throw config_error("cannot set the ALPN protocols");
    }
    // Sessions are kept here, by place, not in OpenSSL's internal cache (keyed by session id,
    // which a client cannot look up by host).
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, &ClientContext::on_new_session);
  }

  SSL_CTX* get() const noexcept { return ctx_.get(); }

  SSL_SESSION* session(const std::string& key) const {
    auto it = sessions_.find(key);
    return it == sessions_.end() ? nullptr : it->second.session.get();
  }
  void forget(const std::string& key) {
    auto it = sessions_.find(key);
    if (it == sessions_.end()) return;
    order_.erase(it->second.position);
    sessions_.erase(it);
  }
  void keep(const std::string& key, SSL_SESSION* session) {
    forget(key);
    if (sessions_.size() >= kMaxSessions) {
      sessions_.erase(order_.front());
      order_.pop_front();
    }
    auto position = order_.insert(order_.end(), key);
    sessions_.emplace(key, Entry{SessionPtr(session), position});
  }

  // The index of the SSL ex_data slot that points at the connection's session key and context.
  static int slot();

 private:
  struct Entry {
    SessionPtr session;
    std::list<std::string>::iterator position;
  };
  static int on_new_session(SSL* ssl, SSL_SESSION* session);
  static int on_verify(int ok, X509_STORE_CTX* store);

  CtxPtr ctx_;
  std::unordered_map<std::string, Entry> sessions_;
  std::list<std::string> order_;
};

// What a client connection tells the new-session and verify callbacks.
struct SessionSlot {
  ClientContext* context;
  std::string key;
  std::string leaf_names;  // the names of a certificate that failed verification
};

int ClientContext::slot() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

int ClientContext::on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* s = static_cast<SessionSlot*>(SSL_get_ex_data(ssl, slot()));
  if (!s || !SSL_SESSION_is_resumable(session)) return 0;
  s->context->keep(s->key, session);
  return 1;  // the cache owns the reference now
}

// OpenSSL forgets the peer's certificate when verification fails the handshake: keep the
// names of a rejected leaf for the "certificate is for X, not Y" message.
int ClientContext::on_verify(int ok, X509_STORE_CTX* store) {
  if (ok || X509_STORE_CTX_get_error_depth(store) != 0) return ok;
  auto* ssl =
      static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  auto* s = ssl ? static_cast<SessionSlot*>(SSL_get_ex_data(ssl, slot())) : nullptr;
  if (s && s->leaf_names.empty())
    s->leaf_names = certificate_names(X509_STORE_CTX_get_current_cert(store));
  return ok;
}

class ServerContext {
 public:
  explicit ServerContext(const TlsServerOptions& o)
      : ctx_(new_context(TLS_server_method())), alpn_(alpn_wire(o.alpn)) {
    SSL_CTX* ctx = ctx_.get();
    if (o.cert_file.empty())
      throw TlsError(TlsFailure::Configuration, "local configuration",
                     "a TLS server needs a certificate file");
    load_certificate(ctx, o.cert_file, o.key_file);
    static const unsigned char id[] = "squall";
    SSL_CTX_set_session_id_context(ctx, id, sizeof id - 1);
    if (!alpn_.empty()) SSL_CTX_set_alpn_select_cb(ctx, &ServerContext::select_alpn, this);
  }
  SSL_CTX* get() const noexcept { return ctx_.get(); }

 private:
  // The server's order of preference wins; no common protocol means no ALPN answer.
  static int select_alpn(SSL*, const unsigned char** out, unsigned char* out_len,
                         const unsigned char* in, unsigned in_len, void* arg) {
    auto* self = static_cast<ServerContext*>(arg);
    unsigned char* chosen = nullptr;
    int r = SSL_select_next_proto(&chosen, out_len,
                                  reinterpret_cast<const unsigned char*>(self->alpn_.data()),
                                  static_cast<unsigned>(self->alpn_.size()), in, in_len);
    if (r != OPENSSL_NPN_NEGOTIATED) return SSL_TLSEXT_ERR_NOACK;
    *out = chosen;
    return SSL_TLSEXT_ERR_OK;
  }

  CtxPtr ctx_;
  std::string alpn_;
};

// The per-thread caches: one context per distinct options, shared by its connections (and so
// its sessions). Loops share nothing, so neither do their contexts.
struct Caches {
  std::unordered_map<std::string, std::shared_ptr<ClientContext>> clients;
  std::unordered_map<std::string, std::shared_ptr<ServerContext>> servers;
};
thread_local Caches caches;

std::string join_alpn(const std::vector<std::string>& alpn) {
  std::string s;
  for (const auto& p : alpn) {
    s += p;
    s += ',';
  }
  return s;
}

std::shared_ptr<ClientContext> client_context(const TlsClientOptions& o) {
  std::string key = (o.verify ? "v|" : "n|") + o.ca_file + '|' + o.cert_file + '|' + o.key_file +
                    '|' + join_alpn(o.alpn);
  auto& slot = caches.clients[key];
  if (!slot) {
    try {
      slot = std::make_shared<ClientContext>(o);
    } catch (...) {
      caches.clients.erase(key);
      throw;
    }
  }
  return slot;
}

std::shared_ptr<ServerContext> server_context(const TlsServerOptions& o) {
  std::string key = o.cert_file + '|' + o.key_file + '|' + join_alpn(o.alpn);
  auto& slot = caches.servers[key];
  if (!slot) {
    try {
      slot = std::make_shared<ServerContext>(o);
    } catch (...) {
      caches.servers.erase(key);
      throw;
    }
  }
  return slot;
}

// A TLS connection over a socket. OpenSSL reads and writes the socket through a small BIO of
// ours (so writes use Socket's MSG_NOSIGNAL and its one EINTR loop, and errnos are kept), and
// the stream sees only plaintext.
class TlsTransport final : public Transport {
 public:
  TlsTransport(Socket socket, std::string peer)
      : socket_(std::move(socket)), peer_(std::move(peer)) {}
  ~TlsTransport() override { close(); }

  // Makes the SSL object on `ctx`; false (with the OpenSSL queue set) if it cannot.
  void attach(SSL_CTX* ctx) {
    ssl_ = SSL_new(ctx);
    BIO* bio = BIO_new(bio_method());
    if (!ssl_ || !bio) {
      BIO_free(bio);
      throw config_error("cannot create a TLS connection");
    }
    BIO_set_data(bio, this);
    BIO_set_init(bio, 1);
    SSL_set_bio(ssl_, bio, bio);
  }
  SSL* ssl() const noexcept { return ssl_; }

  int fd() const noexcept override { return socket_.fd(); }
  const std::string& peer() const noexcept override { return peer_; }
  const TlsInfo* tls() const noexcept override { return &info_; }
  // SSL_read returns at most one record's bytes, and may leave decrypted bytes or whole
  // records read ahead inside OpenSSL, with no readiness edge to come: drained only when the
  // last socket read of this SSL_read was short and OpenSSL holds nothing, whatever `got` was.
  bool drained(size_t, size_t) const noexcept override {
    return socket_drained_ && SSL_has_pending(ssl_) == 0;
  }

  // One SSL_read into the first buffer: at most one record's bytes anyway.
  IoResult read(std::span<const iovec> buffers) noexcept override {
    if (!ssl_) return {0, EBADF};
    if (buffers.empty() || buffers[0].iov_len == 0) return {};
    std::span<char> into(static_cast<char*>(buffers[0].iov_base), buffers[0].iov_len);
    ERR_clear_error();
    // Only a socket read made by this SSL_read says anything about the socket now: bytes may
    // have arrived (and their edge passed) since an earlier one.
    socket_drained_ = false;
    size_t n = 0;
    int r = SSL_read_ex(ssl_, into.data(), into.size(), &n);
    if (r == 1) return {n, 0};
    return outcome(r, read_wants_);
  }

  IoResult write(std::span<const iovec> from) noexcept override {
    if (!ssl_) return {0, EBADF};
    size_t total = 0;
    for (const iovec& v : from) total += v.iov_len;
    if (total == 0) return {};
    // After a WANT_WRITE, OpenSSL must be offered at least the bytes it was offered before
    // (the same bytes: the stream's queue only grows at its back). Small buffers are gathered
    // into one record's worth; a big first buffer goes as it is.
    size_t want = std::max(retry_len_, std::min(total, kGather));
    const char* data;
    size_t len;
    if (from[0].iov_len >= want) {
      data = static_cast<const char*>(from[0].iov_base);
      len = from[0].iov_len;
    } else {
      gather_.resize(want);
      size_t at = 0;
      for (const iovec& v : from) {
        size_t take = std::min(v.iov_len, want - at);
        std::memcpy(gather_.data() + at, v.iov_base, take);
        at += take;
        if (at == want) break;
      }
      data = gather_.data();
      len = want;
    }
    // SSL_write takes one record a call (partial writes are on): go on record by record
    // while the socket takes them, so that a big write is not cut at 16 KiB and the rest
    // copied into the stream's queue.
    size_t done = 0;
    for (;;) {
      ERR_clear_error();
      size_t n = 0;
      int r = SSL_write_ex(ssl_, data + done, len - done, &n);
      if (r == 1) {
        retry_len_ = 0;
        done += n;
        if (done == len) return {done, 0};
        continue;
      }
      IoResult result = outcome(r, write_wants_);
      if (!result.would_block()) return result;  // the stream closes: no count matters
      retry_len_ = len - done;
      return done > 0 ? IoResult{done, 0} : result;
    }
  }

  IoEvents blocked_on(bool reading) const noexcept override {
    return reading ? read_wants_ : write_wants_;
  }

  int shutdown_write() noexcept override {
    if (!ssl_) return EBADF;
    if (!notify_sent_) {
      ERR_clear_error();
      int r = SSL_shutdown(ssl_);
      if (r < 0) {
        IoResult result = outcome(r, write_wants_);
        if (result.error) return result.error;
      }
      notify_sent_ = true;
    }
    return socket_.shutdown_write();
  }

  // No close_notify here: it tells the peer that everything was sent, which a close (after an
  // error, a timeout, a kill) does not mean. shutdown_write() is the clean end.
  void close() noexcept override {
    if (ssl_) {
      // A quiet shutdown only marks the connection ended: without it, OpenSSL would take the
      // close for an abort and make the session unresumable. (A fatal error already did.)
      if (SSL_is_init_finished(ssl_)) {
        SSL_set_quiet_shutdown(ssl_, 1);
        SSL_shutdown(ssl_);
      }
      ERR_clear_error();
      SSL_free(ssl_);
      ssl_ = nullptr;
    }
    socket_.close();
  }

  std::exception_ptr failure(NetPhase, int error) const override {
    if (error == EPROTO && error_) return error_;
    return nullptr;
  }

  // The handshake, on the loop: waits on the socket between OpenSSL's steps.
  Task<void> handshake(TimePoint deadline, Timeout limit, const std::string& host) {
    for (;;) {
      ERR_clear_error();
      int r = SSL_do_handshake(ssl_);
      if (r == 1) break;
      int e = SSL_get_error(ssl_, r);
      if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) throw handshake_error(e, host);
      Timeout left;
      if (deadline != TimePoint::max()) left = std::max(deadline - Clock::now(), Duration::zero());
      try {
        if (e == SSL_ERROR_WANT_READ) {
          co_await wait_readable(socket_.fd(), left);
        } else {
          co_await wait_writable(socket_.fd(), left);
        }
      } catch (const TimeoutError&) {
        if (Clock::now() < deadline) throw;  // an outer limit, not ours
        throw TlsError(TlsFailure::Timeout, peer_,
                       "handshake timed out after " + milliseconds(*limit) +
                           " (is the peer speaking TLS on this port?)");
      }
    }
    info_.version = SSL_get_version(ssl_);
    if (const SSL_CIPHER* c = SSL_get_current_cipher(ssl_)) info_.cipher = SSL_CIPHER_get_name(c);
    const unsigned char* alpn = nullptr;
    unsigned alpn_len = 0;
    SSL_get0_alpn_selected(ssl_, &alpn, &alpn_len);
    if (alpn) info_.alpn.assign(reinterpret_cast<const char*>(alpn), alpn_len);
    if (const char* name = SSL_get_servername(ssl_, TLSEXT_NAMETYPE_host_name))
      info_.server_name = name;
    info_.session_reused = SSL_session_reused(ssl_) == 1;
    if (X509* cert = SSL_get0_peer_certificate(ssl_)) {
      info_.peer_subject = name_text(X509_get_subject_name(cert));
      info_.peer_issuer = name_text(X509_get_issuer_name(cert));
    }
  }

 private:
  static constexpr size_t kGather = 16 * 1024;  // one TLS record's plaintext

  // An SSL call that did not succeed, as the stream's IoResult.
  IoResult outcome(int r, IoEvents& wants) noexcept {
    switch (SSL_get_error(ssl_, r)) {
      case SSL_ERROR_WANT_READ:
        wants = IoEvents::Read;
        return {0, EAGAIN};
      case SSL_ERROR_WANT_WRITE:
        wants = IoEvents::Write;
        return {0, EAGAIN};
      case SSL_ERROR_ZERO_RETURN:
        return {0, 0};
      case SSL_ERROR_SYSCALL:
        ERR_clear_error();
        // An errno from our BIO, or none: the peer closed where OpenSSL wanted more.
        return {0, socket_error_ ? socket_error_ : ECONNRESET};
      default:
        try {
          error_ = std::make_exception_ptr(
              TlsError(TlsFailure::Protocol, peer_, "protocol error: " + openssl_reasons()));
        } catch (...) {
          error_ = std::current_exception();
        }
        return {0, EPROTO};
    }
  }

  TlsError handshake_error(int e, const std::string& host) {
    if (e == SSL_ERROR_SYSCALL) {
      std::string reasons = openssl_reasons();
      std::string detail = "the peer closed the connection during the handshake";
      if (socket_error_) detail += " (" + describe_errno(socket_error_) + ")";
      if (!reasons.empty()) detail += ": " + reasons;
      return TlsError(TlsFailure::Protocol, peer_, detail);
    }
    long verify = SSL_get_verify_result(ssl_);
    unsigned long last = ERR_peek_last_error();
    bool verify_failed =
        ERR_GET_LIB(last) == ERR_LIB_SSL && ERR_GET_REASON(last) == SSL_R_CERTIFICATE_VERIFY_FAILED;
    if (verify_failed && verify != X509_V_OK) {
      ERR_clear_error();
      std::string why = X509_verify_cert_error_string(verify);
      switch (verify) {
        case X509_V_ERR_CERT_HAS_EXPIRED:
        case X509_V_ERR_CERT_NOT_YET_VALID:
          return TlsError(TlsFailure::Expired, peer_,
                          verify == X509_V_ERR_CERT_HAS_EXPIRED
                              ? "certificate has expired"
                              : "certificate is not yet valid (check the clock)",
                          verify);
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
        case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
          return TlsError(TlsFailure::Untrusted, peer_,
                          "unknown issuer / self-signed certificate (not trusted): " + why, verify);
        case X509_V_ERR_HOSTNAME_MISMATCH:
        case X509_V_ERR_IP_ADDRESS_MISMATCH:
          return TlsError(TlsFailure::HostnameMismatch, peer_,
                          "hostname mismatch: certificate is for " +
                              (session_slot_.leaf_names.empty()
                                   ? certificate_names(SSL_get0_peer_certificate(ssl_))
                                   : session_slot_.leaf_names) +
                              ", not " + host,
                          verify);
        default:
          return TlsError(TlsFailure::Certificate, peer_, "certificate rejected: " + why, verify);
      }
    }
    std::string reasons = openssl_reasons();
    if (reasons.empty()) reasons = "handshake failed";
    return TlsError(TlsFailure::Protocol, peer_, "protocol error: " + reasons);
  }

  // --- the BIO over socket_ ---
  static BIO_METHOD* bio_method() {
    static BIO_METHOD* method = [] {
      BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "squall socket");
      BIO_meth_set_write(m, &bio_write);
      BIO_meth_set_read(m, &bio_read);
      BIO_meth_set_ctrl(m, &bio_ctrl);
      return m;
    }();
    return method;
  }
  static int bio_write(BIO* bio, const char* data, int len) {
    auto* t = static_cast<TlsTransport*>(BIO_get_data(bio));
    BIO_clear_retry_flags(bio);
    iovec v{const_cast<char*>(data), static_cast<size_t>(len)};
    IoResult r = t->socket_.write({&v, 1});
    if (r.would_block()) {
      BIO_set_retry_write(bio);
      return -1;
    }
    if (r.error) {
      t->socket_error_ = r.error;
      return -1;
    }
    return static_cast<int>(r.bytes);
  }
  static int bio_read(BIO* bio, char* data, int len) {
    auto* t = static_cast<TlsTransport*>(BIO_get_data(bio));
    BIO_clear_retry_flags(bio);
    IoResult r = t->socket_.read({data, static_cast<size_t>(len)});
    if (r.would_block()) {
      BIO_set_retry_read(bio);
      return -1;
    }
    if (r.error) {
      t->socket_error_ = r.error;
      return -1;
    }
    if (r.bytes == 0) t->eof_ = true;
    t->socket_drained_ = r.bytes < static_cast<size_t>(len);
    return static_cast<int>(r.bytes);
  }
  static long bio_ctrl(BIO* bio, int cmd, long, void*) {
    auto* t = static_cast<TlsTransport*>(BIO_get_data(bio));
    switch (cmd) {
      case BIO_CTRL_FLUSH:
        return 1;
      case BIO_CTRL_EOF:  // how OpenSSL tells an end of stream from an error
        return t && t->eof_ ? 1 : 0;
      default:
        return 0;
    }
  }

  Socket socket_;
  std::string peer_;
  SSL* ssl_ = nullptr;
  TlsInfo info_;
  IoEvents read_wants_ = IoEvents::Read;
  IoEvents write_wants_ = IoEvents::Write;
  size_t retry_len_ = 0;
  std::string gather_;
  int socket_error_ = 0;
  bool eof_ = false;
  bool socket_drained_ = false;  // the last socket read of the current SSL_read was short
  bool notify_sent_ = false;
  std::exception_ptr error_;

 public:
  // Kept alive for the new-session callback while the connection lives.
  std::shared_ptr<ClientContext> client_context_;
  std::shared_ptr<ServerContext> server_context_;
  SessionSlot session_slot_{};
};

// Takes the socket out of a plain stream (which must have nothing pending).
Socket take_socket(Stream& plain) {
  std::unique_ptr<Transport> transport = plain.release_transport();
  Socket socket = transport->release_socket();
  if (!socket)
    throw InvalidArgumentError("start_tls: the stream from " + transport->peer() +
                               " is not a plain TCP stream");
  return socket;
}

}  // namespace
}  // namespace detail

Task<Stream> start_tls(Stream plain, std::string server_name, TlsClientOptions options) {
  using detail::TlsTransport;
  TimePoint deadline = deadline_after(options.handshake_timeout);
  std::string host = options.server_name.empty() ? std::move(server_name) : options.server_name;
  std::string peer = plain.peer();
  StreamOptions stream_options = plain.options();
  Loop& loop = plain.loop();
  Socket socket = detail::take_socket(plain);
  std::optional<Address> remote = socket.peer_address();
  auto transport = std::make_unique<TlsTransport>(std::move(socket), peer);
  auto context = detail::client_context(options);
  transport->attach(context->get());
  SSL* ssl = transport->ssl();

  bool literal = Address::from_ip(host, 0).has_value();
  if (!literal && !host.empty() && SSL_set_tlsext_host_name(ssl, host.c_str()) != 1)
    throw detail::config_error("cannot use " + host + " as the TLS server name");
  if (options.verify) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    int ok = literal ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
                     : X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
    if (ok != 1) throw detail::config_error("cannot verify the name " + host);
  }
  std::string key = options.session_key;
  if (key.empty()) key = host + ":" + std::to_string(remote ? remote->port() : 0);
  transport->client_context_ = context;
  transport->session_slot_ = {context.get(), key};
  SSL_set_ex_data(ssl, detail::ClientContext::slot(), &transport->session_slot_);
  if (SSL_SESSION* session = context->session(key)) SSL_set_session(ssl, session);
  SSL_set_connect_state(ssl);

  try {
    co_await transport->handshake(deadline, options.handshake_timeout, host);
  } catch (const TlsError&) {
    context->forget(key);  // a session the server refused is not offered again
    throw;
  }
  co_return Stream(std::move(transport), stream_options, loop);
}

Task<Stream> start_tls(Stream plain, std::string server_name) {
  return start_tls(std::move(plain), std::move(server_name), TlsClientOptions{});
}

Task<Stream> start_tls_server(Stream plain, const TlsServerOptions& options) {
  using detail::TlsTransport;
  TimePoint deadline = deadline_after(options.handshake_timeout);
  Timeout limit = options.handshake_timeout;
  auto context = detail::server_context(options);
  std::string peer = plain.peer();
  StreamOptions stream_options = plain.options();
  Loop& loop = plain.loop();
  auto transport = std::make_unique<TlsTransport>(detail::take_socket(plain), peer);
  transport->attach(context->get());
  transport->server_context_ = std::move(context);
  SSL_set_accept_state(transport->ssl());
  co_await transport->handshake(deadline, limit, std::string());
  co_return Stream(std::move(transport), stream_options, loop);
}

void clear_tls_caches() noexcept {
  detail::caches.clients.clear();
  detail::caches.servers.clear();
}

}  // namespace squall
