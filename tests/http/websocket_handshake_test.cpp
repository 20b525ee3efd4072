// Tests for the WebSocket opening handshake and permessage-deflate's negotiation, from RFC 6455
// section 4 and RFC 7692 section 7.
#include "squall/http/websocket_handshake.h"

#include <gtest/gtest.h>

#include "squall/url/base64.h"

namespace squall::http {
namespace {

RequestHead upgrade_request() {
  RequestHead r;
  r.method = "GET";
  r.target = "/chat";
  r.headers = {
      {"Host", "server.example.com"},        {"Upgrade", "websocket"},
      {"Connection", "keep-alive, Upgrade"}, {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="},
      {"Origin", "http://example.com"},      {"Sec-WebSocket-Protocol", "chat, superchat"},
      {"Sec-WebSocket-Version", "13"}};
  return r;
}

TEST(WebSocketHandshake, ComputesTheRfcExampleAcceptKey) {
  EXPECT_EQ(ws_accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketHandshake, MakesFreshKeysOfSixteenBytes) {
  std::string a = ws_new_key(), b = ws_new_key();
  EXPECT_EQ(a.size(), 24u);
  ASSERT_TRUE(forgiving_base64_decode(a));
  EXPECT_EQ(forgiving_base64_decode(a)->size(), 16u);
  EXPECT_NE(a, b);
}

TEST(WebSocketHandshake, ReadsAnUpgradeRequest) {
  WsUpgrade upgrade;
  auto refusal = read_ws_upgrade(upgrade_request(), upgrade);
  ASSERT_FALSE(refusal) << refusal->message;
  EXPECT_EQ(upgrade.key, "dGhlIHNhbXBsZSBub25jZQ==");
  EXPECT_EQ(upgrade.protocols, (std::vector<std::string>{"chat", "superchat"}));
  EXPECT_EQ(upgrade.origin, "http://example.com");
  EXPECT_TRUE(upgrade.extensions.empty());
  EXPECT_TRUE(is_ws_upgrade(upgrade_request()));
}

TEST(WebSocketHandshake, RefusesBrokenUpgradesWithTheStatusTheRfcNames) {
  struct Case {
    const char* what;
    void (*change)(RequestHead&);
    int status;
  };
  for (const Case& c : {
           Case{"POST", [](RequestHead& r) { r.method = "POST"; }, 400},
           Case{"HTTP/1.0",
                [](RequestHead& r) {
                  r.version = {1, 0};
                },
                400},
           Case{"no Upgrade", [](RequestHead& r) { r.headers.remove("Upgrade"); }, 400},
           Case{"Upgrade: h2c", [](RequestHead& r) { r.headers.set("Upgrade", "h2c"); }, 400},
           Case{"no Connection: upgrade",
                [](RequestHead& r) { r.headers.set("Connection", "keep-alive"); }, 400},
           Case{"version 8", [](RequestHead& r) { r.headers.set("Sec-WebSocket-Version", "8"); },
                426},
           Case{"no version", [](RequestHead& r) { r.headers.remove("Sec-WebSocket-Version"); },
                426},
           Case{"no key", [](RequestHead& r) { r.headers.remove("Sec-WebSocket-Key"); }, 400},
           Case{"short key", [](RequestHead& r) { r.headers.set("Sec-WebSocket-Key", "c2hvcnQ="); },
                400},
           Case{"malformed extensions",
                [](RequestHead& r) { r.headers.set("Sec-WebSocket-Extensions", "a; =b"); }, 400},
       }) {
    SCOPED_TRACE(c.what);
    RequestHead r = upgrade_request();
    c.change(r);
    WsUpgrade upgrade;
    auto refusal = read_ws_upgrade(r, upgrade);
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->head.status, c.status);
    EXPECT_FALSE(refusal->message.empty());
    if (c.status == 426) {
      EXPECT_EQ(refusal->head.headers.get("Sec-WebSocket-Version"), "13");
    }
  }
}

TEST(WebSocketHandshake, ParsesExtensionListsWithQuotedValues) {
  Headers h{{"Sec-WebSocket-Extensions",
             "permessage-deflate; client_max_window_bits, permessage-deflate;"
             " server_max_window_bits=\"10\"; client_no_context_takeover"},
            {"Sec-WebSocket-Extensions", "x-other"}};
  auto list = parse_ws_extensions(h);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].name, "permessage-deflate");
  EXPECT_EQ((*list)[0].params,
            (std::vector<std::pair<std::string, std::string>>{{"client_max_window_bits", ""}}));
  EXPECT_EQ((*list)[1].params,
            (std::vector<std::pair<std::string, std::string>>{{"server_max_window_bits", "10"},
                                                              {"client_no_context_takeover", ""}}));
  EXPECT_EQ((*list)[2].name, "x-other");
  for (const char* bad : {"a; =b", "a; b=\"open", "a b", ";a", "a;"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(parse_ws_extensions(Headers{{"Sec-WebSocket-Extensions", bad}}));
  }
}

std::vector<WsExtension> offers(const char* field) {
  return *parse_ws_extensions(Headers{{"Sec-WebSocket-Extensions", field}});
}

TEST(WebSocketHandshake, ChoosesTheFirstDeflateOfferItCanHonour) {
  auto plain = choose_ws_deflate(offers("permessage-deflate"));
  ASSERT_TRUE(plain);
  EXPECT_EQ(*plain, WsDeflateParams{});
  EXPECT_EQ(ws_deflate_field(*plain), "permessage-deflate");

  auto asked = choose_ws_deflate(
      offers("permessage-deflate; server_max_window_bits=8, permessage-deflate;"
             " server_max_window_bits=10; client_no_context_takeover; server_no_context_takeover;"
             " client_max_window_bits"));
  ASSERT_TRUE(asked);  // the first offer wants a 256-byte window zlib cannot compress with
  EXPECT_EQ(asked->server_max_window_bits, 10);
  EXPECT_TRUE(asked->client_no_context_takeover);
  EXPECT_TRUE(asked->server_no_context_takeover);
  EXPECT_EQ(ws_deflate_field(*asked),
            "permessage-deflate; server_no_context_takeover; client_no_context_takeover;"
            " server_max_window_bits=10");

  EXPECT_FALSE(choose_ws_deflate(offers("x-webkit-deflate-frame")));
  EXPECT_FALSE(choose_ws_deflate(offers("permessage-deflate; unknown")));
  EXPECT_FALSE(choose_ws_deflate(offers("permessage-deflate; server_max_window_bits=16")));
  EXPECT_FALSE(choose_ws_deflate(offers("permessage-deflate; server_max_window_bits")));
  EXPECT_FALSE(choose_ws_deflate(
      offers("permessage-deflate; client_no_context_takeover; client_no_context_takeover")));
  auto own = choose_ws_deflate(offers("permessage-deflate"), true);
  ASSERT_TRUE(own);
  EXPECT_TRUE(own->server_no_context_takeover);
}

TEST(WebSocketHandshake, AClientAcceptsWhatAServerAnswersAndNothingElse) {
  const std::string key = ws_new_key();
  const std::vector<std::string> protocols{"chat", "superchat"};
  Headers fields = ws_client_fields(key, protocols, true);
  EXPECT_EQ(fields.get("Sec-WebSocket-Protocol"), "chat, superchat");
  EXPECT_EQ(fields.get("Sec-WebSocket-Extensions"), "permessage-deflate; client_max_window_bits");

  // What this module's server side answers, fed the client's request.
  RequestHead request;
  request.headers = fields;
  WsUpgrade upgrade;
  ASSERT_FALSE(read_ws_upgrade(request, upgrade));
  auto deflate = choose_ws_deflate(upgrade.extensions);
  ResponseHead answer = ws_accept_response(upgrade.key, "superchat", deflate);
  EXPECT_EQ(answer.status, 101);
  WsAccepted accepted;
  auto problem = check_ws_accept(answer, key, protocols, true, accepted);
  ASSERT_FALSE(problem) << *problem;
  EXPECT_EQ(accepted.protocol, "superchat");
  EXPECT_EQ(accepted.deflate, WsDeflateParams{});

  struct Case {
    const char* what;
    void (*change)(ResponseHead&);
  };
  for (const Case& c : {
           Case{"200", [](ResponseHead& r) { r.status = 200; }},
           Case{"no Upgrade", [](ResponseHead& r) { r.headers.remove("Upgrade"); }},
           Case{"no Connection", [](ResponseHead& r) { r.headers.remove("Connection"); }},
           Case{"wrong accept",
                [](ResponseHead& r) { r.headers.set("Sec-WebSocket-Accept", "AAAA"); }},
           Case{"protocol not offered",
                [](ResponseHead& r) { r.headers.set("Sec-WebSocket-Protocol", "other"); }},
           Case{"extension not offered",
                [](ResponseHead& r) { r.headers.set("Sec-WebSocket-Extensions", "x-foo"); }},
           Case{"deflate twice",
                [](ResponseHead& r) {
                  r.headers.set("Sec-WebSocket-Extensions",
                                "permessage-deflate, permessage-deflate");
                }},
           Case{"client window of 8 bits",
                [](ResponseHead& r) {
                  r.headers.set("Sec-WebSocket-Extensions",
                                "permessage-deflate; client_max_window_bits=8");
                }},
       }) {
    SCOPED_TRACE(c.what);
    ResponseHead r = answer;
    c.change(r);
    EXPECT_TRUE(check_ws_accept(r, key, protocols, true, accepted));
  }
  // Deflate in the answer when the client did not offer it.
  EXPECT_TRUE(check_ws_accept(answer, key, protocols, false, accepted));
  ResponseHead params = answer;
  params.headers.set("Sec-WebSocket-Extensions",
                     "permessage-deflate; server_no_context_takeover; client_max_window_bits=12");
  ASSERT_FALSE(check_ws_accept(params, key, protocols, true, accepted));
  EXPECT_TRUE(accepted.deflate->server_no_context_takeover);
  EXPECT_EQ(accepted.deflate->client_max_window_bits, 12);
}

}  // namespace
}  // namespace squall::http
