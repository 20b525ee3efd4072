// Transport: the raw byte pipe under a Stream (plain TCP now, TLS later), and its TCP form.
//
// A transport only moves bytes and never buffers or waits: the Stream engine (stream.h) does
// all buffering, limits and waiting, and watches fd() for readiness. An operation that cannot
// proceed returns EAGAIN and says which readiness would unblock it (a TLS read may need the
// socket writable, to send a handshake record), so a TLS transport slots in without the
// engine changing.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "squall/core/loop.h"
#include "squall/net/socket.h"

namespace squall {

class Transport {
 public:
  virtual ~Transport() = default;

  // The descriptor whose readiness the stream watches; -1 once closed.
  virtual int fd() const noexcept = 0;
  // The peer as error messages name it: "127.0.0.1:80", or "example.com (93.184.216.34:443)".
  virtual const std::string& peer() const noexcept = 0;

  // Reads what is available into `into`: bytes > 0, or error 0 with 0 bytes at end of stream,
  // or an errno (EAGAIN: see blocked_on()).
  virtual IoResult read(std::span<char> into) noexcept = 0;
  // Writes a prefix of the gathered buffers; EAGAIN when nothing could be written.
  virtual IoResult write(std::span<const iovec> from) noexcept = 0;
  // After an EAGAIN: the readiness that would let the operation go on (Read or Write).
  virtual IoEvents blocked_on(bool reading) const noexcept {
    return reading ? IoEvents::Read : IoEvents::Write;
  }
  // Ends our direction (FIN, or TLS close_notify then FIN); 0 or an errno.
  virtual int shutdown_write() noexcept = 0;
  // Releases the descriptor at once; later calls fail with EBADF.
  virtual void close() noexcept = 0;
};

// Plain TCP: the calls go straight to the socket.
class TcpTransport final : public Transport {
 public:
  TcpTransport(Socket socket, std::string peer) noexcept
      : socket_(std::move(socket)), peer_(std::move(peer)) {}

  int fd() const noexcept override { return socket_.fd(); }
  const std::string& peer() const noexcept override { return peer_; }
  IoResult read(std::span<char> into) noexcept override { return socket_.read(into); }
  IoResult write(std::span<const iovec> from) noexcept override { return socket_.write(from); }
  int shutdown_write() noexcept override { return socket_.shutdown_write(); }
  void close() noexcept override { socket_.close(); }

  Socket& socket() noexcept { return socket_; }

 private:
  Socket socket_;
  std::string peer_;
};

}  // namespace squall
