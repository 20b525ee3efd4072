// Directory listings for StaticFiles (nginx's autoindex, the pages of python -m http.server).
//
// A listing is an HTML page titled "Index of <path>" with a table of the directory's entries:
// a "../" link first (except at the root), then the subdirectories, then the files, each group
// sorted by name (byte order, as nginx sorts), with the last modification time (UTC) and the
// size of files. Names are HTML-escaped in the text and percent-encoded in the links, so a file
// named `<script>` or `a"b` is shown as its name and links to itself. Only what the server
// would serve is listed: directories and regular files (symbolic links followed; broken ones,
// FIFOs and sockets left out), and no hidden names unless dotfiles are served.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace squall::http {

struct DirectoryEntry {
  std::string name;
  bool directory = false;
  uint64_t size = 0;  // bytes, for files
  std::time_t modified = 0;
  bool operator==(const DirectoryEntry&) const = default;
};

// The entries of the directory open as `dir_fd` (not closed), in listing order; names that
// hidden_path() (static_files.h) hides are left out unless `dotfiles`. Throws SystemError when
// the directory cannot be read. A blocking call, like StaticFiles's open and fstat.
std::vector<DirectoryEntry> read_directory(int dir_fd, bool dotfiles);

// The listing page of `entries` for the directory at the URL path `url_path` (decoded, starting
// and ending with '/').
std::string directory_listing_html(std::string_view url_path,
                                   const std::vector<DirectoryEntry>& entries);

}  // namespace squall::http
