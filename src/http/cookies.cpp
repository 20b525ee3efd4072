// Cookie header parsing and Set-Cookie serialisation.
#include "squall/http/cookies.h"

#include "squall/core/error.h"
#include "squall/http/http_date.h"
#include "squall/http/message.h"

namespace squall::http {

namespace {

// cookie-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E
bool cookie_octet(unsigned char c) noexcept {
  return c == 0x21 || (c >= 0x23 && c <= 0x2B) || (c >= 0x2D && c <= 0x3A) ||
         (c >= 0x3C && c <= 0x5B) || (c >= 0x5D && c <= 0x7E);
}

// Path and Domain attribute values: any CHAR except CTLs or ';' (RFC 6265 av-octet).
bool attribute_value(std::string_view s) noexcept {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F || c == ';' || c >= 0x80) return false;
  }
  return true;
}

[[noreturn]] void refuse(std::string_view what, std::string_view value) {
  std::string detail = "cookie ";
  detail.append(what).append(" is not allowed in a Set-Cookie header: ");
  // Quote only a printable prefix, so the message itself stays one clean line.
  for (char c : value.substr(0, 64)) {
    auto u = static_cast<unsigned char>(c);
    detail.push_back(u >= 0x20 && u < 0x7F ? c : '?');
  }
  throw InvalidArgumentError(detail);
}

}  // namespace

std::vector<std::pair<std::string_view, std::string_view>> parse_cookies(std::string_view header) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  while (!header.empty()) {
    size_t semi = header.find(';');
    std::string_view piece = header.substr(0, semi);
    header = semi == std::string_view::npos ? std::string_view() : header.substr(semi + 1);
    size_t eq = piece.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = trim_ows(piece.substr(0, eq));
    std::string_view value = trim_ows(piece.substr(eq + 1));
    if (name.empty()) continue;
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    out.emplace_back(name, value);
  }
  return out;
}

bool is_cookie_name(std::string_view s) noexcept {
  return is_token(s);
}

bool is_cookie_value(std::string_view s) noexcept {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  for (char c : s) {
    if (!cookie_octet(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string format_set_cookie(std::string_view name, std::string_view value,
                              const CookieOptions& options) {
  if (!is_cookie_name(name)) refuse("name", name);
  if (!is_cookie_value(value)) refuse("value", value);
  if (!attribute_value(options.path)) refuse("path", options.path);
  if (!attribute_value(options.domain)) refuse("domain", options.domain);
  if (options.same_site == SameSite::None && !options.secure) {
    throw InvalidArgumentError("cookie with SameSite=None must also be Secure");
  }
  std::string out;
  out.reserve(name.size() + value.size() + 64);
  out.append(name).push_back('=');
  out.append(value);
  if (!options.path.empty()) out.append("; Path=").append(options.path);
  if (!options.domain.empty()) out.append("; Domain=").append(options.domain);
  if (options.max_age) out.append("; Max-Age=").append(std::to_string(options.max_age->count()));
  if (options.expires) out.append("; Expires=").append(format_http_date(*options.expires));
  if (options.secure) out.append("; Secure");
  if (options.http_only) out.append("; HttpOnly");
  switch (options.same_site) {
    case SameSite::Unset:
      break;
    case SameSite::Lax:
      out.append("; SameSite=Lax");
      break;
    case SameSite::Strict:
      out.append("; SameSite=Strict");
      break;
    case SameSite::None:
      out.append("; SameSite=None");
      break;
  }
  return out;
}

}  // namespace squall::http
