// Tests for permessage-deflate (RFC 7692): the RFC's examples, round trips over every window and
// context takeover setting, bounded inflation and corrupt input.
#include "squall/http/websocket_deflate.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace squall::http {
namespace {

using namespace std::literals;

std::span<const uint8_t> bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Inflates `payload` in pieces of `piece` bytes.
std::string inflate_in_pieces(WsInflater& in, std::string_view payload, size_t piece) {
  std::string out;
  size_t at = 0;
  do {
    size_t n = std::min(piece, payload.size() - at);
    bool end = at + n == payload.size();
    EXPECT_TRUE(in.feed(bytes(payload.substr(at, n)), end, out));
    at += n;
  } while (at < payload.size());
  return out;
}

TEST(WebSocketDeflate, InflatesTheRfcExamples) {
  WsInflater in;
  std::string out;
  // 7.2.3.1: "Hello" in one compressed message; 7.2.3.2: the same again, using the first as its
  // window.
  ASSERT_TRUE(in.feed(bytes("\xf2\x48\xcd\xc9\xc9\x07\x00"sv), true, out));
  EXPECT_EQ(out, "Hello");
  out.clear();
  ASSERT_TRUE(in.feed(bytes("\xf2\x00\x11\x00\x00"sv), true, out));
  EXPECT_EQ(out, "Hello");
  // 7.2.3.3: a stored (uncompressed) block.
  WsInflater stored;
  out.clear();
  ASSERT_TRUE(stored.feed(bytes("\x00\x05\x00\xfa\xff\x48\x65\x6c\x6c\x6f\x00"sv), true, out));
  EXPECT_EQ(out, "Hello");
}

TEST(WebSocketDeflate, CompressesTheRfcExample) {
  WsDeflater out;
  EXPECT_EQ(out.compress("Hello"), "\xf2\x48\xcd\xc9\xc9\x07\x00"sv);
}

// Empty messages, first or after others, are still a deflate block the receiver's tail completes
// (7.2.3.6): another implementation's inflater (a fresh zlib one here, fed all payloads in turn)
// reads every message back.
TEST(WebSocketDeflate, EmptyMessagesStayValidBlocks) {
  WsDeflater out;
  WsInflater in;
  for (std::string_view message : {""sv, ""sv, "t"sv, ""sv, "after"sv}) {
    std::string payload = out.compress(message);
    EXPECT_FALSE(payload.empty());
    std::string text;
    EXPECT_TRUE(in.feed(bytes(payload), true, text));
    EXPECT_EQ(text, message);
  }
}

TEST(WebSocketDeflate, RoundTripsOverEveryWindowAndTakeoverSetting) {
  std::vector<std::string> messages = {"", "Hello", std::string(100000, 'a'), "Hello"};
  // 200 bytes of little redundancy: within reach of the smallest window (512 bytes, of which zlib
  // reaches back 250).
  std::string text;
  for (uint32_t x = 1; text.size() < 200; x = x * 1103515245 + 12345)
    text += char('a' + (x >> 16) % 26);
  messages.push_back(text);
  messages.push_back(text);
  for (int bits = 9; bits <= 15; ++bits) {
    for (bool no_takeover : {false, true}) {
      SCOPED_TRACE(testing::Message() << "bits " << bits << " no_takeover " << no_takeover);
      WsDeflater out(bits, no_takeover);
      WsInflater in(no_takeover);
      size_t first_size = 0, second_size = 0;
      for (size_t m = 0; m < messages.size(); ++m) {
        std::string payload = out.compress(messages[m]);
        if (m == 4) first_size = payload.size();
        if (m == 5) second_size = payload.size();
        EXPECT_EQ(inflate_in_pieces(in, payload, payload.size() + 1), messages[m]);
      }
      // With context takeover a repeated message refers back to the first one.
      if (no_takeover) {
        EXPECT_EQ(first_size, second_size);
      } else {
        EXPECT_LT(second_size * 10, first_size);  // a back reference of a few bytes
      }
    }
  }
}

TEST(WebSocketDeflate, InflatesAMessageFedAByteAtATime) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "word" + std::to_string(i % 97) + ' ';
  WsDeflater out;
  WsInflater in;
  std::string payload = out.compress(text);
  EXPECT_EQ(inflate_in_pieces(in, payload, 1), text);
  EXPECT_EQ(inflate_in_pieces(in, out.compress(text), 3), text);
}

TEST(WebSocketDeflate, StopsABombAtTheLimitWithoutInflatingIt) {
  WsDeflater out;
  std::string payload = out.compress(std::string(20 << 20, '\0'));  // 20 MiB of zeros
  EXPECT_LT(payload.size(), 100u << 10);
  WsInflater in(false, 1 << 20);
  std::string text;
  EXPECT_FALSE(in.feed(bytes(payload), true, text));
  EXPECT_EQ(in.error(), WsInflater::Error::TooBig);
  EXPECT_LE(text.size(), (1u << 20) + 1);
  EXPECT_FALSE(in.feed(bytes(payload), true, text));  // unusable after a failure
  // Exactly at the limit is fine.
  WsInflater exact(false, 1 << 20);
  text.clear();
  EXPECT_TRUE(exact.feed(bytes(out.compress(std::string(1 << 20, 'z'))), true, text));
  EXPECT_EQ(text.size(), 1u << 20);
}

TEST(WebSocketDeflate, RefusesWhatIsNoDeflateStream) {
  WsInflater in;
  std::string text;
  EXPECT_FALSE(in.feed(bytes("\xff\xff\xff\xff\xff"sv), true, text));
  EXPECT_EQ(in.error(), WsInflater::Error::Corrupt);
}

}  // namespace
}  // namespace squall::http
