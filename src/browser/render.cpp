// render_page: a browser context, a page in it, the wait, then the DOM read back as HTML.
#include "squall/browser/render.h"

#include <algorithm>
#include <set>

#include "squall/core/error.h"
#include "squall/core/event.h"
#include "squall/core/seconds.h"

namespace squall::browser {

using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// How long the browser itself (not the page) may take to answer: past it, it is hung.
constexpr Duration kBrowserCallLimit = 10s;
// Network idle: no request in flight for this long.
constexpr Duration kNetworkQuiet = 500ms;
// How often the wait looks at the selector when no event comes, and at the memory (a walk of
// /proc: a few milliseconds).
constexpr Duration kPoll = 100ms;
constexpr Duration kMemoryPoll = 500ms;
// How long one look for the wait selector may take.
constexpr Duration kSelectorLimit = 1s;

// The rendered document as HTML, with its open shadow roots (getHTML writes each as a
// declarative <template shadowrootmode>), and the URL it ended at; {too_large: n} past the limit.
constexpr const char* kReadDocument = R"JS((max) => {
  const roots = [];
  const walk = (node) => {
    for (const el of node.querySelectorAll('*'))
      if (el.shadowRoot) { roots.push(el.shadowRoot); walk(el.shadowRoot); }
  };
  walk(document);
  const de = document.documentElement;
  let html = '';
  if (document.doctype) html += '<!DOCTYPE ' + document.doctype.name + '>';
  if (de) {
    let open = '<' + de.localName;
    for (const a of de.attributes) open += ' ' + a.name + '="' + a.value.replace(/&/g, '&amp;').replace(/"/g, '&quot;') + '"';
    const inner = de.getHTML ? de.getHTML({ serializableShadowRoots: true, shadowRoots: roots })
                             : de.innerHTML;
    html += open + '>' + inner + '</' + de.localName + '>';
  }
  if (html.length > max) return { too_large: html.length, url: location.href };
  return { html, url: location.href };
})JS";

std::string seconds_text(Duration d) {
  double s = to_seconds(d);
  char out[32];
  std::snprintf(out, sizeof out, "%g s", s);
  return out;
}

std::string net_error_kind(std::string_view error) {
  auto has = [&](std::string_view part) { return error.find(part) != std::string_view::npos; };
  if (has("NAME_NOT_RESOLVED") || has("NAME_RESOLUTION")) return "resolve";
  if (has("TIMED_OUT")) return "timeout";
  if (has("SSL") || has("CERT")) return "tls";
  if (has("EMPTY_RESPONSE")) return "closed";
  if (has("CONNECTION") || has("ADDRESS") || has("PROXY") || has("TUNNEL")) return "connect";
  return "protocol";
}

// What the page's events tell the wait.
struct PageState {
  std::string frame_id;      // the main frame's (the target's) id
  std::string main_request;  // the main document's request id
  bool loaded = false;
  bool crashed = false;
  std::set<std::string> in_flight;
  TimePoint last_activity = Clock::now();
  int status = 0;
  std::string response_url;
  json headers = json::object();
  json raw_headers;
  std::vector<std::string> redirects;
  Event changed;
};

void on_page_event(PageState& s, DevToolsPipe& pipe, const std::string& session, const json& m) {
  const std::string method = m.value("method", std::string());
  const json& p = m.contains("params") ? m["params"] : json::object();
  const std::string request_id = p.value("requestId", std::string());
  if (method == "Page.loadEventFired") {
    s.loaded = true;
  } else if (method == "Inspector.targetCrashed") {
    s.crashed = true;
  } else if (method == "Fetch.requestPaused") {
    pipe.post("Fetch.failRequest", {{"requestId", request_id}, {"errorReason", "BlockedByClient"}},
              session);
    return;
  } else if (method == "Network.requestWillBeSent") {
    s.in_flight.insert(request_id);
    s.last_activity = Clock::now();
    if (p.value("type", std::string()) == "Document" &&
        p.value("frameId", std::string()) == s.frame_id) {
      if (request_id == s.main_request && p.contains("redirectResponse"))
        s.redirects.push_back(p["redirectResponse"].value("url", std::string()));
      else if (request_id != s.main_request)
        s.redirects.clear();
      s.main_request = request_id;
    }
  } else if (method == "Network.responseReceivedExtraInfo") {
    // The headers as they came, Set-Cookie included (responseReceived leaves it out).
    if (request_id == s.main_request) s.raw_headers = p.value("headers", json::object());
    return;
  } else if (method == "Network.responseReceived") {
    s.last_activity = Clock::now();
    if (request_id == s.main_request && p.contains("response")) {
      const json& r = p["response"];
      s.status = r.value("status", 0);
      s.response_url = r.value("url", std::string());
      s.headers = r.value("headers", json::object());
    }
  } else if (method == "Network.loadingFinished" || method == "Network.loadingFailed") {
    s.in_flight.erase(request_id);
    s.last_activity = Clock::now();
  } else {
    return;
  }
  s.changed.set();
}

Duration left(TimePoint deadline) {
  return std::max<Duration>(deadline - Clock::now(), 1ms);
}

// The page part of a render: everything between the context's creation and its disposal.
Task<RenderResult> run_page(Chromium& browser, const RenderRequest& req, PageState& s,
                            const std::string& session, TimePoint deadline) {
  DevToolsPipe& pipe = browser.pipe();
  auto call = [&](std::string method, json params = json::object()) {
    return pipe.call(std::move(method), std::move(params), session, left(deadline));
  };
  co_await call("Inspector.enable");
  co_await call("Page.enable");
  co_await call("Network.enable");
  json metrics = {{"width", req.viewport_width},
                  {"height", req.viewport_height},
                  {"deviceScaleFactor", 1},
                  {"mobile", false}};
  co_await call("Emulation.setDeviceMetricsOverride", std::move(metrics));
  if (!req.headers.empty()) {
    json headers = json::object();
    for (const auto& [name, value] : req.headers) headers[name] = value;
    json params = {{"headers", headers}};
    co_await call("Network.setExtraHTTPHeaders", std::move(params));
  }
  if (!req.user_agent.empty()) {
    json params = {{"userAgent", req.user_agent}};
    co_await call("Network.setUserAgentOverride", std::move(params));
  }
  if (!req.cookies.empty()) {
    json cookies = json::array();
    for (const auto& [name, value] : req.cookies)
      cookies.push_back({{"name", name}, {"value", value}, {"url", req.url}});
    json params = {{"cookies", cookies}};
    co_await call("Network.setCookies", std::move(params));
  }
  if (!req.load_images) {
    json patterns = json::array();
    for (const char* type : {"Image", "Media", "Font"})
      patterns.push_back(
          {{"urlPattern", "*"}, {"resourceType", type}, {"requestStage", "Request"}});
    json params = {{"patterns", patterns}};
    co_await call("Fetch.enable", std::move(params));
  }
  if (!req.js_script.empty() && req.js_at_document_start) {
    json params = {{"source", "(() => { try { window.__squall_js_result = (" + req.js_script +
                                  ")(); } catch (e) { window.__squall_js_result = null; } })();"}};
    co_await call("Page.addScriptToEvaluateOnNewDocument", std::move(params));
  }

  RenderResult r;
  json navigate = {{"url", req.url}};
  json nav = co_await call("Page.navigate", std::move(navigate));
  if (auto error = nav.value("errorText", std::string()); !error.empty()) {
    r.url = req.url;
    r.error = error + " (" + req.url + ")";
    r.error_kind = net_error_kind(error);
    co_return r;
  }

  std::string waiting_for = "the load event";
  TimePoint next_memory_check = Clock::now();
  for (;;) {
    if (!browser.alive()) throw Error(ErrorKind::Closed, pipe.close_reason());
    if (s.crashed)
      throw Error(ErrorKind::Protocol,
                  "the renderer of " + req.url +
                      " crashed (out of memory, or a crash in Chromium) before its wait was over");
    bool done = false;
    if (s.loaded) {
      bool idle = req.wait_until == WaitUntil::Load ||
                  (s.in_flight.empty() && Clock::now() - s.last_activity >= kNetworkQuiet);
      if (!idle) waiting_for = "the network to be idle";
      if (idle && req.wait_selector.empty()) done = true;
      if (idle && !req.wait_selector.empty()) {
        waiting_for = "an element matching " + req.wait_selector;
        json query = {
            {"expression", "!!document.querySelector(" + json(req.wait_selector).dump() + ")"},
            {"returnByValue", true}};
        // Bounded, so that a renderer too busy to answer (a page that allocates without end)
        // leaves the wait free to see its crash, its memory and the deadline.
        json found;
        try {
          found = co_await pipe.call("Runtime.evaluate", std::move(query), session,
                                     std::min<Duration>(left(deadline), kSelectorLimit));
        } catch (const TimeoutError&) {
          found = json::object();
        }
        if (found.contains("exceptionDetails"))
          throw InvalidArgumentError("the wait selector " + req.wait_selector +
                                     " is not a valid CSS selector");
        done = found.contains("result") && found["result"].value("value", false);
      }
    }
    if (done) break;
    if (Clock::now() >= deadline)
      throw TimeoutError(req.url + " was not rendered within " + seconds_text(req.timeout) +
                         " (waiting for " + waiting_for + ")");
    if (req.memory_limit_bytes > 0 && Clock::now() >= next_memory_check) {
      next_memory_check = Clock::now() + kMemoryPoll;
      size_t used = browser.memory_bytes();
      if (used > req.memory_limit_bytes)
        throw Error(ErrorKind::TooLarge, req.url + " made the browser use " +
                                             std::to_string(used >> 20) +
                                             " MiB, more than its limit of " +
                                             std::to_string(req.memory_limit_bytes >> 20) + " MiB");
    }
    s.changed.clear();
    try {
      co_await s.changed.wait(std::min<Duration>(left(deadline), kPoll));
    } catch (const TimeoutError&) {
    }
  }

  if (!req.js_script.empty()) {
    std::string expression =
        req.js_at_document_start ? "window.__squall_js_result" : "(" + req.js_script + ")()";
    json params = {{"expression", expression}, {"awaitPromise", true}, {"returnByValue", true}};
    json out = co_await call("Runtime.evaluate", std::move(params));
    if (!out.contains("exceptionDetails") && out.contains("result"))
      r.js_script_result = out["result"].value("value", json());
  }

  json read = {{"expression",
                "(" + std::string(kReadDocument) + ")(" + std::to_string(req.max_html_bytes) + ")"},
               {"returnByValue", true}};
  json doc = co_await call("Runtime.evaluate", std::move(read));
  const json value = doc.contains("result") ? doc["result"].value("value", json()) : json();
  if (!value.is_object())
    throw Error(ErrorKind::Protocol, "the rendered document of " + req.url + " could not be read");
  r.url = value.value("url", req.url);
  if (value.contains("too_large"))
    throw Error(ErrorKind::TooLarge, "the rendered HTML of " + req.url + " is " +
                                         value["too_large"].dump() + " characters, more than " +
                                         std::to_string(req.max_html_bytes));
  r.html = value.value("html", std::string());
  r.status = s.status ? s.status : 200;
  r.redirects = s.redirects;
  const json& headers = s.raw_headers.is_object() ? s.raw_headers : s.headers;
  for (const auto& [name, v] : headers.items()) {
    std::string all = v.is_string() ? v.get<std::string>() : v.dump();
    size_t start = 0;
    for (size_t nl = all.find('\n');; nl = all.find('\n', start)) {
      r.headers.emplace_back(name, all.substr(start, nl - start));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  json urls = {{"urls", json::array({r.url})}};
  json cookies = co_await call("Network.getCookies", std::move(urls));
  for (const auto& c : cookies.value("cookies", json::array()))
    r.cookies[c.value("name", std::string())] = c.value("value", std::string());
  co_return r;
}

}  // namespace

Task<RenderResult> render_page(Chromium& browser, const RenderRequest& req) {
  DevToolsPipe& pipe = browser.pipe();
  const TimePoint deadline = Clock::now() + req.timeout;
  auto browser_call = [&](std::string method, json params) -> Task<json> {
    try {
      co_return co_await pipe.call(method, std::move(params), {}, kBrowserCallLimit);
    } catch (const TimeoutError& e) {
      throw Error(ErrorKind::Closed, std::string("the browser hung: ") + e.what());
    }
  };
  json context_params = {{"disposeOnDetach", true}};
  context_params["proxyServer"] = req.proxy.empty() ? "direct://" : req.proxy;
  json context = co_await browser_call("Target.createBrowserContext", context_params);
  const std::string context_id = context.value("browserContextId", std::string());

  std::exception_ptr failure;
  RenderResult result;
  PageState state;
  std::string session;
  try {
    json create = {{"url", "about:blank"}, {"browserContextId", context_id}};
    json target = co_await browser_call("Target.createTarget", std::move(create));
    state.frame_id = target.value("targetId", std::string());
    json attach = {{"targetId", state.frame_id}, {"flatten", true}};
    json attached = co_await browser_call("Target.attachToTarget", std::move(attach));
    session = attached.value("sessionId", std::string());
    pipe.on_event(session, [&state, &pipe, session](const json& m) {
      on_page_event(state, pipe, session, m);
    });
    result = co_await run_page(browser, req, state, session, deadline);
  } catch (const CancelledError&) {
    pipe.remove_events(session);
    pipe.post("Target.disposeBrowserContext", {{"browserContextId", context_id}});
    throw;
  } catch (const TimeoutError& e) {
    // A page call that ran into the deadline is the page's time limit, not a hung browser.
    failure = std::string_view(e.what()).find("was not rendered") != std::string_view::npos
                  ? std::current_exception()
                  : std::make_exception_ptr(TimeoutError(req.url + " was not rendered within " +
                                                         seconds_text(req.timeout) + " (" +
                                                         e.what() + ")"));
  } catch (...) {
    failure = std::current_exception();
  }
  if (!session.empty()) pipe.remove_events(session);
  if (!pipe.closed()) {
    try {
      json dispose = {{"browserContextId", context_id}};
      co_await browser_call("Target.disposeBrowserContext", std::move(dispose));
    } catch (const Error& e) {
      // A browser that cannot close a context is unfit; the page's own failure says less.
      if (e.kind() == ErrorKind::Closed || !failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  co_return result;
}

}  // namespace squall::browser
