// Fetcher: the engine's fetch of one task, as pyspider's fetcher does it, by fetch type.
//
//   Fetcher fetcher({.user_agent = "squall/1.0"});
//   FetchResult r = co_await fetcher.fetch(task);   // never throws for a failed fetch
//
// - http and https go through squall's HTTP client (its pool, limits and decoding) with the
//   task's `fetch` options: method, headers, data, cookies, user_agent, timeout,
//   connect_timeout, allow_redirects, max_redirects, validate_cert, proxy, use_gzip. A body
//   that is not text (JSON strings carry UTF-8 only) comes as `data_base64` instead of `data`.
// - data: URLs are decoded in place (the Fetch Standard's processor).
// - `fetch_type: js` (or phantomjs, splash, chrome, as pyspider names its renderers) renders the
//   page in the browser pool of the options (browser_pool.h), with pyspider's options: js_script
//   and js_run_at ("document-end", the default, or "document-start"), its value in
//   js_script_result; js_viewport_width and js_viewport_height (1024 × 2304); load_images
//   (false); and squall's wait: js_wait_until ("load", the default, or "networkidle") and
//   js_wait_for (a CSS selector), all within the task's timeout. The task's headers, cookies,
//   user agent and proxy (with what `prepare` adds) apply to every request the page makes; the
//   content is the rendered DOM's HTML (UTF-8). A page the browser cannot render is status 599
//   with error_kind "timeout", "too large", "closed" (the browser crashed, exited or hung: a
//   new one takes the next page), "protocol" (its renderer crashed) or the navigation's kind;
//   without a pool, or with no Chromium installed, such a task fails with an error that says what
//   to do.
// - Conditional recrawl: with the `etag` and `last_modified` options (on by default, as in
//   pyspider) the ETag and Last-Modified of the task's last fetch (its track) become
//   If-None-Match and If-Modified-Since; a 304 answer is `unchanged`.
// - robots.txt is the fetch stage's (fetch_stage.h), which asks fetch_robots() for a host's file
//   before its pages.
// The result has pyspider's fields; status_code is 599 when no HTTP status came.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "squall/browser/browser_pool.h"
#include "squall/core/task.h"
#include "squall/crawl/warc.h"
#include "squall/engine/crawl_task.h"
#include "squall/http/client.h"

namespace squall {

class JsonObjectWriter;

struct FetchResult {
  int status_code = 599;
  std::string orig_url;  // the task's URL
  std::string url;       // the final URL, after redirects
  http::Headers headers;
  nlohmann::json cookies = nlohmann::json::object();  // name → value, every hop's
  std::string content;
  std::string encoding;  // the charset the response declares ("" when it declares none)
  double time = 0;       // seconds
  nlohmann::json save;   // the task's fetch.save, handed back
  std::string error;     // why it failed; empty when an answer came
  // With status_code 599, the kind of failure (HttpResponse::failure_kind: "timeout",
  // "connect", "tls", ...); empty otherwise.
  std::string error_kind;
  std::vector<std::string> redirects;  // the URLs that redirected, in order, before `url`
  bool unchanged = false;              // a 304 to a conditional request
  nlohmann::json js_script_result;     // a rendered page's js_script value (null otherwise)

  // pyspider's fetch result dict (content as text).
  nlohmann::json to_json() const;
  // Writes what the task's track keeps of a fetch: error, etag, last_modified, length (the
  // body's bytes), ok, status_code, time, unchanged, url (the processor adds the body's start
  // when the task failed, then ends the object).
  void write_track(JsonObjectWriter& fetch) const;
};

struct FetcherOptions {
  std::string user_agent = "squall/1.0";
  size_t max_body_size = size_t{10} << 20;
  double timeout = 120;  // pyspider's default, seconds
  double connect_timeout = 20;
  // The client to fetch with; when null the fetcher makes its own, with `max_clients`
  // fetches in flight, and closes it when destroyed (so a fetcher that ends before its loop
  // leaves no connection behind on it).
  http::HttpClient* client = nullptr;
  size_t max_clients = 10;
  bool validate_cert = true;  // for a task whose fetch does not say
  // Called with every request before it goes (robots.txt's too, with a null task): what a
  // program adds to all of them (a proxy by URL, a cookie file's cookies, a body limit by kind).
  std::function<void(const CrawlTask* task, http::HttpRequest& request)> prepare;
  // When set, every fetch (robots.txt's too) is captured as it crosses the wire, and its
  // exchanges (each redirect hop) are handed here at its end: what a WARC writer takes.
  std::function<void(const std::vector<WarcExchange>& exchanges)> archive;
  // The browsers `fetch_type: js` tasks render in; none when null. Must outlive the fetcher.
  browser::BrowserPool* browser = nullptr;
};

class Fetcher {
 public:
  explicit Fetcher(FetcherOptions options = {});
  ~Fetcher();

  // `url`, when given, is the task's URL parsed already (the fetch stage's, by host).
  [[nodiscard]] Task<FetchResult> fetch(const CrawlTask& task, const Url* url = nullptr);

  // The robots.txt at `url` (an origin's /robots.txt), fetched as RFC 9309 asks (at most
  // RobotsPolicy::kMaxRedirects redirects, the first kRobotsParseLimit bytes kept) with the user
  // agent, proxy and TLS trust of `like`, the task that needs it.
  [[nodiscard]] Task<FetchResult> fetch_robots(const Url& url, const CrawlTask& like);

  const FetcherOptions& options() const noexcept { return options_; }

 private:
  http::HttpClient& client();
  // Sends a request through prepare, the WARC and the client.
  Task<http::HttpResponse> send(const CrawlTask* task, http::HttpRequest req);
  Task<FetchResult> fetch_http(const CrawlTask& task, const Url* url);
  Task<FetchResult> fetch_js(const CrawlTask& task);
  FetcherOptions options_;
  std::unique_ptr<http::HttpClient> own_client_;
};

}  // namespace squall
