// Application dispatch: route, method, handler, and the errors that come back.
#include "squall/http/web.h"

#include <optional>

#include "squall/core/log.h"
#include "squall/net/address.h"
#include "squall/net/net_error.h"

namespace squall::http {

namespace {

constexpr std::array<std::string_view, kMethodCount> kMethodNames = {
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};

uint8_t bit(Method m) noexcept {
  return static_cast<uint8_t>(1u << static_cast<unsigned>(m));
}

Task<void> method_not_allowed() {
  throw StatusError(405);
  co_return;
}

}  // namespace

std::optional<Method> parse_method(std::string_view name) noexcept {
  for (size_t i = 0; i < kMethodNames.size(); ++i) {
    if (kMethodNames[i] == name) return static_cast<Method>(i);
  }
  return std::nullopt;
}

std::string_view method_name(Method m) noexcept {
  return kMethodNames[static_cast<size_t>(m)];
}

Task<void> RequestHandler::prepare() {
  return Task<void>::ready();
}
Task<void> RequestHandler::get() {
  return method_not_allowed();
}
Task<void> RequestHandler::head() {
  return method_not_allowed();
}
Task<void> RequestHandler::post() {
  return method_not_allowed();
}
Task<void> RequestHandler::put() {
  return method_not_allowed();
}
Task<void> RequestHandler::patch() {
  return method_not_allowed();
}
Task<void> RequestHandler::del() {
  return method_not_allowed();
}
Task<void> RequestHandler::options() {
  return method_not_allowed();
}

namespace detail {
struct HandlerBinding {
  static void bind(RequestHandler& h, Request& req, Response& resp) noexcept {
    h.request_ = &req;
    h.response_ = &resp;
  }
};
}  // namespace detail

struct Application::State {
  // What one route serves: a function for every method, functions per method, or a class.
  struct Entry {
    std::optional<Endpoint> any;
    std::array<std::optional<Endpoint>, kMethodCount> by_method;
    std::optional<Endpoint> cls;

    // The methods this route answers, HEAD included wherever GET is.
    uint8_t methods() const noexcept {
      uint8_t m = cls ? cls->methods : 0;
      for (size_t i = 0; i < kMethodCount; ++i) {
        if (by_method[i]) m |= static_cast<uint8_t>(1u << i);
      }
      if (m & bit(Method::Get)) m |= bit(Method::Head);
      return m;
    }
  };
  Router router;
  std::vector<Entry> entries;  // by route index
  ApplicationOptions options;
};

namespace {

using State = Application::State;

std::string allow_value(uint8_t methods) {
  std::string out;
  for (size_t i = 0; i < kMethodCount; ++i) {
    if (!(methods & (1u << i))) continue;
    if (!out.empty()) out.append(", ");
    out.append(kMethodNames[i]);
  }
  return out;
}

// The task of `method` on a handler object (not a coroutine: the method's own task).
Task<void> call_method(RequestHandler& h, const Endpoint& endpoint, Method method) {
  switch (method) {
    case Method::Get:
      return h.get();
    case Method::Head:
      // HEAD without its own function is GET with the body dropped by the server.
      return (endpoint.methods & bit(Method::Head)) ? h.head() : h.get();
    case Method::Post:
      return h.post();
    case Method::Put:
      return h.put();
    case Method::Patch:
      return h.patch();
    case Method::Delete:
      return h.del();
    case Method::Options:
      return h.options();
  }
  return Task<void>::ready();
}

// What serves a request: a route function's task, or a handler class and the method to call
// on a new object of it (which serve() keeps in its own frame, so no frame is added per call).
struct Dispatch {
  Task<void> task;
  const Endpoint* cls = nullptr;
  Method method = Method::Get;
};

// The route's handler for the request's method; throws 405 with Allow when the route has none.
Dispatch dispatch(const State::Entry& entry, Request& req, Response& resp) {
  if (entry.any) return {entry.any->function(req, resp)};
  std::optional<Method> method = parse_method(req.method());
  if (method) {
    if (const auto& fn = entry.by_method[static_cast<size_t>(*method)])
      return {fn->function(req, resp)};
    if (entry.cls && (entry.cls->methods & bit(*method)))
      return {Task<void>::ready(), &*entry.cls, *method};
    if (*method == Method::Head) {
      if (const auto& get = entry.by_method[static_cast<size_t>(Method::Get)])
        return {get->function(req, resp)};
      if (entry.cls && (entry.cls->methods & bit(Method::Get)))
        return {Task<void>::ready(), &*entry.cls, Method::Head};
    }
  }
  resp.headers().set("Allow", allow_value(entry.methods()));
  throw StatusError(405);
}

// The status and the text an exception from a handler turns into; rethrows what must not
// become a page (cancellation).
std::pair<int, std::string> classify(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const CancelledError&) {
    throw;
  } catch (const StatusError& e) {
    return {e.status(), e.detail()};
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::TooLarge) return {413, e.what()};
    if (e.kind() == ErrorKind::Protocol) return {400, e.what()};
    return {500, e.what()};
  } catch (const std::exception& e) {
    return {500, e.what()};
  } catch (...) {
    return {500, "an exception that is not a std::exception"};
  }
}

// `st` outlives the request: the server's handler holds it.
Task<void> serve(const State& st, ServerRequest& raw, ServerResponse& raw_resp) {
  std::optional<RouteMatch> match = st.router.match(raw.path());
  Request req(raw, match ? std::move(match->params) : PathParams{});
  Response resp(raw_resp);
  std::exception_ptr error;
  try {
    if (!match) {
      if (st.options.not_found)
        co_await st.options.not_found(req, resp);
      else
        throw StatusError(404);
    } else {
      Dispatch d = dispatch(st.entries[match->route], req, resp);
      if (!d.cls) {
        co_await std::move(d.task);
      } else {
        std::unique_ptr<RequestHandler> h = d.cls->make();
        detail::HandlerBinding::bind(*h, req, resp);
        co_await h->prepare();
        if (!resp.finished()) co_await call_method(*h, *d.cls, d.method);
      }
    }
  } catch (...) {
    error = std::current_exception();
  }
  if (error) {
    auto [status, detail] = classify(error);
    std::string line = std::to_string(status);
    line.append(" ").append(raw.method()).append(" ").append(raw.target());
    if (!detail.empty()) line.append(": ").append(detail);
    if (status >= 500)
      log(LogLevel::Error, line);
    else if (!detail.empty())
      log(LogLevel::Warning, line);
    // Too late for a page: the server cuts the connection, so the client sees the truncation.
    if (resp.headers_sent()) std::rethrow_exception(error);
    co_await resp.send_error(status, st.options.debug ? std::string_view(detail) : "");
  }
  if (!resp.finished()) co_await resp.finish();
}

}  // namespace

Application::Application(std::vector<Route> routes, ApplicationOptions options)
    : state_(std::make_shared<State>()) {
  state_->options = std::move(options);
  for (auto& r : routes) add(std::move(r));
}

Application::~Application() = default;

void Application::add(Route route) {
  bool regex = !route.pattern.empty() && route.pattern.front() == '^';
  size_t index =
      regex ? state_->router.add_regex(route.pattern) : state_->router.add(route.pattern);
  if (index >= state_->entries.size()) state_->entries.resize(index + 1);
  State::Entry& entry = state_->entries[index];
  auto clash = [&] {
    std::string detail = "route '";
    detail.append(route.pattern).append("' already has a handler for ");
    detail.append(route.method.empty() ? std::string_view("its methods") : route.method);
    throw InvalidArgumentError(detail);
  };
  const Endpoint& e = route.endpoint;
  if (!e.function && !e.make) throw InvalidArgumentError("a route needs a handler");
  // One kind of handler per route: a class, a function for all methods, or functions per
  // method. Mixing them would make the route's answer depend on the order of registration.
  bool has_per_method = false;
  for (const auto& m : entry.by_method) has_per_method = has_per_method || m.has_value();
  if (e.make) {
    if (entry.cls || entry.any || has_per_method) clash();
    entry.cls = std::move(route.endpoint);
    return;
  }
  if (route.method.empty()) {
    if (entry.any || entry.cls || has_per_method) clash();
    entry.any = std::move(route.endpoint);
    return;
  }
  std::optional<Method> method = parse_method(route.method);
  if (!method) {
    std::string detail = "route method must be one of GET HEAD POST PUT PATCH DELETE OPTIONS: ";
    detail.append(route.method);
    throw InvalidArgumentError(detail);
  }
  auto& slot = entry.by_method[static_cast<size_t>(*method)];
  if (slot || entry.any || entry.cls) clash();
  slot = std::move(route.endpoint);
}

void Application::add(std::string_view method, std::string pattern, RouteFunction function) {
  add(Route{std::move(pattern), Endpoint(std::move(function)), std::string(method)});
}

Handler Application::handler() const {
  return [st = std::shared_ptr<const State>(state_)](ServerRequest& req, ServerResponse& resp) {
    return serve(*st, req, resp);
  };
}

Task<void> Application::operator()(ServerRequest& request, ServerResponse& response) const {
  // The request may outlive this Application object: its frame keeps the state.
  return
      [](std::shared_ptr<const State> st, ServerRequest& req, ServerResponse& resp) -> Task<void> {
        co_await serve(*st, req, resp);
      }(state_, request, response);
}

HttpServer& Application::listen(uint16_t port, std::string_view host, HttpServerOptions options) {
  auto address = Address::from_ip(host, port);
  if (!address) {
    std::string detail = "listen: not an IP address: ";
    detail.append(host);
    throw InvalidArgumentError(detail);
  }
  auto server = std::make_unique<HttpServer>(handler(), std::move(options));
  server->listen(*address);
  servers_.push_back(std::move(server));
  return *servers_.back();
}

Task<void> Application::stop(Timeout grace) {
  for (auto& server : servers_) co_await server->stop(grace);
}

}  // namespace squall::http
