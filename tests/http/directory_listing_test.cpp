// Directory listings: which entries, in what order, and the page's escaping.
#include "squall/http/directory_listing.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "support/process.h"

namespace squall::http {
namespace {

std::vector<std::string> names(const std::vector<DirectoryEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.directory ? e.name + "/" : e.name);
  return out;
}

std::vector<DirectoryEntry> read(const std::filesystem::path& dir, bool dotfiles) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  auto entries = read_directory(fd, dotfiles);
  ::close(fd);
  return entries;
}

TEST(ReadDirectory, DirectoriesFirstThenFilesEachByNameWithoutHiddenOnesOrOddFiles) {
  test::TempDir dir;
  dir.write("b.txt", "bb");
  dir.write("B.txt", "B");
  dir.write("a.txt", "a");
  dir.write("zdir/x", "x");
  dir.write("adir/x", "x");
  dir.write(".env", "s");
  dir.write(".git/config", "c");
  dir.write(".well-known/security.txt", "c");
  std::filesystem::create_symlink("a.txt", dir.path() / "link.txt");
  std::filesystem::create_symlink("missing", dir.path() / "broken");
  ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(names(read(dir.path(), false)),
            (std::vector<std::string>{".well-known/", "adir/", "zdir/", "B.txt", "a.txt", "b.txt",
                                      "link.txt"}));
  EXPECT_EQ(names(read(dir.path(), true)),
            (std::vector<std::string>{".git/", ".well-known/", "adir/", "zdir/", ".env", "B.txt",
                                      "a.txt", "b.txt", "link.txt"}));
  auto entries = read(dir.path(), false);
  EXPECT_EQ(entries[4].size, 1u);  // a.txt
  EXPECT_EQ(entries[5].size, 2u);  // b.txt
  EXPECT_GT(entries[5].modified, 0);
}

TEST(DirectoryListingHtml, NamesAreEscapedInTextAndEncodedInLinks) {
  std::vector<DirectoryEntry> entries{{"sub dir", true, 0, 0},
                                      {"<img src=x onerror=alert(1)>\"'&.txt", false, 12, 0}};
  std::string page = directory_listing_html("/a <b>/", entries);
  EXPECT_NE(page.find("<title>Index of /a &lt;b&gt;/</title>"), std::string::npos) << page;
  EXPECT_NE(page.find("<a href=\"../\">../</a>"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"sub%20dir/\">sub dir/</a>"), std::string::npos) << page;
  EXPECT_NE(page.find("<a href=\"%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E%22%27%26.txt\">"
                      "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;.txt</a>"),
            std::string::npos)
      << page;
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_NE(page.find("<td>1970-01-01 00:00</td><td>12</td>"), std::string::npos) << page;
  EXPECT_EQ(directory_listing_html("/", {}).find("../"), std::string::npos);
}

}  // namespace
}  // namespace squall::http
