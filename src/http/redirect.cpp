// Redirect targets: Location resolved by the URL parser and held to http(s).
#include "squall/http/redirect.h"

namespace squall::http {

Redirect resolve_redirect(const Url& current, std::string_view location) {
  Redirect out;
  UrlResult next = Url::parse(location, &current);
  if (!next) {
    out.refusal = "bad redirect location '";
    out.refusal += location;
    out.refusal += "': ";
    out.refusal += url_error_message(next.error());
    return out;
  }
  if (!next->is_http()) {
    out.refusal = "a redirect to a '";
    out.refusal += next->scheme();
    out.refusal += ":' URL is refused (only http and https)";
    return out;
  }
  out.url.emplace(std::move(next).value());
  return out;
}

bool redirect_turns_to_get(int code, std::string_view method) noexcept {
  return (code == 303 && method != "HEAD") || ((code == 301 || code == 302) && method == "POST");
}

}  // namespace squall::http
