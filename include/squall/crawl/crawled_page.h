// CrawledPage: what the crawl knows of one fetched page: the Crawler's on_page hook sees it, and
// a JSON line (jsonl.h) writes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace squall {

struct CrawledPage {
  std::string url;        // as queued
  std::string final_url;  // after redirects
  int status = 0;         // 599 when no response came (Tornado's and pyspider's convention)
  int depth = 0;
  std::string parent;
  std::string content_type;
  uint64_t length = 0;  // body bytes, decoded
  double elapsed_ms = 0;
  int links = 0;      // links taken into the crawl or already known
  std::string error;  // why it failed; empty on success
  // With status 599, the kind of failure (error_kind_name: "timeout", "connect", "resolve",
  // "tls", "closed", "protocol", "too large", ...); empty otherwise.
  std::string error_kind;
  bool html = false;
  std::optional<std::string> title;        // the first <title> of an HTML page (2xx)
  std::vector<std::string> redirects;      // the URLs that redirected, in order, before final_url
  std::optional<uint64_t> content_length;  // the Content-Length field as sent
  std::string last_modified, etag;         // the fields as sent; empty when absent
  // With the crawl's jsonl_links: every http(s) link of the page, resolved, without its
  // fragment, each once, in document order.
  std::vector<std::string> outlinks;
};

}  // namespace squall
