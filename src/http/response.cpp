// Response helpers: checked headers, cookies, JSON, redirects and error pages.
#include "squall/http/response.h"

#include <nlohmann/json.hpp>

#include "squall/core/error.h"
#include "squall/http/message.h"

namespace squall::http {

namespace {

void check_field(std::string_view name, std::string_view value) {
  if (!is_token(name)) {
    std::string detail = "header name is not a token: ";
    detail.append(name.substr(0, 64));
    throw InvalidArgumentError(detail);
  }
  // is_field_value also refuses leading and trailing whitespace; an empty value is fine.
  if (!value.empty() && !is_field_value(value)) {
    std::string detail = "header value for ";
    detail.append(name).append(" holds a control byte or surrounding whitespace");
    throw InvalidArgumentError(detail);
  }
}

// Fields that explain an error and so survive send_error's reset.
bool keeps_for_error(std::string_view name) noexcept {
  return iequals(name, "Set-Cookie") || iequals(name, "Allow") ||
         iequals(name, "WWW-Authenticate") || iequals(name, "Content-Range") ||
         iequals(name, "Retry-After") || iequals(name, "Connection");
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out.append("&amp;");
        break;
      case '<':
        out.append("&lt;");
        break;
      case '>':
        out.append("&gt;");
        break;
      case '"':
        out.append("&quot;");
        break;
      case '\'':
        out.append("&#39;");
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string error_page(int status, std::string_view detail) {
  std::string title = std::to_string(status);
  std::string_view reason = reason_phrase(status);
  if (!reason.empty()) title.append(": ").append(reason);
  std::string page = "<!DOCTYPE html>\n<html><head><title>";
  page.append(title).append("</title></head><body><h1>").append(title).append("</h1>");
  if (!detail.empty()) page.append("<pre>").append(html_escape(detail)).append("</pre>");
  page.append("</body></html>\n");
  return page;
}

Response::Response(ServerResponse& raw) : raw_(raw) {}

void Response::set_header(std::string_view name, std::string_view value) {
  check_field(name, value);
  raw_.headers().set(name, value);
}

void Response::add_header(std::string_view name, std::string_view value) {
  check_field(name, value);
  raw_.headers().add(name, value);
}

void Response::set_cookie(std::string_view name, std::string_view value,
                          const CookieOptions& options) {
  raw_.headers().add("Set-Cookie", format_set_cookie(name, value, options));
}

void Response::clear_cookie(std::string_view name, std::string_view path, std::string_view domain) {
  CookieOptions options;
  options.path = std::string(path);
  options.domain = std::string(domain);
  options.max_age = std::chrono::seconds(0);
  options.expires = std::chrono::system_clock::time_point{};
  set_cookie(name, "", options);
}

Task<void> Response::finish(std::string_view bytes) {
  co_await raw_.write(bytes);
  co_await raw_.finish();
}

Task<void> Response::json(const nlohmann::json& value) {
  // Serialised before the first suspension: the caller's temporary may not outlive it.
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return [](ServerResponse& raw, std::string body) -> Task<void> {
    if (!raw.headers().contains("Content-Type")) {
      raw.headers().set("Content-Type", "application/json");
    }
    co_await raw.write(body);
    co_await raw.finish();
  }(raw_, std::move(text));
}

Task<void> Response::redirect(std::string_view location, int status) {
  if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) {
    throw InvalidArgumentError("a redirect status must be 301, 302, 303, 307 or 308");
  }
  if (location.empty() || !is_field_value(location)) {
    throw InvalidArgumentError("a redirect location must be a non-empty header value");
  }
  raw_.set_status(status);
  raw_.headers().set("Location", location);
  co_await raw_.finish();
}

Task<void> Response::send_error(int status, std::string_view detail) {
  if (raw_.headers_sent()) {
    co_await raw_.finish();
    co_return;
  }
  Headers kept;
  for (const auto& field : raw_.headers()) {
    if (keeps_for_error(field.name)) kept.add(field.name, field.value);
  }
  raw_.headers() = std::move(kept);
  raw_.set_status(status);
  raw_.headers().set("Content-Type", "text/html; charset=utf-8");
  co_await raw_.write(error_page(status, detail));
  co_await raw_.finish();
}

}  // namespace squall::http
