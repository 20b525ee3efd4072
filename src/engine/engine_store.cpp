// Store locations: which store a --taskdb or --resultdb names, and opening it.
#include "squall/engine/engine_store.h"

#include <charconv>

#include "squall/core/error.h"
#include "squall/engine/pg_store.h"
#include "squall/engine/sqlite_store.h"

namespace squall {

namespace {

struct Location {
  enum class Kind { File, Postgres } kind = Kind::File;
  std::string target;  // the file's path, or the URL as libpq takes it
};

Location parse_location(std::string_view location) {
  size_t sep = location.find("://");
  if (sep == std::string_view::npos) {
    if (location.empty()) throw InvalidArgumentError("a store location is empty: give a file path");
    return {Location::Kind::File, std::string(location)};
  }
  std::string_view scheme = location.substr(0, sep);
  std::string_view rest = location.substr(sep + 3);
  if (size_t plus = scheme.find('+'); plus != std::string_view::npos) {
    std::string_view role = scheme.substr(plus + 1);
    if (role != "taskdb" && role != "resultdb" && role != "projectdb")
      throw InvalidArgumentError("store location " + std::string(location) + ": '+" +
                                 std::string(role) +
                                 "' is not taskdb, resultdb or projectdb (pyspider's forms)");
    scheme = scheme.substr(0, plus);
  }
  if (scheme == "postgresql" || scheme == "postgres")
    return {Location::Kind::Postgres, "postgresql://" + std::string(rest)};
  if (scheme == "sqlite") {
    // SQLAlchemy's form: sqlite:///relative/path, sqlite:////absolute/path.
    if (rest.size() < 2 || rest.front() != '/')
      throw InvalidArgumentError(
          "store location " + std::string(location) +
          ": an SQLite store is a file (sqlite:///relative/path or sqlite:////absolute/path); "
          "squall keeps no store in memory only");
    return {Location::Kind::File, std::string(rest.substr(1))};
  }
  throw InvalidArgumentError("store location " + std::string(location) + ": squall takes a file " +
                             "path, sqlite:///PATH or postgresql://USER@HOST/DB, not " +
                             std::string(scheme) + "://");
}

}  // namespace

int64_t row_cursor(std::string_view cursor) {
  if (cursor.empty()) return 0;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(cursor.data(), cursor.data() + cursor.size(), v);
  if (ec != std::errc() || end != cursor.data() + cursor.size() || v < 0)
    throw InvalidArgumentError("'" + std::string(cursor) +
                               "' is not a cursor this store returned: give back a page's next");
  return v;
}

bool is_shared_store(std::string_view location) {
  return parse_location(location).kind == Location::Kind::Postgres;
}

Task<std::unique_ptr<EngineStore>> open_engine_store(std::string location,
                                                     EngineStoreOptions options) {
  Location where = parse_location(location);
  std::unique_ptr<EngineStore> store;
  if (where.kind == Location::Kind::Postgres) {
    store = co_await PgStore::open(where.target, options.start_over);
  } else {
    store = SqliteStore::open(where.target, options.start_over, std::move(options.label),
                              options.cache_mib);
  }
  co_return store;
}

}  // namespace squall
