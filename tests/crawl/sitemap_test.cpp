// Sitemaps: the protocol's three forms, gzip, the limits, and bad input, each fed whole and in
// random pieces.
#include "squall/crawl/sitemap.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

namespace squall {
namespace {

const std::string kNs = "xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"";

struct Read {
  std::vector<std::string> locs;
  SitemapKind kind = SitemapKind::Unknown;
  bool truncated = false;
  std::string error;
};

// Reads `file` whole, then in random pieces (fixed seed): both must agree.
Read read(const std::string& file, SitemapLimits limits = {}) {
  auto once = [&](bool split) {
    Read r;
    SitemapParser parser([&](std::string_view loc) { r.locs.emplace_back(loc); }, limits);
    if (!split) {
      parser.feed(file);
    } else {
      std::mt19937 rng(7);
      for (size_t at = 0; at < file.size();) {
        size_t n = std::min<size_t>(file.size() - at, 1 + rng() % 17);
        parser.feed(std::string_view(file).substr(at, n));
        at += n;
      }
    }
    parser.finish();
    r.kind = parser.kind();
    r.truncated = parser.truncated();
    r.error = parser.error();
    EXPECT_EQ(parser.urls(), r.locs.size());
    return r;
  };
  Read whole = once(false);
  Read split = once(true);
  EXPECT_EQ(whole.locs, split.locs);
  EXPECT_EQ(whole.kind, split.kind);
  EXPECT_EQ(whole.truncated, split.truncated);
  EXPECT_EQ(whole.error.empty(), split.error.empty()) << whole.error << " / " << split.error;
  return whole;
}

std::string gzip(const std::string& bytes) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, bytes.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string urlset(int n) {
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset " + kNs + ">\n";
  for (int i = 0; i < n; ++i)
    s += "<url><loc>http://h/" + std::to_string(i) + "</loc><priority>0.5</priority></url>\n";
  return s + "</urlset>\n";
}

TEST(Sitemap, ReadsTheLocsOfAUrlset) {
  Read r =
      read("<?xml version=\"1.0\"?>\n<urlset " + kNs +
           ">\n"
           "<url><loc>http://h/</loc><lastmod>2026-01-01</lastmod></url>\n"
           "<url><loc>\n  http://h/a?x=1&amp;y=2 \n</loc><changefreq>daily</changefreq></url>\n"
           "<url><loc><![CDATA[http://h/b]]></loc></url>\n"
           "<url><loc>   </loc></url>\n"
           "<url><image:image xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">"
           "<image:loc>http://h/i.png</image:loc></image:image></url>\n"
           "<!-- <url><loc>http://h/commented</loc></url> -->\n"
           "</urlset>");
  EXPECT_EQ(r.kind, SitemapKind::UrlSet);
  EXPECT_EQ(r.locs, (std::vector<std::string>{"http://h/", "http://h/a?x=1&y=2", "http://h/b"}));
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.truncated);
}

TEST(Sitemap, ReadsAnIndexAndFilesWithoutTheNamespace) {
  Read index = read("<sitemapindex " + kNs +
                    "><sitemap><loc>http://h/1.xml.gz</loc><lastmod>2026-01-01</lastmod></sitemap>"
                    "<sitemap><loc>http://h/2.xml</loc></sitemap></sitemapindex>");
  EXPECT_EQ(index.kind, SitemapKind::Index);
  EXPECT_EQ(index.locs, (std::vector<std::string>{"http://h/1.xml.gz", "http://h/2.xml"}));
  Read bare = read("<urlset><url><loc>http://h/x</loc></url></urlset>");
  EXPECT_EQ(bare.locs, (std::vector<std::string>{"http://h/x"}));
  // A <sitemap> entry in a urlset, or a <url> in an index, is not what the file lists.
  EXPECT_TRUE(read("<urlset><sitemap><loc>http://h/s</loc></sitemap></urlset>").locs.empty());
}

TEST(Sitemap, ReadsATextFileLineByLine) {
  Read r = read("\xEF\xBB\xBFhttp://h/one\r\n\r\n  http://h/two  \nhttp://h/three");
  EXPECT_EQ(r.kind, SitemapKind::Text);
  EXPECT_EQ(r.locs, (std::vector<std::string>{"http://h/one", "http://h/two", "http://h/three"}));
}

TEST(Sitemap, UndoesGzipByItsMagicWhateverTheNameSays) {
  Read r = read(gzip(urlset(3)));
  EXPECT_EQ(r.kind, SitemapKind::UrlSet);
  EXPECT_EQ(r.locs, (std::vector<std::string>{"http://h/0", "http://h/1", "http://h/2"}));
  Read cut = read(gzip(urlset(300)).substr(0, 200));
  EXPECT_NE(cut.error.find("gzip"), std::string::npos) << cut.error;
}

TEST(Sitemap, StopsAtTheProtocolsLimits) {
  Read r = read(urlset(50001));
  EXPECT_EQ(r.locs.size(), 50000u);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(read(urlset(50000)).truncated) << "exactly the limit is a whole file";
  // A gzip bomb: far more than max_bytes once inflated; reading stops at the limit.
  std::string bomb = urlset(1) + std::string(size_t{10} << 20, ' ');
  Read big = read(gzip(bomb), {.max_bytes = size_t{1} << 20});
  EXPECT_TRUE(big.truncated);
  EXPECT_EQ(big.locs.size(), 1u);
  Read small = read(urlset(10), {.max_urls = 3});
  EXPECT_EQ(small.locs.size(), 3u);
  EXPECT_TRUE(small.truncated);
}

TEST(Sitemap, BadInputStopsWithAnErrorAndKeepsWhatCameBefore) {
  Read cut = read("<urlset><url><loc>http://h/x</loc></url><url><loc>http://h/y");
  EXPECT_EQ(cut.locs, (std::vector<std::string>{"http://h/x"}));
  EXPECT_NE(cut.error.find("not XML"), std::string::npos) << cut.error;
  Read html = read("<!DOCTYPE html><html><body><a href=/x>x</a></body></html>");
  EXPECT_TRUE(html.locs.empty());
  EXPECT_NE(html.error.find("not a sitemap"), std::string::npos) << html.error;
  // Entities are never expanded: no billion laughs, no external files.
  Read laughs = read(
      "<?xml version=\"1.0\"?><!DOCTYPE urlset [<!ENTITY a \"aaaaaaaaaa\">"
      "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
      "<urlset><url><loc>http://h/&b;&x;</loc></url></urlset>");
  for (const std::string& loc : laughs.locs) EXPECT_EQ(loc.find("aaaa"), std::string::npos) << loc;
  for (const std::string& loc : laughs.locs) EXPECT_EQ(loc.find("root:"), std::string::npos) << loc;
  const std::string long_loc(SitemapParser::kMaxLocBytes + 1, 'x');
  EXPECT_EQ(read("<urlset><url><loc>" + long_loc +
                 "</loc></url><url><loc>http://h/ok</loc></url>"
                 "</urlset>")
                .locs,
            (std::vector<std::string>{"http://h/ok"}));
  EXPECT_TRUE(read("").locs.empty());
}

}  // namespace
}  // namespace squall
