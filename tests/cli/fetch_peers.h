// The peers both suites of `squall fetch` tests start once: httpbin, and nginx answering "secure"
// over TLS with a self-signed certificate for localhost (127.0.0.1 and ::1 too).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/process.h"

namespace squall::test {

class FetchPeers {
 public:
  // Starts both; `dir` keeps the certificate and nginx's files.
  explicit FetchPeers(const TempDir& dir)
      : httpbin_(start_httpbin(httpbin_port_)),
        cert_(make_self_signed(dir, "server", "localhost")),
        tls_port_(free_port()),
        tls_nginx_(start_tls_nginx(dir, cert_, "location / { return 200 'secure'; }", tls_port_)) {}

  uint16_t httpbin_port() const { return httpbin_port_; }
  // "http://127.0.0.1:<httpbin's port><path>".
  std::string httpbin(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(httpbin_port_) + std::string(path);
  }
  // "https://<host>:<nginx's TLS port>/".
  std::string tls(std::string_view host) const {
    return "https://" + std::string(host) + ":" + std::to_string(tls_port_) + "/";
  }
  const CertFiles& cert() const { return cert_; }

 private:
  uint16_t httpbin_port_ = 0;
  Process httpbin_;
  CertFiles cert_;
  uint16_t tls_port_;
  Process tls_nginx_;
};

}  // namespace squall::test
