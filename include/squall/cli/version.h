// `squall --version`: the release and the libraries it runs on, as `curl --version` lists them.
#pragma once

#include <string>

namespace squall::cli {

// "squall 0.1.0 OpenSSL/3.0.11 c-ares/1.18.1 zlib/1.2.13 brotli/1.0.9 zstd/1.5.4 ...", then a
// line of protocols and one of commands (no '\n' after the last). The library versions are the
// ones loaded at run time.
std::string version_text();

}  // namespace squall::cli
