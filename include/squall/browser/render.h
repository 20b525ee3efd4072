// render_page: one page rendered in a fresh browser context, as pyspider's js fetcher does it.
//
//   RenderRequest req;
//   req.url = "http://127.0.0.1:8000/app.html";
//   req.wait_selector = "#results a";
//   RenderResult page = co_await render_page(*browser, req);
//   page.html;   // the rendered DOM, open shadow roots included
//
// Each render gets a browser context of its own (cookies, cache and storage start empty, and go
// with it), one page in it, and the context is disposed of at the end whatever happened. The
// request's proxy is the context's (direct when empty), its headers, cookies and user agent
// apply to every request the page makes, and images, fonts and media are refused unless
// load_images (the page sees them fail, as with a blocker).
//
// The wait: the page's load event, then with wait_until NetworkIdle until no request has been
// in flight for 500 ms, then until wait_selector (a CSS selector) matches an element; all of it
// within `timeout`, which bounds the whole render. js_script is a JavaScript function's text,
// run as `(js_script)()` at document-start (before the page's own scripts, in every frame) or
// document-end (after the wait, its promise awaited), its return value (made JSON) in
// js_script_result.
//
// What comes back: the HTML of the rendered DOM (a doctype, then <html> with open shadow roots
// written as declarative <template shadowrootmode> elements), the final URL, the main
// document's status, headers and redirects, and the context's cookies for the final URL.
//
// Failures: a navigation that gets no HTTP answer (refused, unresolvable, TLS, a proxy that
// fails) is a result with status 599, `error` the browser's net::ERR_ name and error_kind
// ("connect", "resolve", "tls", "timeout", "protocol"), as the HTTP client's raise_error=false;
// a render that throws leaves the browser fit for the next page unless said otherwise:
// - TimeoutError: the wait was not over within `timeout` (a page that never finishes loading);
// - squall::Error of kind TooLarge: the browser's memory passed memory_limit_bytes while the
//   page ran, or the HTML is larger than max_html_bytes (the browser is then killed: a page
//   that allocates without end must not take the machine);
// - squall::Error of kind Protocol: the page's renderer crashed (out of memory: the page's
//   JavaScript heap passed ChromiumOptions::js_heap_mib);
// - squall::Error of kind Closed: the browser exited, crashed or hung (a DevTools call to the
//   browser unanswered for 10 s); the browser is unfit and must be restarted.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "squall/browser/chromium.h"
#include "squall/core/task.h"
#include "squall/core/time.h"

namespace squall::browser {

enum class WaitUntil { Load, NetworkIdle };

struct RenderRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::pair<std::string, std::string>> cookies;  // sent to the page's URL
  std::string user_agent;                                    // empty: the browser's
  std::string proxy;  // "http://host:port" (or socks5://); empty: direct
  std::string js_script;
  bool js_at_document_start = false;  // pyspider's js_run_at: document-start or document-end
  int viewport_width = 1024;          // pyspider's js_viewport_width and js_viewport_height
  int viewport_height = 768 * 3;
  bool load_images = false;
  WaitUntil wait_until = WaitUntil::Load;
  std::string wait_selector;
  Duration timeout = std::chrono::seconds(30);
  size_t max_html_bytes = size_t{10} << 20;
  size_t memory_limit_bytes = 0;  // of the browser and its renderers; 0: no limit
};

struct RenderResult {
  int status = 599;
  std::string url;  // the final URL
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> redirects;  // the URLs that redirected, in order, before `url`
  std::string html;
  nlohmann::json cookies = nlohmann::json::object();  // name → value
  nlohmann::json js_script_result;                    // null without js_script
  std::string error;                                  // with status 599
  std::string error_kind;
};

[[nodiscard]] Task<RenderResult> render_page(Chromium& browser, const RenderRequest& request);

}  // namespace squall::browser
