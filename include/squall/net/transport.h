// Transport: the raw byte pipe under a Stream (plain TCP or TLS), and its TCP form.
//
// A transport only moves bytes and never buffers or waits: the Stream engine (stream.h) does
// all buffering, limits and waiting, and watches fd() for readiness. An operation that cannot
// proceed returns EAGAIN and says which readiness would unblock it (a TLS read may need the
// socket writable, to send a handshake record), so a TLS transport slots in without the
// engine changing.
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <exception>
#include <memory>
#include <span>
#include <string>

#include "squall/core/loop.h"
#include "squall/net/net_error.h"
#include "squall/net/socket.h"

namespace squall {

struct TlsInfo;  // tls.h

class Transport {
 public:
  virtual ~Transport() = default;

  // The descriptor whose readiness the stream watches; -1 once closed.
  virtual int fd() const noexcept = 0;
  // The peer as error messages name it: "127.0.0.1:80", or "example.com (93.184.216.34:443)".
  virtual const std::string& peer() const noexcept = 0;

  // Reads what is available into the buffers, filling them in order (a transport may fill
  // only the first): bytes > 0, or error 0 with 0 bytes at end of stream, or an errno (EAGAIN:
  // see blocked_on()).
  virtual IoResult read(std::span<const iovec> into) noexcept = 0;
  // Writes a prefix of the gathered buffers; EAGAIN when nothing could be written.
  virtual IoResult write(std::span<const iovec> from) noexcept = 0;
  // Asked right after a read that returned `got` > 0 bytes of the `asked`: true if the
  // descriptor had nothing more to give and the transport holds no bytes of its own that the
  // descriptor's readiness does not show, so that another read would only hear EAGAIN until the
  // next readiness edge. The stream then waits for that edge instead of reading. false is
  // always safe (it costs that read); true when it is not so loses the bytes' wake-up.
  virtual bool drained(size_t /*asked*/, size_t /*got*/) const noexcept { return false; }
  // After an EAGAIN: the readiness that would let the operation go on (Read or Write).
  virtual IoEvents blocked_on(bool reading) const noexcept {
    return reading ? IoEvents::Read : IoEvents::Write;
  }
  // Ends our direction (FIN, or TLS close_notify then FIN); 0 or an errno.
  virtual int shutdown_write() noexcept = 0;
  // Releases the descriptor at once; later calls fail with EBADF.
  virtual void close() noexcept = 0;

  // Sends up to `count` bytes of `file_fd` from `offset` without passing them through user
  // space: bytes > 0, error 0 with 0 bytes if the file ends at `offset`, or an errno (EAGAIN:
  // see blocked_on(false)). ENOTSUP when the transport cannot (TLS): the stream copies instead.
  virtual IoResult send_file(int /*file_fd*/, off_t /*offset*/, size_t /*count*/) noexcept {
    return {0, ENOTSUP};
  }
  // The exception that describes an error this transport returned, when an errno alone would
  // not say it (a TLS alert, a bad record); null to let the stream describe the errno.
  virtual std::exception_ptr failure(NetPhase /*phase*/, int /*error*/) const { return nullptr; }
  // What TLS negotiated; null for a plain transport.
  virtual const TlsInfo* tls() const noexcept { return nullptr; }
  // Gives up the socket underneath so another transport can take it over (start_tls); an
  // empty Socket if this transport cannot.
  virtual Socket release_socket() noexcept { return Socket(); }
};

// Plain TCP: the calls go straight to the socket.
class TcpTransport final : public Transport {
 public:
  TcpTransport(Socket socket, std::string peer) noexcept
      : socket_(std::move(socket)), peer_(std::move(peer)) {}

  int fd() const noexcept override { return socket_.fd(); }
  const std::string& peer() const noexcept override { return peer_; }
  IoResult read(std::span<const iovec> into) noexcept override { return socket_.read(into); }
  IoResult write(std::span<const iovec> from) noexcept override { return socket_.write(from); }
  // A socket read shorter than asked took everything there was.
  bool drained(size_t asked, size_t got) const noexcept override { return got < asked; }
  int shutdown_write() noexcept override { return socket_.shutdown_write(); }
  void close() noexcept override { socket_.close(); }
  // sendfile(2).
  IoResult send_file(int file_fd, off_t offset, size_t count) noexcept override;
  Socket release_socket() noexcept override { return std::move(socket_); }

  Socket& socket() noexcept { return socket_; }

 private:
  Socket socket_;
  std::string peer_;
};

}  // namespace squall
