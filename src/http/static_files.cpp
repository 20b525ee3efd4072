// Static files: path checks, confined opening, validators, ranges, and sendfile.
#include "squall/http/static_files.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>

#include "squall/core/error.h"
#include "squall/http/content_negotiation.h"
#include "squall/http/directory_listing.h"
#include "squall/http/encode.h"
#include "squall/http/form.h"
#include "squall/http/http_date.h"
#include "squall/http/message.h"
#include "squall/http/mime.h"

namespace squall::http {

namespace {

// Closes its descriptor when it goes.
class Fd {
 public:
  explicit Fd(int fd = -1) noexcept : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

bool ci_contains(std::string_view haystack, std::string_view needle) noexcept {
  if (needle.size() > haystack.size()) return false;
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (iequals(haystack.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

std::optional<uint64_t> parse_u64(std::string_view s) noexcept {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

std::string_view strip_weak(std::string_view tag) noexcept {
  if (tag.size() >= 2 && tag[0] == 'W' && tag[1] == '/') tag.remove_prefix(2);
  return tag;
}

}  // namespace

RangeRequest parse_range(std::string_view header, uint64_t size, size_t max_ranges) {
  RangeRequest out;
  header = trim_ows(header);
  if (header.size() < 6 || !iequals(header.substr(0, 6), "bytes=")) return out;
  header.remove_prefix(6);
  std::vector<ByteRange> ranges;
  size_t specs = 0;
  while (true) {
    size_t comma = header.find(',');
    std::string_view spec = trim_ows(header.substr(0, comma));
    if (!spec.empty()) {
      if (++specs > max_ranges) return out;
      size_t dash = spec.find('-');
      if (dash == std::string_view::npos) return out;
      std::string_view a = trim_ows(spec.substr(0, dash));
      std::string_view b = trim_ows(spec.substr(dash + 1));
      if (a.empty()) {
        // A suffix: the last n bytes.
        auto n = parse_u64(b);
        if (!n) return out;
        if (*n > 0 && size > 0) ranges.push_back({size - std::min(*n, size), size - 1});
      } else {
        auto first = parse_u64(a);
        if (!first) return out;
        std::optional<uint64_t> last;
        if (!b.empty()) {
          last = parse_u64(b);
          if (!last || *last < *first) return out;
        }
        if (*first < size) ranges.push_back({*first, std::min(last.value_or(size - 1), size - 1)});
      }
    }
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  if (specs == 0) return out;
  if (ranges.empty()) {
    out.kind = RangeRequest::Unsatisfiable;
    return out;
  }
  out.kind = RangeRequest::Satisfiable;
  out.ranges = std::move(ranges);
  return out;
}

std::string make_etag(uint64_t size, const struct timespec& mtime) {
  char buf[64];
  int n = std::snprintf(
      buf, sizeof buf, "\"%llx-%llx%08lx\"", static_cast<unsigned long long>(size),
      static_cast<unsigned long long>(mtime.tv_sec), static_cast<unsigned long>(mtime.tv_nsec));
  return std::string(buf, static_cast<size_t>(n));
}

bool etag_matches(std::string_view if_none_match, std::string_view etag) {
  std::string_view want = strip_weak(etag);
  while (true) {
    size_t comma = if_none_match.find(',');
    std::string_view tag = trim_ows(if_none_match.substr(0, comma));
    if (tag == "*" || (!tag.empty() && strip_weak(tag) == want)) return true;
    if (comma == std::string_view::npos) return false;
    if_none_match.remove_prefix(comma + 1);
  }
}

CheckedPath check_static_path(std::string_view encoded) {
  // Encoded separators and NUL are refused before decoding, so that no decoded byte can act as
  // a separator the checks below did not see.
  if (ci_contains(encoded, "%2f") || ci_contains(encoded, "%5c")) return {403, {}};
  if (ci_contains(encoded, "%00")) return {400, {}};
  std::string decoded = percent_decode(encoded);
  if (decoded.find('\0') != std::string::npos) return {400, {}};
  if (decoded.find('\\') != std::string::npos) return {403, {}};
  CheckedPath out;
  std::string_view rest = decoded;
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view seg = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") return {403, {}};
    if (!out.path.empty()) out.path.push_back('/');
    out.path.append(seg);
  }
  return out;
}

bool hidden_path(std::string_view path) noexcept {
  while (!path.empty()) {
    size_t slash = path.find('/');
    std::string_view seg = path.substr(0, slash);
    if (!seg.empty() && seg.front() == '.' && seg != ".well-known") return true;
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return false;
}

bool openat2_available() noexcept {
  // 1: available, -1: not, 0: not probed yet. Probing opens "." beneath "/", which always works
  // where the call exists.
  static std::atomic<int> state{0};
  int s = state.load(std::memory_order_relaxed);
  if (s == 0) {
    struct open_how how {};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH;
    long fd = ::syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof how);
    if (fd >= 0) ::close(static_cast<int>(fd));
    s = (fd >= 0 || errno != ENOSYS) ? 1 : -1;
    state.store(s, std::memory_order_relaxed);
  }
  return s == 1;
}

struct StaticFiles::State {
  std::filesystem::path root;
  std::string root_real;  // the root's real path, for the check without openat2
  Fd root_fd;
  StaticOptions options;

  ~State() = default;

  // Opens `rel` ("" for the root itself) for reading, confined to the root. Returns the
  // descriptor, or -1 with errno set (EXDEV for a path leading outside the root).
  int open(const std::string& rel) const {
    const char* path = rel.empty() ? "." : rel.c_str();
    // O_NONBLOCK: opening a FIFO someone left in the root must not block the loop.
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    if (options.kernel_confinement && openat2_available()) {
      struct open_how how {};
      how.flags = static_cast<uint64_t>(flags);
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
      long fd;
      do {
        fd = ::syscall(SYS_openat2, root_fd.get(), path, &how, sizeof how);
      } while (fd < 0 && errno == EAGAIN);  // RESOLVE_BENEATH retries after a racing rename
      return static_cast<int>(fd);
    }
    int fd = ::openat(root_fd.get(), path, flags);
    if (fd < 0) return -1;
    // Where the file really is, from the kernel's view of the open descriptor.
    char link[64];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    char real[PATH_MAX];
    ssize_t n = ::readlink(link, real, sizeof real - 1);
    std::string_view where(real, n > 0 ? static_cast<size_t>(n) : 0);
    bool inside =
        n > 0 && (where == root_real || (where.size() > root_real.size() &&
                                         where.substr(0, root_real.size()) == root_real &&
                                         (root_real == "/" || where[root_real.size()] == '/')));
    if (!inside) {
      ::close(fd);
      errno = EXDEV;
      return -1;
    }
    return fd;
  }
};

namespace {

int status_for_errno(int e) noexcept {
  switch (e) {
    case ENOENT:
    case ENOTDIR:
    case ENAMETOOLONG:
      return 404;
    default:
      return 403;  // EXDEV (outside the root), EACCES, ELOOP, ...
  }
}

// `coding` names the content coding of the file's bytes ("" for none): it is sent as
// Content-Encoding and marks the ETag, so each encoding of a file has its own.
Task<void> serve_file(const StaticFiles::State& st, Request& req, Response& resp, Fd fd,
                      const struct stat& info, std::string_view name,
                      std::string_view coding = {}) {
  const auto size = static_cast<uint64_t>(info.st_size);
  std::string etag = make_etag(size, info.st_mtim);
  if (!coding.empty()) {
    etag.insert(etag.size() - 1, "-");
    etag.insert(etag.size() - 1, coding);
    resp.headers().set("Content-Encoding", coding);
  }
  auto mtime = HttpClock::time_point(std::chrono::seconds(info.st_mtim.tv_sec));
  std::string last_modified = format_http_date(mtime);
  Headers& h = resp.headers();
  h.set("ETag", etag);
  h.set("Last-Modified", last_modified);
  if (st.options.max_age) {
    std::string cache = "max-age=";
    cache.append(std::to_string(st.options.max_age->count()));
    h.set("Cache-Control", cache);
  }

  // Conditional requests (RFC 9110 §13.2.2): If-None-Match wins over If-Modified-Since.
  bool not_modified = false;
  if (auto inm = req.header("If-None-Match")) {
    not_modified = etag_matches(*inm, etag);
  } else if (auto ims = req.header("If-Modified-Since")) {
    auto since = parse_http_date(*ims);
    not_modified = since && mtime <= *since;
  }
  if (not_modified) {
    resp.set_status(304);
    co_await resp.finish();
    co_return;
  }

  std::string_view type = mime_type(name);
  h.set("Accept-Ranges", "bytes");
  RangeRequest range;
  if (auto header = req.header("Range")) {
    range = parse_range(*header, size, st.options.max_ranges);
    // If-Range: the ranges only if the representation is still the one the client has.
    if (auto if_range = req.header("If-Range"); if_range && range.kind != RangeRequest::Ignore) {
      std::string_view v = trim_ows(*if_range);
      bool same = false;
      if (!v.empty() && v.front() == '"') {
        same = v == etag;  // strong comparison
      } else if (auto date = parse_http_date(v)) {
        same = *date == mtime;
      }
      if (!same) range.kind = RangeRequest::Ignore;
    }
  }

  if (range.kind == RangeRequest::Unsatisfiable) {
    std::string unsatisfied = "bytes */";
    unsatisfied.append(std::to_string(size));
    h.set("Content-Range", unsatisfied);
    co_await resp.send_error(416);
    co_return;
  }
  if (range.kind == RangeRequest::Satisfiable && range.ranges.size() == 1) {
    const ByteRange r = range.ranges[0];
    const uint64_t length = r.last - r.first + 1;
    resp.set_status(206);
    h.set("Content-Type", type);
    std::string content_range = "bytes ";
    content_range.append(std::to_string(r.first)).append("-").append(std::to_string(r.last));
    content_range.append("/").append(std::to_string(size));
    h.set("Content-Range", content_range);
    h.set("Content-Length", std::to_string(length));
    // For HEAD the server counts these bytes and drops them.
    co_await resp.send_file(fd.get(), static_cast<off_t>(r.first), length);
    co_await resp.finish();
    co_return;
  }
  if (range.kind == RangeRequest::Satisfiable) {
    // multipart/byteranges: each part a small head, then the bytes by sendfile.
    std::string boundary = "squall-";
    boundary.append(etag.substr(1, etag.size() - 2));
    std::vector<std::string> heads;
    uint64_t total = 0;
    for (const ByteRange& r : range.ranges) {
      std::string head = "\r\n--";
      head.append(boundary).append("\r\nContent-Type: ").append(type);
      head.append("\r\nContent-Range: bytes ").append(std::to_string(r.first)).append("-");
      head.append(std::to_string(r.last)).append("/").append(std::to_string(size));
      head.append("\r\n\r\n");
      total += head.size() + (r.last - r.first + 1);
      heads.push_back(std::move(head));
    }
    std::string tail = "\r\n--";
    tail.append(boundary).append("--\r\n");
    total += tail.size();
    resp.set_status(206);
    std::string content_type = "multipart/byteranges; boundary=";
    content_type.append(boundary);
    h.set("Content-Type", content_type);
    h.set("Content-Length", std::to_string(total));
    for (size_t i = 0; i < heads.size(); ++i) {
      const ByteRange& r = range.ranges[i];
      co_await resp.write(heads[i]);
      co_await resp.send_file(fd.get(), static_cast<off_t>(r.first), r.last - r.first + 1);
    }
    co_await resp.write(tail);
    co_await resp.finish();
    co_return;
  }

  h.set("Content-Type", type);
  h.set("Content-Length", std::to_string(size));
  if (size > 0) co_await resp.send_file(fd.get(), 0, size);
  co_await resp.finish();
}

// The file in an encoding the client accepts: `fd` at -1 for none (send the file as it is).
struct Encoded {
  Fd fd;
  struct stat info {};
  std::string_view coding;
};

Encoded encode_file(const StaticFiles::State& st, std::string_view accept_encoding, int fd,
                    const struct stat& info, const std::string& name) {
  Encoded out;
  std::vector<ContentCoding> codings =
      acceptable_codings(accept_encoding, {ContentCoding::Zstd, ContentCoding::Gzip});
  for (ContentCoding coding : codings) {
    std::string sibling = name;
    sibling.append(coding == ContentCoding::Zstd ? ".zst" : ".gz");
    Fd candidate(st.open(sibling));
    struct stat sibling_info {};
    if (candidate.get() < 0 || ::fstat(candidate.get(), &sibling_info) != 0 ||
        !S_ISREG(sibling_info.st_mode))
      continue;
    // A sibling older than the file was made from an earlier version of it.
    if (sibling_info.st_mtim.tv_sec < info.st_mtim.tv_sec ||
        (sibling_info.st_mtim.tv_sec == info.st_mtim.tv_sec &&
         sibling_info.st_mtim.tv_nsec < info.st_mtim.tv_nsec))
      continue;
    out.fd = std::move(candidate);
    out.info = sibling_info;
    out.coding = content_coding_name(coding);
    return out;
  }
  const auto size = static_cast<uint64_t>(info.st_size);
  if (codings.empty() || size == 0 || size > st.options.max_compress_size) return out;
  std::string plain(static_cast<size_t>(size), '\0');
  size_t got = 0;
  while (got < plain.size()) {
    ssize_t n = ::pread(fd, plain.data() + got, plain.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;  // unreadable, or shrunk meanwhile: sent as it is, as before
    got += static_cast<size_t>(n);
  }
  std::string encoded = encode_content(codings.front(), plain);
  if (encoded.size() >= plain.size()) return out;
  // A memory file, so the encoded bytes go out exactly as a file's would.
  Fd memory(::memfd_create("squall-encoded", MFD_CLOEXEC));
  if (memory.get() < 0) return out;
  std::string_view rest = encoded;
  while (!rest.empty()) {
    ssize_t n = ::write(memory.get(), rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    rest.remove_prefix(static_cast<size_t>(n));
  }
  out.fd = std::move(memory);
  out.info = info;
  out.info.st_size = static_cast<off_t>(encoded.size());
  out.coding = content_coding_name(codings.front());
  return out;
}

Task<void> serve_listing(const StaticFiles::State& st, Response& resp, int dir_fd,
                         std::string_view path) {
  std::string page;
  try {
    page =
        directory_listing_html(percent_decode(path), read_directory(dir_fd, st.options.dotfiles));
  } catch (const SystemError&) {
    page.clear();
  }
  if (page.empty()) {
    co_await resp.send_error(403);
    co_return;
  }
  resp.headers().set("Content-Type", "text/html; charset=utf-8");
  co_await resp.write(page);
  co_await resp.finish();
}

Task<void> serve(std::shared_ptr<const StaticFiles::State> st, Request& req, Response& resp) {
  if (req.method() != "GET" && req.method() != "HEAD") {
    resp.headers().set("Allow", "GET, HEAD");
    co_await resp.send_error(405);
    co_return;
  }
  std::string_view path = req.path();
  const std::string& prefix = st->options.prefix;
  if (path.substr(0, prefix.size()) != prefix) {
    // "/static" for the prefix "/static/": the directory itself, without its slash.
    if (path.size() + 1 == prefix.size() && prefix.substr(0, path.size()) == path) {
      co_await resp.redirect(prefix, 301);
      co_return;
    }
    co_await resp.send_error(404);
    co_return;
  }
  CheckedPath checked = check_static_path(path.substr(prefix.size()));
  if (checked.status != 0) {
    co_await resp.send_error(checked.status);
    co_return;
  }
  if (!st->options.dotfiles && hidden_path(checked.path)) {
    co_await resp.send_error(404);
    co_return;
  }
  Fd fd(st->open(checked.path));
  if (fd.get() < 0) {
    co_await resp.send_error(status_for_errno(errno));
    co_return;
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    co_await resp.send_error(403);
    co_return;
  }
  std::string name = checked.path;
  if (S_ISDIR(info.st_mode)) {
    if (path.back() != '/') {
      // Collapse leading slashes, so that "//host" can never become a protocol-relative URL.
      size_t slashes = 0;
      while (slashes < path.size() && path[slashes] == '/') ++slashes;
      std::string location = "/";
      location.append(path.substr(slashes)).append("/");
      if (!req.query().empty()) location.append("?").append(req.query());
      co_await resp.redirect(location, 301);
      co_return;
    }
    if (st->options.index.empty()) {
      if (st->options.list_directories) {
        co_await serve_listing(*st, resp, fd.get(), path);
        co_return;
      }
      co_await resp.send_error(404);
      co_return;
    }
    name = checked.path.empty() ? st->options.index : checked.path + "/" + st->options.index;
    Fd index(st->open(name));
    if (index.get() < 0) {
      int error = errno;
      if (error == ENOENT && st->options.list_directories) {
        co_await serve_listing(*st, resp, fd.get(), path);
        co_return;
      }
      co_await resp.send_error(status_for_errno(error));
      co_return;
    }
    fd = std::move(index);
    if (::fstat(fd.get(), &info) != 0) {
      co_await resp.send_error(403);
      co_return;
    }
  }
  if (!S_ISREG(info.st_mode)) {
    co_await resp.send_error(403);
    co_return;
  }
  if (st->options.compress && compressible_type(mime_type(name))) {
    resp.headers().set("Vary", "Accept-Encoding");
    if (!req.header("Range")) {
      Encoded encoded =
          encode_file(*st, req.header("Accept-Encoding").value_or(""), fd.get(), info, name);
      if (encoded.fd.get() >= 0) {
        co_await serve_file(*st, req, resp, std::move(encoded.fd), encoded.info, name,
                            encoded.coding);
        co_return;
      }
    }
  }
  co_await serve_file(*st, req, resp, std::move(fd), info, name);
}

}  // namespace

StaticFiles::StaticFiles(const std::filesystem::path& root, StaticOptions options) {
  if (options.prefix.empty() || options.prefix.front() != '/' || options.prefix.back() != '/') {
    throw InvalidArgumentError("static files: the prefix must start and end with '/'");
  }
  auto st = std::make_shared<State>();
  st->root = root;
  st->options = std::move(options);
  int fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    std::string call = "open static root ";
    call.append(root.string());
    throw SystemError(call, errno);
  }
  st->root_fd = Fd(fd);
  std::error_code ec;
  st->root_real = std::filesystem::canonical(root, ec).string();
  state_ = std::move(st);
}

Task<void> StaticFiles::operator()(Request& request, Response& response) const {
  return serve(state_, request, response);
}

Handler StaticFiles::handler() const {
  return [st = state_](ServerRequest& raw, ServerResponse& raw_resp) -> Task<void> {
    return [](std::shared_ptr<const State> st, ServerRequest& raw,
              ServerResponse& raw_resp) -> Task<void> {
      Request req(raw);
      Response resp(raw_resp);
      co_await serve(std::move(st), req, resp);
    }(st, raw, raw_resp);
  };
}

const std::filesystem::path& StaticFiles::root() const noexcept {
  return state_->root;
}

}  // namespace squall::http
