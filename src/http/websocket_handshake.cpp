// The WebSocket opening handshake and permessage-deflate's negotiation (RFC 6455 section 4,
// RFC 7692 section 7).
#include "squall/http/websocket_handshake.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <stdexcept>

#include "squall/url/ascii.h"
#include "squall/url/base64.h"

namespace squall::http {

namespace {

constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
constexpr std::string_view kDeflate = "permessage-deflate";

bool is_token_char(char c) {
  return is_ascii_alphanumeric(c) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// A reader over one header value for RFC 6455 section 9.1's extension grammar.
class ExtensionReader {
 public:
  explicit ExtensionReader(std::string_view s) : s_(s) {}

  void skip_ows() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  bool at_end() {
    skip_ows();
    return i_ == s_.size();
  }
  bool take(char c) {
    skip_ows();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  std::optional<std::string> token() {
    skip_ows();
    size_t start = i_;
    while (i_ < s_.size() && is_token_char(s_[i_])) ++i_;
    if (i_ == start) return std::nullopt;
    return std::string(s_.substr(start, i_ - start));
  }
  std::optional<std::string> value() {
    skip_ows();
    if (i_ >= s_.size() || s_[i_] != '"') return token();
    std::string out;
    for (++i_; i_ < s_.size(); ++i_) {
      char c = s_[i_];
      if (c == '"') {
        ++i_;
        return out;
      }
      if (c == '\\' && ++i_ == s_.size()) break;
      out += s_[i_];
    }
    return std::nullopt;  // unterminated
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

std::optional<int> window_bits(std::string_view value) {
  if (value.size() == 1 && value[0] >= '8' && value[0] <= '9') return value[0] - '0';
  if (value.size() == 2 && value[0] == '1' && value[1] >= '0' && value[1] <= '5')
    return 10 + (value[1] - '0');
  return std::nullopt;
}

WsRefusal refuse(int status, std::string message) {
  WsRefusal refusal;
  refusal.head.status = status;
  refusal.head.reason = status == 426 ? "Upgrade Required" : "Bad Request";
  if (status == 426) refusal.head.headers.add("Sec-WebSocket-Version", "13");
  refusal.message = std::move(message);
  return refusal;
}

// The list elements of every `name` field, trimmed, empty ones dropped.
std::vector<std::string> list_elements(const Headers& headers, std::string_view name) {
  std::vector<std::string> out;
  for (std::string_view value : headers.get_all(name)) {
    while (!value.empty()) {
      size_t comma = value.find(',');
      std::string_view element = trim_ows(value.substr(0, comma));
      if (!element.empty()) out.emplace_back(element);
      if (comma == std::string_view::npos) break;
      value.remove_prefix(comma + 1);
    }
  }
  return out;
}

}  // namespace

std::string ws_accept_key(std::string_view key) {
  std::string input(key);
  input += kGuid;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(input.data(), input.size(), digest, &length, EVP_sha1(), nullptr) != 1)
    throw std::runtime_error("SHA-1 failed");
  return base64_encode({reinterpret_cast<const char*>(digest), length});
}

std::string ws_new_key() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no random bytes for a key");
  return base64_encode({reinterpret_cast<const char*>(bytes), sizeof bytes});
}

std::optional<std::vector<WsExtension>> parse_ws_extensions(const Headers& headers) {
  std::vector<WsExtension> out;
  for (std::string_view field : headers.get_all("Sec-WebSocket-Extensions")) {
    ExtensionReader r(field);
    while (!r.at_end()) {
      if (r.take(',')) continue;  // empty list elements are allowed (RFC 9110 5.6.1)
      auto name = r.token();
      if (!name) return std::nullopt;
      WsExtension extension{std::move(*name), {}};
      while (r.take(';')) {
        auto param = r.token();
        if (!param) return std::nullopt;
        std::string value;
        if (r.take('=')) {
          auto v = r.value();
          if (!v) return std::nullopt;
          value = std::move(*v);
        }
        extension.params.emplace_back(std::move(*param), std::move(value));
      }
      if (!r.at_end() && !r.take(',')) return std::nullopt;
      out.push_back(std::move(extension));
    }
  }
  return out;
}

bool is_ws_upgrade(const RequestHead& request) noexcept {
  return request.headers.has_token("Upgrade", "websocket");
}

std::optional<WsRefusal> read_ws_upgrade(const RequestHead& request, WsUpgrade& upgrade) {
  if (request.method != "GET") return refuse(400, "a WebSocket upgrade must be a GET");
  if (request.version < Version{1, 1}) return refuse(400, "a WebSocket upgrade needs HTTP/1.1");
  if (!is_ws_upgrade(request)) return refuse(400, "Can \"Upgrade\" only to \"WebSocket\".");
  if (!request.headers.has_token("Connection", "upgrade"))
    return refuse(400, "\"Connection\" must be \"Upgrade\".");
  auto version = request.headers.get("Sec-WebSocket-Version");
  if (!version || trim_ows(*version) != "13")
    return refuse(426, "only WebSocket version 13 is supported");
  auto key = request.headers.get("Sec-WebSocket-Key");
  auto decoded = key ? forgiving_base64_decode(*key) : std::nullopt;
  if (!decoded || decoded->size() != 16)
    return refuse(400, "Sec-WebSocket-Key must be 16 bytes in base64");
  auto extensions = parse_ws_extensions(request.headers);
  if (!extensions) return refuse(400, "malformed Sec-WebSocket-Extensions");
  upgrade.key = std::string(trim_ows(*key));
  upgrade.protocols = list_elements(request.headers, "Sec-WebSocket-Protocol");
  upgrade.extensions = std::move(*extensions);
  if (auto origin = request.headers.get("Origin")) upgrade.origin = std::string(*origin);
  return std::nullopt;
}

std::optional<WsDeflateParams> choose_ws_deflate(const std::vector<WsExtension>& offers,
                                                 bool server_no_context_takeover) {
  for (const WsExtension& offer : offers) {
    if (offer.name != kDeflate) continue;
    WsDeflateParams params;
    params.server_no_context_takeover = server_no_context_takeover;
    bool acceptable = true, seen_server_bits = false, seen_client_bits = false;
    bool seen_server_nct = false, seen_client_nct = false;
    for (const auto& [name, value] : offer.params) {
      if (name == "server_no_context_takeover" && value.empty() && !seen_server_nct) {
        params.server_no_context_takeover = seen_server_nct = true;
      } else if (name == "client_no_context_takeover" && value.empty() && !seen_client_nct) {
        params.client_no_context_takeover = seen_client_nct = true;
      } else if (name == "server_max_window_bits" && !seen_server_bits) {
        // zlib cannot compress raw deflate with a 256-byte window: 8 is declined.
        auto bits = window_bits(value);
        if (!bits || *bits == 8)
          acceptable = false;
        else
          params.server_max_window_bits = *bits;
        seen_server_bits = true;
      } else if (name == "client_max_window_bits" && !seen_client_bits) {
        // The client may compress with any window up to this; inflating takes any window.
        if (!value.empty() && !window_bits(value)) acceptable = false;
        seen_client_bits = true;
      } else {
        acceptable = false;  // unknown or repeated parameter: decline this offer
      }
    }
    if (acceptable) return params;
  }
  return std::nullopt;
}

std::string ws_deflate_field(const WsDeflateParams& params) {
  std::string field(kDeflate);
  if (params.server_no_context_takeover) field += "; server_no_context_takeover";
  if (params.client_no_context_takeover) field += "; client_no_context_takeover";
  if (params.server_max_window_bits != 15)
    field += "; server_max_window_bits=" + std::to_string(params.server_max_window_bits);
  if (params.client_max_window_bits != 15)
    field += "; client_max_window_bits=" + std::to_string(params.client_max_window_bits);
  return field;
}

ResponseHead ws_accept_response(std::string_view key, std::string_view protocol,
                                const std::optional<WsDeflateParams>& deflate) {
  ResponseHead head;
  head.status = 101;
  head.reason = "Switching Protocols";
  head.headers.add("Upgrade", "websocket");
  head.headers.add("Connection", "Upgrade");
  head.headers.add("Sec-WebSocket-Accept", ws_accept_key(key));
  if (!protocol.empty()) head.headers.add("Sec-WebSocket-Protocol", protocol);
  if (deflate) head.headers.add("Sec-WebSocket-Extensions", ws_deflate_field(*deflate));
  return head;
}

Headers ws_client_fields(std::string_view key, const std::vector<std::string>& protocols,
                         bool offer_deflate) {
  Headers fields;
  fields.add("Upgrade", "websocket");
  fields.add("Connection", "Upgrade");
  fields.add("Sec-WebSocket-Key", key);
  fields.add("Sec-WebSocket-Version", "13");
  if (!protocols.empty()) {
    std::string list;
    for (const std::string& p : protocols) list.append(list.empty() ? "" : ", ").append(p);
    fields.add("Sec-WebSocket-Protocol", list);
  }
  if (offer_deflate)
    fields.add("Sec-WebSocket-Extensions", std::string(kDeflate) + "; client_max_window_bits");
  return fields;
}

std::optional<std::string> check_ws_accept(const ResponseHead& response, std::string_view key,
                                           const std::vector<std::string>& protocols,
                                           bool offer_deflate, WsAccepted& accepted) {
  if (response.status != 101)
    return "the server answered " + std::to_string(response.status) + " instead of 101";
  if (!response.headers.has_token("Upgrade", "websocket"))
    return std::string("the server's answer lacks \"Upgrade: websocket\"");
  if (!response.headers.has_token("Connection", "upgrade"))
    return std::string("the server's answer lacks \"Connection: Upgrade\"");
  auto accept = response.headers.get("Sec-WebSocket-Accept");
  if (!accept || trim_ows(*accept) != ws_accept_key(key))
    return std::string("the server's Sec-WebSocket-Accept does not match the key");
  accepted = {};
  if (auto protocol = response.headers.get("Sec-WebSocket-Protocol")) {
    std::string chosen(trim_ows(*protocol));
    bool offered = false;
    for (const std::string& p : protocols) offered = offered || p == chosen;
    if (!offered)
      return "the server chose the subprotocol \"" + chosen + "\", which was not offered";
    accepted.protocol = std::move(chosen);
  }
  auto extensions = parse_ws_extensions(response.headers);
  if (!extensions) return std::string("the server's Sec-WebSocket-Extensions is malformed");
  for (const WsExtension& extension : *extensions) {
    if (extension.name != kDeflate || !offer_deflate || accepted.deflate)
      return "the server chose the extension \"" + extension.name + "\", which was not offered";
    WsDeflateParams params;
    for (const auto& [name, value] : extension.params) {
      std::optional<int> bits = window_bits(value);
      if (name == "server_no_context_takeover" && value.empty()) {
        params.server_no_context_takeover = true;
      } else if (name == "client_no_context_takeover" && value.empty()) {
        params.client_no_context_takeover = true;
      } else if (name == "server_max_window_bits" && bits) {
        params.server_max_window_bits = *bits;
      } else if (name == "client_max_window_bits" && bits && *bits > 8) {
        params.client_max_window_bits = *bits;
      } else {
        return "the server's permessage-deflate parameter \"" + name + "\" cannot be honoured";
      }
    }
    accepted.deflate = params;
  }
  return std::nullopt;
}

}  // namespace squall::http
