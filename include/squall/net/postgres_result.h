// What a PostgreSQL query gives back: rows of text values (PgResult, PgRow), the parameters it
// takes (PgParam), and the error the server or the connection reports (PgError).
//
// Values arrive in PostgreSQL's text format; the getters convert them (get_int parses "42",
// get_bool reads "t"/"f"). A getter on a NULL value, on a column that does not exist or on text
// that is not of the asked type throws InvalidArgumentError naming the column and row: check
// is_null() first for nullable columns. Results own their memory and are move-only; a PgRow is a
// view into a result and lives no longer than it. Plain values, no loop: any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "squall/core/error.h"

struct pg_result;  // libpq's PGresult

namespace squall {

// A failure reported by the server (with its SQLSTATE) or by the connection to it.
//
// kind() says what happened: InvalidArgument for a statement the server refused (a syntax
// error, a constraint violated, a failed cast...), Closed for a connection that was lost or
// that the server ended (an admin shutdown, SQLSTATE class 57P), Connect for a connection that
// could not be made (a refused connection, a wrong password), Resolve for a host name without
// an address, InvalidState for a COMMIT that rolled back. The message is
//   "<kind>: postgres <host:port/db>: SQLSTATE <code>: <message> (<detail>) [hint: <hint>]"
// Query timeouts are TimeoutError, not PgError.
class PgError : public Error {
 public:
  PgError(ErrorKind kind, std::string where, std::string sqlstate, std::string message,
          std::string detail = {}, std::string hint = {});

  // The five-character SQLSTATE ("23505" for a unique violation), or "" when the client
  // detected the failure itself (a lost connection).
  const std::string& sqlstate() const noexcept { return sqlstate_; }
  // The server's primary message ("duplicate key value violates unique constraint ...") or
  // libpq's description of a connection failure.
  const std::string& server_message() const noexcept { return message_; }
  const std::string& detail() const noexcept { return detail_; }
  const std::string& hint() const noexcept { return hint_; }
  // "host:port/db" of the connection.
  const std::string& where() const noexcept { return where_; }

 private:
  std::string where_;
  std::string sqlstate_;
  std::string message_;
  std::string detail_;
  std::string hint_;
};

// One query parameter, sent in text format ($1, $2, ... in the statement), or NULL.
//   db.query("SELECT $1::int + $2::int, $3::text", 1, 2, nullptr);
// Text may not contain a NUL byte (the query throws InvalidArgumentError); binary data goes
// through PgParam::bytes, which is sent in binary format (for a bytea parameter).
class PgParam {
 public:
  PgParam(std::nullptr_t) noexcept {}
  PgParam(const char* text) : text_(text ? std::optional<std::string>(text) : std::nullopt) {}
  PgParam(std::string_view text) : text_(std::string(text)) {}
  PgParam(const std::string& text) : text_(text) {}
  PgParam(std::string&& text) noexcept : text_(std::move(text)) {}
  PgParam(bool value) : text_(value ? "t" : "f") {}
  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>)
      PgParam(T value)
      : text_(std::to_string(value)) {}
  PgParam(double value);
  // Any other pointer would silently become a bool.
  template <class T>
  requires(!std::is_same_v<std::remove_cv_t<T>, char>) PgParam(T*)
  = delete;
  // NULL when empty.
  template <class T>
  PgParam(const std::optional<T>& value) {
    if (value) *this = PgParam(*value);
  }

  // Raw bytes for a bytea parameter, sent in binary format (NUL bytes allowed).
  static PgParam bytes(std::string_view data);

  bool is_null() const noexcept { return !text_; }
  bool binary() const noexcept { return binary_; }
  // The value as sent; empty for NULL.
  std::string_view value() const noexcept { return text_ ? std::string_view(*text_) : ""; }

 private:
  std::optional<std::string> text_;
  bool binary_ = false;
};

class PgResult;

// One row of a result: a view, valid while the result lives. Columns by index (0-based) or by
// name (as the server names them: unquoted identifiers come back in lower case).
class PgRow {
 public:
  PgRow(const PgResult& result, int row) noexcept : result_(&result), row_(row) {}

  int index() const noexcept { return row_; }
  bool is_null(int column) const;
  bool is_null(std::string_view column) const;
  // The value's text; "" for NULL.
  std::string_view text(int column) const;
  std::string_view text(std::string_view column) const;
  int64_t get_int(int column) const;
  int64_t get_int(std::string_view column) const;
  double get_double(int column) const;
  double get_double(std::string_view column) const;
  std::string get_string(int column) const;
  std::string get_string(std::string_view column) const;
  bool get_bool(int column) const;
  bool get_bool(std::string_view column) const;
  // A bytea value, decoded from its text (hex) form.
  std::string get_bytes(int column) const;
  std::string get_bytes(std::string_view column) const;

 private:
  const PgResult* result_;
  int row_;
};

// The outcome of one statement that succeeded: its rows (none for most commands), its column
// names, its command tag and how many rows it affected.
class PgResult {
 public:
  PgResult() = default;
  // Takes ownership of a libpq result (PQclear at destruction).
  explicit PgResult(pg_result* result) noexcept : result_(result) {}
  PgResult(PgResult&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  PgResult& operator=(PgResult&& other) noexcept;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  ~PgResult();

  int rows() const noexcept;
  int columns() const noexcept;
  bool empty() const noexcept { return rows() == 0; }
  std::string_view column_name(int column) const;
  // The index of the column named `name`; InvalidArgumentError if there is none.
  int column_index(std::string_view name) const;
  // The command tag: "SELECT 3", "INSERT 0 1", "UPDATE 2", "BEGIN".
  std::string_view command() const noexcept;
  // Rows inserted, updated, deleted, selected (the tag's count); 0 for other commands.
  int64_t affected_rows() const noexcept;

  PgRow row(int row) const;
  PgRow operator[](int row) const { return this->row(row); }

  // The value at (row, column); the same getters as PgRow's.
  bool is_null(int row, int column) const;
  std::string_view text(int row, int column) const;
  int64_t get_int(int row, int column) const { return PgRow(*this, row).get_int(column); }
  double get_double(int row, int column) const { return PgRow(*this, row).get_double(column); }
  std::string get_string(int row, int column) const { return PgRow(*this, row).get_string(column); }
  bool get_bool(int row, int column) const { return PgRow(*this, row).get_bool(column); }

  class Iterator {
   public:
    Iterator(const PgResult& result, int row) noexcept : result_(&result), row_(row) {}
    PgRow operator*() const noexcept { return PgRow(*result_, row_); }
    Iterator& operator++() noexcept {
      ++row_;
      return *this;
    }
    bool operator==(const Iterator& other) const noexcept { return row_ == other.row_; }

   private:
    const PgResult* result_;
    int row_;
  };
  Iterator begin() const noexcept { return Iterator(*this, 0); }
  Iterator end() const noexcept { return Iterator(*this, rows()); }

  pg_result* native() const noexcept { return result_; }

 private:
  friend class PgRow;
  // Throws InvalidArgumentError unless (row, column) is inside the result.
  void check(int row, int column) const;
  pg_result* result_ = nullptr;
};

}  // namespace squall
