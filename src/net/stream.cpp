// The stream engine: one read buffer, one write queue, one edge-triggered registration.
#include "squall/net/stream.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/thread_cache.h"
#include "squall/net/net_error.h"

namespace squall {

namespace detail {

// Read buffers of the size a default stream asks for, kept per thread for the next stream
// that needs one. A stream gives its buffer back whenever it is empty and waits for the
// socket, so an idle connection holds none, and a busy loop passes a few buffers between its
// streams instead of asking malloc for 64 KiB per request.
constexpr size_t kReadBlock = size_t{64} << 10;
using ReadBuffers = ThreadCache<std::unique_ptr<char[]>, 16>;

std::unique_ptr<char[]> take_read_block() {
  std::unique_ptr<char[]> block = ReadBuffers::take();
  return block ? std::move(block) : std::make_unique_for_overwrite<char[]>(kReadBlock);
}

class StreamCore {
 public:
  StreamCore(std::unique_ptr<Transport> transport, StreamOptions options, Loop& loop)
      : loop_(&loop), transport_(std::move(transport)), options_(options), fd_(transport_->fd()) {
    if (options_.read_chunk_size == 0 || options_.max_buffer_size == 0)
      throw InvalidArgumentError("StreamOptions: read_chunk_size and max_buffer_size must be > 0");
    // Edge-triggered for the stream's whole life: no epoll_ctl per read or write. The rule
    // that keeps this correct: an operation waits only after the transport said EAGAIN.
    loop_->add_handler(fd_, IoEvents::Read | IoEvents::Write | IoEvents::Edge,
                       [this](IoEvents events) { on_events(events); });
  }
  ~StreamCore() {
    close(nullptr);
    begin_ = end_ = 0;
    release_buffer();
  }

  // --- read buffer ---
  std::string_view view() const noexcept { return {buf_.get() + begin_, end_ - begin_}; }
  std::span<char> mutable_view() noexcept { return {buf_.get() + begin_, end_ - begin_}; }
  size_t size() const noexcept { return end_ - begin_; }
  void consume(size_t n) noexcept {
    begin_ += std::min(n, size());
    if (begin_ == end_) begin_ = end_ = 0;
  }
  std::string take(size_t n) {
    std::string bytes(buf_.get() + begin_, n);
    consume(n);
    return bytes;
  }
  // Room for at least `want` more bytes at the tail: compacting first, growing if need be.
  std::span<char> reserve(size_t want) {
    if (cap_ - end_ >= want) return {buf_.get() + end_, cap_ - end_};
    size_t used = size();
    if (cap_ - used >= want) {
      std::memmove(buf_.get(), buf_.get() + begin_, used);
    } else {
      size_t cap = std::max({cap_ * 2, used + want, size_t{4096}});
      cap = std::min(cap, std::max(options_.max_buffer_size, used + want));
      auto grown =
          cap == kReadBlock ? take_read_block() : std::make_unique_for_overwrite<char[]>(cap);
      if (used) std::memcpy(grown.get(), buf_.get() + begin_, used);
      if (cap_ == kReadBlock) ReadBuffers::give(std::move(buf_));
      buf_ = std::move(grown);
      cap_ = cap;
    }
    begin_ = 0;
    end_ = used;
    return {buf_.get() + end_, cap_ - end_};
  }

  // Gives the read buffer up while it holds nothing (the next read takes one again).
  void release_buffer() noexcept {
    if (size() != 0 || !buf_) return;
    if (cap_ == kReadBlock) ReadBuffers::give(std::move(buf_));
    buf_.reset();
    cap_ = begin_ = end_ = 0;
  }

  // One read from the transport. A read after which the transport says it is drained (a
  // short read from a socket) leaves the stream not readable until the next edge (nginx's
  // `rev->ready = 0`), which saves the read that would only say EAGAIN. Once the peer's end or
  // an error has been signalled, no edge is left to come, so reads go on until they see it.
  IoResult read_once(std::span<const iovec> into) noexcept {
    IoResult r = transport_->read(into);
    if (r.bytes > 0 && !hangup_seen_) {
      size_t asked = 0;
      for (const iovec& v : into) asked += v.iov_len;
      if (transport_->drained(asked, r.bytes)) readable_ = false;
    }
    return r;
  }

  // After a read that stored nothing: true at end of stream (the buffer is given back); throws
  // a read failure (closing the stream); otherwise notes what the transport waits for, and the
  // caller waits for it.
  bool read_came_empty(const IoResult& r) {
    if (r.error == 0) {
      eof_ = true;
      release_buffer();
      return true;
    }
    if (!r.would_block()) std::rethrow_exception(fail(NetPhase::Read, r.error));
    read_blocked_on_ = transport_->blocked_on(true);
    return false;
  }

  // The exception for an operation on a closed stream: the close reason if there is one.
  std::exception_ptr closed_error(NetPhase phase) const {
    if (reason_) return reason_;
    return std::make_exception_ptr(
        NetError(ErrorKind::Closed, phase, transport_->peer(), "the stream is closed"));
  }
  // An I/O failure: closes the stream with it as the reason and returns it.
  std::exception_ptr fail(NetPhase phase, int error) {
    if (auto e = transport_->failure(phase, error)) {
      close(e);
      return e;
    }
    ErrorKind kind = error == ECONNRESET || error == EPIPE || error == ENOTCONN ? ErrorKind::Closed
                                                                                : ErrorKind::System;
    auto e = std::make_exception_ptr(
        NetError(kind, phase, transport_->peer(), describe_errno(error), error));
    close(e);
    return e;
  }
  std::exception_ptr fail(NetError error) {
    auto e = std::make_exception_ptr(std::move(error));
    close(e);
    return e;
  }

  // When a write that starts waiting now gives up.
  TimePoint write_deadline() const noexcept {
    return options_.write_timeout ? Loop::time() + *options_.write_timeout : TimePoint::max();
  }
  NetError write_timed_out() const {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(*options_.write_timeout);
    return NetError(ErrorKind::Timeout, NetPhase::Write, transport_->peer(),
                    "the peer took none of the bytes written for " + std::to_string(ms.count()) +
                        " ms (write_timeout)");
  }

  // Sends queued bytes until the queue is empty or the transport would block; 0 or an errno.
  int flush_now() noexcept {
    while (!out_empty()) {
      iovec iov[64];
      size_t n = 0;
      size_t offset = out_offset_;
      for (size_t i = out_head_; i < out_.size() && n < std::size(iov); ++i, ++n) {
        iov[n].iov_base = out_[i].data() + offset;
        iov[n].iov_len = out_[i].size() - offset;
        offset = 0;
      }
      IoResult r = transport_->write({iov, n});
      if (r.would_block()) {
        writable_ = false;
        write_blocked_on_ = transport_->blocked_on(false);
        return 0;
      }
      if (r.error) return r.error;
      pending_ -= r.bytes;
      for (size_t left = r.bytes; left > 0;) {
        size_t avail = out_[out_head_].size() - out_offset_;
        if (left < avail) {
          out_offset_ += left;
          break;
        }
        left -= avail;
        out_pop();
        out_offset_ = 0;
      }
    }
    return 0;
  }

  // The write queue is out_[out_head_..]: a vector that allocates only once something has to
  // wait, with sent chunks freed at once and their slots reclaimed in batches.
  bool out_empty() const noexcept { return out_head_ == out_.size(); }
  void out_pop() noexcept {
    std::string().swap(out_[out_head_]);
    if (++out_head_ == out_.size()) {
      out_.clear();
      out_head_ = 0;
    } else if (out_head_ >= 32 && out_head_ * 2 >= out_.size()) {
      out_.erase(out_.begin(), out_.begin() + static_cast<ptrdiff_t>(out_head_));
      out_head_ = 0;
    }
  }

  // Queues bytes and sends what the transport takes now; null, or the failure.
  std::exception_ptr enqueue(std::string_view bytes, std::string* owned) {
    if (closed_) return closed_error(NetPhase::Write);
    if (write_shut_)
      return std::make_exception_ptr(NetError(ErrorKind::Closed, NetPhase::Write,
                                              transport_->peer(),
                                              "the stream's writing side was shut down"));
    if (bytes.empty()) return nullptr;
    size_t sent = 0;
    if (out_empty() && writable_) {
      // Nothing queued: hand the bytes to the transport straight from the caller, and copy
      // only what it did not take.
      iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
      IoResult r = transport_->write({&iov, 1});
      if (r.would_block()) {
        writable_ = false;
        write_blocked_on_ = transport_->blocked_on(false);
      } else if (r.error) {
        return fail(NetPhase::Write, r.error);
      } else {
        sent = r.bytes;
      }
      if (sent == bytes.size()) return nullptr;
    }
    // Small writes join the last queued chunk (one iovec, not many); big ones are moved in.
    constexpr size_t kCoalesce = 16 * 1024;
    if (!out_empty() && out_.back().size() + bytes.size() <= kCoalesce) {
      out_.back().append(bytes);
    } else if (owned) {
      out_.push_back(std::move(*owned));
      if (sent > 0) out_offset_ = sent;  // the queue was empty: this is its front
    } else {
      out_.emplace_back(bytes.substr(sent));
    }
    pending_ += bytes.size() - sent;
    if (!writable_) return nullptr;  // the next writability event sends it
    if (int error = flush_now()) return fail(NetPhase::Write, error);
    return nullptr;
  }

  void close(std::exception_ptr reason) noexcept {
    if (closed_) return;
    closed_ = true;
    reason_ = std::move(reason);
    loop_->remove_handler(fd_);
    transport_->close();
    std::vector<std::string>().swap(out_);
    out_head_ = out_offset_ = pending_ = 0;
    wake_all(readers_);
    wake_all(writers_);
    wake_all(write_ready_);
  }

  void on_events(IoEvents events);
  void wake_writers() noexcept;
  static void wake_all(IntrusiveList<Waiter>& list) noexcept {
    while (Waiter* w = list.pop_front()) w->wake();
  }

  Loop* loop_;
  std::unique_ptr<Transport> transport_;
  StreamOptions options_;
  int fd_;

  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0, begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool reading_ = false;
  // False after a short read drained the socket, true again at the next read edge.
  bool readable_ = true;
  bool hangup_seen_ = false;  // the peer's end or an error was signalled
  IoEvents read_blocked_on_ = IoEvents::Read;
  IntrusiveList<Waiter> readers_;

  std::vector<std::string> out_;
  size_t out_head_ = 0;
  size_t out_offset_ = 0;  // bytes of out_[out_head_] already sent
  size_t pending_ = 0;
  bool writable_ = true;
  bool write_shut_ = false;
  IoEvents write_blocked_on_ = IoEvents::Write;
  IntrusiveList<Waiter> writers_;      // WriteWait nodes
  IntrusiveList<Waiter> write_ready_;  // send_file waiting for the transport to take more

  bool closed_ = false;
  std::exception_ptr reason_;
};

namespace {

constexpr IoEvents kTrouble = IoEvents::Error | IoEvents::Hangup;

// Waits for the descriptor to change (readable, or whatever the transport is blocked on).
class ReadWait final : public Waiter {
 public:
  explicit ReadWait(StreamCore& c) noexcept : c_(c) {}
  bool await_ready() const noexcept { return c_.closed_; }
  bool await_suspend(std::coroutine_handle<> h) { return suspend_in(c_.readers_, h); }
  void await_resume() { finish(); }

 private:
  StreamCore& c_;
};

}  // namespace

// Waits until at most `threshold` bytes are pending (or the stream closes).
class WriteWait final : public Waiter {
 public:
  WriteWait(StreamCore& c, size_t threshold) noexcept : c_(c), threshold_(threshold) {}
  bool await_ready() const noexcept { return c_.closed_ || c_.pending_ <= threshold_; }
  bool await_suspend(std::coroutine_handle<> h) {
    return suspend_in(c_.writers_, h, c_.write_deadline());
  }
  // Throws (and closes the stream) when write_timeout passed first.
  void await_resume() {
    if (finish()) std::rethrow_exception(c_.fail(c_.write_timed_out()));
  }
  size_t threshold() const noexcept { return threshold_; }

 private:
  StreamCore& c_;
  size_t threshold_;
};

void StreamCore::wake_writers() noexcept {
  for (Waiter* w = writers_.front(); w;) {
    Waiter* next = IntrusiveList<Waiter>::next(*w);
    if (pending_ <= static_cast<WriteWait*>(w)->threshold()) w->wake();
    w = next;
  }
}

void StreamCore::on_events(IoEvents events) {
  if (closed_) return;
  if (any(events & IoEvents::Write)) writable_ = true;
  if (pending_ > 0 && any(events & (write_blocked_on_ | kTrouble))) {
    writable_ = true;
    if (int error = flush_now()) {
      fail(NetPhase::Write, error);
      return;
    }
    wake_writers();
  }
  if (any(events & (write_blocked_on_ | kTrouble))) wake_all(write_ready_);
  if (any(events & kTrouble)) hangup_seen_ = true;
  if (any(events & (read_blocked_on_ | kTrouble))) {
    readable_ = true;
    wake_all(readers_);
  }
}

namespace {

// One read operation at a time.
class ReadGuard {
 public:
  explicit ReadGuard(StreamCore& c) : c_(c) {
    if (c_.reading_)
      throw InvalidStateError("stream from " + c_.transport_->peer() +
                              ": a read is already in progress");
    c_.reading_ = true;
  }
  ~ReadGuard() { c_.reading_ = false; }
  ReadGuard(const ReadGuard&) = delete;
  ReadGuard& operator=(const ReadGuard&) = delete;

 private:
  StreamCore& c_;
};

// How many bytes past the caller's span read_some lets one read put in the buffer. Any room
// at all makes a read that empties the socket a short one, which spares the next read its
// EAGAIN (see read_once); little room means that a bulk reader copies few bytes twice.
constexpr size_t kSpill = 4096;

// Reads into `into` once the transport has something: bytes stored, 0 at end of stream. Bytes
// past `into` may land in the buffer, which must be empty.
Task<size_t> read_some(StreamCore& c, std::span<char> into) {
  for (;;) {
    if (c.eof_) co_return 0;
    if (c.closed_) std::rethrow_exception(c.closed_error(NetPhase::Read));
    if (c.readable_) {
      std::span<char> spill =
          c.reserve(std::min(c.options_.read_chunk_size, c.options_.max_buffer_size));
      iovec iov[2] = {{into.data(), into.size()},
                      {spill.data(), std::min({spill.size(), kSpill, c.options_.max_buffer_size})}};
      IoResult r = c.read_once(iov);
      if (r.bytes > into.size()) {
        c.end_ += r.bytes - into.size();
        co_return into.size();
      }
      if (r.bytes > 0) {
        c.release_buffer();  // nothing spilled: an idle stream holds no buffer
        co_return r.bytes;
      }
      if (c.read_came_empty(r)) co_return 0;
    } else {
      c.read_blocked_on_ = IoEvents::Read;
    }
    c.release_buffer();
    co_await ReadWait(c);
  }
}

// Reads more into the buffer: bytes added, 0 at end of stream; TooLarge when it is full.
// `own_read`: this is the whole read (read_more), so fill takes the read guard itself rather
// than a caller holding it (one coroutine frame per read_more instead of two).
Task<size_t> fill(StreamCore& c, bool own_read = false) {
  std::optional<ReadGuard> guard;
  if (own_read) guard.emplace(c);
  size_t used = c.size();
  size_t limit = c.options_.max_buffer_size;
  if (used >= limit && !c.eof_) {
    std::rethrow_exception(
        c.fail(NetError(ErrorKind::TooLarge, NetPhase::Read, c.transport_->peer(),
                        "the read buffer is full (max_buffer_size " + std::to_string(limit) +
                            " bytes): the peer sent more than this stream may hold")));
  }
  for (;;) {
    if (c.eof_) co_return 0;
    if (c.closed_) std::rethrow_exception(c.closed_error(NetPhase::Read));
    if (c.readable_) {
      std::span<char> tail = c.reserve(std::min(c.options_.read_chunk_size, limit - used));
      tail = tail.first(std::min(tail.size(), limit - used));
      iovec iov{tail.data(), tail.size()};
      IoResult r = c.read_once({&iov, 1});
      if (r.bytes > 0) {
        c.end_ += r.bytes;
        co_return r.bytes;
      }
      if (c.read_came_empty(r)) co_return 0;
    } else {
      c.read_blocked_on_ = IoEvents::Read;
    }
    // An idle stream keeps no buffer while it waits (it takes one again when bytes come).
    c.release_buffer();
    co_await ReadWait(c);
  }
}

NetError ended_early(StreamCore& c, std::string_view what) {
  return NetError(ErrorKind::Closed, NetPhase::Read, c.transport_->peer(),
                  "the peer closed the connection " + std::string(what));
}

// Waits until the transport may take more (after it said EAGAIN), or the stream closes.
class WritableWait final : public Waiter {
 public:
  explicit WritableWait(StreamCore& c) noexcept : c_(c) {}
  bool await_ready() const noexcept { return c_.closed_; }
  bool await_suspend(std::coroutine_handle<> h) {
    return suspend_in(c_.write_ready_, h, c_.write_deadline());
  }
  // Throws (and closes the stream) when write_timeout passed first.
  void await_resume() {
    if (finish()) std::rethrow_exception(c_.fail(c_.write_timed_out()));
  }

 private:
  StreamCore& c_;
};

// The transport that stays behind in a stream whose transport was handed over: it keeps the
// peer's name for messages and refuses every operation.
class HandedOver final : public Transport {
 public:
  explicit HandedOver(std::string peer) noexcept : peer_(std::move(peer)) {}
  int fd() const noexcept override { return -1; }
  const std::string& peer() const noexcept override { return peer_; }
  IoResult read(std::span<const iovec>) noexcept override { return {0, EBADF}; }
  IoResult write(std::span<const iovec>) noexcept override { return {0, EBADF}; }
  int shutdown_write() noexcept override { return EBADF; }
  void close() noexcept override {}

 private:
  std::string peer_;
};

// Reads the file with pread (retrying EINTR): bytes, 0 at its end; throws SystemError.
size_t read_file(int file_fd, std::span<char> into, off_t offset) {
  for (;;) {
    ssize_t n = ::pread(file_fd, into.data(), into.size(), offset);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) throw SystemError("pread", errno);
  }
}

Task<void> wait_drained(StreamCore& c, size_t threshold) {
  for (;;) {
    if (c.closed_) std::rethrow_exception(c.closed_error(NetPhase::Write));
    if (c.pending_ <= threshold) co_return;
    WriteWait wait(c, threshold);
    co_await wait;
  }
}

// Waits until at most `threshold` bytes are pending: a ready task (no coroutine frame) when
// that is already so, as after most writes.
Task<void> drain(StreamCore& c, size_t threshold) {
  if (!c.closed_ && c.pending_ <= threshold) return Task<void>::ready();
  return wait_drained(c, threshold);
}

NetError file_ended(StreamCore& c, size_t sent, size_t count) {
  return NetError(ErrorKind::System, NetPhase::Write, c.transport_->peer(),
                  "the file ended after " + std::to_string(sent) + " of the " +
                      std::to_string(count) + " bytes to send (was it truncated?)");
}

// send_file over a transport without sendfile: pread + write, under the high-water mark.
Task<void> copy_file(StreamCore& c, int file_fd, off_t offset, size_t sent, size_t count) {
  while (sent < count) {
    if (c.closed_) std::rethrow_exception(c.closed_error(NetPhase::Write));
    std::string chunk(std::min(count - sent, c.options_.read_chunk_size), '\0');
    size_t n = read_file(file_fd, chunk, offset + static_cast<off_t>(sent));
    if (n == 0) std::rethrow_exception(c.fail(file_ended(c, sent, count)));
    chunk.resize(n);
    sent += n;
    if (auto error = c.enqueue(chunk, &chunk)) std::rethrow_exception(error);
    co_await drain(c, c.options_.write_high_water);
  }
  co_await drain(c, 0);
}

Task<void> failed(std::exception_ptr error) {
  std::rethrow_exception(error);
  co_return;
}

}  // namespace
}  // namespace detail

using detail::StreamCore;

Stream::Stream(std::unique_ptr<Transport> transport, StreamOptions options, Loop& loop)
    : core_(std::make_unique<StreamCore>(std::move(transport), options, loop)) {}
Stream::Stream(Stream&& other) noexcept = default;
Stream& Stream::operator=(Stream&& other) noexcept = default;
Stream::~Stream() = default;

const std::string& Stream::peer() const noexcept {
  return core_->transport_->peer();
}
const StreamOptions& Stream::options() const noexcept {
  return core_->options_;
}
Loop& Stream::loop() const noexcept {
  return *core_->loop_;
}
const TlsInfo* Stream::tls() const noexcept {
  return core_->transport_->tls();
}

Task<std::string> Stream::read_until(std::string_view delimiter, size_t max_bytes) {
  StreamCore& c = *core_;
  detail::ReadGuard guard(c);
  if (delimiter.empty()) throw InvalidArgumentError("read_until: empty delimiter");
  std::string delim(delimiter);  // the caller's view need not outlive the first suspension
  size_t scan = 0;
  for (;;) {
    std::string_view view = c.view();
    size_t pos = view.find(delim, scan);
    size_t end = pos == std::string_view::npos ? view.size() : pos + delim.size();
    if (end > max_bytes || (pos == std::string_view::npos && view.size() >= max_bytes)) {
      std::rethrow_exception(c.fail(NetError(
          ErrorKind::TooLarge, NetPhase::Read, c.transport_->peer(),
          "the delimiter did not come within max_bytes (" + std::to_string(max_bytes) + ")")));
    }
    if (pos != std::string_view::npos) co_return c.take(end);
    scan = view.size() >= delim.size() ? view.size() - delim.size() + 1 : 0;
    if (co_await detail::fill(c) == 0) {
      throw detail::ended_early(
          c, "before the delimiter arrived (" + std::to_string(c.size()) + " bytes buffered)");
    }
  }
}

Task<std::string> Stream::read_bytes(size_t n, bool partial) {
  StreamCore& c = *core_;
  detail::ReadGuard guard(c);
  if (n == 0) co_return std::string();
  for (;;) {
    size_t have = c.size();
    if (have >= n || (partial && have > 0)) co_return c.take(std::min(n, have));
    if (co_await detail::fill(c) == 0) {
      throw detail::ended_early(c, "after " + std::to_string(c.size()) + " of the " +
                                       std::to_string(n) + " bytes asked for");
    }
  }
}

Task<std::string> Stream::read_until_close() {
  StreamCore& c = *core_;
  detail::ReadGuard guard(c);
  while (co_await detail::fill(c) > 0) {
  }
  co_return c.take(c.size());
}

Task<size_t> Stream::read_into(std::span<char> into, bool partial) {
  StreamCore& c = *core_;
  detail::ReadGuard guard(c);
  size_t got = std::min(into.size(), c.size());
  if (got) std::memcpy(into.data(), c.view().data(), got);
  c.consume(got);
  while (got < into.size() && !(partial && got > 0)) {
    size_t n = co_await detail::read_some(c, into.subspan(got));
    if (n == 0) {
      throw detail::ended_early(c, "after " + std::to_string(got) + " of the " +
                                       std::to_string(into.size()) + " bytes asked for");
    }
    got += n;
  }
  co_return got;
}

std::string_view Stream::buffered() const noexcept {
  return core_->view();
}
std::span<char> Stream::mutable_buffered() noexcept {
  return core_->mutable_view();
}
void Stream::consume(size_t n) noexcept {
  core_->consume(n);
}

Task<size_t> Stream::read_more() {
  return detail::fill(*core_, true);
}

bool Stream::at_eof() const noexcept {
  return core_->eof_;
}

size_t Stream::buffer_capacity() const noexcept {
  return core_->cap_;
}

bool Stream::check_idle() {
  detail::StreamCore& c = *core_;
  detail::ReadGuard guard(c);
  if (c.closed_ || c.eof_ || c.size() != 0) return false;
  if (!c.readable_) return true;
  std::span<char> room =
      c.reserve(std::min(c.options_.read_chunk_size, c.options_.max_buffer_size));
  iovec iov{room.data(), room.size()};
  IoResult r = c.read_once({&iov, 1});
  if (r.bytes > 0) {
    c.end_ += r.bytes;
    return false;
  }
  c.release_buffer();
  if (r.error == 0) {
    c.eof_ = true;
    return false;
  }
  if (!r.would_block()) {
    c.fail(NetPhase::Read, r.error);
    return false;
  }
  // Drained: the next edge says when there is something again.
  c.read_blocked_on_ = c.transport_->blocked_on(true);
  c.readable_ = false;
  return true;
}

Stream::ReadableAwaiter Stream::wait_readable() {
  StreamCore& c = *core_;
  if (c.reading_)
    throw InvalidStateError("stream from " + c.transport_->peer() +
                            ": a read is already in progress");
  return ReadableAwaiter(c);
}

bool Stream::ReadableAwaiter::await_ready() const noexcept {
  const StreamCore& c = core_;
  return c.size() != 0 || c.readable_ || c.eof_ || c.closed_;
}

bool Stream::ReadableAwaiter::await_suspend(std::coroutine_handle<> h) {
  StreamCore& c = core_;
  // As fill() before its wait: the edge to wait for is the read one, and the buffer goes back.
  c.read_blocked_on_ = IoEvents::Read;
  c.release_buffer();
  return suspend_in(c.readers_, h);
}

Task<void> Stream::write(std::string_view bytes) {
  if (auto error = core_->enqueue(bytes, nullptr)) return detail::failed(error);
  return detail::drain(*core_, core_->options_.write_high_water);
}

Task<void> Stream::write(std::string&& bytes) {
  if (auto error = core_->enqueue(bytes, &bytes)) return detail::failed(error);
  return detail::drain(*core_, core_->options_.write_high_water);
}

Task<void> Stream::flush() {
  return detail::drain(*core_, 0);
}

Task<void> Stream::shutdown_write() {
  StreamCore& c = *core_;
  co_await detail::drain(c, 0);
  if (c.write_shut_) co_return;
  for (;;) {
    if (c.closed_) std::rethrow_exception(c.closed_error(NetPhase::Write));
    int error = c.transport_->shutdown_write();
    if (error == 0) break;
    if (error != EAGAIN) std::rethrow_exception(c.fail(NetPhase::Write, error));
    // TLS: the close_notify record waits for room in the socket.
    c.writable_ = false;
    c.write_blocked_on_ = c.transport_->blocked_on(false);
    detail::WritableWait wait(c);
    co_await wait;
  }
  c.write_shut_ = true;
}

size_t Stream::pending_write_bytes() const noexcept {
  return core_->pending_;
}

Task<void> Stream::send_file(int file_fd, off_t offset, size_t count) {
  StreamCore& c = *core_;
  co_await detail::drain(c, 0);
  if (c.write_shut_) {
    throw NetError(ErrorKind::Closed, NetPhase::Write, c.transport_->peer(),
                   "the stream's writing side was shut down");
  }
  size_t sent = 0;
  while (sent < count) {
    if (c.closed_) std::rethrow_exception(c.closed_error(NetPhase::Write));
    // One call moves at most ~2 GiB on Linux; ask for no more than that.
    size_t ask = std::min(count - sent, size_t{1} << 30);
    IoResult r = c.transport_->send_file(file_fd, offset + static_cast<off_t>(sent), ask);
    if (r.bytes > 0) {
      sent += r.bytes;
      continue;
    }
    if (r.would_block()) {
      c.writable_ = false;
      c.write_blocked_on_ = c.transport_->blocked_on(false);
      detail::WritableWait wait(c);
      co_await wait;
      continue;
    }
    if (r.error == 0) std::rethrow_exception(c.fail(detail::file_ended(c, sent, count)));
    // No sendfile on this transport (TLS), or not from this kind of file: copy.
    if (r.error == ENOTSUP || r.error == EOPNOTSUPP || (r.error == EINVAL && sent == 0)) {
      co_await detail::copy_file(c, file_fd, offset, sent, count);
      co_return;
    }
    std::rethrow_exception(c.fail(NetPhase::Write, r.error));
  }
}

std::unique_ptr<Transport> Stream::release_transport() {
  StreamCore& c = *core_;
  if (c.closed_ || c.reading_ || c.size() != 0 || c.pending_ != 0 || !c.readers_.empty() ||
      !c.writers_.empty() || !c.write_ready_.empty()) {
    throw InvalidStateError("stream from " + c.transport_->peer() +
                            ": the transport can be handed over only from an open stream with "
                            "nothing buffered, nothing queued and no operation in progress");
  }
  c.loop_->remove_handler(c.fd_);
  auto transport = std::exchange(
      c.transport_, std::make_unique<detail::HandedOver>(std::string(c.transport_->peer())));
  c.closed_ = true;
  return transport;
}

void Stream::close(std::exception_ptr reason) noexcept {
  if (core_) core_->close(std::move(reason));
}

bool Stream::closed() const noexcept {
  return core_->closed_;
}
std::exception_ptr Stream::close_reason() const noexcept {
  return core_->reason_;
}

}  // namespace squall
