// Results, rows, parameters and errors of the PostgreSQL client: text values and their getters.
#include "squall/net/postgres_result.h"

#include <libpq-fe.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>

namespace squall {

namespace {

std::string compose(const std::string& where, const std::string& sqlstate,
                    const std::string& message, const std::string& detail,
                    const std::string& hint) {
  std::string s = "postgres " + where + ": ";
  if (!sqlstate.empty()) s += "SQLSTATE " + sqlstate + ": ";
  s += message;
  if (!detail.empty()) s += " (" + detail + ")";
  if (!hint.empty()) s += " [hint: " + hint + "]";
  return s;
}

[[noreturn]] void bad_value(const PgResult& result, int row, int column, std::string_view what) {
  std::string name(result.column_name(column));
  throw InvalidArgumentError("postgres result: column \"" + name + "\" of row " +
                             std::to_string(row) + " " + std::string(what));
}

}  // namespace

PgError::PgError(ErrorKind kind, std::string where, std::string sqlstate, std::string message,
                 std::string detail, std::string hint)
    : Error(kind, compose(where, sqlstate, message, detail, hint)),
      where_(std::move(where)),
      sqlstate_(std::move(sqlstate)),
      message_(std::move(message)),
      detail_(std::move(detail)),
      hint_(std::move(hint)) {}

PgParam::PgParam(double value) {
  // PostgreSQL's spellings of the values that are not numbers; otherwise the shortest text
  // that reads back as the same double.
  if (std::isnan(value)) {
    text_ = "NaN";
  } else if (std::isinf(value)) {
    text_ = value > 0 ? "Infinity" : "-Infinity";
  } else {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    text_ = std::string(buf, end);
  }
}

PgParam PgParam::bytes(std::string_view data) {
  PgParam p(data);
  p.binary_ = true;
  return p;
}

PgResult& PgResult::operator=(PgResult&& other) noexcept {
  if (this != &other) {
    PQclear(result_);
    result_ = std::exchange(other.result_, nullptr);
  }
  return *this;
}

PgResult::~PgResult() {
  PQclear(result_);
}

int PgResult::rows() const noexcept {
  return result_ ? PQntuples(result_) : 0;
}

int PgResult::columns() const noexcept {
  return result_ ? PQnfields(result_) : 0;
}

std::string_view PgResult::column_name(int column) const {
  if (column < 0 || column >= columns())
    throw InvalidArgumentError("postgres result: no column " + std::to_string(column) +
                               " (it has " + std::to_string(columns()) + ")");
  return PQfname(result_, column);
}

int PgResult::column_index(std::string_view name) const {
  for (int i = 0, n = columns(); i < n; ++i)
    if (name == PQfname(result_, i)) return i;
  throw InvalidArgumentError("postgres result: no column named \"" + std::string(name) + "\"");
}

std::string_view PgResult::command() const noexcept {
  return result_ ? PQcmdStatus(result_) : "";
}

int64_t PgResult::affected_rows() const noexcept {
  if (!result_) return 0;
  const char* tuples = PQcmdTuples(result_);
  int64_t n = 0;
  std::from_chars(tuples, tuples + std::char_traits<char>::length(tuples), n);
  return n;
}

PgRow PgResult::row(int row) const {
  if (row < 0 || row >= rows())
    throw InvalidArgumentError("postgres result: no row " + std::to_string(row) + " (it has " +
                               std::to_string(rows()) + ")");
  return PgRow(*this, row);
}

void PgResult::check(int row, int column) const {
  if (row < 0 || row >= rows())
    throw InvalidArgumentError("postgres result: no row " + std::to_string(row) + " (it has " +
                               std::to_string(rows()) + ")");
  if (column < 0 || column >= columns())
    throw InvalidArgumentError("postgres result: no column " + std::to_string(column) +
                               " (it has " + std::to_string(columns()) + ")");
}

bool PgResult::is_null(int row, int column) const {
  check(row, column);
  return PQgetisnull(result_, row, column) != 0;
}

std::string_view PgResult::text(int row, int column) const {
  check(row, column);
  return std::string_view(PQgetvalue(result_, row, column),
                          static_cast<size_t>(PQgetlength(result_, row, column)));
}

bool PgRow::is_null(int column) const {
  return result_->is_null(row_, column);
}
bool PgRow::is_null(std::string_view column) const {
  return is_null(result_->column_index(column));
}

std::string_view PgRow::text(int column) const {
  return result_->text(row_, column);
}
std::string_view PgRow::text(std::string_view column) const {
  return text(result_->column_index(column));
}

int64_t PgRow::get_int(int column) const {
  if (is_null(column)) bad_value(*result_, row_, column, "is NULL");
  std::string_view t = text(column);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size())
    bad_value(*result_, row_, column, "is not an integer: \"" + std::string(t) + "\"");
  return v;
}
int64_t PgRow::get_int(std::string_view column) const {
  return get_int(result_->column_index(column));
}

double PgRow::get_double(int column) const {
  if (is_null(column)) bad_value(*result_, row_, column, "is NULL");
  std::string_view t = text(column);
  // PostgreSQL writes infinities as "Infinity"; from_chars reads "inf" and "infinity" in any
  // case, and "NaN".
  std::string_view body = t;
  bool negative = !body.empty() && body.front() == '-';
  if (negative) body.remove_prefix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec != std::errc() || end != body.data() + body.size())
    bad_value(*result_, row_, column, "is not a number: \"" + std::string(t) + "\"");
  return negative ? -v : v;
}
double PgRow::get_double(std::string_view column) const {
  return get_double(result_->column_index(column));
}

std::string PgRow::get_string(int column) const {
  if (is_null(column)) bad_value(*result_, row_, column, "is NULL");
  return std::string(text(column));
}
std::string PgRow::get_string(std::string_view column) const {
  return get_string(result_->column_index(column));
}

bool PgRow::get_bool(int column) const {
  if (is_null(column)) bad_value(*result_, row_, column, "is NULL");
  std::string_view t = text(column);
  if (t == "t") return true;
  if (t == "f") return false;
  bad_value(*result_, row_, column, "is not a boolean: \"" + std::string(t) + "\"");
}
bool PgRow::get_bool(std::string_view column) const {
  return get_bool(result_->column_index(column));
}

std::string PgRow::get_bytes(int column) const {
  if (is_null(column)) bad_value(*result_, row_, column, "is NULL");
  size_t length = 0;
  std::unique_ptr<unsigned char, decltype(&PQfreemem)> raw(
      PQunescapeBytea(
          reinterpret_cast<const unsigned char*>(PQgetvalue(result_->native(), row_, column)),
          &length),
      &PQfreemem);
  if (!raw) bad_value(*result_, row_, column, "could not be decoded as bytea");
  return std::string(reinterpret_cast<const char*>(raw.get()), length);
}
std::string PgRow::get_bytes(std::string_view column) const {
  return get_bytes(result_->column_index(column));
}

}  // namespace squall
