// The WebSocket opening handshake (RFC 6455 section 4) and the negotiation of permessage-deflate
// (RFC 7692 section 7), without I/O: what a server checks in an upgrade request and answers, and
// what a client sends and checks in the answer.
//
// Server:
//   WsUpgrade upgrade;
//   if (auto refusal = read_ws_upgrade(request_head, upgrade)) answer(*refusal);  // 400 or 426
//   ... choose a subprotocol from upgrade.protocols, deflate from upgrade.extensions ...
//   ResponseHead head = ws_accept_response(upgrade.key, protocol, deflate);
//
// Client:
//   std::string key = ws_new_key();
//   ... send GET with ws_client_fields(key, protocols, deflate_offer) ...
//   WsAccepted accepted;
//   if (auto problem = check_ws_accept(response_head, key, protocols, deflate_offer, accepted))
//     fail(*problem);
//
// Plain data: no loop, no thread affinity.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "squall/http/message.h"

namespace squall::http {

// Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + the RFC's GUID)).
std::string ws_accept_key(std::string_view key);
// A fresh Sec-WebSocket-Key: 16 random bytes in base64.
std::string ws_new_key();

// permessage-deflate's parameters as agreed (RFC 7692 section 7.1). "No context takeover" means
// that side starts each message with an empty window; window bits are 8 to 15.
struct WsDeflateParams {
  bool server_no_context_takeover = false;
  bool client_no_context_takeover = false;
  int server_max_window_bits = 15;
  int client_max_window_bits = 15;
  bool operator==(const WsDeflateParams&) const = default;
};

// One extension of a Sec-WebSocket-Extensions list: its name and parameters (value empty when
// the parameter had none; quoted values unquoted).
struct WsExtension {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
};
// Parses every Sec-WebSocket-Extensions value (RFC 6455 section 9.1's grammar); nullopt when
// one is malformed.
std::optional<std::vector<WsExtension>> parse_ws_extensions(const Headers& headers);

// What a client asked for in an upgrade request.
struct WsUpgrade {
  std::string key;                      // Sec-WebSocket-Key, as sent
  std::vector<std::string> protocols;   // Sec-WebSocket-Protocol, in the client's order
  std::vector<WsExtension> extensions;  // Sec-WebSocket-Extensions, in the client's order
  std::optional<std::string> origin;    // Origin, if any
};

// Why an upgrade request is refused: the status to answer (400, or 426 with
// Sec-WebSocket-Version: 13 in `head`) and a message saying what was wrong.
struct WsRefusal {
  ResponseHead head;
  std::string message;
};

// True when the request asks for a WebSocket: "Upgrade: websocket" (case-insensitive).
bool is_ws_upgrade(const RequestHead& request) noexcept;
// Checks an upgrade request (GET, HTTP/1.1 or later, Upgrade: websocket, Connection: upgrade,
// Sec-WebSocket-Version: 13, a Sec-WebSocket-Key of 16 bytes in base64) and fills `upgrade`;
// nullopt when it is acceptable.
std::optional<WsRefusal> read_ws_upgrade(const RequestHead& request, WsUpgrade& upgrade);

// The server's choice among a client's permessage-deflate offers: the first offer it can accept,
// with the parameters the server answers. The server keeps its own context unless
// `server_no_context_takeover`, and honours what the client asked (a server window of fewer bits,
// no context takeover either way). nullopt when the client offered none it can accept.
std::optional<WsDeflateParams> choose_ws_deflate(const std::vector<WsExtension>& offers,
                                                 bool server_no_context_takeover = false);
// The Sec-WebSocket-Extensions value that states `params`.
std::string ws_deflate_field(const WsDeflateParams& params);

// The 101 response that accepts `key`, naming `protocol` (when not empty) and `deflate`.
ResponseHead ws_accept_response(std::string_view key, std::string_view protocol,
                                const std::optional<WsDeflateParams>& deflate);

// The fields of a client's upgrade request besides Host: Upgrade, Connection, the key, the
// version, the subprotocols offered, and permessage-deflate offered when `offer_deflate`
// (with client_max_window_bits, so a server may shrink the client's window).
Headers ws_client_fields(std::string_view key, const std::vector<std::string>& protocols,
                         bool offer_deflate);

// What the server agreed to.
struct WsAccepted {
  std::string protocol;                    // empty when none
  std::optional<WsDeflateParams> deflate;  // permessage-deflate, when agreed
};
// Checks a server's answer to ws_client_fields(key, protocols, offer_deflate): 101, Upgrade and
// Connection, the accept key, a protocol among those offered, and only permessage-deflate with
// valid parameters when it was offered. nullopt when it is acceptable.
std::optional<std::string> check_ws_accept(const ResponseHead& response, std::string_view key,
                                           const std::vector<std::string>& protocols,
                                           bool offer_deflate, WsAccepted& accepted);

}  // namespace squall::http
