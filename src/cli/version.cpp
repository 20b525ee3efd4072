// `squall --version`: the release, and the versions of the libraries loaded at run time.
#include "squall/cli/version.h"

#include <ares.h>
#include <brotli/decode.h>
#include <libxml/xmlversion.h>
#include <openssl/crypto.h>
#include <sqlite3.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdint>

namespace squall::cli {

std::string version_text() {
  uint32_t brotli = BrotliDecoderVersion();  // 0xMMMmmmppp
  std::string text = "squall " SQUALL_VERSION " OpenSSL/";
  text += OpenSSL_version(OPENSSL_VERSION_STRING);
  text += " c-ares/";
  text += ares_version(nullptr);
  text += " zlib/";
  text += zlibVersion();
  text += " brotli/" + std::to_string(brotli >> 24) + "." + std::to_string((brotli >> 12) & 0xfff) +
          "." + std::to_string(brotli & 0xfff);
  text += " zstd/";
  text += ZSTD_versionString();
  text += " libxml2/" LIBXML_DOTTED_VERSION " SQLite/";
  text += sqlite3_libversion();
  text += "\nProtocols: http https\n";
  text += "Commands: crawl fetch links robots serve url";
  return text;
}

}  // namespace squall::cli
