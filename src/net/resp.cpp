// RESP replies read in pieces, and commands written as arrays of bulk strings.
#include "squall/net/resp.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace squall {

namespace {

// Header lines of numeric types are short: an int64 has at most 20 characters and Redis writes
// doubles with %.17g. Anything longer is not RESP, and failing early bounds line_.
constexpr size_t kMaxNumberLine = 64;

bool numeric_type(char type) {
  return type == ':' || type == '$' || type == '*' || type == '%' || type == '~' || type == '>' ||
         type == '|' || type == '=' || type == '!' || type == '#' || type == '_' || type == ',';
}

// "12x" as a readable quote for messages, cut to a few dozen bytes.
std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 40)) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '"' && c != '\\') {
      out += c;
    } else {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  if (s.size() > 40) out += "...";
  out += '"';
  return out;
}

// A strict decimal int64: an optional '-', then digits; no sign '+', no spaces, no overflow.
bool parse_int(std::string_view s, int64_t& out) {
  if (s.empty() || s == "-") return false;
  if (s[0] == '+') return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

void append_escaped(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  out += '"';
}

void render(std::string& out, const RedisReply& r) {
  using T = RedisReply::Type;
  switch (r.type) {
    case T::Nil:
      out += "(nil)";
      return;
    case T::Status:
      out += r.str;
      return;
    case T::Error:
      out += "(error) " + r.str;
      return;
    case T::Integer:
      out += "(integer) " + std::to_string(r.integer);
      return;
    case T::Bulk:
    case T::Verbatim:
      append_escaped(out, r.str);
      return;
    case T::Double:
      out += "(double) " + r.str;
      return;
    case T::BigNumber:
      out += "(big number) " + r.str;
      return;
    case T::Boolean:
      out += r.integer ? "(true)" : "(false)";
      return;
    case T::Map:
      out += '{';
      for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
        if (i) out += ", ";
        render(out, r.elements[i]);
        out += ": ";
        render(out, r.elements[i + 1]);
      }
      out += '}';
      return;
    case T::Array:
    case T::Set:
    case T::Push:
      if (r.type == T::Set) out += '~';
      if (r.type == T::Push) out += '>';
      out += '[';
      for (size_t i = 0; i < r.elements.size(); ++i) {
        if (i) out += ", ";
        render(out, r.elements[i]);
      }
      out += ']';
      return;
  }
}

void append_decimal(std::string& out, char mark, int64_t n) {
  char digits[24];
  digits[0] = mark;
  auto [end, ec] = std::to_chars(digits + 1, digits + sizeof digits - 2, n);
  *end++ = '\r';
  *end++ = '\n';
  out.append(digits, static_cast<size_t>(end - digits));
}

template <class Arg>
void append_args(std::string& out, std::span<const Arg> args) {
  size_t size = 16;
  for (const auto& a : args) size += a.size() + 16;
  out.reserve(out.size() + size);
  append_command_header(out, args.size());
  for (const auto& a : args) append_argument(out, std::string_view(a));
}

}  // namespace

bool RedisReply::is_string() const noexcept {
  return type == Type::Status || type == Type::Error || type == Type::Bulk ||
         type == Type::Double || type == Type::BigNumber || type == Type::Verbatim;
}

bool RedisReply::is_aggregate() const noexcept {
  return type == Type::Array || type == Type::Map || type == Type::Set || type == Type::Push;
}

std::string_view RedisReply::type_name(Type type) noexcept {
  switch (type) {
    case Type::Nil:
      return "null";
    case Type::Status:
      return "simple string";
    case Type::Error:
      return "error";
    case Type::Integer:
      return "integer";
    case Type::Bulk:
      return "bulk string";
    case Type::Array:
      return "array";
    case Type::Map:
      return "map";
    case Type::Set:
      return "set";
    case Type::Push:
      return "push";
    case Type::Double:
      return "double";
    case Type::Boolean:
      return "boolean";
    case Type::BigNumber:
      return "big number";
    case Type::Verbatim:
      return "verbatim string";
  }
  return "unknown";
}

std::string RedisReply::to_string() const {
  std::string out;
  render(out, *this);
  return out;
}

RespParser::Step RespParser::fail(ErrorKind kind, std::string reason, size_t used) {
  state_ = State::Failed;
  fail_kind_ = kind;
  fail_reason_ = std::move(reason);
  stack_.clear();
  line_.clear();
  value_ = {};
  return {RespEvent::Fail, used};
}

RespParser::Step RespParser::next(std::string_view input) {
  size_t pos = 0;
  while (pos < input.size()) {
    switch (state_) {
      case State::Failed:
        return {RespEvent::Fail, 0};

      case State::Type:
        type_ = input[pos++];
        state_ = State::Line;
        break;

      case State::Line: {
        std::string_view rest = input.substr(pos);
        size_t lf = rest.find('\n');
        size_t limit = numeric_type(type_) ? kMaxNumberLine : limits_.max_reply_bytes;
        // A line is its content, a CR and the LF: it is too long once the bytes before the LF,
        // less the CR, pass the limit, however they were cut.
        if (lf == std::string_view::npos) {
          if (line_.size() + rest.size() > limit && line_.size() + rest.size() - 1 > limit) {
            return fail(numeric_type(type_) ? ErrorKind::Protocol : ErrorKind::TooLarge,
                        "a reply's header line is longer than " + std::to_string(limit) + " bytes",
                        input.size());
          }
          line_.append(rest);
          pos = input.size();
          break;
        }
        pos += lf + 1;
        std::string_view line;
        if (line_.empty()) {
          line = rest.substr(0, lf);
        } else {
          line_.append(rest.substr(0, lf));
          line = line_;
        }
        if (line.size() > limit && line.size() - 1 > limit) {
          return fail(numeric_type(type_) ? ErrorKind::Protocol : ErrorKind::TooLarge,
                      "a reply's header line is longer than " + std::to_string(limit) + " bytes",
                      pos);
        }
        if (line.empty() || line.back() != '\r')
          return fail(ErrorKind::Protocol, "a reply's line ends in LF without CR", pos);
        line.remove_suffix(1);
        bool ok = on_line(line);
        line_.clear();
        if (!ok) return {RespEvent::Fail, pos};
        break;
      }

      case State::Bulk: {
        size_t n = std::min(bulk_remaining_, input.size() - pos);
        value_.str.append(input.data() + pos, n);
        pos += n;
        bulk_remaining_ -= n;
        if (bulk_remaining_ == 0) {
          state_ = State::BulkEnd;
          bulk_end_seen_ = 0;
        }
        break;
      }

      case State::BulkEnd: {
        char expected = bulk_end_seen_ == 0 ? '\r' : '\n';
        if (input[pos] != expected) {
          return fail(ErrorKind::Protocol,
                      "a bulk string is longer than its length says (no CRLF after it)", pos);
        }
        ++pos;
        if (++bulk_end_seen_ < 2) break;
        state_ = State::Type;
        if (value_.type == RedisReply::Type::Verbatim) {
          // "txt:" or "mkd:": three bytes of format, then a colon.
          if (value_.str.size() < 4 || value_.str[3] != ':')
            return fail(ErrorKind::Protocol, "a verbatim string has no format prefix", pos);
          value_.str.erase(0, 4);
        }
        finish(std::move(value_));
        value_ = {};
        break;
      }
    }
    if (have_reply_) {
      have_reply_ = false;
      return {RespEvent::Reply, pos};
    }
  }
  if (state_ == State::Failed) return {RespEvent::Fail, 0};
  return {RespEvent::NeedMore, pos};
}

bool RespParser::charge(size_t bytes) {
  if (bytes > limits_.max_reply_bytes - std::min(cost_, limits_.max_reply_bytes)) {
    fail(ErrorKind::TooLarge, "a reply is larger than the limit of " +
                                  std::to_string(limits_.max_reply_bytes) + " bytes");
    return false;
  }
  cost_ += bytes;
  return true;
}

bool RespParser::on_line(std::string_view line) {
  using T = RedisReply::Type;
  state_ = State::Type;
  RedisReply v;
  switch (type_) {
    case '+':
    case '-':
      if (line.find('\r') != std::string_view::npos) {
        fail(ErrorKind::Protocol, "a simple string holds a CR: " + quote(line));
        return false;
      }
      if (!charge(sizeof(RedisReply) + line.size())) return false;
      v.type = type_ == '+' ? T::Status : T::Error;
      v.str = line;
      finish(std::move(v));
      return true;
    case ':':
      if (!parse_int(line, v.integer)) {
        fail(ErrorKind::Protocol, "an integer reply is not a number: " + quote(line));
        return false;
      }
      if (!charge(sizeof(RedisReply))) return false;
      v.type = T::Integer;
      finish(std::move(v));
      return true;
    case '$':
      return begin_bulk(line, T::Bulk);
    case '=':
      return begin_bulk(line, T::Verbatim);
    case '!':
      return begin_bulk(line, T::Error);
    case '*':
      return begin_aggregate(line, T::Array, false);
    case '%':
      return begin_aggregate(line, T::Map, false);
    case '~':
      return begin_aggregate(line, T::Set, false);
    case '>':
      return begin_aggregate(line, T::Push, false);
    case '|':
      return begin_aggregate(line, T::Map, true);
    case '_':
      if (!line.empty()) {
        fail(ErrorKind::Protocol, "a null reply has a value: " + quote(line));
        return false;
      }
      if (!charge(sizeof(RedisReply))) return false;
      finish(std::move(v));
      return true;
    case '#':
      if (line != "t" && line != "f") {
        fail(ErrorKind::Protocol, "a boolean reply is neither t nor f: " + quote(line));
        return false;
      }
      if (!charge(sizeof(RedisReply))) return false;
      v.type = T::Boolean;
      v.integer = line == "t";
      finish(std::move(v));
      return true;
    case ',': {
      bool ok = !line.empty() && line != "-" && line != "+";
      for (char c : line) {
        bool number =
            (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
        ok = ok && number;
      }
      ok = ok || line == "inf" || line == "-inf" || line == "nan";
      if (!ok) {
        fail(ErrorKind::Protocol, "a double reply is not a number: " + quote(line));
        return false;
      }
      if (!charge(sizeof(RedisReply) + line.size())) return false;
      v.type = T::Double;
      v.str = line;
      finish(std::move(v));
      return true;
    }
    case '(': {
      std::string_view digits = line.substr(!line.empty() && line[0] == '-' ? 1 : 0);
      bool ok = !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                               [](char c) { return c >= '0' && c <= '9'; });
      if (!ok) {
        fail(ErrorKind::Protocol, "a big number reply is not a number: " + quote(line));
        return false;
      }
      if (!charge(sizeof(RedisReply) + line.size())) return false;
      v.type = T::BigNumber;
      v.str = line;
      finish(std::move(v));
      return true;
    }
    default:
      fail(ErrorKind::Protocol,
           "a reply starts with " + quote(std::string_view(&type_, 1)) + ", which is no RESP type");
      return false;
  }
}

bool RespParser::begin_bulk(std::string_view line, RedisReply::Type type) {
  if (line == "?") {
    fail(ErrorKind::Protocol, "streamed strings ($?) are not supported");
    return false;
  }
  int64_t length;
  if (!parse_int(line, length) || length < -1) {
    fail(ErrorKind::Protocol, "a bulk string length is not a number: " + quote(line));
    return false;
  }
  if (length == -1) {
    if (type != RedisReply::Type::Bulk) {
      fail(ErrorKind::Protocol, "a verbatim string or blob error has length -1");
      return false;
    }
    if (!charge(sizeof(RedisReply))) return false;
    finish(RedisReply{});
    return true;
  }
  if (static_cast<uint64_t>(length) > limits_.max_reply_bytes ||
      !charge(sizeof(RedisReply) + static_cast<size_t>(length))) {
    fail(ErrorKind::TooLarge, "a bulk string of " + std::to_string(length) +
                                  " bytes is larger than the limit of " +
                                  std::to_string(limits_.max_reply_bytes) + " bytes");
    return false;
  }
  value_ = {};
  value_.type = type;
  bulk_remaining_ = static_cast<size_t>(length);
  // Reserve what was announced only up to a bound: the payload may never come, and the string
  // grows geometrically past it.
  value_.str.reserve(std::min(bulk_remaining_, size_t{1} << 20));
  state_ = bulk_remaining_ ? State::Bulk : State::BulkEnd;
  bulk_end_seen_ = 0;
  return true;
}

bool RespParser::begin_aggregate(std::string_view line, RedisReply::Type type, bool attribute) {
  if (line == "?") {
    fail(ErrorKind::Protocol, "streamed aggregates (?) are not supported");
    return false;
  }
  int64_t count;
  if (!parse_int(line, count) || count < -1) {
    fail(ErrorKind::Protocol, "an aggregate's count is not a number: " + quote(line));
    return false;
  }
  if (count == -1) {
    if (type != RedisReply::Type::Array || attribute) {
      fail(ErrorKind::Protocol, "a map, set, push or attribute has count -1");
      return false;
    }
    if (!charge(sizeof(RedisReply))) return false;
    finish(RedisReply{});
    return true;
  }
  // Every element costs at least its RedisReply; a count that cannot fit fails before any
  // element is read.
  uint64_t elements = static_cast<uint64_t>(count) * (type == RedisReply::Type::Map ? 2 : 1);
  if (elements > limits_.max_reply_bytes / sizeof(RedisReply) ||
      !charge(sizeof(RedisReply) * (1 + elements))) {
    fail(ErrorKind::TooLarge, "an aggregate of " + std::to_string(count) +
                                  " elements is larger than the limit of " +
                                  std::to_string(limits_.max_reply_bytes) + " bytes");
    return false;
  }
  // The elements charged here are not charged again as they arrive.
  cost_ -= sizeof(RedisReply) * elements;
  // An empty aggregate nests as deep as one with elements.
  if (stack_.size() >= limits_.max_depth) {
    fail(ErrorKind::TooLarge,
         "a reply nests deeper than the limit of " + std::to_string(limits_.max_depth));
    return false;
  }
  RedisReply r;
  r.type = type;
  if (elements == 0) {
    if (!attribute) finish(std::move(r));
    return true;
  }
  r.elements.reserve(std::min<uint64_t>(elements, 1024));
  stack_.push_back(Frame{std::move(r), static_cast<size_t>(elements), attribute});
  return true;
}

void RespParser::finish(RedisReply value) {
  for (;;) {
    if (stack_.empty()) {
      reply_ = std::move(value);
      have_reply_ = true;
      cost_ = 0;
      return;
    }
    Frame& top = stack_.back();
    top.reply.elements.push_back(std::move(value));
    if (--top.remaining > 0) return;
    bool attribute = top.attribute;
    value = std::move(top.reply);
    stack_.pop_back();
    // An attribute annotates the value after it, which takes its place; squall drops it.
    if (attribute) return;
  }
}

void append_command_header(std::string& out, size_t count) {
  append_decimal(out, '*', static_cast<int64_t>(count));
}

void append_argument(std::string& out, std::string_view arg) {
  append_decimal(out, '$', static_cast<int64_t>(arg.size()));
  out.append(arg);
  out += "\r\n";
}

void append_argument(std::string& out, int64_t arg) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, arg);
  append_argument(out, std::string_view(digits, static_cast<size_t>(end - digits)));
}

void append_command(std::string& out, std::span<const std::string_view> args) {
  append_args(out, args);
}

void append_command(std::string& out, std::span<const std::string> args) {
  append_args(out, args);
}

}  // namespace squall
