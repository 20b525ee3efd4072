// Directory listings: reading and sorting the entries, and the HTML page.
#include "squall/http/directory_listing.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "squall/core/error.h"
#include "squall/http/form.h"
#include "squall/http/response.h"
#include "squall/http/static_files.h"

namespace squall::http {

std::vector<DirectoryEntry> read_directory(int dir_fd, bool dotfiles) {
  // fdopendir takes the descriptor over: give it a copy opened afresh, positioned at the start.
  int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw SystemError("open directory", errno);
  DIR* dir = ::fdopendir(fd);
  if (!dir) {
    int error = errno;
    ::close(fd);
    throw SystemError("fdopendir", error);
  }
  std::vector<DirectoryEntry> entries;
  int error = 0;
  for (;;) {
    errno = 0;  // readdir's only way to tell an error from the end
    const dirent* d = ::readdir(dir);
    if (!d) {
      error = errno;
      break;
    }
    std::string_view name = d->d_name;
    if (name == "." || name == "..") continue;
    if (!dotfiles && hidden_path(name)) continue;
    struct stat info {};
    if (::fstatat(fd, d->d_name, &info, 0) != 0) continue;  // a broken link, or gone since
    if (!S_ISDIR(info.st_mode) && !S_ISREG(info.st_mode)) continue;
    entries.push_back({std::string(name), S_ISDIR(info.st_mode),
                       static_cast<uint64_t>(info.st_size), info.st_mtim.tv_sec});
  }
  ::closedir(dir);
  if (error != 0) throw SystemError("readdir", error);
  std::sort(entries.begin(), entries.end(), [](const DirectoryEntry& a, const DirectoryEntry& b) {
    if (a.directory != b.directory) return a.directory;
    return a.name < b.name;
  });
  return entries;
}

std::string directory_listing_html(std::string_view url_path,
                                   const std::vector<DirectoryEntry>& entries) {
  std::string title = "Index of ";
  title.append(html_escape(url_path));
  std::string page = "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>";
  page.append(title).append("</title>\n</head>\n<body>\n<h1>").append(title);
  page.append("</h1>\n<table>\n<tr><th>Name</th><th>Last modified</th><th>Size</th></tr>\n");
  if (url_path != "/") page.append("<tr><td><a href=\"../\">../</a></td><td></td><td></td></tr>\n");
  for (const DirectoryEntry& e : entries) {
    std::string shown = html_escape(e.name);
    std::string href = percent_encode(e.name);
    if (e.directory) {
      shown.push_back('/');
      href.push_back('/');
    }
    char when[32] = "";
    struct tm tm {};
    if (gmtime_r(&e.modified, &tm)) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    page.append("<tr><td><a href=\"").append(href).append("\">").append(shown);
    page.append("</a></td><td>").append(when).append("</td><td>");
    page.append(e.directory ? "-" : std::to_string(e.size)).append("</td></tr>\n");
  }
  page.append("</table>\n</body>\n</html>\n");
  return page;
}

}  // namespace squall::http
