// The c-ares resolver on the loop: socket and timer plumbing, the cache, coalescing, overrides.
#include "squall/net/dns.h"

#include <ares.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "hosts_file.h"
#include "squall/core/detail/frame_pool.h"
#include "squall/core/detail/intrusive_list.h"
#include "squall/core/detail/task_state.h"
#include "squall/core/error.h"
#include "squall/core/log.h"
#include "squall/core/loop.h"
#include "squall/net/net_error.h"

namespace squall {

namespace {

using Addresses = std::vector<Address>;

// A name as the cache, the override map, the hosts file and the in-flight map key it: lower
// case, without a trailing dot, with its name_hash and whether DNS can ask for it.
struct Name {
  std::string key;
  uint64_t hash = detail::kNameHashSeed;
  bool valid = false;
  detail::NameKey view() const { return {key, hash}; }
};

// Each byte of a name lower-cased, and whether DNS can ask for it: letters, digits, '-', '_'
// and the '.' between labels.
struct NameByte {
  char lower;
  bool invalid;
};
constexpr std::array<NameByte, 256> kNameBytes = [] {
  std::array<NameByte, 256> bytes{};
  for (int c = 0; c < 256; ++c) {
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    bool ok = letter || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    bytes[c] = {static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c), !ok};
  }
  return bytes;
}();

// Lower-cases, hashes and checks `host` in one pass. Valid: labels of 1 to 63 bytes, 253 bytes
// in all, what DNS can ask for. Anything else would only produce a query no server answers (or
// a bounded-memory hole: the name is a key of the cache and the in-flight map).
Name normalize(std::string_view host) {
  if (host.size() > 1 && host.back() == '.') host.remove_suffix(1);
  Name name;
  name.key.resize(host.size());
  // Locals, not name's members: a store through a char* could alias them.
  char* out = name.key.data();
  uint64_t hash = detail::kNameHashSeed;
  bool bad = host.empty() || host.size() > 253;
  size_t label_start = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    NameByte byte = kNameBytes[static_cast<unsigned char>(host[i])];
    bad |= byte.invalid;
    out[i] = byte.lower;
    hash = detail::name_hash_step(hash, byte.lower);
    if (byte.lower == '.') {
      bad |= i == label_start || i - label_start > 63;
      label_start = i + 1;
    }
  }
  size_t end = host.size();
  bad |= end == label_start || end - label_start > 63;
  name.hash = hash;
  name.valid = !bad;
  return name;
}

bool ends_with_label(std::string_view name, std::string_view label) {
  if (name == label) return true;
  return name.size() > label.size() && name.ends_with(label) &&
         name[name.size() - label.size() - 1] == '.';
}

// The detail of a failed lookup, from the c-ares status.
std::string describe_status(int status) {
  switch (status) {
    case ARES_ENOTFOUND:
      return "no such host (NXDOMAIN)";
    case ARES_ENODATA:
      return "no address for this name (NODATA)";
    case ARES_ETIMEOUT:
      return "DNS server did not answer (timeout)";
    case ARES_EREFUSED:
      return "DNS server refused the query (REFUSED)";
    case ARES_ESERVFAIL:
      return "DNS server failed to answer (SERVFAIL)";
    case ARES_ECONNREFUSED:
      return "could not reach a DNS server (connection refused)";
    case ARES_EFORMERR:
    case ARES_EBADRESP:
      return "DNS server sent a malformed answer";
    case ARES_ENOTIMP:
      return "DNS server does not implement the query (NOTIMP)";
    case ARES_EBADNAME:
      return "not a valid host name";
    case ARES_ECANCELLED:
      return "lookup cancelled";
    case ARES_EDESTRUCTION:
      return "resolver destroyed";
    case ARES_EFILE:
      return "could not read the hosts file";
    default: {
      std::string text = "c-ares: ";
      text.append(ares_strerror(status));
      return text;
    }
  }
}

NetError lookup_error(const std::string& host, int status) {
  return NetError(ErrorKind::Resolve, NetPhase::Resolve, host, describe_status(status));
}

NetError lookup_error(const std::string& host, std::string_view detail) {
  return NetError(ErrorKind::Resolve, NetPhase::Resolve, host, detail);
}

Addresses with_port(const Addresses& addresses, uint16_t port) {
  Addresses out = addresses;
  for (Address& a : out) a.set_port(port);
  return out;
}

void init_library() {
  static std::once_flag once;
  std::call_once(once, [] {
    int status = ares_library_init(ARES_LIB_INIT_ALL);
    if (status != ARES_SUCCESS)
      throw Error(ErrorKind::System, std::string("c-ares library init: ") + ares_strerror(status));
  });
}

// Answers by name, least recently used first out. Negative entries hold the c-ares status
// (ENOTFOUND or ENODATA) instead of addresses.
class DnsCache {
 public:
  struct Entry {
    std::string name;
    Addresses addresses;
    TimePoint expires;
    int status = ARES_SUCCESS;
  };

  explicit DnsCache(size_t capacity) : capacity_(capacity) {}

  // The live entry for `name`, now the most recently used; expired entries are dropped.
  const Entry* find(const detail::NameKey& name) {
    auto it = index_.find(name);
    if (it == index_.end()) return nullptr;
    if (it->second->expires <= Clock::now()) {
      auto entry = it->second;
      index_.erase(it);
      lru_.erase(entry);
      return nullptr;
    }
    lru_.splice(lru_.begin(), lru_, it->second);
    return &*it->second;
  }

  // Keeps `addresses` (or the failure `status`) for `name` until `keep_for` from now.
  void put(const detail::NameKey& name, const Addresses& addresses, int status, Duration keep_for) {
    if (capacity_ == 0) return;
    if (auto it = index_.find(name); it != index_.end()) {
      auto entry = it->second;
      index_.erase(it);
      lru_.erase(entry);
    }
    while (lru_.size() >= capacity_) {
      index_.erase(index_.find(std::string_view(lru_.back().name)));
      lru_.pop_back();
    }
    lru_.push_front(Entry{std::string(name.name), addresses, Clock::now() + keep_for, status});
    index_.emplace(detail::NameKey{lru_.front().name, name.hash}, lru_.begin());
  }

  void clear() {
    index_.clear();
    lru_.clear();
  }
  size_t size() const { return lru_.size(); }

 private:
  size_t capacity_;
  std::list<Entry> lru_;  // most recently used first
  // Views lru_'s names.
  std::unordered_map<detail::NameKey, std::list<Entry>::iterator, detail::NameHash,
                     detail::NameEqual>
      index_;
};

// The frame pool as an allocator. The in-flight map's nodes come and go in bursts (a crawler's
// batch of lookups); the pool serves a burst from a free list, where malloc, past the seven
// blocks per size it caches, walks its bins.
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(detail::pool_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) noexcept { detail::pool_deallocate(p, n * sizeof(T)); }
  friend bool operator==(PoolAllocator, PoolAllocator) noexcept { return true; }
};

}  // namespace

// One name being looked up by c-ares, shared by every caller waiting for it. It is the value of
// the in-flight map, so the map's node is the query's only allocation; its waiters live in
// their callers' coroutine frames.
struct Query {
  explicit Query(DnsResolver::Impl* owner) : owner(owner) {}
  DnsResolver::Impl* owner;
  const detail::OwnedNameKey* name = nullptr;     // the map's key
  detail::IntrusiveList<detail::Waiter> waiters;  // every one a DnsResolver::Impl::Lookup
};

struct DnsResolver::Impl {
  explicit Impl(const DnsOptions& options);
  ~Impl() { shutdown(); }

  static Task<Addresses> resolve(std::shared_ptr<Impl> self, std::string host, uint16_t port);
  static void on_sock_state(void* data, ares_socket_t fd, int readable, int writable);
  static void on_answer(void* arg, int status, int timeouts, ares_addrinfo* result);

  void start(Query& query, const std::shared_ptr<Impl>& self);
  void on_io(int fd, IoEvents events);
  void on_timer();
  void after_process();
  void arm_timer();
  void arm_timer_soon(const std::shared_ptr<Impl>& self);
  void cancel_all();
  void shutdown();

  // One caller's wait for the answer to a name, in its coroutine frame: it joins the query in
  // flight for the name, or starts one, and on_answer hands it the addresses or the failure.
  // It counts as waiting from construction to destruction; the last waiter to go cancels what
  // is still in flight, so that an idle resolver holds no socket, handler or timer.
  class Lookup final : public detail::Waiter {
   public:
    Lookup(const std::shared_ptr<Impl>& impl, const Name& name) : impl_(impl), name_(name) {
      ++impl_->waiting_;
    }
    ~Lookup() {
      // A frame destroyed mid-wait (its loop went away) is still in its query's line: it must
      // leave before cancel_all() answers that query.
      ListHook<Waiter>::unlink();
      if (--impl_->waiting_ == 0 && !impl_->inflight_.empty() && !impl_->processing_)
        impl_->cancel_all();
    }
    Lookup(const Lookup&) = delete;
    Lookup& operator=(const Lookup&) = delete;

    bool await_ready() const noexcept { return false; }
    bool await_suspend(std::coroutine_handle<> h);
    // The addresses (port 0); NetError if the lookup failed.
    Addresses await_resume() {
      finish();
      if (status != ARES_SUCCESS) throw lookup_error(name_.key, status);
      return std::move(addresses);
    }

    int status = ARES_SUCCESS;
    Addresses addresses;

   private:
    const std::shared_ptr<Impl>& impl_;  // the resolve() frame's
    const Name& name_;
  };

  DnsOptions options_;
  Loop* loop_;
  ares_channel channel_ = nullptr;
  DnsCache cache_;
  detail::HostsFile hosts_;
  std::unordered_map<detail::OwnedNameKey, Query, detail::NameHash, detail::NameEqual,
                     PoolAllocator<std::pair<const detail::OwnedNameKey, Query>>>
      inflight_;
  std::vector<int> watched_;  // descriptors c-ares asked us to watch
  TimerHandle timer_;
  TimePoint timer_at_ = TimePoint::max();
  bool arm_queued_ = false;  // an arm_timer() is queued on the loop
  size_t waiting_ = 0;
  bool processing_ = false;  // inside a c-ares call that may run callbacks
  DnsStats stats_;
  std::unordered_map<std::string, std::string> host_overrides_;
  std::map<std::pair<std::string, uint16_t>, std::pair<std::string, uint16_t>> port_overrides_;
};

namespace {

detail::HostsFile::Options hosts_options(const DnsOptions& options) {
  detail::HostsFile::Options o;
  if (!options.hosts_file.empty()) {
    o.path = options.hosts_file;
  } else if (const char* env = getenv("CARES_HOSTS"); env && *env) {
    o.path = env;
  } else {
    o.path = "/etc/hosts";
  }
  o.family = options.family;
  o.max_addresses = options.max_addresses;
  o.memory_limit = options.hosts_memory_limit;
  o.recheck = options.hosts_recheck;
  return o;
}

}  // namespace

DnsResolver::Impl::Impl(const DnsOptions& options)
    : options_(options),
      loop_(&Loop::current()),
      cache_(options.cache_size),
      hosts_(hosts_options(options)) {
  if (options.tries < 1) throw InvalidArgumentError("DnsOptions.tries must be at least 1");
  if (options.timeout <= Duration::zero())
    throw InvalidArgumentError("DnsOptions.timeout must be positive");
  if (options.family != AF_UNSPEC && options.family != AF_INET && options.family != AF_INET6)
    throw InvalidArgumentError("DnsOptions.family must be AF_UNSPEC, AF_INET or AF_INET6");
  if (options.max_addresses == 0)
    throw InvalidArgumentError("DnsOptions.max_addresses must be at least 1");
  std::string servers;
  for (const std::string& text : options.servers) {
    std::optional<Address> server = Address::from_ip(text, 53);
    if (!server) server = Address::parse(text);  // "ip:port", "[ip6]:port"; throws if neither
    if (!servers.empty()) servers += ',';
    servers += server->to_string();
  }
  init_library();

  ares_options ao{};
  int mask = ARES_OPT_FLAGS | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_SOCK_STATE_CB |
             ARES_OPT_LOOKUPS | ARES_OPT_DOMAINS;
  ao.flags = ARES_FLAG_NOALIASES | (options.tcp ? ARES_FLAG_USEVC : 0);
  ao.timeout = static_cast<int>(std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout).count()));
  ao.tries = options.tries;
  ao.sock_state_cb = &Impl::on_sock_state;
  ao.sock_state_cb_data = this;
  // DNS only: the hosts file is hosts_'s (c-ares 1.18 would read it again for every lookup).
  char lookups[] = "b";  // c-ares copies it
  ao.lookups = lookups;
  ao.domains = nullptr;
  ao.ndomains = 0;  // no search list
  int status = ares_init_options(&channel_, &ao, mask);
  if (status != ARES_SUCCESS)
    throw Error(ErrorKind::System, std::string("c-ares init: ") + ares_strerror(status));
  if (!servers.empty()) {
    status = ares_set_servers_ports_csv(channel_, servers.c_str());
    if (status != ARES_SUCCESS) {
      ares_destroy(channel_);
      channel_ = nullptr;
      throw InvalidArgumentError("DnsOptions.servers: " + servers + ": " + ares_strerror(status));
    }
  }
}

void DnsResolver::Impl::shutdown() {
  if (!channel_) return;
  processing_ = true;
  // Fails what is in flight (ARES_EDESTRUCTION) and closes c-ares's sockets, which removes
  // their handlers through on_sock_state.
  ares_destroy(channel_);
  channel_ = nullptr;
  processing_ = false;
  inflight_.clear();
  for (int fd : watched_) loop_->remove_handler(fd);
  watched_.clear();
  timer_.cancel();
  timer_ = TimerHandle();
}

Task<Addresses> DnsResolver::Impl::resolve(std::shared_ptr<Impl> self, std::string host,
                                           uint16_t port) {
  Impl& impl = *self;
  ++impl.stats_.lookups;
  Name name = normalize(host);

  auto it = impl.port_overrides_.empty()
                ? impl.port_overrides_.end()
                : impl.port_overrides_.find(std::make_pair(name.key, port));
  if (it != impl.port_overrides_.end()) {
    ++impl.stats_.overridden;
    host = it->second.first;
    port = it->second.second;
    name = normalize(host);
  } else if (auto it2 = impl.host_overrides_.empty() ? impl.host_overrides_.end()
                                                     : impl.host_overrides_.find(name.key);
             it2 != impl.host_overrides_.end()) {
    ++impl.stats_.overridden;
    host = it2->second;
    name = normalize(host);
  }

  if (auto literal = Address::from_ip(host, port)) co_return Addresses{*literal};
  if (ends_with_label(name.key, "localhost"))
    co_return Addresses{Address::ipv6_loopback(port), Address::ipv4_loopback(port)};
  if (ends_with_label(name.key, "invalid")) throw lookup_error(host, ARES_ENOTFOUND);
  if (!name.valid) throw lookup_error(host, "not a valid host name");
  if (!impl.channel_) throw lookup_error(host, ARES_EDESTRUCTION);
  if (&Loop::current() != impl.loop_)
    throw InvalidStateError("DnsResolver: resolve() called on a loop other than its own");

  if (const Addresses* listed = impl.hosts_.find(name.view(), Loop::time())) {
    ++impl.stats_.hosts_file;
    co_return with_port(*listed, port);
  }
  if (const DnsCache::Entry* entry = impl.cache_.find(name.view())) {
    ++impl.stats_.cache_hits;
    if (entry->status != ARES_SUCCESS) throw lookup_error(host, entry->status);
    co_return with_port(entry->addresses, port);
  }

  Addresses addresses = co_await Lookup(self, name);
  for (Address& a : addresses) a.set_port(port);
  co_return addresses;
}

bool DnsResolver::Impl::Lookup::await_suspend(std::coroutine_handle<> h) {
  auto [it, fresh] =
      impl_->inflight_.try_emplace(detail::OwnedNameKey{name_.key, name_.hash}, impl_.get());
  Query& query = it->second;
  if (!suspend_in(query.waiters, h)) {  // a kill is pending: this caller does not wait
    if (fresh) impl_->inflight_.erase(it);
    return false;
  }
  if (fresh) {
    query.name = &it->first;
    impl_->start(query, impl_);
  } else {
    ++impl_->stats_.coalesced;
  }
  return true;
}

// Called with the query's first waiter in line, so that an answer c-ares gives before it
// returns (a failure to send, say) has someone to go to.
void DnsResolver::Impl::start(Query& query, const std::shared_ptr<Impl>& self) {
  ++stats_.queries;
  ares_addrinfo_hints hints{};
  hints.ai_family = options_.family;
  hints.ai_socktype = SOCK_STREAM;  // one node per address, not one per socket type
  processing_ = true;
  ares_getaddrinfo(channel_, query.name->name.c_str(), nullptr, &hints, &Impl::on_answer, &query);
  processing_ = false;
  arm_timer_soon(self);
}

void DnsResolver::Impl::on_answer(void* arg, int status, int, ares_addrinfo* result) {
  auto* query = static_cast<Query*>(arg);
  Impl& impl = *query->owner;
  detail::NameKey key{query->name->name, query->name->hash};
  Addresses addresses;
  if (status == ARES_SUCCESS) {
    int ttl = INT32_MAX;
    for (ares_addrinfo_node* node = result ? result->nodes : nullptr; node; node = node->ai_next) {
      auto address =
          Address::from_sockaddr(node->ai_addr, static_cast<socklen_t>(node->ai_addrlen));
      if (!address) continue;
      address->set_port(0);
      if (std::find(addresses.begin(), addresses.end(), *address) != addresses.end()) continue;
      if (addresses.size() == impl.options_.max_addresses) break;
      addresses.push_back(*address);
      ttl = std::min(ttl, node->ai_ttl);
    }
    Duration keep_for =
        std::min<Duration>(std::chrono::seconds(std::max(ttl, 0)), impl.options_.max_ttl);
    if (addresses.empty()) {
      status = ARES_ENODATA;
    } else if (keep_for > Duration::zero()) {
      impl.cache_.put(key, addresses, ARES_SUCCESS, keep_for);
    }
  }
  if (result) ares_freeaddrinfo(result);
  if ((status == ARES_ENOTFOUND || status == ARES_ENODATA) &&
      impl.options_.negative_ttl > Duration::zero())
    impl.cache_.put(key, {}, status, impl.options_.negative_ttl);

  // Every waiter gets its own copy but the last, which takes the answer: one waiter, no copy.
  while (auto* waiter = static_cast<Lookup*>(query->waiters.pop_front())) {
    waiter->status = status;
    if (query->waiters.empty()) {
      waiter->addresses = std::move(addresses);
    } else {
      waiter->addresses = addresses;
    }
    waiter->wake();
  }
  impl.inflight_.erase(impl.inflight_.find(key));
}

void DnsResolver::Impl::on_sock_state(void* data, ares_socket_t fd, int readable, int writable) {
  Impl& impl = *static_cast<Impl*>(data);
  auto watched = std::find(impl.watched_.begin(), impl.watched_.end(), fd);
  if (!readable && !writable) {
    if (watched != impl.watched_.end()) {
      impl.loop_->remove_handler(fd);
      impl.watched_.erase(watched);
    }
    return;
  }
  IoEvents events = readable ? IoEvents::Read : IoEvents::None;
  if (writable) events = events | IoEvents::Write;
  // This runs inside c-ares: nothing may throw through it. A descriptor the loop refuses
  // leaves its query to time out, with the reason logged.
  try {
    if (watched != impl.watched_.end()) {
      impl.loop_->update_handler(fd, events);
    } else {
      impl.loop_->add_handler(fd, events, [&impl, fd](IoEvents ready) { impl.on_io(fd, ready); });
      impl.watched_.push_back(fd);
    }
  } catch (const std::exception& e) {
    log(LogLevel::Error, std::string("DnsResolver: cannot watch a c-ares socket: ") + e.what());
  }
}

void DnsResolver::Impl::on_io(int fd, IoEvents events) {
  // An error or hangup is handed to c-ares as readable: its read reports the error (an ICMP
  // port unreachable becomes ECONNREFUSED) and it moves on to the next server.
  bool read = any(events & (IoEvents::Read | IoEvents::Error | IoEvents::Hangup));
  bool write = any(events & IoEvents::Write);
  processing_ = true;
  ares_process_fd(channel_, read ? fd : ARES_SOCKET_BAD, write ? fd : ARES_SOCKET_BAD);
  processing_ = false;
  after_process();
}

void DnsResolver::Impl::on_timer() {
  timer_at_ = TimePoint::max();
  processing_ = true;
  ares_process_fd(channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD);  // retransmissions, timeouts
  processing_ = false;
  after_process();
}

void DnsResolver::Impl::after_process() {
  if (waiting_ == 0 && !inflight_.empty()) {
    cancel_all();
  } else {
    arm_timer();
  }
}

void DnsResolver::Impl::arm_timer() {
  timeval tv{};
  if (inflight_.empty() || !ares_timeout(channel_, nullptr, &tv)) {
    timer_.cancel();
    timer_ = TimerHandle();
    timer_at_ = TimePoint::max();
    return;
  }
  TimePoint at =
      Clock::now() + std::chrono::seconds(tv.tv_sec) + std::chrono::microseconds(tv.tv_usec);
  // Re-arm only for an earlier deadline: a timer that fires early finds nothing due, costs one
  // empty process call and re-arms, which is cheaper than a new timer per packet.
  if (timer_.active() && timer_at_ <= at) return;
  timer_.cancel();
  timer_at_ = at;
  timer_ = loop_->call_at(at, [this] { on_timer(); });
}

// ares_timeout walks every query in flight, so asking it after each start would make a burst
// of n lookups cost n² steps. The timer is armed once per loop iteration instead, after every
// lookup that iteration started; no first deadline is so close that an iteration matters.
void DnsResolver::Impl::arm_timer_soon(const std::shared_ptr<Impl>& self) {
  if (arm_queued_) return;
  arm_queued_ = true;
  loop_->call_soon([self] {
    self->arm_queued_ = false;
    self->arm_timer();
  });
}

void DnsResolver::Impl::cancel_all() {
  if (!channel_) return;
  processing_ = true;
  // Completes every query with ARES_ECANCELLED (nobody is waiting for them) and, with no query
  // left, c-ares closes its sockets.
  ares_cancel(channel_);
  processing_ = false;
  arm_timer();
}

// --- DnsResolver --------------------------------------------------------------------------

DnsResolver::DnsResolver(DnsOptions options) : impl_(std::make_shared<Impl>(options)) {}

DnsResolver::~DnsResolver() {
  impl_->shutdown();
}

Task<Addresses> DnsResolver::resolve(std::string host, uint16_t port) {
  return Impl::resolve(impl_, std::move(host), port);
}

void DnsResolver::add_override(std::string host, std::string target) {
  impl_->host_overrides_[normalize(host).key] = std::move(target);
}

void DnsResolver::add_override(std::string host, uint16_t port, std::string target,
                               uint16_t target_port) {
  impl_->port_overrides_[{normalize(host).key, port}] = {std::move(target), target_port};
}

void DnsResolver::remove_override(std::string_view host) {
  impl_->host_overrides_.erase(normalize(host).key);
}

void DnsResolver::remove_override(std::string_view host, uint16_t port) {
  impl_->port_overrides_.erase({normalize(host).key, port});
}

void DnsResolver::clear_overrides() {
  impl_->host_overrides_.clear();
  impl_->port_overrides_.clear();
}

void DnsResolver::clear_cache() {
  impl_->cache_.clear();
}

size_t DnsResolver::cache_entries() const {
  return impl_->cache_.size();
}

DnsStats DnsResolver::stats() const {
  return impl_->stats_;
}

DnsResolver& default_dns_resolver() {
  // Keyed by the loop's address: a loop made where a destroyed one stood inherits the resolver
  // (its cache and overrides too). Its loop registrations cannot dangle: an idle resolver holds
  // none, and a loop's destruction ends every wait, which cancels what was in flight.
  thread_local Loop* loop = nullptr;
  thread_local std::unique_ptr<DnsResolver> resolver;
  Loop& current = Loop::current();
  if (!resolver || loop != &current) {
    resolver.reset();
    resolver = std::make_unique<DnsResolver>();
    loop = &current;
  }
  return *resolver;
}

}  // namespace squall
