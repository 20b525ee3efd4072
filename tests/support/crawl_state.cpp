// crawl_state: the engine store's tasks table, read with SQLite's own API.
#include "support/crawl_state.h"

#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace squall::test {

std::vector<CrawlStatePage> crawl_state_pages(const std::filesystem::path& state) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(state.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + state.string());
  }
  sqlite3_busy_timeout(db, 5000);
  const char* sql =
      "SELECT url, status, track FROM tasks WHERE project = "
      "(SELECT id FROM project_ids WHERE name = 'crawl') AND process LIKE '%\"page\"%'";
  sqlite3_stmt* s = nullptr;
  std::vector<CrawlStatePage> out;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK) {
    while (sqlite3_step(s) == SQLITE_ROW) {
      CrawlStatePage p;
      p.url = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
      int status = sqlite3_column_int(s, 1);
      const unsigned char* track = sqlite3_column_text(s, 2);
      nlohmann::json t =
          track ? nlohmann::json::parse(reinterpret_cast<const char*>(track), nullptr, false)
                : nlohmann::json::object();
      if (!t.is_object()) t = nlohmann::json::object();
      nlohmann::json fetch = t.value("fetch", nlohmann::json::object());
      nlohmann::json process = t.value("process", nlohmann::json::object());
      // A redirect's target is stored done without a fetch of its own: not a page of its own.
      if (status == 2 && fetch.empty()) continue;
      p.status = fetch.value("status_code", 0);
      if (process.contains("exception") && process["exception"].is_string())
        p.error = process["exception"].get<std::string>();
      else if (fetch.contains("error") && fetch["error"].is_string())
        p.error = fetch["error"].get<std::string>();
      if (status == 1)
        p.state = CrawlStatePage::State::Queued;
      else if (status == 2)
        p.state = p.error.starts_with("disallowed by robots.txt") ? CrawlStatePage::State::Skipped
                                                                  : CrawlStatePage::State::Done;
      else
        p.state = CrawlStatePage::State::Failed;
      out.push_back(std::move(p));
    }
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

CrawlStateCounts crawl_state_counts(const std::filesystem::path& state) {
  CrawlStateCounts c;
  for (const CrawlStatePage& p : crawl_state_pages(state)) {
    switch (p.state) {
      case CrawlStatePage::State::Queued:
        ++c.queued;
        break;
      case CrawlStatePage::State::Done:
        ++c.done;
        break;
      case CrawlStatePage::State::Failed:
        ++c.failed;
        break;
      case CrawlStatePage::State::Skipped:
        ++c.skipped;
        break;
    }
  }
  return c;
}

}  // namespace squall::test
