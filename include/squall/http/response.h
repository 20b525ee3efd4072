// Response: the web framework's helpers for answering one request (Tornado's RequestHandler
// output methods): status, headers, cookies, write/finish, JSON, redirects, error pages.
//
//   resp.set_header("X-Id", "7");
//   resp.set_cookie("sid", token, {.http_only = true});
//   co_await resp.json({{"ok", true}});                 // finishes the response
//   co_await resp.redirect("/login", 303);
//   co_await resp.write("part 1"); co_await resp.flush();   // chunked streaming
//
// A Response wraps the server's ServerResponse (server.h), which chooses the framing (a
// Content-Length when the whole body is known at finish(), chunked once a flush sends the head
// early) and drops the body of answers to HEAD.
//
// Header values from user data are checked: set_header, set_cookie and redirect throw
// InvalidArgumentError for a name that is not a token or a value holding CR, LF or another
// control byte, so no header can be injected. Status and headers may change until the head is
// sent (headers_sent()); after that set_status throws InvalidStateError. Threads: a Response
// belongs to the loop of its connection.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <sys/types.h>
#include <string>
#include <string_view>

#include "squall/core/task.h"
#include "squall/http/cookies.h"
#include "squall/http/server.h"

namespace squall::http {

// A small HTML error page: "<status>: <reason>", and `detail` (escaped) below when not empty.
std::string error_page(int status, std::string_view detail = {});

// `s` with &, <, >, " and ' replaced by character references, for text placed in HTML.
std::string html_escape(std::string_view s);

class Response {
 public:
  explicit Response(ServerResponse& raw);
  Response(const Response&) = delete;
  Response& operator=(const Response&) = delete;

  ServerResponse& raw() noexcept { return raw_; }

  void set_status(int status, std::string_view reason = {}) { raw_.set_status(status, reason); }
  int status() const noexcept { return raw_.status(); }
  // The fields to send, unchecked (for trusted names and values).
  Headers& headers() noexcept { return raw_.headers(); }
  // Replaces / appends a field after checking it (InvalidArgumentError, see above).
  void set_header(std::string_view name, std::string_view value);
  void add_header(std::string_view name, std::string_view value);
  void set_content_type(std::string_view type) { set_header("Content-Type", type); }

  // Adds a Set-Cookie field (cookies.h validates every part).
  void set_cookie(std::string_view name, std::string_view value, const CookieOptions& options = {});
  // Tells the client to drop a cookie: an empty value that expired in 1970 (path and domain
  // must match the ones it was set with).
  void clear_cookie(std::string_view name, std::string_view path = "/",
                    std::string_view domain = {});

  // Appends to the body (see ServerResponse::write).
  [[nodiscard]] Task<void> write(std::string_view bytes) { return raw_.write(bytes); }
  // Sends the head and what is buffered now: with no Content-Length set, the rest of the body
  // is chunked (HTTP/1.1), so each flush reaches the client as it happens.
  [[nodiscard]] Task<void> flush() { return raw_.flush(); }
  [[nodiscard]] Task<void> finish() { return raw_.finish(); }
  // write(bytes), then finish().
  [[nodiscard]] Task<void> finish(std::string_view bytes);
  // Serialises `value` as the body with Content-Type application/json (unless one is set),
  // then finishes.
  [[nodiscard]] Task<void> json(const nlohmann::json& value);
  // Answers `status` (301, 302, 303, 307 or 308; InvalidArgumentError otherwise) with a
  // Location header, then finishes. InvalidArgumentError for a location with control bytes.
  [[nodiscard]] Task<void> redirect(std::string_view location, int status = 302);
  // Answers `status` with error_page(status, detail): drops the fields set so far (except
  // Set-Cookie, Allow, WWW-Authenticate, Content-Range, Retry-After and Connection, which explain
  // the error), then finishes. When the head is already sent, it only finishes.
  [[nodiscard]] Task<void> send_error(int status, std::string_view detail = {});
  // Sends `count` bytes of the file `fd` from `offset` (ServerResponse::send_file).
  [[nodiscard]] Task<void> send_file(int fd, off_t offset, size_t count) {
    return raw_.send_file(fd, offset, count);
  }

  bool headers_sent() const noexcept { return raw_.headers_sent(); }
  bool finished() const noexcept { return raw_.finished(); }
  uint64_t bytes_written() const noexcept { return raw_.bytes_written(); }

 private:
  ServerResponse& raw_;
};

}  // namespace squall::http
