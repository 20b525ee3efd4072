// The web framework: Application (routes → handlers) and RequestHandler (Tornado's
// tornado.web.Application and RequestHandler).
//
//   struct NoBlockHandler : RequestHandler {
//     Task<void> get() override { co_await write(co_await service_method()); }
//   };
//   Application app({
//       {"/api/noblock", handler<NoBlockHandler>()},
//       {"/users/{id}", [](Request& req, Response& resp) -> Task<void> {
//          co_await resp.finish(*req.path_param("id"));
//        }},
//       {"^/posts/(\\d+)$", handler<PostHandler>(db)},   // '^': a regular expression
//       {"/static/{path*}", StaticFiles("site/static", {.prefix = "/static/"})},
//   });
//   app.listen(2345);
//
// Routes (router.h): a pattern starting with '^' is a regular expression matched against the
// whole path; any other is a literal path or a segment pattern ("/users/{id}", "/files/{p*}").
// A handler is one of:
//   - a coroutine function `Task<void>(Request&, Response&)`, for every method (it looks at
//     req.method() itself), or for one method with Route::method / Application::add(method, ...);
//   - a class deriving from RequestHandler, via handler<T>(constructor args...): a fresh object
//     per request, whose overridden get/post/put/patch/del/head/options serve those methods.
//     HEAD goes to get() when head() is not overridden (the server drops the body).
// Dispatch: no route → 404; a route without a handler for the method → 405 with an Allow
// field listing the methods it has. A handler may co_await anything (a fetch, a sleep, a queue):
// each connection runs in its own task, so others go on meanwhile.
//
// Errors: a StatusError (status_error.h) becomes that status with an error page; a squall::Error
// of kind TooLarge becomes 413, Protocol 400; any other exception a 500 and an Error log line
// naming the method, path and exception. The page shows the exception's message only with
// `debug`. If the response's head was already sent, the exception goes on to the server, which
// cuts the connection (the client sees a truncated body, not a wrong one). A handler that
// returns without finishing the response has it finished. Cancellation (server shutdown) is
// never turned into a page.
//
// Threads: an Application is built on one thread and may then serve from any number of loops
// (HttpWorkers): its routes are read-only; each request's handler object is its own.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/http/request.h"
#include "squall/http/response.h"
#include "squall/http/server.h"
#include "squall/http/status_error.h"

namespace squall::http {

namespace detail {
struct HandlerBinding;
}

// The methods a handler class can serve, as bits of a mask.
enum class Method : uint8_t { Get, Head, Post, Put, Patch, Delete, Options };
inline constexpr size_t kMethodCount = 7;
// The method named `name` (case-sensitive, as RFC 9110 says), or nullopt for any other.
std::optional<Method> parse_method(std::string_view name) noexcept;
std::string_view method_name(Method m) noexcept;

class RequestHandler {
 public:
  virtual ~RequestHandler() = default;

  // Runs before the method's function; a prepare() that finishes the response (or throws)
  // skips it. The default does nothing.
  virtual Task<void> prepare();
  // One per method; the defaults answer 405 (they are only reached if a subclass calls them).
  virtual Task<void> get();
  virtual Task<void> head();
  virtual Task<void> post();
  virtual Task<void> put();
  virtual Task<void> patch();
  virtual Task<void> del();  // DELETE ("delete" is a C++ keyword)
  virtual Task<void> options();

  Request& request() noexcept { return *request_; }
  Response& response() noexcept { return *response_; }

  // Shorthands for the request and response helpers most handlers use.
  std::optional<std::string_view> path_param(std::string_view name) const noexcept {
    return request_->path_param(name);
  }
  std::optional<std::string_view> query_argument(std::string_view name) const {
    return request_->query_argument(name);
  }
  void set_status(int status) { response_->set_status(status); }
  void set_header(std::string_view name, std::string_view value) {
    response_->set_header(name, value);
  }
  [[nodiscard]] Task<void> write(std::string_view bytes) { return response_->write(bytes); }
  [[nodiscard]] Task<void> flush() { return response_->flush(); }
  [[nodiscard]] Task<void> finish() { return response_->finish(); }
  [[nodiscard]] Task<void> redirect(std::string_view location, int status = 302) {
    return response_->redirect(location, status);
  }

 private:
  friend struct detail::HandlerBinding;
  Request* request_ = nullptr;
  Response* response_ = nullptr;
};

// A coroutine function handler.
using RouteFunction = std::function<Task<void>(Request&, Response&)>;

// What a route calls: a function, or a factory of handler objects with the methods they serve.
struct Endpoint {
  RouteFunction function;
  std::function<std::unique_ptr<RequestHandler>()> make;
  uint8_t methods = 0;  // bits of Method a handler class overrides (unused for functions)

  Endpoint() = default;
  template <class F>
  requires std::is_invocable_r_v<Task<void>, F&, Request&, Response&> Endpoint(F f)
      : function(std::move(f)) {}  // NOLINT: implicit on purpose, for route lists
};

namespace detail {
template <class T>
uint8_t overridden_methods() {
  using Fn = Task<void> (RequestHandler::*)();
  uint8_t m = 0;
  auto bit = [](Method x) { return static_cast<uint8_t>(1u << static_cast<unsigned>(x)); };
  // &T::get has type `Task<void> (RequestHandler::*)()` exactly when T inherits it unchanged.
  if (!std::is_same_v<decltype(&T::get), Fn>) m |= bit(Method::Get);
  if (!std::is_same_v<decltype(&T::head), Fn>) m |= bit(Method::Head);
  if (!std::is_same_v<decltype(&T::post), Fn>) m |= bit(Method::Post);
  if (!std::is_same_v<decltype(&T::put), Fn>) m |= bit(Method::Put);
  if (!std::is_same_v<decltype(&T::patch), Fn>) m |= bit(Method::Patch);
  if (!std::is_same_v<decltype(&T::del), Fn>) m |= bit(Method::Delete);
  if (!std::is_same_v<decltype(&T::options), Fn>) m |= bit(Method::Options);
  return m;
}
}  // namespace detail

// The endpoint for handler class T: a new T(args...) per request. T's methods must be public
// overrides (so that the framework can see which ones it has).
template <class T, class... Args>
Endpoint handler(Args... args) {
  static_assert(std::is_base_of_v<RequestHandler, T>, "handler<T>: T must derive RequestHandler");
  Endpoint e;
  e.make = [... args = std::move(args)]() -> std::unique_ptr<RequestHandler> {
    return std::make_unique<T>(args...);
  };
  e.methods = detail::overridden_methods<T>();
  return e;
}

struct Route {
  std::string pattern;
  Endpoint endpoint;
  std::string method;  // for a function: the one method it serves; empty for all
};

struct ApplicationOptions {
  // Show exception messages in 500 pages (never in production: they may name internals).
  bool debug = false;
  // Called when no route matches (default: 404 page).
  RouteFunction not_found;
};

class Application {
 public:
  explicit Application(std::vector<Route> routes = {}, ApplicationOptions options = {});
  Application(Application&&) noexcept = default;
  Application& operator=(Application&&) noexcept = default;
  // Stops the servers listen() made, at once (call stop() first for a graceful end).
  ~Application();

  // Adds a route (before serving starts). Throws InvalidArgumentError for a malformed pattern,
  // a method that is not a token, or a second handler for the same pattern and method.
  void add(Route route);
  void add(std::string_view method, std::string pattern, RouteFunction function);

  // The Application as the server's handler. The handler shares the routes; it may outlive
  // this object.
  Handler handler() const;
  // Serves one request (what handler() calls).
  [[nodiscard]] Task<void> operator()(ServerRequest& request, ServerResponse& response) const;

  // Tornado's listen(): an HttpServer for this application on the current loop, listening on
  // host:port (port 0: ephemeral; see the returned server's port()). Throws NetError if the
  // address is taken.
  HttpServer& listen(uint16_t port, std::string_view host = "127.0.0.1",
                     HttpServerOptions options = {});
  // Gracefully stops every server listen() made (HttpServer::stop).
  [[nodiscard]] Task<void> stop(Timeout grace = {});

  struct State;

 private:
  std::shared_ptr<State> state_;
  std::vector<std::unique_ptr<HttpServer>> servers_;
};

}  // namespace squall::http
