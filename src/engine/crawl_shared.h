// What a crawl over Redis (engine/crawler.h) shares between its components: a page as the
// result the processor sends and the result worker stores, and the crawl's options as Redis
// keeps them for the components given --crawl.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "squall/crawl/crawled_page.h"
#include "squall/engine/crawler.h"

namespace squall::detail {

// Where a crawl over Redis keeps its options: squall:NS:crawl.
std::string shared_options_key(const std::string& ns);

// A page's result: the fields of its JSON line (jsonl.h), fetched_at in Unix milliseconds.
nlohmann::json page_result(const CrawledPage& page, int64_t fetched_at);

// The page a result holds (page_result), and when it was fetched; nothing for a result that is
// not a page's.
std::optional<CrawledPage> page_of(const nlohmann::json& result, int64_t& fetched_at);

// What a component given --crawl needs of the crawl: what shapes the frontier and the tasks
// (the processor's), the retries (the scheduler's), and what each request carries (put in the
// tasks, for every fetcher). `identity` tells crawls apart.
nlohmann::json options_json(const CrawlerOptions& options, const std::string& identity);

// The options options_json wrote; InvalidArgumentError naming `where` for anything else.
CrawlerOptions options_of(const nlohmann::json& shared, const std::string& where);

}  // namespace squall::detail
