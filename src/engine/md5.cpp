// MD5, as RFC 1321 specifies it: four rounds of sixteen steps over each 64-byte block.
#include "md5.h"

#include <bit>
#include <cstring>

namespace squall::detail {
namespace {

// floor(2^32 * |sin(i + 1)|), the step constants.
constexpr uint32_t kSine[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

// The left rotations of each round's four steps.
constexpr int kShift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

struct State {
  uint32_t a = 0x67452301, b = 0xefcdab89, c = 0x98badcfe, d = 0x10325476;

  void block(const uint8_t* p) {
    uint32_t m[16];
    for (int i = 0; i < 16; ++i) m[i] = load_le32(p + 4 * i);
    uint32_t A = a, B = b, C = c, D = d;
    // One step: the round's function of B, C and D, then the rotation the spec gives.
    auto step = [&](uint32_t f, int i, int word, int shift) {
      uint32_t sum = A + f + kSine[i] + m[word];
      A = D;
      D = C;
      C = B;
      B = B + std::rotl(sum, shift);
    };
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) step((B & C) | (~B & D), i, i, kShift[0][i % 4]);
#pragma GCC unroll 16
    for (int i = 16; i < 32; ++i) step((D & B) | (~D & C), i, (5 * i + 1) % 16, kShift[1][i % 4]);
#pragma GCC unroll 16
    for (int i = 32; i < 48; ++i) step(B ^ C ^ D, i, (3 * i + 5) % 16, kShift[2][i % 4]);
#pragma GCC unroll 16
    for (int i = 48; i < 64; ++i) step(C ^ (B | ~D), i, (7 * i) % 16, kShift[3][i % 4]);
    a += A;
    b += B;
    c += C;
    d += D;
  }
};

void store_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

std::array<uint8_t, 16> md5(std::string_view data) noexcept {
  State s;
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  for (; n >= 64; n -= 64, p += 64) s.block(p);
  // The tail: the rest, a 1 bit, zeros to 56 bytes of a block, the length in bits (64 bits,
  // little-endian); one block, or two when fewer than 9 bytes are left for the 1 and the length.
  uint8_t tail[128] = {};
  if (n) std::memcpy(tail, p, n);
  tail[n] = 0x80;
  size_t blocks = n < 56 ? 1 : 2;
  uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[blocks * 64 - 8 + i] = static_cast<uint8_t>(bits >> (8 * i));
  s.block(tail);
  if (blocks == 2) s.block(tail + 64);
  std::array<uint8_t, 16> digest;
  store_le32(digest.data(), s.a);
  store_le32(digest.data() + 4, s.b);
  store_le32(digest.data() + 8, s.c);
  store_le32(digest.data() + 12, s.d);
  return digest;
}

}  // namespace squall::detail
