// RedisScript: EVALSHA first, EVAL when the server answers NOSCRIPT.
#include "squall/net/redis_script.h"

#include <openssl/evp.h>

namespace squall {

namespace {

std::string sha1_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha1(), nullptr) != 1)
    throw InvalidStateError("RedisScript: OpenSSL could not compute a SHA1");
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

template <class Keys, class Args>
std::vector<std::string> script_argv(const std::string& sha1, const Keys& keys, const Args& args) {
  std::vector<std::string> argv;
  argv.reserve(3 + keys.size() + args.size());
  argv.emplace_back("EVALSHA");
  argv.push_back(sha1);
  argv.push_back(std::to_string(keys.size()));
  for (const auto& k : keys) argv.emplace_back(k);
  for (const auto& a : args) argv.emplace_back(a);
  return argv;
}

Task<void> load_script(RedisClient& client, const RedisScript& script, Timeout timeout) {
  CommandOptions options;
  options.timeout = timeout;
  options.idempotent = true;
  // A named array: GCC 12 mishandles a braced list's backing array inside a coroutine.
  std::vector<std::string_view> argv = {"SCRIPT", "LOAD", script.source()};
  RedisReply r = co_await client.command(std::span<const std::string_view>(argv), options);
  if (r.str != script.sha1()) {
    throw Error(ErrorKind::Protocol, "redis " + client.peer() + ": SCRIPT LOAD returned " +
                                         r.to_string() + ", not the script's SHA1 " +
                                         script.sha1());
  }
}

}  // namespace

RedisScript::RedisScript(std::string source)
    : source_(std::move(source)), sha1_(sha1_hex(source_)) {}

Task<RedisReply> RedisScript::run(RedisClient& client, std::span<const std::string> keys,
                                  std::span<const std::string> args, CommandOptions options) const {
  return run_argv(client, script_argv(sha1_, keys, args), options.timeout, options.idempotent);
}

Task<RedisReply> RedisScript::run_argv(RedisClient& client, std::vector<std::string> argv,
                                       Timeout timeout, bool idempotent) const {
  CommandOptions options;
  options.timeout = timeout;
  options.idempotent = idempotent;
  bool missing = false;
  try {
    co_return co_await client.command(std::span<const std::string>(argv), options);
  } catch (const RedisError& e) {
    if (e.code() != "NOSCRIPT") throw;
    missing = true;
  }
  // EVAL runs the source and leaves it in the server's script cache for the next EVALSHA.
  if (missing) {
    argv[0] = "EVAL";
    argv[1] = source_;
  }
  co_return co_await client.command(std::span<const std::string>(argv), options);
}

Task<void> RedisScript::load(RedisClient& client, CommandOptions options) const {
  return load_script(client, *this, options.timeout);
}

}  // namespace squall
