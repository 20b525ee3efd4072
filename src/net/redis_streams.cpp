// Redis Streams commands: argument lists in, typed entries out.
#include "squall/net/redis_streams.h"

#include <chrono>

namespace squall {

namespace {

[[noreturn]] void bad_shape(const std::string& peer, std::string_view command,
                            const RedisReply& reply) {
  throw Error(ErrorKind::Protocol, "redis " + peer + ": " + std::string(command) +
                                       " replied with an unexpected " +
                                       std::string(RedisReply::type_name(reply.type)) + ": " +
                                       reply.to_string().substr(0, 120));
}

bool is_text(const RedisReply& r) {
  return r.type == RedisReply::Type::Bulk || r.type == RedisReply::Type::Status ||
         r.type == RedisReply::Type::Verbatim;
}

// [id, [field, value, ...]] (or [id, nil] for an entry deleted while pending).
RedisStreamEntry to_entry(RedisReply& r, const std::string& peer, std::string_view command) {
  if (r.type != RedisReply::Type::Array || r.elements.size() != 2 || !is_text(r.elements[0]))
    bad_shape(peer, command, r);
  RedisStreamEntry e;
  e.id = std::move(r.elements[0].str);
  RedisReply& fields = r.elements[1];
  if (fields.is_nil()) {
    e.deleted = true;
    return e;
  }
  if (fields.type != RedisReply::Type::Array || fields.elements.size() % 2 != 0)
    bad_shape(peer, command, r);
  e.fields.reserve(fields.elements.size() / 2);
  for (size_t i = 0; i < fields.elements.size(); i += 2) {
    if (!is_text(fields.elements[i]) || !is_text(fields.elements[i + 1]))
      bad_shape(peer, command, r);
    e.fields.emplace_back(std::move(fields.elements[i].str), std::move(fields.elements[i + 1].str));
  }
  return e;
}

std::vector<RedisStreamEntry> to_entries(RedisReply& r, const std::string& peer,
                                         std::string_view command) {
  if (r.type != RedisReply::Type::Array) bad_shape(peer, command, r);
  std::vector<RedisStreamEntry> out;
  out.reserve(r.elements.size());
  for (auto& e : r.elements) out.push_back(to_entry(e, peer, command));
  return out;
}

Task<std::string> id_reply(Task<RedisReply> command, std::string peer) {
  RedisReply r = co_await std::move(command);
  if (r.is_nil()) co_return std::string();
  if (!is_text(r)) bad_shape(peer, "XADD", r);
  co_return std::move(r.str);
}

Task<bool> group_reply(Task<RedisReply> command) {
  bool exists = false;
  try {
    co_await std::move(command);
  } catch (const RedisError& e) {
    if (e.code() != "BUSYGROUP") throw;
    exists = true;
  }
  co_return !exists;
}

Task<std::vector<RedisStreamEntry>> read_reply(Task<RedisReply> command, std::string peer) {
  RedisReply r = co_await std::move(command);
  if (r.is_nil()) co_return std::vector<RedisStreamEntry>{};
  // RESP2: [[key, entries]]; RESP3: {key: entries}. One stream was asked for.
  if (r.type == RedisReply::Type::Map && r.elements.size() == 2)
    co_return to_entries(r.elements[1], peer, "XREADGROUP");
  if (r.type != RedisReply::Type::Array || r.elements.size() != 1 ||
      r.elements[0].type != RedisReply::Type::Array || r.elements[0].elements.size() != 2)
    bad_shape(peer, "XREADGROUP", r);
  co_return to_entries(r.elements[0].elements[1], peer, "XREADGROUP");
}

Task<int64_t> count_reply(Task<RedisReply> command, std::string peer) {
  RedisReply r = co_await std::move(command);
  if (r.type != RedisReply::Type::Integer) bad_shape(peer, "XACK", r);
  co_return r.integer;
}

Task<RedisAutoClaim> claim_reply(Task<RedisReply> command, std::string peer) {
  RedisReply r = co_await std::move(command);
  if (r.type != RedisReply::Type::Array || r.elements.size() < 2 || !is_text(r.elements[0]))
    bad_shape(peer, "XAUTOCLAIM", r);
  RedisAutoClaim out;
  out.next = std::move(r.elements[0].str);
  out.entries = to_entries(r.elements[1], peer, "XAUTOCLAIM");
  if (r.elements.size() >= 3) {
    if (r.elements[2].type != RedisReply::Type::Array) bad_shape(peer, "XAUTOCLAIM", r);
    for (auto& id : r.elements[2].elements) {
      if (!is_text(id)) bad_shape(peer, "XAUTOCLAIM", r);
      out.deleted.push_back(std::move(id.str));
    }
  }
  co_return out;
}

std::string ms_arg(Duration d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return std::to_string(ms < 0 ? 0 : ms);
}

Task<std::string> xadd_fields(RedisClient& client, std::string_view key,
                              std::span<const RedisField> fields, const XAddOptions& options) {
  std::vector<std::string_view> argv = {"XADD", key};
  if (options.no_mkstream) argv.push_back("NOMKSTREAM");
  std::string maxlen;
  if (options.maxlen) {
    maxlen = std::to_string(*options.maxlen);
    argv.push_back("MAXLEN");
    argv.push_back(options.approximate ? "~" : "=");
    argv.push_back(maxlen);
  }
  argv.push_back(options.id);
  for (const auto& [field, value] : fields) {
    argv.push_back(field);
    argv.push_back(value);
  }
  return id_reply(client.command(std::span<const std::string_view>(argv)), client.peer());
}

}  // namespace

Task<std::string> xadd(RedisClient& client, std::string_view key,
                       std::span<const RedisField> fields) {
  return xadd_fields(client, key, fields, XAddOptions());
}

Task<std::string> xadd(RedisClient& client, std::string_view key,
                       std::span<const RedisField> fields, const XAddOptions& options) {
  return xadd_fields(client, key, fields, options);
}

Task<bool> xgroup_create(RedisClient& client, std::string_view key, std::string_view group,
                         std::string_view id, bool mkstream) {
  std::vector<std::string_view> argv = {"XGROUP", "CREATE", key, group, id};
  if (mkstream) argv.push_back("MKSTREAM");
  return group_reply(client.command(std::span<const std::string_view>(argv)));
}

Task<std::vector<RedisStreamEntry>> xreadgroup(RedisClient& client, std::string_view key,
                                               std::string_view group, std::string_view consumer) {
  return xreadgroup(client, key, group, consumer, XReadGroupOptions());
}

Task<std::vector<RedisStreamEntry>> xreadgroup(RedisClient& client, std::string_view key,
                                               std::string_view group, std::string_view consumer,
                                               const XReadGroupOptions& options) {
  std::vector<std::string_view> argv = {"XREADGROUP", "GROUP", group, consumer};
  std::string count = std::to_string(options.count);
  std::string block;
  CommandOptions command;
  if (options.count) {
    argv.push_back("COUNT");
    argv.push_back(count);
  }
  if (options.block) {
    block = ms_arg(*options.block);
    argv.push_back("BLOCK");
    argv.push_back(block);
    // The server answers only once the block is over: the limit starts after it.
    if (client.options().command_timeout)
      command.timeout = *options.block + *client.options().command_timeout;
  }
  if (options.noack) argv.push_back("NOACK");
  argv.push_back("STREAMS");
  argv.push_back(key);
  argv.push_back(options.id);
  return read_reply(client.command(std::span<const std::string_view>(argv), command),
                    client.peer());
}

Task<int64_t> xack(RedisClient& client, std::string_view key, std::string_view group,
                   std::span<const std::string> ids) {
  std::vector<std::string_view> argv = {"XACK", key, group};
  for (const auto& id : ids) argv.push_back(id);
  return count_reply(client.command(std::span<const std::string_view>(argv)), client.peer());
}

Task<RedisAutoClaim> xautoclaim(RedisClient& client, std::string_view key, std::string_view group,
                                std::string_view consumer, Duration min_idle,
                                std::string_view start, size_t count) {
  std::string idle = ms_arg(min_idle);
  std::string n = std::to_string(count);
  std::vector<std::string_view> argv = {"XAUTOCLAIM", key,   group,   consumer,
                                        idle,         start, "COUNT", n};
  return claim_reply(client.command(std::span<const std::string_view>(argv)), client.peer());
}

}  // namespace squall
