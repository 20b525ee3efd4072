// Fuzzes squall::http::WebSocketReceiver: the first byte picks the options (masking, compression,
// a small message limit) and the size of the pieces; the rest is what a peer sent. The receiver
// must report the same messages, control frames and failure whether it reads the bytes whole or
// in pieces, never hand out more than it was given, deliver only UTF-8 in uncompressed text
// messages, and say nothing after a close or a failure.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "squall/http/websocket_protocol.h"

namespace {

using squall::http::WebSocketReceiver;
using squall::http::WsEvent;

void check(bool condition) {
  if (!condition) std::abort();
}

struct Report {
  std::vector<std::string> events;
  bool operator==(const Report&) const = default;
};

Report receive(std::string bytes, size_t piece, WebSocketReceiver::Options options) {
  WebSocketReceiver rx(options);
  Report report;
  std::string message;
  bool ended = false;
  size_t offset = 0;
  while (offset < bytes.size()) {
    size_t n = std::min(piece, bytes.size() - offset);
    std::span<uint8_t> input(reinterpret_cast<uint8_t*>(bytes.data() + offset), n);
    while (!input.empty()) {
      auto [event, used] = rx.next(input);
      check(used <= input.size());
      check(!ended || (event == WsEvent::NeedMore && used == input.size()));
      offset += used;
      input = input.subspan(used);
      switch (event) {
        case WsEvent::NeedMore:
          check(input.empty());
          break;
        case WsEvent::Data:
          message.append(rx.text());
          check(message.size() <= options.max_message_size);
          if (rx.message_end()) {
            if (rx.message_is_text() && !rx.compressed()) check(squall::is_valid_utf8(message));
            report.events.push_back((rx.message_is_text() ? "t:" : "b:") + message);
            message.clear();
          }
          break;
        case WsEvent::Ping:
        case WsEvent::Pong:
          check(rx.control_payload().size() <= squall::http::kWsMaxControlPayload);
          report.events.push_back((event == WsEvent::Ping ? "ping:" : "pong:") +
                                  std::string(rx.control_payload()));
          break;
        case WsEvent::Close:
          check(squall::is_valid_utf8(rx.close_reason()));
          report.events.push_back("close:" + std::to_string(rx.close_code()));
          ended = true;
          break;
        case WsEvent::Fail:
          check(rx.fail_code() >= 1000 && !rx.fail_reason().empty());
          report.events.push_back("fail:" + std::to_string(rx.fail_code()));
          ended = true;
          break;
      }
    }
  }
  return report;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t knobs = data[0];
  WebSocketReceiver::Options options;
  options.expect_masked = (knobs & 1) != 0;
  options.allow_compressed = (knobs & 2) != 0;
  if (knobs & 4) options.max_message_size = 64;
  const size_t piece = (knobs >> 3) + 1;  // 1 to 32 bytes
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  Report whole = receive(bytes, bytes.size() + 1, options);
  Report pieces = receive(bytes, piece, options);
  check(whole == pieces);
  return 0;
}
