// permessage-deflate over zlib's raw deflate streams (RFC 7692 section 7.2).
#include "squall/http/websocket_deflate.h"

#include <zlib.h>

#include <algorithm>
#include <new>
#include <stdexcept>

namespace squall::http {

namespace {

constexpr unsigned char kTail[4] = {0x00, 0x00, 0xFF, 0xFF};
constexpr size_t kChunk = 16 * 1024;

}  // namespace

struct WsDeflater::State {
  z_stream z{};
  ~State() { deflateEnd(&z); }
};

WsDeflater::WsDeflater(int window_bits, bool no_context_takeover, int level)
    : window_bits_(std::clamp(window_bits, 9, 15)),
      level_(level),
      no_context_takeover_(no_context_takeover) {}
WsDeflater::~WsDeflater() = default;
WsDeflater::WsDeflater(WsDeflater&&) noexcept = default;
WsDeflater& WsDeflater::operator=(WsDeflater&&) noexcept = default;

std::string WsDeflater::compress(std::string_view message) {
  if (!state_) {
    auto state = std::make_unique<State>();
    int rc = deflateInit2(&state->z, level_, Z_DEFLATED, -window_bits_, 8, Z_DEFAULT_STRATEGY);
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    if (rc != Z_OK) throw std::invalid_argument("permessage-deflate: bad compression parameters");
    state_ = std::move(state);
  }
  z_stream& z = state_->z;
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(message.data()));
  z.avail_in = static_cast<uInt>(message.size());
  do {
    size_t used = out.size();
    out.resize(used + std::max<size_t>(kChunk, message.size() / 2));
    z.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    z.avail_out = static_cast<uInt>(out.size() - used);
    deflate(&z, Z_SYNC_FLUSH);  // cannot fail on a valid stream with room to write
    out.resize(out.size() - z.avail_out);
  } while (z.avail_out == 0 || z.avail_in > 0);
  // A sync flush ends with an empty stored block, 00 00 FF FF, which the receiver adds back.
  if (out.size() >= 4 && std::equal(out.end() - 4, out.end(), reinterpret_cast<const char*>(kTail)))
    out.resize(out.size() - 4);
  // With nothing new since the last flush zlib writes nothing; but the receiver appends the tail,
  // which is only the end of a stored block: send that block's first byte (RFC 7692 7.2.3.6).
  if (out.empty()) out.push_back('\0');
  if (no_context_takeover_) deflateReset(&z);
  return out;
}

struct WsInflater::State {
  z_stream z{};
  ~State() { inflateEnd(&z); }
};

WsInflater::WsInflater(bool no_context_takeover, uint64_t max_size)
    : no_context_takeover_(no_context_takeover), max_size_(max_size) {}
WsInflater::~WsInflater() = default;
WsInflater::WsInflater(WsInflater&&) noexcept = default;
WsInflater& WsInflater::operator=(WsInflater&&) noexcept = default;

bool WsInflater::inflate_some(const uint8_t* data, size_t size, std::string& out) {
  z_stream& z = state_->z;
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  while (true) {
    // Room for at most one byte past the limit, so a bomb is caught without being inflated.
    uint64_t allowed = max_size_ - message_size_ + 1;
    size_t room = static_cast<size_t>(std::min<uint64_t>(kChunk, allowed));
    size_t used = out.size();
    out.resize(used + room);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + used);
    z.avail_out = static_cast<uInt>(room);
    int rc = inflate(&z, Z_SYNC_FLUSH);
    size_t produced = room - z.avail_out;
    out.resize(used + produced);
    message_size_ += produced;
    if (message_size_ > max_size_) {
      error_ = Error::TooBig;
      return false;
    }
    if (rc == Z_STREAM_END) {
      // A final block (BFINAL): what follows starts a new stream.
      inflateReset(&z);
      if (z.avail_in == 0) return true;
      continue;
    }
    if (rc == Z_BUF_ERROR || (rc == Z_OK && z.avail_in == 0 && z.avail_out > 0)) return true;
    if (rc != Z_OK) {
      error_ = Error::Corrupt;
      return false;
    }
  }
}

bool WsInflater::feed(std::span<const uint8_t> piece, bool message_end, std::string& out) {
  if (error_ != Error::None) return false;
  if (!state_) {
    auto state = std::make_unique<State>();
    int rc = inflateInit2(&state->z, -15);
    if (rc == Z_MEM_ERROR) throw std::bad_alloc();
    if (rc != Z_OK) throw std::runtime_error("permessage-deflate: inflateInit2 failed");
    state_ = std::move(state);
  }
  // zlib counts in 32-bit units: feed large pieces in parts.
  while (piece.size() > (1u << 30)) {
    if (!inflate_some(piece.data(), 1u << 30, out)) return false;
    piece = piece.subspan(1u << 30);
  }
  if (!inflate_some(piece.data(), piece.size(), out)) return false;
  if (!message_end) return true;
  if (!inflate_some(kTail, sizeof kTail, out)) return false;
  message_size_ = 0;
  if (no_context_takeover_) inflateReset(&state_->z);
  return true;
}

}  // namespace squall::http
