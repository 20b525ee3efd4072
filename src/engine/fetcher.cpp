// Fetcher: http(s) through the client, data: URLs decoded, robots.txt for the fetch stage.
#include "squall/engine/fetcher.h"

#include <chrono>

#include "fetch_field.h"
#include "squall/core/seconds.h"
#include "squall/crawl/data_url.h"
#include "squall/crawl/jsonl.h"
#include "squall/crawl/robots.h"
#include "squall/crawl/sniff.h"
#include "squall/http/cookies.h"
#include "squall/http/http_date.h"
#include "squall/url/base64.h"

namespace squall {

using detail::fetch_field;
using detail::fetch_switch;
using nlohmann::json;

namespace {

FetchResult failed(const CrawlTask& task, int status, std::string error) {
  FetchResult r;
  r.status_code = status;
  r.orig_url = task.url;
  r.url = task.url;
  r.error = std::move(error);
  r.save = task.fetch.value("save", json());
  return r;
}

// What a WARC response record may hold beyond the body limit: the head and the chunk framing.
constexpr size_t kWarcHeadRoom = size_t{1} << 20;

// The fields of a fetch result that the client's response gives.
FetchResult from_response(http::HttpResponse resp, std::string orig_url) {
  FetchResult r;
  r.url = resp.effective_url.empty() ? orig_url : std::move(resp.effective_url);
  r.orig_url = std::move(orig_url);
  r.redirects = std::move(resp.redirect_chain);
  r.status_code = resp.code;
  r.headers = std::move(resp.headers);
  r.content = std::move(resp.body);
  if (resp.code == 599) {
    try {
      resp.rethrow();
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    r.error_kind = resp.failure_kind();
  } else if (resp.code >= 400) {
    r.error = "HTTP " + std::to_string(resp.code) + (resp.reason.empty() ? "" : " " + resp.reason);
  }
  return r;
}

}  // namespace

json FetchResult::to_json() const {
  json h = json::object();
  for (const auto& [name, value] : headers) h[std::string(name)] = value;
  return {{"status_code", status_code},
          {"orig_url", orig_url},
          {"url", url},
          {"headers", std::move(h)},
          {"cookies", cookies},
          {"content", content},
          {"encoding", encoding},
          {"time", time},
          {"save", save},
          {"js_script_result", js_script_result},
          {"error", error.empty() ? json() : json(error)}};
}

void FetchResult::write_track(JsonObjectWriter& fetch) const {
  fetch.string_or_null("error", error);
  if (auto etag = headers.get("ETag")) fetch.string("etag", *etag);
  if (auto lm = headers.get("Last-Modified")) fetch.string("last_modified", *lm);
  fetch.integer("length", static_cast<int64_t>(content.size()))
      .boolean("ok", error.empty() && status_code < 400)
      .integer("status_code", status_code)
      .number("time", time);
  if (unchanged) fetch.boolean("unchanged", true);
  fetch.string("url", url);
}

Fetcher::Fetcher(FetcherOptions options) : options_(std::move(options)) {
  if (!options_.client) {
    http::ClientOptions client;
    client.max_clients = std::max<size_t>(1, options_.max_clients);
    own_client_ = std::make_unique<http::HttpClient>(std::move(client));
  }
}

Fetcher::~Fetcher() = default;

http::HttpClient& Fetcher::client() {
  return options_.client ? *options_.client : *own_client_;
}

Task<FetchResult> Fetcher::fetch(const CrawlTask& task, const Url* url) {
  auto started = std::chrono::steady_clock::now();
  std::string fetch_type = fetch_field<std::string>(task.fetch, "fetch_type", "");
  FetchResult r;
  bool js = fetch_type == "js" || fetch_type == "phantomjs" || fetch_type == "splash" ||
            fetch_type == "chrome";
  if (js && options_.browser) {
    r = co_await fetch_js(task);
  } else if (js) {
    r = failed(task, 501,
               "fetch_type '" + fetch_type +
                   "' renders pages in a browser, and this engine has no browser pool: fetch it "
                   "without fetch_type");
  } else if (task.url.starts_with("data:")) {
    UrlResult url = Url::parse(task.url);
    std::optional<DataUrl> data = url ? data_url(*url) : std::nullopt;
    if (!data) {
      r = failed(task, 599, "malformed data: URL");
    } else {
      r.status_code = 200;
      r.orig_url = r.url = task.url;
      r.headers.set("Content-Type", data->mime_type);
      r.content = std::move(data->body);
      r.encoding = data->charset;
      r.save = task.fetch.value("save", json());
    }
  } else {
    r = co_await fetch_http(task, url);
  }
  r.time = to_seconds(std::chrono::steady_clock::now() - started);
  co_return r;
}

Task<FetchResult> Fetcher::fetch_http(const CrawlTask& task, const Url* url) {
  const json& f = task.fetch;
  UrlResult parsed = url ? UrlResult(*url) : Url::parse(task.url);
  if (!parsed || !parsed->is_http()) co_return failed(task, 599, "not an http(s) URL: " + task.url);
  http::HttpRequest req;
  req.parsed_url = std::move(*parsed);
  req.url = task.url;
  req.method = fetch_field<std::string>(f, "method", "GET");
  for (auto& [name, value] : detail::fetch_pairs(f, "headers")) req.headers.add(name, value);
  std::string cookie_header;
  for (const auto& [name, value] : detail::fetch_pairs(f, "cookies")) {
    if (!cookie_header.empty()) cookie_header += "; ";
    cookie_header += name + "=" + value;
  }
  if (!cookie_header.empty()) req.headers.add("Cookie", cookie_header);
  std::optional<std::string> body;
  if (auto d = f.find("data"); d != f.end() && !d->is_null()) {
    body = d->is_string() ? d->get<std::string>() : d->dump();
  } else if (auto b = f.find("data_base64"); b != f.end() && b->is_string()) {
    body = forgiving_base64_decode(b->get_ref<const std::string&>());
    if (!body) co_return failed(task, 599, "the task's data_base64 is not base64");
  }
  if (body) {
    req.body = std::move(*body);
    if (!req.headers.contains("Content-Type"))
      req.headers.set("Content-Type", "application/x-www-form-urlencoded");
  }
  req.user_agent = fetch_field<std::string>(f, "user_agent", options_.user_agent);
  req.request_timeout = from_seconds(fetch_field<double>(f, "timeout", options_.timeout));
  req.connect_timeout =
      from_seconds(fetch_field<double>(f, "connect_timeout", options_.connect_timeout));
  req.follow_redirects = fetch_switch(f, "allow_redirects", true);
  req.max_redirects = fetch_field<int>(f, "max_redirects", 5);
  req.validate_cert = fetch_switch(f, "validate_cert", options_.validate_cert);
  req.proxy = detail::fetch_proxy(f);
  req.decompress_response = fetch_switch(f, "use_gzip", true);
  req.max_body_size = options_.max_body_size;
  req.raise_error = false;

  // Conditional recrawl from what the last fetch saw.
  json last = json::object();
  if (!task.track.empty())
    if (json track = task.track.read(); track.contains("fetch") && track["fetch"].is_object())
      last = std::move(track["fetch"]);
  bool conditional = false;
  if (auto etag = f.find("etag"); etag != f.end() && etag->is_string()) {
    req.if_none_match = etag->get<std::string>();
    conditional = true;
  } else if (fetch_switch(f, "etag", true) && last.contains("etag") && last["etag"].is_string()) {
    req.if_none_match = last["etag"].get<std::string>();
    conditional = true;
  }
  std::string last_modified;
  if (auto lm = f.find("last_modified"); lm != f.end() && lm->is_string())
    last_modified = lm->get<std::string>();
  else if (fetch_switch(f, "last_modified", true) && last.contains("last_modified") &&
           last["last_modified"].is_string())
    last_modified = last["last_modified"].get<std::string>();
  if (!last_modified.empty())
    if (auto when = http::parse_http_date(last_modified)) {
      req.if_modified_since = *when;
      conditional = true;
    }

  http::HttpResponse resp = co_await send(&task, std::move(req));
  FetchResult r = from_response(std::move(resp), task.url);
  r.save = f.value("save", json());
  r.unchanged = conditional && resp.code == 304;
  for (std::string_view set_cookie : r.headers.get_all("Set-Cookie")) {
    std::string_view pair = set_cookie.substr(0, set_cookie.find(';'));
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    r.cookies[std::string(http::trim_ows(pair.substr(0, eq)))] =
        std::string(http::trim_ows(pair.substr(eq + 1)));
  }
  auto content_type = r.headers.get("Content-Type");
  r.encoding =
      declared_charset(content_type, std::string_view(r.content).substr(0, 1024)).value_or("");
  co_return r;
}

Task<http::HttpResponse> Fetcher::send(const CrawlTask* task, http::HttpRequest req) {
  if (options_.prepare) options_.prepare(task, req);
  std::optional<WarcRecorder> recorder;
  if (options_.archive)
    req.capture =
        &recorder.emplace(req.max_body_size.value_or(options_.max_body_size) + kWarcHeadRoom);
  http::HttpResponse resp = co_await client().fetch(std::move(req));
  if (recorder) options_.archive(recorder->exchanges());
  co_return resp;
}

Task<FetchResult> Fetcher::fetch_robots(const Url& url, const CrawlTask& like) {
  auto started = std::chrono::steady_clock::now();
  const json& f = like.fetch;
  http::HttpRequest req;
  req.parsed_url = url;
  req.url = std::string(url.href());
  req.user_agent = fetch_field<std::string>(f, "user_agent", options_.user_agent);
  req.request_timeout = from_seconds(fetch_field<double>(f, "timeout", options_.timeout));
  req.connect_timeout =
      from_seconds(fetch_field<double>(f, "connect_timeout", options_.connect_timeout));
  req.max_redirects = RobotsPolicy::kMaxRedirects;
  // What is parsed, and room for a line the limit cuts.
  req.max_body_size = kRobotsParseLimit + 64 * 1024;
  req.raise_error = false;
  req.proxy = detail::fetch_proxy(f);
  req.validate_cert = fetch_switch(f, "validate_cert", options_.validate_cert);
  http::HttpResponse resp = co_await send(nullptr, std::move(req));
  FetchResult r = from_response(std::move(resp), std::string(url.href()));
  r.time = to_seconds(std::chrono::steady_clock::now() - started);
  co_return r;
}

}  // namespace squall

namespace squall {

Task<FetchResult> Fetcher::fetch_js(const CrawlTask& task) {
  const json& f = task.fetch;
  UrlResult parsed = Url::parse(task.url);
  if (!parsed || !parsed->is_http()) co_return failed(task, 599, "not an http(s) URL: " + task.url);
  // The request the page's requests are made like: the task's fields, then the program's.
  http::HttpRequest like;
  like.parsed_url = *parsed;
  like.url = task.url;
  for (auto& [name, value] : detail::fetch_pairs(f, "headers")) like.headers.add(name, value);
  like.user_agent = fetch_field<std::string>(f, "user_agent", options_.user_agent);
  like.proxy = detail::fetch_proxy(f);
  if (options_.prepare) options_.prepare(&task, like);

  browser::RenderRequest req;
  req.url = task.url;
  for (const auto& [name, value] : like.headers) req.headers.emplace_back(name, value);
  if (like.user_agent) req.user_agent = *like.user_agent;
  req.proxy = like.proxy;
  req.cookies = detail::fetch_pairs(f, "cookies");
  req.js_script = fetch_field<std::string>(f, "js_script", "");
  req.js_at_document_start =
      fetch_field<std::string>(f, "js_run_at", "document-end") == "document-start";
  req.viewport_width = fetch_field<int>(f, "js_viewport_width", req.viewport_width);
  req.viewport_height = fetch_field<int>(f, "js_viewport_height", req.viewport_height);
  req.load_images = fetch_switch(f, "load_images", false);
  req.wait_until = fetch_field<std::string>(f, "js_wait_until", "load") == "networkidle"
                       ? browser::WaitUntil::NetworkIdle
                       : browser::WaitUntil::Load;
  req.wait_selector = fetch_field<std::string>(f, "js_wait_for", "");
  req.timeout = from_seconds(fetch_field<double>(f, "timeout", options_.timeout));
  req.max_html_bytes = options_.max_body_size;

  FetchResult r;
  try {
    browser::RenderResult page = co_await options_.browser->render(std::move(req));
    r.status_code = page.status;
    r.orig_url = task.url;
    r.url = page.url.empty() ? task.url : page.url;
    r.redirects = std::move(page.redirects);
    for (auto& [name, value] : page.headers) r.headers.add(name, std::move(value));
    r.content = std::move(page.html);
    r.cookies = std::move(page.cookies);
    r.js_script_result = std::move(page.js_script_result);
    r.save = f.value("save", json());
    if (r.status_code == 599) {
      r.error = std::move(page.error);
      r.error_kind = std::move(page.error_kind);
    } else {
      r.encoding = "utf-8";
      if (r.status_code >= 400) r.error = "HTTP " + std::to_string(r.status_code);
    }
  } catch (const Error& e) {
    r = failed(task, 599, e.what());
    r.error_kind = std::string(error_kind_name(e.kind()));
  }
  co_return r;
}

}  // namespace squall
