// Request: the web framework's view of one request (Tornado's HTTPServerRequest accessors).
//
//   Task<void> show(Request& req, Response& resp) {
//     auto id = req.path_param("id");            // from the route "/users/{id}"
//     auto page = req.query_argument("page");    // ?page=2
//     auto sid = req.cookie("sid");
//     nlohmann::json body = co_await req.json();  // 400 (StatusError) if it is not JSON
//   }
//
// A Request wraps the server's ServerRequest (server.h) and parses lazily: the query, the
// cookies and the body are each parsed once, on first use, and cached. Parsed values are
// percent-decoded; views returned here live as long as the Request.
//
// Errors a client causes (a body that is not JSON, a malformed form) throw StatusError(400)
// (web.h), which the Application answers; limits the server enforces on the body surface as its
// own errors (413, 408). Threads: a Request belongs to the loop of its connection.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "squall/core/task.h"
#include "squall/http/form.h"
#include "squall/http/multipart.h"
#include "squall/http/router.h"
#include "squall/http/server.h"

namespace squall::http {

class Request {
 public:
  explicit Request(ServerRequest& raw, PathParams params = {});
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  // The server's request, for what this class does not wrap (streaming the body, trailers).
  ServerRequest& raw() noexcept { return raw_; }
  const ServerRequest& raw() const noexcept { return raw_; }

  std::string_view method() const noexcept { return raw_.method(); }
  std::string_view target() const noexcept { return raw_.target(); }
  // The path as sent (percent-encoded) and its decoded form ('+' stays '+').
  std::string_view path() const noexcept { return raw_.path(); }
  std::string decoded_path() const;
  std::string_view query() const noexcept { return raw_.query(); }
  Version version() const noexcept { return raw_.version(); }
  std::optional<std::string_view> header(std::string_view name) const noexcept {
    return raw_.header(name);
  }
  const Headers& headers() const { return raw_.headers(); }
  std::string_view remote_ip() const noexcept { return raw_.remote_ip(); }
  std::string_view protocol() const noexcept { return raw_.protocol(); }
  // The Host header, or "" when the client sent none.
  std::string_view host() const noexcept;

  // Parameters the route captured, decoded.
  const PathParams& path_params() const noexcept { return params_; }
  std::optional<std::string_view> path_param(std::string_view name) const noexcept {
    return params_.get(name);
  }

  // Query arguments (parsed on first use). A query with more than 10,000 arguments throws
  // StatusError(400).
  const Arguments& query_arguments() const;
  // The last value of a query argument (Tornado's get_query_argument), or nullopt.
  std::optional<std::string_view> query_argument(std::string_view name) const;

  // The cookies of every Cookie header, in order (parsed on first use).
  const std::vector<std::pair<std::string_view, std::string_view>>& cookies() const;
  // The first cookie named `name`, or nullopt.
  std::optional<std::string_view> cookie(std::string_view name) const;

  // --- the body (each reads the whole body once; later calls reuse it) ---------------------
  // The body, chunked framing removed; the view lives as long as the Request.
  [[nodiscard]] Task<std::string_view> body();
  // The body parsed as JSON; StatusError(400) when it is not valid JSON.
  [[nodiscard]] Task<nlohmann::json> json();
  // Reads and parses a urlencoded or multipart/form-data body (by Content-Type; any other type
  // leaves the form empty); then form() and files() answer. StatusError(400) for a malformed
  // multipart body, 413 past the multipart limits.
  [[nodiscard]] Task<void> read_form(MultipartLimits limits = {});
  // The form's fields (urlencoded pairs, or multipart parts without a filename).
  const Arguments& form() const noexcept { return form_.fields; }
  // The uploaded files of a multipart form.
  const std::vector<UploadedFile>& files() const noexcept { return form_.files; }

 private:
  ServerRequest& raw_;
  PathParams params_;
  mutable std::optional<Arguments> query_args_;
  mutable std::optional<std::vector<std::pair<std::string_view, std::string_view>>> cookies_;
  std::optional<std::string> body_;
  MultipartForm form_;
  bool form_read_ = false;
};

}  // namespace squall::http
