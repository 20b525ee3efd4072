// A crawl's page as a result and its options as JSON: field by field, both ways.
#include "crawl_shared.h"

#include <chrono>
#include <vector>

#include "squall/core/error.h"
#include "squall/core/seconds.h"
#include "squall/crawl/jsonl.h"
#include "squall/engine/cluster_keys.h"
#include "squall/engine/result_store.h"

namespace squall {

using nlohmann::json;

namespace detail {

std::string shared_options_key(const std::string& ns) {
  return cluster_key(ns, "crawl");
}

json page_result(const CrawledPage& p, int64_t fetched_at) {
  json j = json::object();
  j["url"] = p.url;
  j["final_url"] = p.final_url;
  j["status"] = p.status;
  j["depth"] = p.depth;
  j["parent"] = p.parent;
  j["content_type"] = p.content_type;
  j["length"] = p.length;
  j["fetched_at"] = fetched_at;
  j["elapsed_ms"] = p.elapsed_ms;
  j["links"] = p.links;
  j["error"] = p.error;
  j["error_kind"] = p.error_kind;
  j["html"] = p.html;
  j["title"] = p.title ? json(*p.title) : json(nullptr);
  j["redirects"] = p.redirects;
  j["content_length"] = p.content_length ? json(*p.content_length) : json(nullptr);
  j["last_modified"] = p.last_modified;
  j["etag"] = p.etag;
  if (!p.outlinks.empty()) j["outlinks"] = p.outlinks;
  return j;
}

std::optional<CrawledPage> page_of(const json& j, int64_t& fetched_at) {
  if (!j.is_object() || !j.contains("url") || !j.contains("status")) return std::nullopt;
  auto text = [&j](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto number = [&j](const char* key) -> double {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0;
  };
  auto list = [&j](const char* key) {
    std::vector<std::string> out;
    if (auto it = j.find(key); it != j.end() && it->is_array())
      for (const json& item : *it)
        if (item.is_string()) out.push_back(item.get<std::string>());
    return out;
  };
  CrawledPage p;
  p.url = text("url");
  p.final_url = text("final_url");
  p.status = static_cast<int>(number("status"));
  p.depth = static_cast<int>(number("depth"));
  p.parent = text("parent");
  p.content_type = text("content_type");
  p.length = static_cast<uint64_t>(number("length"));
  p.elapsed_ms = number("elapsed_ms");
  p.links = static_cast<int>(number("links"));
  p.error = text("error");
  p.error_kind = text("error_kind");
  p.html = j.value("html", false);
  if (auto it = j.find("title"); it != j.end() && it->is_string()) p.title = it->get<std::string>();
  p.redirects = list("redirects");
  if (auto it = j.find("content_length"); it != j.end() && it->is_number_unsigned())
    p.content_length = it->get<uint64_t>();
  p.last_modified = text("last_modified");
  p.etag = text("etag");
  p.outlinks = list("outlinks");
  fetched_at = static_cast<int64_t>(number("fetched_at"));
  return p;
}

json options_json(const CrawlerOptions& o, const std::string& identity) {
  json j = json::object();
  j["identity"] = identity;
  j["start_urls"] = o.start_urls;
  j["scope"] = std::string(crawl_scope_name(o.scope));
  j["include"] = o.include;
  j["exclude"] = o.exclude;
  j["max_depth"] = o.max_depth ? json(*o.max_depth) : json(nullptr);
  j["obey_robots"] = o.obey_robots;
  j["ignore_nofollow"] = o.ignore_nofollow;
  j["sitemaps"] = o.sitemaps;
  j["jsonl_links"] = o.jsonl_links;
  j["retries"] = o.retries;
  j["retry_backoff"] = to_seconds(o.retry_backoff);
  j["user_agent"] = o.user_agent;
  j["request_timeout"] = to_seconds(o.request_timeout);
  j["connect_timeout"] = to_seconds(o.connect_timeout);
  json headers = json::array();
  for (const http::Header& h : o.headers) headers.push_back(json::array({h.name, h.value}));
  j["headers"] = std::move(headers);
  j["cookie"] = o.cookie;
  j["cookie_jar"] = o.cookie_jar.to_netscape();
  j["proxies"] = json::array({o.proxies.http, o.proxies.https, o.proxies.no_proxy});
  j["validate_cert"] = o.validate_cert;
  return j;
}

CrawlerOptions options_of(const json& j, const std::string& where) {
  CrawlerOptions o;
  try {
    o.start_urls = j.at("start_urls").get<std::vector<std::string>>();
    std::string scope = j.at("scope").get<std::string>();
    if (scope == "prefix")
      o.scope = CrawlScope::Prefix;
    else if (scope == "host")
      o.scope = CrawlScope::Host;
    else if (scope == "domain")
      o.scope = CrawlScope::Domain;
    else if (scope == "any")
      o.scope = CrawlScope::Any;
    else
      throw InvalidArgumentError("no scope named '" + scope + "'");
    o.include = j.at("include").get<std::vector<std::string>>();
    o.exclude = j.at("exclude").get<std::vector<std::string>>();
    if (!j.at("max_depth").is_null()) o.max_depth = j.at("max_depth").get<int>();
    o.obey_robots = j.at("obey_robots").get<bool>();
    o.ignore_nofollow = j.at("ignore_nofollow").get<bool>();
    o.sitemaps = j.at("sitemaps").get<bool>();
    o.jsonl_links = j.at("jsonl_links").get<bool>();
    o.retries = j.at("retries").get<int>();
    auto duration = [&j](const char* key) { return from_seconds(j.at(key).get<double>()); };
    o.retry_backoff = duration("retry_backoff");
    o.user_agent = j.at("user_agent").get<std::string>();
    o.request_timeout = duration("request_timeout");
    o.connect_timeout = duration("connect_timeout");
    for (const json& h : j.at("headers"))
      o.headers.add(h.at(0).get<std::string>(), h.at(1).get<std::string>());
    o.cookie = j.at("cookie").get<std::string>();
    o.cookie_jar = http::CookieJar::parse(j.at("cookie_jar").get<std::string>(), where);
    const json& proxies = j.at("proxies");
    o.proxies.http = proxies.at(0).get<std::string>();
    o.proxies.https = proxies.at(1).get<std::string>();
    o.proxies.no_proxy = proxies.at(2).get<std::string>();
    o.validate_cert = j.at("validate_cert").get<bool>();
  } catch (const json::exception& e) {
    throw InvalidArgumentError(where + " does not hold a crawl's options: " + e.what());
  }
  return o;
}

}  // namespace detail

void crawl_export_line(std::string& line, const TaskResult& result, const TaskResult* stored,
                       bool links) {
  if (stored) return;
  int64_t fetched_at = 0;
  if (std::optional<CrawledPage> page = detail::page_of(result.result, fetched_at))
    append_page_line(line, *page, fetched_at, links);
}

}  // namespace squall
