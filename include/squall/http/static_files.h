// StaticFiles: serves a directory over HTTP (Tornado's StaticFileHandler, nginx's `root`).
//
//   HttpServer server(StaticFiles("site").handler());                      // the whole site
//   Application app({{"/static/{path*}", StaticFiles("assets", {.prefix = "/static/"})}});
//
// What it answers, for GET and HEAD (other methods: 405 with Allow: GET, HEAD):
//   - a regular file with sendfile, Content-Type from its extension (mime.h), Content-Length,
//     Last-Modified, a validator ETag (size and modification time, nanoseconds included),
//     Accept-Ranges: bytes, and Cache-Control: max-age when configured;
//   - 304 when If-None-Match matches the ETag (weak comparison, '*' included), or, without
//     If-None-Match, when the file was not modified since If-Modified-Since;
//   - Range (RFC 9110 §14): one range → 206 with Content-Range; several → 206
//     multipart/byteranges; none satisfiable → 416 with "Content-Range: bytes */<size>". A
//     malformed Range, more ranges than max_ranges, or an If-Range that does not match the
//     current ETag or date is ignored (the whole file, 200), as the RFC allows;
//   - a directory: redirected (301) to the same path with a trailing '/', then its index file
//     (index.html); without an index, a listing with list_directories (directory_listing.h),
//     else 404;
//   - 404 for what does not exist (or lies outside the prefix), and for hidden paths (a
//     segment starting with '.': .git/, .env) unless dotfiles is set; 403 for anything else it
//     will not serve (not a regular file, no permission);
//   - with compress, text types (content_negotiation.h) in a content coding the client accepts
//     (zstd or gzip, by its Accept-Encoding weights, zstd first when it weighs them alike): a
//     precompressed sibling (name.zst, name.gz) when one exists and is not older than the file,
//     as nginx's gzip_static, else compressed on the fly for files up to max_compress_size,
//     sent only if smaller. Such responses carry Vary: Accept-Encoding (identity ones too),
//     Content-Encoding, and an ETag of their own (the encoded bytes' size and time, then
//     "-gzip" or "-zstd"), so caches and If-None-Match never mix encodings. A Range request
//     is answered from the file itself, uncompressed, so byte offsets always mean the same
//     bytes.
//
// No way out of the root. The path is checked before it is decoded and after: an encoded
// slash or backslash (%2F, %5C), a '..' segment in any spelling (%2e%2e), a backslash and a NUL
// are refused with 400 (NUL) or 403 (the rest). The file is then opened relative to the root's
// descriptor with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) where the kernel has it
// (Linux 5.6+), so no symbolic link may lead outside the root (403), even one swapped in
// between check and use; on older kernels the opened file's real path is checked against the
// root's instead. Symbolic links inside the root are followed.
//
// Costs: open and fstat are blocking calls made on the loop's thread. For local files they take
// microseconds, which is what nginx accepts too; a root on a slow network file system would
// stall the loop while they run.
//
// Threads: a StaticFiles may be copied to several loops; copies share one root descriptor.
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "squall/core/task.h"
#include "squall/http/request.h"
#include "squall/http/response.h"
#include "squall/http/server.h"

namespace squall::http {

struct StaticOptions {
  // The URL path that maps to the root; a request path outside it is a 404. Ends with '/'.
  std::string prefix = "/";
  // The file a directory request serves; empty for none (then directories are 404).
  std::string index = "index.html";
  // Sends "Cache-Control: max-age=N" (public caches may keep the file N seconds).
  std::optional<std::chrono::seconds> max_age;
  // Ranges honoured in one request; more and the whole file is sent (a guard against
  // clients asking for thousands of tiny overlapping ranges).
  size_t max_ranges = 16;
  // Confine opens with openat2 where the kernel has it; false always uses the real-path check
  // (for kernels or sandboxes that refuse openat2, and to test that check).
  bool kernel_confinement = true;
  // Serve hidden paths (hidden_path()); false answers them 404, as if they did not exist.
  bool dotfiles = false;
  // A directory without its index file answers with a listing of its entries.
  bool list_directories = false;
  // Compress text types for clients that accept it (see above).
  bool compress = false;
  // The largest file compressed on the fly (bytes; it is read and compressed in memory on the
  // loop's thread); larger ones go out as they are unless precompressed. 0: precompressed only.
  uint64_t max_compress_size = uint64_t{1} << 20;
};

// --- the pieces, exposed for tests ------------------------------------------------------

// One byte range, both ends included.
struct ByteRange {
  uint64_t first = 0;
  uint64_t last = 0;
  bool operator==(const ByteRange&) const = default;
};

struct RangeRequest {
  enum Kind { Ignore, Satisfiable, Unsatisfiable } kind = Ignore;
  std::vector<ByteRange> ranges;  // for Satisfiable, clamped to the file
};

// A Range header's meaning for a file of `size` bytes: Ignore for a malformed header, another
// unit than bytes or more than `max_ranges` ranges; Unsatisfiable when no range overlaps the
// file; else the ranges in the order given, clamped to the file.
RangeRequest parse_range(std::string_view header, uint64_t size, size_t max_ranges = 16);

// The ETag for a file: a quoted string of its size and modification time.
std::string make_etag(uint64_t size, const struct timespec& mtime);

// Whether an If-None-Match value matches `etag` ('*', or a list holding it; W/ prefixes
// ignored, as weak comparison asks).
bool etag_matches(std::string_view if_none_match, std::string_view etag);

// The result of checking a request path (below the prefix, still percent-encoded): the status
// to refuse it with, or 0 and the decoded relative path ("" for the root, no leading '/', no
// empty or '.' segments).
struct CheckedPath {
  int status = 0;
  std::string path;
};
CheckedPath check_static_path(std::string_view encoded);

// Whether a decoded relative path ("a/.git/config") has a segment that starts with '.', other
// than ".well-known" (RFC 8615's site metadata, which ACME and security.txt need served).
bool hidden_path(std::string_view path) noexcept;

// Whether this kernel offers openat2 with RESOLVE_BENEATH (probed once).
bool openat2_available() noexcept;

class StaticFiles {
 public:
  // Opens the root directory. Throws SystemError if it cannot be opened as a directory, and
  // InvalidArgumentError for a prefix that does not start and end with '/'.
  explicit StaticFiles(const std::filesystem::path& root, StaticOptions options = {});

  // Serves the request as described above (the route form: the Application calls it).
  [[nodiscard]] Task<void> operator()(Request& request, Response& response) const;
  // The server form: every request of an HttpServer served from the directory.
  Handler handler() const;

  const std::filesystem::path& root() const noexcept;

  struct State;

 private:
  std::shared_ptr<const State> state_;
};

}  // namespace squall::http
