// Base64 (RFC 4648, the standard alphabet): encoding for credentials, the Infra Standard's
// forgiving decode for data: URLs.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace squall {

// `in` as padded base64.
std::string base64_encode(std::string_view in);
// The Infra Standard's forgiving-base64 decode: ASCII whitespace ignored, up to two '=' of
// padding, leftover bits dropped; nullopt for any other byte or a length that cannot be base64.
std::optional<std::string> forgiving_base64_decode(std::string_view in);

}  // namespace squall
