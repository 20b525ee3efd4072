// MD5 (RFC 1321) of a string in one call: pyspider's taskid is the MD5 of the URL in hex, and a
// crawl takes one for every link it follows. OpenSSL's EVP interface spends more on its
// dispatch than on the hash of a URL (one or two 64-byte blocks); this is the hash alone.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace squall::detail {

std::array<uint8_t, 16> md5(std::string_view data) noexcept;

}  // namespace squall::detail
