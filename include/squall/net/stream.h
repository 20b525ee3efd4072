// Stream: the buffered, asynchronous byte stream over a transport (Tornado's IOStream).
//
//   std::string line = co_await stream.read_until("\r\n", 8192);
//   std::string body = co_await stream.read_bytes(length);
//   co_await stream.write(reply);          // waits only while too much is pending
//
// One engine does all buffering, limits and waiting; the transport (transport.h) only moves
// bytes. The stream watches its descriptor once, edge-triggered, from construction to close:
// reads and writes make no epoll calls of their own.
//
// Reads. One read operation at a time (a second concurrent one is InvalidStateError). Bytes
// land in one contiguous buffer that a parser may view without copying (buffered(), consume(),
// read_more()). The buffer never holds more than max_buffer_size bytes: a read that would need
// more fails with TooLarge and closes the stream. End of stream from the peer is not a close:
// writes still work (half-close), reads return what is buffered and then fail with Closed.
// Once the transport says it is drained (a socket that returned fewer bytes than asked for,
// TLS whose last socket read was short and that holds no bytes), the next read waits for the
// next readiness edge without a system call. A stream with nothing buffered that waits
// for the socket gives its buffer back (to a small per-thread pool), so an idle connection
// holds none.
//
// Writes. With nothing queued, write() hands the caller's bytes to the socket directly and
// copies only what it did not take; otherwise it queues them behind the rest (gathered, up to
// 64 buffers a call); the rest goes out as the socket drains, driven by the loop. A writer
// awaits only while more than write_high_water bytes are pending, so a slow reader bounds the
// writer's memory. flush() awaits an empty queue.
//
// Errors are NetError (net_error.h) naming the peer and the phase: Closed for end of stream,
// a reset (ECONNRESET) or a closed stream; TooLarge for limits; System for other errnos. An I/O
// failure closes the stream and becomes its close reason: every later operation that needs the
// transport rethrows it (a read that bytes already buffered satisfy still succeeds).
//
// Cancellation: a kill or with_timeout expiry interrupts the wait of any operation; the
// stream stays open and consistent (bytes already buffered stay buffered, bytes queued stay
// queued), and destroying it closes the descriptor. Use with_timeout for time limits.
//
// Threads: a Stream belongs to the loop it was made on. It may be moved while no operation is
// in progress; it must not be destroyed while another task waits in one of its operations.
#pragma once

#include <cstddef>
#include <exception>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <sys/types.h>

#include "squall/core/loop.h"
#include "squall/core/task.h"
#include "squall/net/net_error.h"
#include "squall/net/transport.h"

namespace squall {

struct StreamOptions {
  // The most bytes the read buffer may hold (Tornado's max_buffer_size).
  size_t max_buffer_size = size_t{100} << 20;
  // How much one read system call asks for.
  size_t read_chunk_size = size_t{64} << 10;
  // A writer awaits while more than this many bytes are queued and unsent.
  size_t write_high_water = size_t{1} << 20;
  // The longest a write may wait for the peer to take bytes (nginx's send_timeout): past it the
  // stream closes and the write fails with a Timeout NetError. No limit when empty.
  Timeout write_timeout;
};

namespace detail {
class StreamCore;
}

class Stream {
 public:
  // Takes the transport (connected, non-blocking) and starts watching its descriptor on
  // `loop`. Throws SystemError if the loop refuses the descriptor.
  explicit Stream(std::unique_ptr<Transport> transport, StreamOptions options = {},
                  Loop& loop = Loop::current());
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  // Closes the stream (unsent bytes are dropped).
  ~Stream();

  const std::string& peer() const noexcept;
  const StreamOptions& options() const noexcept;
  Loop& loop() const noexcept;
  // What TLS negotiated (tls.h), or null for a plain stream.
  const TlsInfo* tls() const noexcept;

  // --- reading ---------------------------------------------------------------------------

  // The bytes up to and including the first `delimiter`. TooLarge (and the stream closes) if
  // the delimiter does not end within the first `max_bytes` bytes; Closed if the stream ends
  // before it arrives (the partial bytes stay buffered()).
  [[nodiscard]] Task<std::string> read_until(std::string_view delimiter,
                                             size_t max_bytes = std::numeric_limits<size_t>::max());
  // Exactly `n` bytes; with `partial`, as soon as at least one is available, at most `n`.
  // Closed if the stream ends first (partial: if it ends with nothing buffered).
  [[nodiscard]] Task<std::string> read_bytes(size_t n, bool partial = false);
  // Everything until the peer ends the stream (nothing lost: a reset after data is an error).
  [[nodiscard]] Task<std::string> read_until_close();
  // Fills `into` (with `partial`, returns once at least one byte is there); returns the bytes
  // stored. Buffered bytes are copied first; the rest is read straight into `into` (a read
  // may leave a few bytes that follow them in the buffer, for the next read).
  [[nodiscard]] Task<size_t> read_into(std::span<char> into, bool partial = false);

  // Zero-copy access for parsers: the bytes read and not yet consumed, valid until the next
  // read operation or consume().
  std::string_view buffered() const noexcept;
  // The same bytes, writable, for parsers that decode in place (a WebSocket unmasks frames where
  // they arrived). Valid as long as buffered()'s view.
  std::span<char> mutable_buffered() noexcept;
  void consume(size_t n) noexcept;
  // Reads at least one more byte into the buffer; returns how many arrived, 0 at end of stream.
  // TooLarge if the buffer already holds max_buffer_size bytes.
  [[nodiscard]] Task<size_t> read_more();
  // The peer ended its direction and every byte it sent was read into the buffer.
  bool at_eof() const noexcept;
  // Bytes the read buffer has room for. 0 while nothing is buffered and the stream waits for
  // the socket: an idle stream holds no buffer, and takes one again when bytes arrive.
  size_t buffer_capacity() const noexcept;
  // Without waiting, whether an idle stream may carry another exchange: true when it is open,
  // has nothing buffered, the peer has not ended it and a read now finds nothing to take. The
  // read is made only when a readiness edge came since the transport was last drained (or it
  // never was): a stream nothing was heard from costs no system call, so the answer is as
  // fresh as the loop's last poll. What the read finds is kept as a read keeps it: the end of
  // stream (at_eof()), a failure (the stream closes with it), bytes (buffered). Not while a read
  // is in progress (InvalidStateError).
  bool check_idle();

  // Waits until a read may find something: returns at once when bytes are buffered, the
  // stream is closed or at its end, or the last read did not drain the transport; otherwise at
  // the transport's next readiness. It reads nothing (a read after it may still wait: TLS that
  // got part of a record) and has no coroutine frame of its own, so a connection idle between
  // requests holds neither a frame nor a buffer for it. InvalidStateError while a read is in
  // progress. Cancellable like every wait; throws nothing else (the next read reports errors).
  class ReadableAwaiter;
  [[nodiscard]] ReadableAwaiter wait_readable();

  // --- writing ---------------------------------------------------------------------------

  // Queues `bytes` (copied, or moved for the std::string overload) at the call, so their order
  // is the order of the calls, and the task returns once at most write_high_water bytes are
  // pending. Throws (from the task) the close reason or Closed if the stream is closed or
  // write-shut; a failed send is a Write NetError and closes the stream.
  [[nodiscard]] Task<void> write(std::string_view bytes);
  [[nodiscard]] Task<void> write(std::string&& bytes);
  [[nodiscard]] Task<void> write(const char* bytes) { return write(std::string_view(bytes)); }
  // Returns once every queued byte has been handed to the system.
  [[nodiscard]] Task<void> flush();
  // flush(), then ends our direction (the peer reads end of stream); reading goes on.
  [[nodiscard]] Task<void> shutdown_write();
  // Bytes queued and not yet handed to the system.
  size_t pending_write_bytes() const noexcept;

  // Sends `count` bytes of the open file `file_fd` from `offset` (the file's own offset is not
  // used or moved): flushes what is queued first, then hands the file to the system with
  // sendfile(2), waiting on writability like write(); over TLS it copies instead (pread, then
  // write, one read_chunk_size piece at a time under the high-water mark). Returns once every
  // byte is handed to the system. Throws like write(); a file that ends before `count` bytes
  // is a System NetError and closes the stream (the peer's framing is broken). Cancellable
  // like every wait: the stream then stays open, but how much of the file went out is unknown,
  // so a caller that cannot tell its peer should close it.
  [[nodiscard]] Task<void> send_file(int file_fd, off_t offset, size_t count);

  // --- handing over ----------------------------------------------------------------------

  // Stops watching the descriptor and gives up the transport, open, to a new owner (start_tls
  // wraps its socket). The stream must be open, with nothing buffered, nothing queued and no
  // operation in progress (InvalidStateError otherwise); it is closed afterwards.
  std::unique_ptr<Transport> release_transport();

  // --- closing ---------------------------------------------------------------------------

  // Closes now: stops watching, closes the descriptor, drops unsent bytes, and wakes every
  // waiting operation, which throws `reason` (by default a Closed NetError). Idempotent; the
  // first reason is kept.
  void close(std::exception_ptr reason = nullptr) noexcept;
  bool closed() const noexcept;
  // Why the stream closed (null while open): what later operations throw.
  std::exception_ptr close_reason() const noexcept;

 private:
  std::unique_ptr<detail::StreamCore> core_;
};

class Stream::ReadableAwaiter final : public detail::Waiter {
 public:
  explicit ReadableAwaiter(detail::StreamCore& core) noexcept : core_(core) {}
  bool await_ready() const noexcept;
  bool await_suspend(std::coroutine_handle<> h);
  void await_resume() { finish(); }

 private:
  detail::StreamCore& core_;
};

}  // namespace squall
