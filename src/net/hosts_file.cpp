// The hosts file as DnsResolver reads it: parsing, the identity check, the line-by-line fallback.
#include "hosts_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace squall::detail {

namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// The next blank-separated field of `rest` ("" at its end), which then starts after it.
std::string_view next_field(std::string_view& rest) {
  size_t start = 0;
  while (start < rest.size() && is_blank(rest[start])) ++start;
  size_t end = start;
  while (end < rest.size() && !is_blank(rest[end])) ++end;
  std::string_view field = rest.substr(start, end - start);
  rest.remove_prefix(end);
  return field;
}

// The address a hosts line starts with, leaving `line` at its names with the comment cut off;
// nullopt for a line without a numeric address of `family`.
std::optional<Address> line_address(std::string_view& line, int family) {
  if (size_t comment = line.find('#'); comment != std::string_view::npos)
    line = line.substr(0, comment);
  std::string_view text = next_field(line);
  if (text.empty() || text.front() == '[') return std::nullopt;  // from_ip's bracketed IPv6
  std::optional<Address> address = Address::from_ip(text, 0);
  if (address && family != AF_UNSPEC && address->family() != family) return std::nullopt;
  return address;
}

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// `name` from the file equals `key` (lower case) without regard to case.
bool same_name(std::string_view name, std::string_view key) {
  if (name.size() != key.size()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (lower(name[i]) != key[i]) return false;
  return true;
}

// Adds `address` to `list` unless it is there or the list is full; whether it was added.
bool add_address(std::vector<Address>& list, const Address& address, size_t max) {
  if (list.size() >= max || std::find(list.begin(), list.end(), address) != list.end())
    return false;
  list.push_back(address);
  return true;
}

// What one name costs beyond its text: a hash node (key, vector, next pointer, bucket) and the
// allocator's headers. An estimate: the limit bounds memory, it does not account for it.
constexpr size_t kNameCost = 128;

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

}  // namespace

bool HostsFile::Identity::operator==(const Identity& other) const noexcept {
  return device == other.device && inode == other.inode && size == other.size &&
         modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec &&
         changed.tv_sec == other.changed.tv_sec && changed.tv_nsec == other.changed.tv_nsec;
}

const std::vector<Address>* HostsFile::find(const NameKey& name, TimePoint now) {
  if (now >= next_check_) refresh(now);
  switch (state_) {
    case State::Absent:
      return nullptr;
    case State::Cached: {
      auto it = names_.find(name);
      return it == names_.end() ? nullptr : &it->second;
    }
    case State::TooLarge:
      return scan(name.name);
  }
  return nullptr;
}

void HostsFile::refresh(TimePoint now) {
  next_check_ = now + options_.recheck;
  struct stat st {};
  if (::stat(options_.path.c_str(), &st) != 0) {
    names_.clear();
    state_ = State::Absent;
    identity_.reset();
    return;
  }
  Identity seen{st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim};
  if (!identity_ || !(*identity_ == seen)) load();
}

void HostsFile::load() {
  names_.clear();
  state_ = State::Absent;
  identity_.reset();
  File file(std::fopen(options_.path.c_str(), "re"));
  struct stat st {};
  if (!file || ::fstat(fileno(file.get()), &st) != 0) return;

  std::string text;
  bool fits = static_cast<uint64_t>(st.st_size) <= options_.memory_limit;
  if (fits) {
    // Read to the end, not to st_size: the file may have grown since. One byte past the limit
    // says it no longer fits.
    char chunk[16384];
    size_t n;
    while (fits && (n = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) {
      text.append(chunk, n);
      fits = text.size() <= options_.memory_limit;
    }
    if (std::ferror(file.get())) return;
  }

  size_t used = 0;  // by the parse; the text goes when load() returns
  std::string_view rest = text;
  while (fits && !rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    std::optional<Address> address = line_address(line, options_.family);
    if (!address) continue;
    for (std::string_view field = next_field(line); !field.empty(); field = next_field(line)) {
      std::string key(field);
      std::transform(key.begin(), key.end(), key.begin(), lower);
      auto [it, fresh] = names_.try_emplace(std::move(key));
      if (fresh) used += kNameCost + it->first.size();
      if (add_address(it->second, *address, options_.max_addresses)) used += sizeof(Address);
    }
    fits = used <= options_.memory_limit;
  }
  if (!fits) names_.clear();
  state_ = fits ? State::Cached : State::TooLarge;

  // A file modified just now may be modified again within the same tick of the file system's
  // clock, leaving its identity as it is now: trust it only once it is two seconds old.
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  if (wall.tv_sec - st.st_mtim.tv_sec > 1 && wall.tv_sec - st.st_ctim.tv_sec > 1)
    identity_ = Identity{st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim};
}

const std::vector<Address>* HostsFile::scan(std::string_view name) {
  scanned_.clear();
  File file(std::fopen(options_.path.c_str(), "re"));
  if (!file) return nullptr;
  char* buffer = nullptr;
  size_t capacity = 0;
  ssize_t length;
  while ((length = ::getline(&buffer, &capacity, file.get())) > 0) {
    std::string_view line(buffer, static_cast<size_t>(length));
    if (line.back() == '\n') line.remove_suffix(1);
    std::optional<Address> address = line_address(line, options_.family);
    if (!address) continue;
    for (std::string_view field = next_field(line); !field.empty(); field = next_field(line)) {
      if (same_name(field, name)) {
        add_address(scanned_, *address, options_.max_addresses);
        break;
      }
    }
  }
  std::free(buffer);
  return scanned_.empty() ? nullptr : &scanned_;
}

}  // namespace squall::detail
