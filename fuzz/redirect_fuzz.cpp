// Fuzzes the client's redirect step (resolve_redirect): a hostile Location, first line, resolved
// against the current URL, the rest (an http URL of its own when that is not one). A next hop is
// always an http(s) URL whose request line and Host field are safe to send; anything else is a
// refusal with a reason.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "squall/http/redirect.h"
#include "squall/url/url.h"

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

// A byte that would break a request line or a field if the URL carried it raw.
bool unsafe(char c) {
  auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u >= 0x7f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const size_t newline = all.find('\n');
  const std::string_view location = all.substr(0, newline);
  const std::string_view current_text =
      newline == std::string_view::npos ? std::string_view() : all.substr(newline + 1);

  squall::UrlResult current = squall::Url::parse(current_text);
  if (!current || !current->is_http()) current = squall::Url::parse("http://example.com/a/b?c");
  check(current.ok());

  const squall::http::Redirect next = squall::http::resolve_redirect(*current, location);
  if (!next.url) {
    check(!next.refusal.empty());
    const squall::UrlResult parsed = squall::Url::parse(location, &*current);
    check(!parsed || !parsed->is_http());
    return 0;
  }
  const squall::Url& url = *next.url;
  check(next.refusal.empty());
  check(url.is_http());
  check(url.host_type() == squall::UrlHostType::Domain ||
        url.host_type() == squall::UrlHostType::Ipv4 ||
        url.host_type() == squall::UrlHostType::Ipv6);
  check(!url.host().empty() && url.effective_port().has_value());
  for (char c : url.href()) check(!unsafe(c));
  const std::string_view target = url.request_target();
  check(target.starts_with("/"));
  check(target.find('#') == std::string_view::npos);
  for (char c : url.host()) check(c != '/' && c != '@' && c != '?' && c != '#' && c != '\\');
  // The hop is described by its href: parsing it again gives the same URL.
  const squall::UrlResult again = squall::Url::parse(url.href());
  check(again.ok() && again->href() == url.href());
  // The same Location resolves the same way again.
  const squall::http::Redirect twice = squall::http::resolve_redirect(*current, location);
  check(twice.url && twice.url->href() == url.href());

  for (int code : {301, 302, 303, 307, 308}) {
    check(squall::http::is_redirect(code));
    for (std::string_view method : {"GET", "HEAD", "POST", "PUT"}) {
      const bool to_get = squall::http::redirect_turns_to_get(code, method);
      if (code == 307 || code == 308) check(!to_get);
      if (method == "GET") check(!to_get || code == 303);
    }
  }
  return 0;
}
