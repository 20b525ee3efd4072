// Fuzzes squall::Url: input and base split at the first newline; the serialization must be ASCII,
// agree with the components, and parse back to itself. An http(s) input must parse the same with
// its scheme in upper case, and every input the same with a tab after its first byte: forms the
// parser's fast paths never take.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "squall/crawl/data_url.h"
#include "squall/url/url.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

// Rebuilds the serialization from the accessors, so every offset is checked.
std::string reassemble(const squall::Url& url) {
  std::string out(url.scheme());
  out += ':';
  if (url.has_host()) {
    out += "//";
    if (url.has_credentials()) {
      out += url.username();
      if (!url.password().empty()) {
        out += ':';
        out += url.password();
      }
      out += '@';
    }
    out += url.host();
    if (auto port = url.port()) out.append(":").append(std::to_string(*port));
  } else if (!url.has_opaque_path() && url.path().starts_with("//")) {
    out += "/.";
  }
  out += url.path();
  if (url.has_query()) out.append("?").append(url.query());
  if (url.has_fragment()) out.append("#").append(url.fragment());
  return out;
}

bool same_url(const squall::Url& a, const squall::Url& b) {
  return a.href() == b.href() && a.scheme_kind() == b.scheme_kind() &&
         a.host_type() == b.host_type() && reassemble(a) == reassemble(b) && a.port() == b.port() &&
         a.has_query() == b.has_query() && a.has_fragment() == b.has_fragment();
}

void check_url(const squall::Url& url) {
  const std::string_view href = url.href();
  for (char c : href) check(static_cast<unsigned char>(c) < 0x80);
  check(reassemble(url) == href);
  check(href.starts_with(url.dedup_key()));
  check(url.normalized().href() == url.dedup_key());
  check(!url.is_special() || url.path().starts_with("/"));
  check(url.is_special() == (url.scheme_kind() != squall::UrlScheme::Data &&
                             url.scheme_kind() != squall::UrlScheme::Other));
  const squall::UrlResult again = squall::Url::parse(href);
  check(again.ok());
  check(again->href() == href);
  check(same_url(*again, url));
  (void)url.origin();
  (void)url.host_port();
  if (auto data = data_url(url)) check(!data->essence.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const size_t newline = all.find('\n');
  const std::string_view input = all.substr(0, newline);
  const std::string_view base_text =
      newline == std::string_view::npos ? std::string_view() : all.substr(newline + 1);

  const squall::UrlResult base = squall::Url::parse(base_text);
  if (base) check_url(*base);
  const squall::UrlResult url = squall::Url::parse(input, base ? &*base : nullptr);
  check(url.ok() == (url.error() == squall::UrlError::None));
  if (url) check_url(*url);
  // A legacy document encoding changes only the bytes of queries, never whether a URL parses.
  for (std::string_view encoding : {"windows-1252", "Shift_JIS", "ISO-2022-JP"}) {
    const squall::UrlResult legacy = squall::Url::parse(input, base ? &*base : nullptr, encoding);
    check(legacy.ok() == url.ok());
    if (legacy) {
      check_url(*legacy);
      check(
          legacy->dedup_key().substr(0, legacy->request_target().data() - legacy->href().data()) ==
          url->dedup_key().substr(0, url->request_target().data() - url->href().data()));
      check(legacy->path() == url->path() && legacy->fragment() == url->fragment());
    }
  }
  // The fast paths and the state machine agree.
  for (std::string_view scheme : {"http://", "https://"}) {
    if (!input.starts_with(scheme)) continue;
    std::string upper(input);
    for (size_t i = 0; i + 3 < scheme.size(); ++i) upper[i] = static_cast<char>(upper[i] - 32);
    const squall::UrlResult general = squall::Url::parse(upper, base ? &*base : nullptr);
    check(general.ok() == url.ok() && general.error() == url.error());
    if (url) check(same_url(*general, *url));
  }
  {
    // With a tab after its first byte, which the parser removes before its state machine runs,
    // the input is never taken by a fast path (they take printable ASCII only).
    std::string general_input(input.substr(0, 1));
    general_input += '\t';
    general_input += input.substr(std::min<size_t>(1, input.size()));
    const squall::UrlResult general = squall::Url::parse(general_input, base ? &*base : nullptr);
    check(general.ok() == url.ok() && general.error() == url.error());
    if (url) check(same_url(*general, *url));
  }
  // A base is fully described by its href: resolving against the re-parsed base is the same.
  if (base) {
    const squall::UrlResult base_again = squall::Url::parse(base->href());
    const squall::UrlResult url_again = squall::Url::parse(input, &*base_again);
    check(url_again.ok() == url.ok() && url_again.error() == url.error());
    if (url) check(url_again->href() == url->href() && url_again->port() == url->port());
  }
  return 0;
}
