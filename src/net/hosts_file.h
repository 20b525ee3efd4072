// The hosts file as DnsResolver reads it: parsed once, re-checked at most once per interval,
// and the name keys it shares with the resolver's maps (private to src/net).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "squall/core/time.h"
#include "squall/net/address.h"

namespace squall::detail {

// FNV-1a, one byte at a time, so that the resolver can hash a name in the same pass that
// lower-cases and checks it.
inline constexpr uint64_t kNameHashSeed = 0xcbf29ce484222325ull;
inline constexpr uint64_t name_hash_step(uint64_t hash, char c) noexcept {
  return (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
}
inline uint64_t name_hash(std::string_view name) noexcept {
  uint64_t hash = kNameHashSeed;
  for (char c : name) hash = name_hash_step(hash, c);
  return hash;
}

// A normalized name (lower case, no trailing dot) with its name_hash: looked up in the maps
// below without hashing it again.
struct NameKey {
  std::string_view name;
  uint64_t hash;
};

// A NameKey that owns its text, for a map whose nodes must not hash their keys again.
struct OwnedNameKey {
  std::string name;
  uint64_t hash;
};

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view name) const noexcept { return name_hash(name); }
  size_t operator()(const NameKey& key) const noexcept { return key.hash; }
  size_t operator()(const OwnedNameKey& key) const noexcept { return key.hash; }
};

struct NameEqual {
  using is_transparent = void;
  static std::string_view view(std::string_view name) noexcept { return name; }
  static std::string_view view(const NameKey& key) noexcept { return key.name; }
  static std::string_view view(const OwnedNameKey& key) noexcept { return key.name; }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const noexcept {
    return view(a) == view(b);
  }
};

// The addresses a hosts file gives names: "address name alias... # comment" lines, as c-ares and
// glibc read them. A name matches without regard to case, on every line that lists it; its
// addresses keep the file's order. A line whose address is not a numeric IPv4 or IPv6 address
// (or not of the family asked for) is skipped.
//
// The file is parsed on first use and its identity (device, inode, size, modification and change
// times) checked again on the first find() at least `recheck` after the last check; a changed
// file is parsed again. A file modified in the two seconds before it was read is read again at
// the next check whatever its identity says, since a second edit in the same clock tick can
// leave its times and size as they were. A missing or unreadable file lists nothing. A file whose
// parse would take more than `memory_limit` bytes is not kept: find() reads it line by line
// each time instead, as c-ares would.
class HostsFile {
 public:
  struct Options {
    std::string path;
    int family = AF_UNSPEC;    // AF_UNSPEC, AF_INET or AF_INET6: the addresses kept
    size_t max_addresses = 0;  // per name
    size_t memory_limit = 0;   // bytes the parsed file may take (estimated)
    Duration recheck{};
  };

  explicit HostsFile(Options options) : options_(std::move(options)) {}

  // The addresses (port 0, never empty) the file gives `name` (normalized), or nullptr. The
  // pointer is good until the next call. `now` is the loop's time.
  const std::vector<Address>* find(const NameKey& name, TimePoint now);

  // Whether the last parse was kept (false: missing, unreadable or over the memory limit).
  bool cached() const { return state_ == State::Cached; }

 private:
  enum class State { Absent, Cached, TooLarge };
  struct Identity {
    dev_t device;
    ino_t inode;
    off_t size;
    timespec modified;
    timespec changed;
    bool operator==(const Identity& other) const noexcept;
  };

  void refresh(TimePoint now);
  void load();
  const std::vector<Address>* scan(std::string_view name);

  Options options_;
  State state_ = State::Absent;
  std::optional<Identity> identity_;  // of the file last read; nullopt: read it at the next check
  TimePoint next_check_ = TimePoint::min();
  std::unordered_map<std::string, std::vector<Address>, NameHash, NameEqual> names_;
  std::vector<Address> scanned_;  // scan()'s answer
};

}  // namespace squall::detail
