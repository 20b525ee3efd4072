// Tests for the WebSocket protocol without I/O: the cases Autobahn's fuzzing suite is known for
// (framing, fragmentation, UTF-8, close handling, limits), each fed whole and one byte at a time.
#include "squall/http/websocket_protocol.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace squall::http {
namespace {

using namespace std::literals;

constexpr uint32_t kMask = 0x37FA213D;  // RFC 6455 5.7's example key

// What a receiver reported, flattened so that runs with different splits compare equal.
struct Report {
  std::vector<std::string> messages;  // "t:" or "b:" then the payload
  std::vector<std::string> controls;  // "ping:..", "pong:..", "close:<code>:<reason>"
  uint16_t fail_code = 0;
  std::string fail_reason;
  size_t consumed_at_fail = 0;  // bytes consumed up to and including the failing step

  bool operator==(const Report&) const = default;
};

Report receive(std::string bytes, size_t piece, WebSocketReceiver::Options options) {
  WebSocketReceiver rx(options);
  Report report;
  std::string message;
  size_t offset = 0;
  while (offset < bytes.size()) {
    size_t n = std::min(piece, bytes.size() - offset);
    std::span<uint8_t> input(reinterpret_cast<uint8_t*>(bytes.data() + offset), n);
    while (true) {
      auto [event, used] = rx.next(input);
      EXPECT_LE(used, input.size());
      offset += used;
      input = input.subspan(used);
      if (event == WsEvent::NeedMore) break;
      switch (event) {
        case WsEvent::Data:
          message.append(rx.text());
          if (rx.message_end()) {
            report.messages.push_back((rx.message_is_text() ? "t:" : "b:") + message);
            message.clear();
          }
          break;
        case WsEvent::Ping:
          report.controls.push_back("ping:" + std::string(rx.control_payload()));
          break;
        case WsEvent::Pong:
          report.controls.push_back("pong:" + std::string(rx.control_payload()));
          break;
        case WsEvent::Close:
          report.controls.push_back("close:" + std::to_string(rx.close_code()) + ":" +
                                    std::string(rx.close_reason()));
          break;
        case WsEvent::Fail:
          report.fail_code = rx.fail_code();
          report.fail_reason = rx.fail_reason();
          report.consumed_at_fail = offset;
          return report;
        case WsEvent::NeedMore:
          break;
      }
      if (input.empty()) break;
    }
  }
  return report;
}

// Receives `bytes` whole and one byte at a time; both must report the same.
Report receive_both_ways(const std::string& bytes, WebSocketReceiver::Options options = {}) {
  Report whole = receive(bytes, bytes.size() + 1, options);
  Report bytewise = receive(bytes, 1, options);
  EXPECT_EQ(whole.messages, bytewise.messages);
  EXPECT_EQ(whole.controls, bytewise.controls);
  EXPECT_EQ(whole.fail_code, bytewise.fail_code);
  // Where a failure is reported depends on the pieces (within the frame that fails); the tests
  // that look at it look at the whole run's.
  return whole;
}

// A frame as a client sends it: masked.
std::string client_frame(WsOpcode op, std::string_view payload, bool fin = true,
                         bool rsv1 = false) {
  return ws_frame(op, payload, fin, kMask, rsv1);
}

// A frame with any first byte (reserved bits and opcodes included), masked, short payload.
std::string raw_frame(uint8_t first, std::string_view payload) {
  std::string frame = ws_frame(WsOpcode::Binary, payload, true, kMask);
  frame[0] = static_cast<char>(first);
  return frame;
}

TEST(WebSocketFrame, WritesEveryLengthFormAndTheMaskInWireOrder) {
  std::array<uint8_t, kWsMaxHeader> h;
  EXPECT_EQ(ws_frame_header(h, WsOpcode::Text, true, 5), 2u);
  EXPECT_EQ(h[0], 0x81);
  EXPECT_EQ(h[1], 0x05);
  EXPECT_EQ(ws_frame_header(h, WsOpcode::Binary, false, 126), 4u);
  EXPECT_EQ(h[0], 0x02);
  EXPECT_EQ(h[1], 126);
  EXPECT_EQ(h[2], 0x00);
  EXPECT_EQ(h[3], 126);
  EXPECT_EQ(ws_frame_header(h, WsOpcode::Binary, true, 65536, kMask, true), 14u);
  EXPECT_EQ(h[0], 0xC2);
  EXPECT_EQ(h[1], 0x80 | 127);
  EXPECT_EQ(h[7], 0x01);  // 65536 = 0x0000000000010000
  EXPECT_EQ(h[10], 0x37);
  EXPECT_EQ(h[13], 0x3D);
  // RFC 6455 5.7: a masked "Hello".
  EXPECT_EQ(ws_frame(WsOpcode::Text, "Hello", true, kMask),
            "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58"sv);
  EXPECT_EQ(ws_frame(WsOpcode::Text, "Hello"), "\x81\x05Hello"sv);
}

TEST(WebSocketFrame, MasksInPiecesAsInOneGo) {
  std::string data(1000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  std::string whole = data, pieces = data;
  ws_mask({reinterpret_cast<uint8_t*>(whole.data()), whole.size()}, kMask);
  for (size_t at = 0, n = 1; at < pieces.size(); at += n, n = n % 13 + 1) {
    size_t len = std::min(n, pieces.size() - at);
    ws_mask({reinterpret_cast<uint8_t*>(pieces.data() + at), len}, kMask, at);
  }
  EXPECT_EQ(whole, pieces);
  ws_mask({reinterpret_cast<uint8_t*>(whole.data()), whole.size()}, kMask);
  EXPECT_EQ(whole, data);
}

TEST(WebSocketReceiver, ReadsEveryPayloadLengthForm) {
  for (size_t length : {0u, 1u, 125u, 126u, 127u, 65535u, 65536u, 100000u}) {
    SCOPED_TRACE(length);
    std::string payload(length, 'x');
    Report r = receive_both_ways(client_frame(WsOpcode::Binary, payload) +
                                 client_frame(WsOpcode::Text, payload));
    ASSERT_EQ(r.fail_code, 0) << r.fail_reason;
    EXPECT_EQ(r.messages, (std::vector<std::string>{"b:" + payload, "t:" + payload}));
  }
}

TEST(WebSocketReceiver, ReadsUnmaskedFramesAsAClient) {
  Report r = receive_both_ways(ws_frame(WsOpcode::Text, "hi") + ws_frame(WsOpcode::Ping, "p"),
                               {.expect_masked = false});
  EXPECT_EQ(r.messages, std::vector<std::string>{"t:hi"});
  EXPECT_EQ(r.controls, std::vector<std::string>{"ping:p"});
}

TEST(WebSocketReceiver, FailsFramesMaskedTheWrongWay) {
  EXPECT_EQ(receive_both_ways(ws_frame(WsOpcode::Text, "hi")).fail_code, ws_close::kProtocolError);
  EXPECT_EQ(
      receive_both_ways(client_frame(WsOpcode::Text, "hi"), {.expect_masked = false}).fail_code,
      ws_close::kProtocolError);
}

TEST(WebSocketReceiver, FailsReservedBitsAndOpcodes) {
  for (uint8_t first : {0xC2, 0xA2, 0x92, 0xF2}) {  // RSV1, RSV2, RSV3, all three
    SCOPED_TRACE(first);
    Report r = receive_both_ways(raw_frame(first, "x"));
    EXPECT_EQ(r.fail_code, ws_close::kProtocolError);
  }
  for (uint8_t op : {3, 4, 5, 6, 7, 11, 12, 13, 14, 15}) {
    SCOPED_TRACE(int(op));
    Report r = receive_both_ways(client_frame(WsOpcode::Text, "ok") + raw_frame(0x80 | op, "x"));
    EXPECT_EQ(r.messages, std::vector<std::string>{"t:ok"});  // what came before still counts
    EXPECT_EQ(r.fail_code, ws_close::kProtocolError);
  }
}

TEST(WebSocketReceiver, AcceptsRsv1OnlyOnTheFirstFrameOfACompressedMessage) {
  std::string first =
      client_frame(WsOpcode::Text, "\xFF\x00"sv, false, true);  // not UTF-8: compressed
  std::string rest = client_frame(WsOpcode::Continuation, "\x01", true);
  EXPECT_EQ(receive_both_ways(first + rest).fail_code, ws_close::kProtocolError);  // not negotiated
  Report r = receive_both_ways(first + rest, {.allow_compressed = true});
  ASSERT_EQ(r.fail_code, 0) << r.fail_reason;
  EXPECT_EQ(r.messages, std::vector<std::string>{"t:\xFF\x00\x01"s});
  std::string rsv1_continuation = client_frame(WsOpcode::Continuation, "\x01", true, true);
  EXPECT_EQ(receive_both_ways(first + rsv1_continuation, {.allow_compressed = true}).fail_code,
            ws_close::kProtocolError);
  EXPECT_EQ(
      receive_both_ways(client_frame(WsOpcode::Ping, "", true, true), {.allow_compressed = true})
          .fail_code,
      ws_close::kProtocolError);
}

TEST(WebSocketReceiver, ChecksControlFrames) {
  Report ok =
      receive_both_ways(client_frame(WsOpcode::Ping, std::string(125, 'p')) +
                        client_frame(WsOpcode::Pong, "") + client_frame(WsOpcode::Ping, ""));
  EXPECT_EQ(ok.fail_code, 0) << ok.fail_reason;
  EXPECT_EQ(ok.controls,
            (std::vector<std::string>{"ping:" + std::string(125, 'p'), "pong:", "ping:"}));
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Ping, std::string(126, 'p'))).fail_code,
            ws_close::kProtocolError);
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Ping, "p", false)).fail_code,
            ws_close::kProtocolError);
}

TEST(WebSocketReceiver, AssemblesFragmentsWithControlFramesBetweenThem) {
  Report r = receive_both_ways(
      client_frame(WsOpcode::Text, "frag", false) + client_frame(WsOpcode::Ping, "1") +
      client_frame(WsOpcode::Continuation, "", false) + client_frame(WsOpcode::Pong, "2") +
      client_frame(WsOpcode::Continuation, "ment", false) +
      client_frame(WsOpcode::Continuation, "ed", true) + client_frame(WsOpcode::Binary, "", true));
  ASSERT_EQ(r.fail_code, 0) << r.fail_reason;
  EXPECT_EQ(r.messages, (std::vector<std::string>{"t:fragmented", "b:"}));
  EXPECT_EQ(r.controls, (std::vector<std::string>{"ping:1", "pong:2"}));
}

TEST(WebSocketReceiver, FailsContinuationsWithoutAMessageAndMessagesInsideOne) {
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Continuation, "x")).fail_code,
            ws_close::kProtocolError);
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Text, "a", false) +
                              client_frame(WsOpcode::Text, "b"))
                .fail_code,
            ws_close::kProtocolError);
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Text, "a") +
                              client_frame(WsOpcode::Continuation, "b"))
                .fail_code,
            ws_close::kProtocolError);
}

TEST(WebSocketReceiver, ValidatesTextAcrossFragmentsAndFailsAtTheFrameWithTheBadByte) {
  // κόσμε split inside its characters: valid.
  std::string kosme = "\xCE\xBA\xE1\xBD\xB9\xCF\x83\xCE\xBC\xCE\xB5";
  std::string split;
  for (size_t i = 0; i < kosme.size(); ++i)
    split += client_frame(i == 0 ? WsOpcode::Text : WsOpcode::Continuation, kosme.substr(i, 1),
                          i + 1 == kosme.size());
  Report ok = receive_both_ways(split);
  ASSERT_EQ(ok.fail_code, 0) << ok.fail_reason;
  EXPECT_EQ(ok.messages, std::vector<std::string>{"t:" + kosme});

  // The second frame holds a surrogate: the failure comes with it, before the third frame.
  std::string first = client_frame(WsOpcode::Text, "\xCE\xBA", false);
  std::string second = client_frame(WsOpcode::Continuation, "\xED\xA0\x80", false);
  std::string third = client_frame(WsOpcode::Continuation, "ok", true);
  Report bad = receive_both_ways(first + second + third);
  EXPECT_EQ(bad.fail_code, ws_close::kInvalidPayload);
  EXPECT_GT(bad.consumed_at_fail, first.size());
  EXPECT_LE(bad.consumed_at_fail, first.size() + second.size());

  // A message that ends inside a character.
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Text, "\xCE")).fail_code,
            ws_close::kInvalidPayload);
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Text, "\xCE", false) +
                              client_frame(WsOpcode::Continuation, "", true))
                .fail_code,
            ws_close::kInvalidPayload);
  // Binary messages are not text.
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Binary, "\xFF")).fail_code, 0);
}

TEST(WebSocketReceiver, ReadsCloseFramesAndIgnoresWhatFollows) {
  Report r = receive_both_ways(client_frame(WsOpcode::Close, ws_close_payload(1000, "bye")) +
                               client_frame(WsOpcode::Text, "after"));
  EXPECT_EQ(r.controls, std::vector<std::string>{"close:1000:bye"});
  EXPECT_TRUE(r.messages.empty());
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Close, "")).controls,
            std::vector<std::string>{"close:1005:"});
  for (uint16_t code : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014,
                        3000, 3999, 4000, 4999}) {
    SCOPED_TRACE(code);
    EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Close, ws_close_payload(code, ""))).controls,
              std::vector<std::string>{"close:" + std::to_string(code) + ":"});
  }
  for (uint16_t code : {0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535}) {
    SCOPED_TRACE(code);
    std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xFF)};
    EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Close, payload)).fail_code,
              ws_close::kProtocolError);
  }
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Close, "\x03")).fail_code,
            ws_close::kProtocolError);
  EXPECT_EQ(receive_both_ways(client_frame(WsOpcode::Close, "\x03\xE8\xFF")).fail_code,
            ws_close::kInvalidPayload);
}

TEST(WebSocketReceiver, FailsATooBigMessageAtItsHeaderBeforeReadingItsPayload) {
  WebSocketReceiver::Options small{.max_message_size = 1000};
  std::string big = client_frame(WsOpcode::Binary, std::string(1001, 'x'));
  Report r = receive_both_ways(big, small);
  EXPECT_EQ(r.fail_code, ws_close::kTooBig);
  EXPECT_EQ(r.consumed_at_fail, 8u);  // 2 + 2-byte length + mask
  // The limit is on the message: fragments add up.
  Report fragments =
      receive_both_ways(client_frame(WsOpcode::Text, std::string(600, 'a'), false) +
                            client_frame(WsOpcode::Continuation, std::string(401, 'a')),
                        small);
  EXPECT_EQ(fragments.fail_code, ws_close::kTooBig);
  EXPECT_EQ(
      receive_both_ways(client_frame(WsOpcode::Binary, std::string(1000, 'x')), small).fail_code,
      0);
  // An announced length of 2^63 or more is no length at all.
  std::string endless = "\x82\xFF\x80\x00\x00\x00\x00\x00\x00\x00\x37\xFA\x21\x3D"s;
  EXPECT_EQ(receive_both_ways(endless).fail_code, ws_close::kProtocolError);
  std::string huge = "\x82\xFF\x7F\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x37\xFA\x21\x3D"s;
  EXPECT_EQ(receive_both_ways(huge).fail_code, ws_close::kTooBig);
}

TEST(WebSocketReceiver, ReportsNothingUntilAFrameIsComplete) {
  std::string frame = client_frame(WsOpcode::Ping, "abc");
  WebSocketReceiver rx;
  std::span<uint8_t> head(reinterpret_cast<uint8_t*>(frame.data()), frame.size() - 1);
  auto step = rx.next(head);
  EXPECT_EQ(step.event, WsEvent::NeedMore);
  EXPECT_EQ(step.consumed, head.size());
  std::span<uint8_t> last(reinterpret_cast<uint8_t*>(frame.data()) + frame.size() - 1, 1);
  step = rx.next(last);
  EXPECT_EQ(step.event, WsEvent::Ping);
  EXPECT_EQ(rx.control_payload(), "abc");
}

TEST(WebSocketClosePayload, CutsTheReasonAtACharacterBoundary) {
  EXPECT_EQ(ws_close_payload(1000, "bye"),
            "\x03\xE8"
            "bye"sv);
  EXPECT_EQ(ws_close_payload(ws_close::kNoStatus, "ignored"), "");
  std::string reason;
  for (int i = 0; i < 70; ++i) reason += "\xC3\xA9";  // 140 bytes of é
  std::string payload = ws_close_payload(1001, reason);
  EXPECT_LE(payload.size(), kWsMaxControlPayload);
  EXPECT_EQ(payload.size(), 2u + 122u);  // 61 whole characters
  EXPECT_TRUE(is_valid_utf8(std::string_view(payload).substr(2)));
}

}  // namespace
}  // namespace squall::http
