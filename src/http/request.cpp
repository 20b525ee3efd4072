// Request accessors: lazy parsing of the query, cookies and body.
#include "squall/http/request.h"

#include <nlohmann/json.hpp>

#include "squall/http/cookies.h"
#include "squall/http/status_error.h"

namespace squall::http {

Request::Request(ServerRequest& raw, PathParams params) : raw_(raw), params_(std::move(params)) {}

std::string Request::decoded_path() const {
  return percent_decode(raw_.path());
}

std::string_view Request::host() const noexcept {
  return raw_.header("Host").value_or(std::string_view());
}

const Arguments& Request::query_arguments() const {
  if (!query_args_) {
    try {
      query_args_ = parse_query(raw_.query());
    } catch (const Error& e) {
      throw StatusError(400, e.what());
    }
  }
  return *query_args_;
}

std::optional<std::string_view> Request::query_argument(std::string_view name) const {
  return query_arguments().get(name);
}

const std::vector<std::pair<std::string_view, std::string_view>>& Request::cookies() const {
  if (!cookies_) {
    cookies_.emplace();
    // Views into the head outlive the Request's use of them (server.h), but a client may send
    // several Cookie fields: each is parsed in place.
    for (const auto& field : raw_.header_views()) {
      if (!iequals(field.name, "Cookie")) continue;
      for (auto& pair : parse_cookies(field.value)) cookies_->push_back(pair);
    }
  }
  return *cookies_;
}

std::optional<std::string_view> Request::cookie(std::string_view name) const {
  for (const auto& [n, v] : cookies()) {
    if (n == name) return v;
  }
  return std::nullopt;
}

Task<std::string_view> Request::body() {
  if (!body_) body_ = co_await raw_.body();
  co_return std::string_view(*body_);
}

Task<nlohmann::json> Request::json() {
  std::string_view text = co_await body();
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) throw StatusError(400, "the body is not valid JSON");
  co_return value;
}

Task<void> Request::read_form(MultipartLimits limits) {
  if (form_read_) co_return;
  std::string_view text = co_await body();
  form_read_ = true;
  std::string_view type = raw_.header("Content-Type").value_or(std::string_view());
  std::string_view media = type.substr(0, type.find(';'));
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.remove_suffix(1);
  try {
    if (iequals(media, "application/x-www-form-urlencoded")) {
      form_.fields = parse_query(text);
    } else if (media.size() >= 10 && iequals(media.substr(0, 10), "multipart/")) {
      auto boundary = multipart_boundary(type);
      if (!boundary) throw StatusError(400, "multipart body without a valid boundary");
      form_ = parse_multipart(text, *boundary, limits);
    }
  } catch (const StatusError&) {
    throw;
  } catch (const Error& e) {
    throw StatusError(e.kind() == ErrorKind::TooLarge ? 413 : 400, e.what());
  }
}

}  // namespace squall::http
