// RESP, Redis' wire protocol, without I/O: replies (RESP2 and RESP3) in, commands out.
//
//   RespParser parser;
//   while (!input.empty()) {
//     auto [event, used] = parser.next(input);
//     input.remove_prefix(used);
//     if (event == RespEvent::Reply) deliver(parser.take());
//     if (event == RespEvent::Fail) close_with(parser.fail_kind(), parser.fail_reason());
//   }
//   std::string wire;
//   append_command(wire, {"SET", "key", value});     // binary-safe: a RESP array of bulk strings
//
// The parser reads a reply in whatever pieces its bytes arrive and keeps no input: bulk payloads
// are copied into the reply as they come, so a connection's read buffer never needs to hold a
// whole reply. It checks every line and length and fails (and stays failed) on the first byte that
// breaks the protocol. Memory is bounded by RespLimits: a reply whose bulk payloads plus
// sizeof(RedisReply) per element would pass max_reply_bytes fails as soon as a header announces it
// (before its payload is read), and aggregates may nest at most max_depth deep.
//
// RESP3: maps, sets, pushes, doubles, booleans, big numbers, verbatim strings, blob errors and the
// null are read as their own types; attributes (`|`) are read, checked and dropped, as they only
// annotate the reply that follows. Streamed strings and aggregates (`$?`, `*?`) are refused.
//
// Plain data: no loop, no thread affinity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "squall/core/error.h"

namespace squall {

// One reply: a tagged value, as hiredis' redisReply, whose fields are those its type uses.
struct RedisReply {
  enum class Type : uint8_t {
    Nil,        // RESP2's $-1 and *-1, RESP3's _
    Status,     // +OK: str
    Error,      // -ERR ... and RESP3's blob error: str ("ERR unknown command ...")
    Integer,    // :42: integer
    Bulk,       // $3\r\nabc: str (binary-safe)
    Array,      // *N: elements
    Map,        // RESP3 %N: elements holds key, value, key, value...
    Set,        // RESP3 ~N: elements
    Push,       // RESP3 >N: elements (out of band: pub/sub messages, invalidations)
    Double,     // RESP3 ,1.5: str keeps the text ("inf", "-inf", "nan" too)
    Boolean,    // RESP3 #t / #f: integer 1 or 0
    BigNumber,  // RESP3 (123...: str keeps the digits
    Verbatim,   // RESP3 =N\r\ntxt:...: str without its "txt:" format prefix
  };

  Type type = Type::Nil;
  std::string str;
  int64_t integer = 0;
  std::vector<RedisReply> elements;

  bool is_nil() const noexcept { return type == Type::Nil; }
  bool is_error() const noexcept { return type == Type::Error; }
  // A string of any kind: Status, Error, Bulk, Double, BigNumber or Verbatim.
  bool is_string() const noexcept;
  // Array, Map, Set or Push.
  bool is_aggregate() const noexcept;

  // The type's name as the RESP3 specification calls it ("bulk string", "map", ...).
  static std::string_view type_name(Type type) noexcept;

  static RedisReply status(std::string text) { return make(Type::Status, std::move(text)); }
  static RedisReply error(std::string text) { return make(Type::Error, std::move(text)); }
  static RedisReply bulk(std::string bytes) { return make(Type::Bulk, std::move(bytes)); }
  static RedisReply of_integer(int64_t value) {
    RedisReply r;
    r.type = Type::Integer;
    r.integer = value;
    return r;
  }
  static RedisReply array(std::vector<RedisReply> elements) {
    RedisReply r;
    r.type = Type::Array;
    r.elements = std::move(elements);
    return r;
  }

  // A readable rendering for messages and tests, as redis-cli prints replies but on one line:
  // "OK", "(error) ERR x", "(integer) 3", "\"a\\x00b\"", "(nil)", "[\"a\", (integer) 1]", maps as
  // "{k: v}", sets as "~[...]", pushes as ">[...]". Bytes outside printable ASCII are escaped.
  std::string to_string() const;

  bool operator==(const RedisReply&) const = default;

 private:
  static RedisReply make(Type type, std::string text) {
    RedisReply r;
    r.type = type;
    r.str = std::move(text);
    return r;
  }
};

struct RespLimits {
  // The most one reply may cost: the bytes of its strings plus sizeof(RedisReply) per element.
  // Redis' own proto-max-bulk-len is 512 MiB.
  size_t max_reply_bytes = size_t{512} << 20;
  // How deep aggregates may nest (an array of arrays is depth 2).
  size_t max_depth = 32;
};

enum class RespEvent : uint8_t {
  NeedMore,  // all of the input was taken; the reply is not complete yet
  Reply,     // a whole reply was read: take() it
  Fail,      // the bytes break the protocol or a limit: fail_kind(), fail_reason()
};

class RespParser {
 public:
  struct Step {
    RespEvent event;
    size_t used;  // bytes of the input taken
  };

  RespParser() : RespParser(RespLimits{}) {}
  explicit RespParser(RespLimits limits) : limits_(limits) {}

  // Reads from the start of `input` until a reply is complete, all of it is taken, or it breaks
  // the protocol. After a Fail every later call fails again, taking nothing.
  Step next(std::string_view input);
  // After Reply: the reply (moved out; the parser is ready for the next one).
  RedisReply take() noexcept { return std::move(reply_); }

  // After Fail: Protocol (malformed bytes) or TooLarge (a limit), and what was wrong, e.g.
  // "a bulk string length is not a number: \"12x\"".
  ErrorKind fail_kind() const noexcept { return fail_kind_; }
  const std::string& fail_reason() const noexcept { return fail_reason_; }
  bool failed() const noexcept { return state_ == State::Failed; }
  // Part of a reply has been read (a connection that ends now ends mid-reply).
  bool in_reply() const noexcept { return state_ != State::Type || !stack_.empty(); }

 private:
  enum class State : uint8_t { Type, Line, Bulk, BulkEnd, Failed };
  struct Frame {
    RedisReply reply;
    size_t remaining;
    bool attribute;
  };

  Step fail(ErrorKind kind, std::string reason, size_t used = 0);
  // The header line of type_ (without its CRLF) is complete; false when it failed.
  bool on_line(std::string_view line);
  bool begin_bulk(std::string_view line, RedisReply::Type type);
  bool begin_aggregate(std::string_view line, RedisReply::Type type, bool attribute);
  bool charge(size_t bytes);
  // A value is complete: into its parent, or the reply when at the top.
  void finish(RedisReply value);

  RespLimits limits_;
  State state_ = State::Type;
  char type_ = 0;
  std::string line_;  // a header line that arrived in pieces
  RedisReply value_;  // the bulk string being read
  size_t bulk_remaining_ = 0;
  size_t bulk_end_seen_ = 0;  // of the CRLF after a bulk payload
  std::vector<Frame> stack_;
  size_t cost_ = 0;  // of the reply so far, against max_reply_bytes
  bool have_reply_ = false;
  RedisReply reply_;
  ErrorKind fail_kind_ = ErrorKind::Protocol;
  std::string fail_reason_;
};

// Appends a command to `out` as Redis reads it: an array of bulk strings, each argument as is.
void append_command(std::string& out, std::span<const std::string_view> args);
void append_command(std::string& out, std::span<const std::string> args);
inline void append_command(std::string& out, std::initializer_list<std::string_view> args) {
  append_command(out, std::span<const std::string_view>(args.begin(), args.size()));
}
// The same in steps: the array's header for `count` arguments, then each argument (an integer
// as its decimal digits).
void append_command_header(std::string& out, size_t count);
void append_argument(std::string& out, std::string_view arg);
void append_argument(std::string& out, int64_t arg);

}  // namespace squall
