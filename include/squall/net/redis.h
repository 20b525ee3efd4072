// RedisClient: one pipelined connection to a Redis server on squall's loop, reconnecting as needed.
//
//   RedisClient redis(parse_redis_url("redis://:secret@127.0.0.1:6379/2"));
//   co_await redis.command("SET", "key", bytes);              // arguments are binary-safe
//   RedisReply r = co_await redis.command("GET", "key");      // r.type == Bulk, r.str == bytes
//   RedisPipeline p;
//   p.add("INCR", "n").add("EXPIRE", "n", 60);                // integers as their digits
//   std::vector<RedisReply> replies = co_await redis.execute(p);  // one write, two replies
//
// Arguments are anything a std::string_view can be made of, or integers; an argument list built
// at run time goes as a span (a std::vector<std::string>). Braced lists are not taken: GCC 12
// miscompiles an initializer_list inside a co_await expression.
//
// Pipelining: every command goes out as soon as it is issued, behind the ones before it, and its
// reply is matched in order; any number of tasks may issue commands at once on one client and
// they share its one connection. A reader task of the client takes the replies off the socket;
// there is no thread. A blocking command (BLPOP, XREADGROUP ... BLOCK) holds up every command
// behind it, so give blocking reads a client of their own.
//
// Replies: command() returns the reply, and throws RedisError when the server answers with an
// error reply (its code() is the first word: "ERR", "WRONGTYPE", "NOSCRIPT", ...). execute()
// returns every reply of a pipeline, error replies among them (RedisReply::Type::Error), so one
// failed command does not hide the others' replies; check each, or call throw_if_error().
//
// Connecting: the first command connects (resolving the host, connect_timeout for the whole
// handshake), then sends AUTH (with the password, and the user if any), SELECT (a db other than
// 0) and CLIENT SETNAME (a client_name), pipelined, or HELLO 3 with AUTH and SETNAME for
// protocol 3. A command that finds the connection dropped opens a new one. A failed attempt is
// retried after a delay that doubles from backoff_initial up to backoff_max, jittered to between
// half of it and all of it; one command makes at most connect_attempts attempts, then fails with
// the last error (NetError of kind Connect, Resolve or Timeout; RedisError when the server
// refused AUTH or SELECT, which is not retried, but LOADING and BUSY are). One connection is
// opened at a time: commands issued meanwhile wait for it, and fail with its error if it fails.
// The delay outlives the command: the next command first waits out what remains of it, so a
// client retried in a loop does not hammer a server that is down.
// A server that restarted accepts connections before its data set is loaded and answers
// LOADING to every command meanwhile, running none: a command (or a pipeline all of whose
// replies are LOADING) is sent again after the same backoff, up to connect_attempts times in all
// and within its timeout, after which the LOADING error is the caller's.
//
// An idle connection is watched: when the server ends it (CLIENT KILL, its idle timeout, a
// restart) the client notices and the next command opens a new one. A command issued before the
// loop has read that end (the same instant) goes out and fails as in flight below: the client
// cannot tell it from a command the server ran.
//
// In flight: when the connection drops with commands sent and unanswered, each of them fails
// with a NetError of kind Closed that says so (the server may or may not have run it); none is
// sent again, unless it was issued with `idempotent`, which allows one more try on a new
// connection. A reply that breaks RESP or passes options.limits fails the connection the same way
// (kind Protocol or TooLarge).
//
// Timeouts: a command's limit (CommandOptions::timeout, else options.command_timeout, else none)
// covers connecting, sending and the reply; past it the command throws TimeoutError naming the
// command, and its connection is closed: replies come in order, so every command behind it would
// wait for it too (forever, behind a blocking command). Those fail as in flight above, and the
// next command opens a new connection. A kill (or a with_timeout around the command) only stops
// the wait: the command stays sent, its reply is read and dropped when it comes, and the
// connection stays open.
//
// close() fails the commands in flight (Closed, "the client was closed") and closes the
// connection; later commands throw InvalidStateError (as do commands on a moved-from client).
// The destructor closes too; commands still waiting keep what they need alive and fail.
//
// Threads: a client belongs to the loop it was made on and is used from that loop's thread.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "squall/core/error.h"
#include "squall/core/loop.h"
#include "squall/core/task.h"
#include "squall/core/time.h"
#include "squall/net/net_error.h"
#include "squall/net/resp.h"

namespace squall {

struct RedisOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 6379;
  // SELECT on connect when not 0.
  int db = 0;
  // AUTH on connect when a password is given (with the user, if one is given too: Redis 6 ACLs).
  std::string user;
  std::string password;
  // CLIENT SETNAME on connect when given (what CLIENT LIST shows).
  std::string client_name;
  // 2 (RESP2) or 3 (HELLO 3: RESP3's maps, sets, doubles, booleans).
  int protocol = 2;

  // One attempt at a connection: resolve, connect, and the AUTH/SELECT/HELLO handshake.
  Timeout connect_timeout = std::chrono::seconds(5);
  // A command's limit unless it gives its own (CommandOptions::timeout); none by default.
  Timeout command_timeout;
  // The delay before the next attempt after a failed one doubles from backoff_initial up to
  // backoff_max and is jittered (between half of it and all of it); a success resets it.
  Duration backoff_initial = std::chrono::milliseconds(50);
  Duration backoff_max = std::chrono::seconds(2);
  // The attempts one command makes at a connection before it fails (at least 1).
  int connect_attempts = 3;
  // What a reply may cost (resp.h): a larger or deeper reply fails the connection.
  RespLimits limits;
};

// redis://[[user]:password@]host[:port][/db] (Redis' own URL scheme; redis-cli -u takes the same).
// The port defaults to 6379 and the db to 0; user and password are percent-decoded; an IPv6 host
// goes in brackets ([::1]). Throws InvalidArgumentError naming what is wrong: another scheme
// (rediss:// and unix sockets are not supported), a bad port, a db that is not a number, a query.
RedisOptions parse_redis_url(std::string_view url);

// The server answered a command with an error reply. The message is "invalid argument: redis
// <peer>: <COMMAND>: <the server's text>"; code() is the text's first word ("WRONGTYPE").
class RedisError : public Error {
 public:
  RedisError(std::string_view peer, std::string_view command, std::string reply_text);
  const std::string& reply_text() const noexcept { return text_; }
  std::string_view code() const noexcept;

 private:
  std::string text_;
};

// Throws RedisError for an error reply (naming `command` and `peer`); does nothing otherwise.
void throw_if_error(const RedisReply& reply, std::string_view command = "reply",
                    std::string_view peer = "");

struct CommandOptions {
  // This command's limit; options.command_timeout when empty.
  Timeout timeout;
  // Safe to run twice (GET, SET of a fixed value): sent once more on a new connection if the
  // connection drops before its reply.
  bool idempotent = false;
};

namespace detail {
// What a command's argument may be: text, or an integer (sent as its digits).
template <class A>
concept RedisArgument =
    std::convertible_to<const A&, std::string_view> || std::integral<std::remove_cvref_t<A>>;

template <class A>
void append_redis_argument(std::string& out, const A& arg) {
  if constexpr (std::convertible_to<const A&, std::string_view>) {
    append_argument(out, std::string_view(arg));
  } else {
    append_argument(out, static_cast<int64_t>(arg));
  }
}

// The command's name for messages, from its first argument.
std::string redis_command_name(std::string_view first);
template <class A>
std::string redis_command_name_of(const A& first) {
  if constexpr (std::convertible_to<const A&, std::string_view>) {
    return redis_command_name(std::string_view(first));
  } else {
    return redis_command_name("");
  }
}

template <class... A>
std::string encode_redis_command(const A&... args) {
  std::string wire;
  append_command_header(wire, sizeof...(A));
  (append_redis_argument(wire, args), ...);
  return wire;
}
}  // namespace detail

// Commands encoded for one write. Arguments are copied when added.
class RedisPipeline {
 public:
  template <detail::RedisArgument... A>
  requires(sizeof...(A) > 0) RedisPipeline& add(const A&... args) {
    if (count_ == 0) first_ = detail::redis_command_name_of(std::get<0>(std::tie(args...)));
    ++count_;
    append_command_header(wire_, sizeof...(A));
    (detail::append_redis_argument(wire_, args), ...);
    return *this;
  }
  RedisPipeline& add(std::span<const std::string_view> args);
  RedisPipeline& add(std::span<const std::string> args);
  size_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  // The commands as RESP, and the first command's name (for messages).
  const std::string& wire() const noexcept { return wire_; }
  const std::string& first_name() const noexcept { return first_; }
  void clear() noexcept;

 private:
  void note(std::string_view name);
  std::string wire_;
  std::string first_;
  size_t count_ = 0;
};

namespace detail {
class RedisCore;
}

class RedisClient {
 public:
  // Nothing connects until the first command. On `loop` (the current one by default).
  explicit RedisClient(RedisOptions options = {}, Loop& loop = Loop::current());
  // parse_redis_url(url).
  explicit RedisClient(std::string_view url, Loop& loop = Loop::current());
  RedisClient(RedisClient&&) noexcept;
  RedisClient& operator=(RedisClient&&) noexcept;
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;
  ~RedisClient();

  // Sends one command (its arguments copied at the call) and returns its reply. Throws
  // RedisError for an error reply, and the connection and timeout errors described above.
  template <detail::RedisArgument... A>
  requires(sizeof...(A) > 0) [[nodiscard]] Task<RedisReply> command(const A&... args) {
    return send(detail::encode_redis_command(args...),
                detail::redis_command_name_of(std::get<0>(std::tie(args...))), {});
  }
  template <detail::RedisArgument... A>
  requires(sizeof...(A) > 0)
      [[nodiscard]] Task<RedisReply> command(const CommandOptions& options, const A&... args) {
    return send(detail::encode_redis_command(args...),
                detail::redis_command_name_of(std::get<0>(std::tie(args...))), options);
  }
  [[nodiscard]] Task<RedisReply> command(std::span<const std::string_view> args,
                                         CommandOptions options = {});
  [[nodiscard]] Task<RedisReply> command(std::span<const std::string> args,
                                         CommandOptions options = {});
  // Sends every command of the pipeline in one write (copied at the call) and returns their
  // replies in order, error replies included. An empty pipeline returns at once. The timeout
  // covers the whole batch; `idempotent` says the whole batch may run twice.
  [[nodiscard]] Task<std::vector<RedisReply>> execute(const RedisPipeline& pipeline,
                                                      CommandOptions options = {});

  // Opens the connection now, if there is none (the handshake, with the retries above).
  [[nodiscard]] Task<void> connect();
  // Fails what is in flight and closes; idempotent.
  void close() noexcept;

  const RedisOptions& options() const noexcept;
  // "host:port", as messages name the server.
  const std::string& peer() const noexcept;
  // An open connection, with its handshake done.
  bool connected() const noexcept;
  // Commands sent whose replies have not come yet.
  size_t in_flight() const noexcept;
  // Connections opened so far (a reconnect makes it grow).
  uint64_t connections() const noexcept;

 private:
  Task<RedisReply> send(std::string wire, std::string name, const CommandOptions& options);
  // InvalidStateError for a client that was moved from.
  void moved_check() const;
  std::shared_ptr<detail::RedisCore> core_;
};

}  // namespace squall
