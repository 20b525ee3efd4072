// RedisScript: a Lua script run by its SHA1 (EVALSHA), loaded with EVAL when the server lacks it.
//
//   static const RedisScript claim(R"(
//     local ready = redis.call('ZSCORE', KEYS[1], ARGV[1]) ... return 1)");
//   RedisReply r = co_await claim.run(redis, 1, "hosts", "example.com", now);  // 1 key, 2 args
//
// run() sends EVALSHA; when the server answers NOSCRIPT (a restart, SCRIPT FLUSH, another server
// behind the same address), it sends EVAL with the source, which runs the script and caches it on
// the server, so the next EVALSHA finds it. Nothing is kept on the client: the script is one
// value, shared by any number of clients.
//
// Threads: a RedisScript is immutable after construction and may be shared across threads; run()
// uses the client's loop as any command does.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "squall/core/task.h"
#include "squall/net/redis.h"

namespace squall {

class RedisScript {
 public:
  explicit RedisScript(std::string source);

  const std::string& source() const noexcept { return source_; }
  // The SHA1 of the source in lower-case hex, as SCRIPT LOAD returns it.
  const std::string& sha1() const noexcept { return sha1_; }

  // Runs the script with `keys` (KEYS[1]...) and `args` (ARGV[1]...), copied at the call, and
  // returns its reply. Throws RedisError for an error the script raises (or any error reply but
  // NOSCRIPT), and what RedisClient::command throws. The client and the script must outlive the
  // task.
  [[nodiscard]] Task<RedisReply> run(RedisClient& client, std::span<const std::string> keys,
                                     std::span<const std::string> args,
                                     CommandOptions options = {}) const;
  // The same as EVALSHA takes its arguments: `numkeys` keys first, then the script's args.
  template <detail::RedisArgument... A>
  [[nodiscard]] Task<RedisReply> run(RedisClient& client, size_t numkeys,
                                     const A&... keys_then_args) const {
    std::vector<std::string> argv = {"EVALSHA", sha1_, std::to_string(numkeys)};
    (argv.push_back(as_text(keys_then_args)), ...);
    return run_argv(client, std::move(argv), {}, false);
  }
  // SCRIPT LOAD: puts the script in the server's cache now (before a pipeline of EVALSHA).
  [[nodiscard]] Task<void> load(RedisClient& client, CommandOptions options = {}) const;

 private:
  // EVALSHA with `argv` ("EVALSHA", sha1, numkeys, keys..., args...), then EVAL on NOSCRIPT.
  Task<RedisReply> run_argv(RedisClient& client, std::vector<std::string> argv, Timeout timeout,
                            bool idempotent) const;
  template <class A>
  static std::string as_text(const A& arg) {
    if constexpr (std::convertible_to<const A&, std::string_view>) {
      return std::string(std::string_view(arg));
    } else {
      return std::to_string(arg);
    }
  }

  std::string source_;
  std::string sha1_;
};

}  // namespace squall
